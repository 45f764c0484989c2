"""The pure parts of question ranking: the analysis of a query, which
entities it names, and how well an item fits (no store)."""

from __future__ import annotations

from datetime import UTC, datetime

from kronograph.model import Entity, Fact
from kronograph.search.fit import KIND_BOOST, NAME_BOOST, RELATION_BOOST, entity_fit, fact_fit, kinds_of_labels
from kronograph.search.names import EXACT, FUZZY, PARTIAL, edit_distance, lookup, named_in
from kronograph.search.question import analyse, stem

NOW = datetime(2024, 1, 1, tzinfo=UTC)


def _entity(uuid: str, name: str, *labels: str, aliases: tuple[str, ...] = ()) -> Entity:
    return Entity(uuid=uuid, group_id="g", name=name, labels=labels, aliases=aliases, created_at=NOW)


def _fact(subject: str, relation: str, object_: str, **kw: object) -> Fact:
    return Fact(
        uuid=f"{subject}-{relation}-{object_}", group_id="g", subject=subject, subject_uuid=subject.lower(),
        relation=relation, object=object_, object_uuid=object_.lower(), fact=f"{subject} {relation} {object_}",
        valid_at=NOW, created_at=NOW, **kw,  # type: ignore[arg-type]
    )


def test_function_words_are_dropped_and_the_rest_kept_in_order() -> None:
    q = analyse("Who is Maya?")
    assert q.terms == "Maya" and q.words == ("maya",) and q.wants == {"person"}
    q = analyse("where does Sam live?")
    assert q.terms == "Sam live" and q.wants == {"place"}
    assert analyse("what's the name of Sam's company").terms == "name Sam company"


def test_a_query_of_function_words_only_is_searched_as_asked() -> None:
    q = analyse("who is it?")
    assert q.only_function_words and q.terms == "who is it?" and q.words == () and q.phrases == ()
    assert not analyse("").only_function_words and analyse("").terms == ""


def test_a_function_word_written_as_a_name_mid_sentence_is_a_name() -> None:
    assert analyse("when did May move to Lisbon").words == ("may", "move", "lisbon")
    assert analyse("May I ask where Will lives").words == ("ask", "will", "lives")
    assert analyse("where does will live").words == ("live",)


def test_answer_kinds() -> None:
    assert analyse("which company does Maya work for").wants == {"organization"}
    assert analyse("what city did Sam move to").wants == {"place"}
    assert analyse("what kind of company is Globex").wants == {"organization"}
    assert analyse("when did Sam join Initech").wants == {"time"}
    assert analyse("how long has Sam lived in Boston").wants == {"time"}
    assert analyse("what does Sam use").wants == frozenset()


def test_phrases_are_runs_of_content_words_longest_first() -> None:
    q = analyse("where does Priya Raman live")
    assert q.phrases[:2] == ("Priya Raman live", "Priya Raman")
    assert set(q.phrases) == {"Priya Raman live", "Priya Raman", "Raman live", "Priya", "Raman", "live"}
    assert "Sam Maya" not in analyse("is Sam with Maya").phrases  # "with" breaks the run


def test_stems_meet_relation_words() -> None:
    assert stem("lives") == stem("live") == stem("LIVES") == stem("lived")
    assert stem("works") == stem("working") == stem("worked") == "work"
    assert stem("moved") == stem("move")


def test_edit_distance_stops_early() -> None:
    assert edit_distance("pryia", "priya", 1) == 1  # a transposition
    assert edit_distance("mayaa", "maya", 1) == 1
    assert edit_distance("robret", "robert", 1) == 1
    assert edit_distance("olive", "live", 1) == 1
    assert edit_distance("boston", "denver", 2) == 3


def test_lookup_asks_for_phrases_words_and_prefixes() -> None:
    found = lookup(analyse("where does Priya Raman live"))
    assert "priya raman" in found.keys and "priya" in found.words and found.prefixes == ("pr", "ra", "li")
    assert not lookup(analyse("who is it"))


def test_named_in_exact_alias_partial_fuzzy() -> None:
    maya, priya = _entity("m", "Maya", "Person"), _entity("p", "Priya Raman", "Person")
    bob = _entity("r", "Robert Chen", "Person", aliases=("Bob",))
    olive = _entity("o", "Olive", "Person")
    everyone = [maya, priya, bob, olive]

    def named(query: str) -> dict[str, tuple[str, float]]:
        return {n.entity.name: (n.how, n.strength) for n in named_in(analyse(query), everyone)}

    assert named("who is Maya") == {"Maya": ("name", EXACT)}
    assert named("who is bob") == {"Robert Chen": ("alias", EXACT)}
    assert named("where does Raman live") == {"Priya Raman": ("partial", PARTIAL)}
    assert named("where does Pryia live") == {"Priya Raman": ("fuzzy", FUZZY)}
    # "live" is one edit from Olive, but the query names Sam already and "live" has no capital.
    assert "Olive" not in named("where does Maya live")
    assert named("who is it") == {}


def test_label_kinds_by_their_words() -> None:
    assert kinds_of_labels(["Location"]) == {"place"}
    assert kinds_of_labels(["HomeCity", "Company"]) == {"place", "organization"}
    assert kinds_of_labels(["Thing"]) == set()


def test_fact_fit_names_and_kinds() -> None:
    fact = _fact("Sam", "LIVES_IN", "Boston")
    labels = {"sam": ("Person",), "boston": ("Location",)}
    where = fact_fit(fact, analyse("where does Sam live"), {"sam": 1.0}, labels)
    assert where == NAME_BOOST + KIND_BOOST + RELATION_BOOST  # named, a place, and "live" names LIVES_IN
    assert fact_fit(fact, analyse("who is Sam"), {"sam": 1.0}, labels) == NAME_BOOST  # Boston is no person
    assert fact_fit(fact, analyse("where is Boston"), {}, labels) == KIND_BOOST  # LIVES_IN answers "where"
    sibling = _fact("Sam", "SIBLING_OF", "Maya")
    assert fact_fit(sibling, analyse("who is Maya"), {"maya": 1.0}, {"sam": ("Person",)}) == NAME_BOOST + KIND_BOOST
    uses = _fact("Sam", "USES", "Go")
    assert fact_fit(uses, analyse("what does Sam use"), {}, {}) == RELATION_BOOST  # the question's verb
    assert fact_fit(sibling, analyse("is Maya his sister"), {}, {}) == RELATION_BOOST  # of one family
    assert fact_fit(_fact("Sam", "WORKS_AT", "Initech"), analyse("what is Sam's job"), {}, {}) == RELATION_BOOST
    assert fact_fit(_fact("Sam", "LEFT", "Acme", event=True), analyse("when did Sam leave"), {}, {}) == KIND_BOOST


def test_entity_fit() -> None:
    boston = _entity("b", "Boston", "Location")
    assert entity_fit(boston, analyse("where does Sam live"), {}) == KIND_BOOST
    assert entity_fit(boston, analyse("who is Boston"), {"b": 1.0}) == NAME_BOOST


def test_a_long_query_asks_a_bounded_lookup_likeliest_names_first() -> None:
    text = " ".join(f"word{i} thing{i}" for i in range(200)) + " and then Maya Lopez called"
    found = lookup(analyse(text))
    assert len(found.keys) <= 48 and len(found.words) <= 24 and len(found.prefixes) <= 8
    assert found.keys[0] == "maya lopez called" and "maya lopez" in found.keys and found.words[:2] == ("maya", "lopez")
    assert found.prefixes[:2] == ("ma", "lo")
