"""Search through the public API: methods, rerankers, temporal modes, filters,
groups; on every backend (``memory_factory`` is parametrised over them)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence

import pytest

from kronograph import AsyncMemory, Memory, RelationType
from kronograph.errors import InvalidInputError, NotFoundError
from kronograph.search.graph import shortest_hops_async
from kronograph.search.recipes import RECIPES, Recipe
from kronograph.search.types import DateRange, SearchFilters
from kronograph.store import SQLiteStore, Store
from kronograph.time import parse_time

ON_CITUS = True  # the backend fixture adds the Citus cluster (tests/conftest.py)

ONE = RelationType(cardinality="many_to_one")
MakeMemory = Callable[..., Memory]


# The options of the shared memory: fixed clock, one employer and one home at a time.
PEOPLE: dict[str, object] = {
    "model": None, "relation_types": {"WORKS_AT": ONE, "LIVES_IN": ONE}, "clock": lambda: parse_time("2025-01-01"),
}


@pytest.fixture
def memory(memory_factory: MakeMemory) -> Memory:
    return people(memory_factory(**PEOPLE))


def people(m: Memory) -> Memory:
    """The shared small memory of these tests, in a fresh one from ``memory_factory``."""
    m.add_fact("g", "Alice", "WORKS_AT", "Fjord Biotech", fact="Alice works at Fjord Biotech as a chemist",
               valid_at="2020-01-01", episode_id="e1")
    m.add_fact("g", "Alice", "WORKS_AT", "Acme Robotics", fact="Alice works at Acme Robotics building robot arms",
               valid_at="2023-06-01", episode_id="e2")
    m.add_fact("g", "Alice", "LIVES_IN", "Oslo", fact="Alice lives in Oslo", valid_at="2019-01-01", episode_id="e3")
    m.add_fact("g", "Bob", "KNOWS", "Alice", fact="Bob knows Alice from school", valid_at="2010-01-01",
               episode_id="e4")
    m.add_fact("g", "Carol", "KNOWS", "Bob", fact="Carol knows Bob from the chess club", valid_at="2015-01-01",
               episode_id="e5")
    m.add_fact("g", "Dan", "LIKES", "Chess", fact="Dan likes chess", valid_at="2016-01-01", episode_id="e6")
    m.add_fact("other", "Alice", "WORKS_AT", "Secret Labs", fact="Alice works at Secret Labs", valid_at="2021-01-01")
    return m


def triples(hits: Sequence) -> list[str]:
    return [h.item.triple for h in hits]


def test_current_facts_by_default_and_what_the_mode_left_out(memory):
    results = memory.search("g", "where does Alice work", scopes=["facts"])
    assert "Alice WORKS_AT Acme Robotics" in triples(results.facts)[:2]
    assert "Alice WORKS_AT Fjord Biotech" not in triples(results.facts)
    assert results.left_out >= 1
    assert all(set(h.methods) <= {"bm25", "cosine", "names"} for h in results.facts)  # names: facts of Alice
    assert any({"bm25", "cosine"} <= set(h.methods) for h in results.facts)
    then = memory.search("g", "where does Alice work", scopes=["facts"], as_of="2021-01-01")
    assert "Alice WORKS_AT Fjord Biotech" in triples(then.facts)
    assert "Alice WORKS_AT Acme Robotics" not in triples(then.facts)
    every = memory.search("g", "Alice works", scopes=["facts"], include_retired=True)
    assert {"Alice WORKS_AT Fjord Biotech", "Alice WORKS_AT Acme Robotics"} <= set(triples(every.facts))


def test_known_at_answers_what_was_believed(memory):
    memory.add_fact("g", "Alice", "LIVES_IN", "Bergen", fact="Alice lives in Bergen", valid_at="2024-06-01")
    before = memory.search("g", "where does Alice live", scopes=["facts"], known_at="2024-12-31T23:00:00Z")
    # The clock is fixed, so everything was recorded "now": known_at before now sees nothing.
    assert triples(before.facts) == []
    now = memory.search("g", "where does Alice live", scopes=["facts"], known_at="2025-01-01")
    assert "Alice LIVES_IN Bergen" in triples(now.facts)


def test_groups_never_leak_and_several_can_be_searched(memory):
    assert "Alice WORKS_AT Secret Labs" not in triples(memory.search("g", "Alice works", scopes=["facts"]).facts)
    both = memory.search(["g", "other"], "Alice works", scopes=["facts"])
    assert {h.item.group_id for h in both.facts} == {"g", "other"}
    assert triples(memory.search("nobody", "Alice").facts) == []


def test_graph_search_and_node_distance_rank_by_real_hops(memory):
    results = memory.search("g", "knows", scopes=["facts", "entities"], recipe="hybrid_node_distance",
                            center_entity="Carol")
    # Carol -KNOWS- Bob (1 hop) before Bob -KNOWS- Alice (Bob is 1 hop, Alice 2)
    facts = triples(results.facts)
    assert facts.index("Carol KNOWS Bob") < facts.index("Bob KNOWS Alice")
    names = [h.item.name for h in results.entities]
    assert names[0] == "Carol" and names.index("Bob") < names.index("Alice")
    bfs = memory.search("g", "anything", scopes=["facts"], recipe="bfs", center_entity="Dan")
    assert triples(bfs.facts) == ["Dan LIKES Chess"] and bfs.facts[0].methods == ("bfs",)


def test_query_syntax_is_read_as_plain_words(memory):
    for query in ("Alice's (works) & | ! :* <-> 'Oslo", 'NEAR("Alice" Oslo) OR lives* -', "ALICE OSLO oslo"):
        found = triples(memory.search("g", query, scopes=["facts"], recipe="bm25").facts)
        assert "Alice LIVES_IN Oslo" in found, query


def test_filters(memory):
    memory.add_episode("g", "Erin Lee: I moved to Lisbon.", reference_time="2024-02-01", saga="s1", episode_id="p1")
    memory.add_episode("g", "Erin Lee: Lisbon is sunny.", reference_time="2024-03-01", episode_id="p2")
    works = memory.search("g", "Alice", scopes=["facts"], filters=SearchFilters(relations=("works at",)))
    assert triples(works.facts) == ["Alice WORKS_AT Acme Robotics"]
    dated = memory.search("g", "Alice", scopes=["facts"], include_retired=True,
                          filters=SearchFilters(valid_at=DateRange(end=parse_time("2019-12-31"))))
    assert {"Alice LIVES_IN Oslo", "Bob KNOWS Alice"} <= set(triples(dated.facts))
    assert all(h.item.valid_at <= parse_time("2019-12-31") for h in dated.facts)
    labelled = memory.search("g", "Lisbon", scopes=["entities"], filters=SearchFilters(labels=("Location",)))
    assert [h.item.name for h in labelled.entities] == ["Lisbon"]
    saga = memory.search("g", "Lisbon", scopes=["episodes"], filters=SearchFilters(sagas=("s1",)))
    assert [h.item.uuid for h in saga.episodes] == ["p1"]
    ranged = memory.search("g", "Lisbon", scopes=["episodes"],
                           filters=SearchFilters(reference_time=DateRange(start=parse_time("2024-02-15"))))
    assert [h.item.uuid for h in ranged.episodes] == ["p2"]


def test_episodes_under_as_of_never_come_from_later(memory):
    memory.add_episode("g", "Erin Lee: I moved to Lisbon.", reference_time="2024-02-01", episode_id="p1")
    memory.add_episode("g", "Erin Lee: I moved to Porto.", reference_time="2024-05-01", episode_id="p2")
    for recipe in RECIPES:
        found = memory.search("g", "Erin moved", scopes=["episodes"], recipe=recipe, as_of="2024-03-01",
                              center_entity="Erin Lee")
        assert all(h.item.uuid == "p1" for h in found.episodes), recipe
    assert {h.item.uuid for h in memory.search("g", "Erin moved", scopes=["episodes"]).episodes} == {"p1", "p2"}


def test_every_recipe_runs_and_cosine_finds_without_shared_words(memory):
    for name in RECIPES:
        results = memory.search("g", "Alice works", recipe=name, center_entity="Alice")
        assert isinstance(results.facts, list)
    cosine = memory.search("g", "roboticist building arms", scopes=["facts"], recipe="cosine")
    assert triples(cosine.facts)[0] == "Alice WORKS_AT Acme Robotics"


def test_a_cross_encoder_reorders(memory_factory: MakeMemory):
    class Backwards:
        name = "backwards"

        async def score(self, query: str, passages: Sequence[str]) -> list[float]:
            return [float(-len(p)) for p in passages]  # the shortest text wins

    m = people(memory_factory(**PEOPLE, cross_encoder=Backwards()))
    results = m.search("g", "Alice", scopes=["facts"], recipe="hybrid_cross_encoder")
    lengths = [len(h.item.fact) for h in results.facts]
    assert lengths == sorted(lengths)


def test_recipes_are_immutable():
    tuned = RECIPES["hybrid"].with_(rrf_k=5)
    assert RECIPES["hybrid"].rrf_k == 60 and tuned.rrf_k == 5
    with pytest.raises(TypeError):
        RECIPES["mine"] = tuned  # type: ignore[index]
    with pytest.raises(ValueError, match="unknown search method"):
        Recipe("x", methods=("grep",))  # type: ignore[arg-type]


def test_conflicts_return_the_whole_slot(memory):
    memory.add_fact("g", "Alice", "WORKS_AT", "Globex", fact="Alice works at Globex", valid_at="2024-06-01")
    (current,) = memory.facts("g", subject="Alice", relation="WORKS_AT")
    slot = memory.conflicts("g", current.uuid)
    expected = ["Alice WORKS_AT Fjord Biotech", "Alice WORKS_AT Acme Robotics", "Alice WORKS_AT Globex"]
    assert [f.triple for f in slot] == expected
    assert slot[0].invalid_at is not None and slot[-1].invalid_at is None and slot[0].episodes == ("e1",)
    with pytest.raises(NotFoundError):
        memory.conflicts("other", current.uuid)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"scopes": ["facts", "people"]}, "scopes"),
        ({"recipe": "fastest"}, "recipe"),
        ({"limit": 0}, "limit"),
        ({"as_of": "2024-01-01", "include_retired": True}, "as_of"),
        ({"query_vector": [0.1, 0.2]}, "query_vector"),
        ({"filters": {"relations": ["x"]}}, "filters"),
    ],
)
def test_bad_arguments(memory, kwargs, field):
    with pytest.raises(InvalidInputError) as caught:
        memory.search("g", "Alice", **kwargs)
    assert caught.value.field == field
    with pytest.raises(InvalidInputError):
        memory.search([], "Alice")
    with pytest.raises(InvalidInputError):
        memory.search("g", "  ")


class AxisEmbedder:
    """Three hand-made dimensions: the words 'red', 'green' and 'blue' count
    along one axis each, then the row is normalised."""

    name = "axis-3"
    dimension = 3

    async def embed(self, texts: Sequence[str]):
        import numpy as np

        rows = np.array(
            [[t.lower().split().count(w) for w in ("red", "green", "blue")] for t in texts], dtype=np.float32
        )
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)


def test_cosine_ranks_by_hand_computed_similarity(memory_factory: MakeMemory):
    m = memory_factory(model=None, embedder=AxisEmbedder())
    m.add_fact("g", "A", "IS", "X", fact="red red")  # (1, 0, 0)
    m.add_fact("g", "B", "IS", "X", fact="red green")  # (.707, .707, 0)
    m.add_fact("g", "C", "IS", "X", fact="green blue blue")  # (0, .447, .894)
    # query "red red green": (2,1,0)/sqrt5 = (.894, .447, 0)
    # cosines: A .894, B .949, C .2 -> B, A, C
    hits = m.search("g", "red red green", scopes=["facts"], recipe="cosine").facts
    assert [h.item.subject for h in hits] == ["B", "A", "C"]
    assert [round(h.score, 4) for h in hits] == [round(1 / 61, 4), round(1 / 62, 4), round(1 / 63, 4)]


def test_full_text_prefers_shorter_texts_and_bm25_rarer_words(memory_factory: MakeMemory):
    m = memory_factory(model=None)
    m.add_fact("g", "A", "NOTE", "X", fact="apple pie")
    m.add_fact("g", "B", "NOTE", "X", fact="apple pie with cream and a long story about nothing much")
    m.add_fact("g", "C", "NOTE", "X", fact="banana bread")
    m.add_fact("g", "D", "NOTE", "X", fact="banana split")
    m.add_fact("g", "E", "NOTE", "X", fact="banana cake")
    hits = m.search("g", "apple banana", scopes=["facts"], recipe="bm25").facts
    found = [h.item.subject for h in hits]
    assert sorted(found) == ["A", "B", "C", "D", "E"]  # each text holding a word of the query, once
    assert found.index("A") < found.index("B")  # the same words: the shorter text first
    if isinstance(m.store, SQLiteStore):
        # BM25's IDF: "apple" (2 of 5 texts) is rarer than "banana" (3 of 5), so any apple text outranks it.
        assert found[:2] == ["A", "B"] and set(found[2:]) == {"C", "D", "E"}
    else:
        # ts_rank has no IDF (docs/search.md, "On PostgreSQL"): a word counts the same whichever it is,
        # so only length sets the long B apart from A, C, D, E: it comes last.
        assert set(found[:4]) == {"A", "C", "D", "E"} and found[4] == "B"


def test_the_search_docs_run_as_written(backend: Callable[..., Store], monkeypatch: pytest.MonkeyPatch):
    import doctest
    from pathlib import Path

    import kronograph

    class OnBackend(Memory):
        """The docs' ``Memory(...)``, on the backend under test."""

        def __init__(self, store: object = ":memory:", **options: object) -> None:
            super().__init__(backend(), **options)  # type: ignore[arg-type]

    monkeypatch.setattr(kronograph, "Memory", OnBackend)
    doc = Path(__file__).resolve().parent.parent / "docs" / "search.md"
    failures, tried = doctest.testfile(str(doc), module_relative=False)
    assert tried > 20 and failures == 0


def test_many_retired_matches_do_not_crowd_out_the_current_one(memory_factory: MakeMemory):
    m = memory_factory(model=None, relation_types={"CEO_OF": RelationType(cardinality="one_to_many")})
    for i in range(120):
        m.add_fact("g", f"Person {i:03d}", "CEO_OF", "Acme", fact=f"Person {i:03d} is the CEO of Acme",
                   valid_at=f"2000-01-01T00:{i // 60:02d}:{i % 60:02d}Z")
    m.add_fact("g", "Zoe", "CEO_OF", "Acme", fact="Zoe is the CEO of Acme", valid_at="2020-01-01")
    for recipe in ("hybrid", "bm25", "hybrid_rrf", "hybrid_mmr"):
        results = m.search("g", "CEO of Acme", scopes=["facts"], recipe=recipe)
        assert triples(results.facts) == ["Zoe CEO_OF Acme"], recipe
        assert results.left_out == 120


def test_filters_apply_before_the_candidate_cut(memory_factory: MakeMemory):
    m = memory_factory(model=None)
    for i in range(80):
        m.add_fact("g", f"Person {i:02d}", "WORKS_AT", "Acme", fact=f"Person {i:02d} works at Acme")
    m.add_fact("g", "Zoe", "FOUNDED", "Acme", fact="Zoe founded Acme")
    results = m.search("g", "Acme", scopes=["facts"], filters=SearchFilters(relations=("FOUNDED",)))
    assert triples(results.facts) == ["Zoe FOUNDED Acme"]


def test_graph_search_from_a_hub_is_bounded(memory_factory: MakeMemory, request: pytest.FixtureRequest):
    m = memory_factory(model=None)
    # Past SQLite's 999 bound parameters there; PostgreSQL (and Citus) binds
    # arrays, so a smaller hub shows the same bound without a minute of single inserts.
    members = {"postgres": 400, "citus": 200}.get(request.node.callspec.params.get("backend"), 1000)
    for i in range(members):
        m.add_fact("g", f"Member {i:04d}", "MEMBER_OF", "Club")
    results = m.search("g", "members", scopes=["entities", "facts"], recipe="bfs", center_entity="Club", limit=5)
    assert results.entities[0].item.name == "Club" and len(results.facts) == 5


def test_removed_episodes_leave_search_at_once(memory_factory: MakeMemory):
    m = memory_factory(model=None)
    m.add_episode("g", "Ann Lee: I live in Lyon.", reference_time="2024-01-01", episode_id="a")
    assert triples(m.search("g", "Lyon", scopes=["facts"]).facts) == ["Ann Lee LIVES_IN Lyon"]
    m.remove_episode("g", "a")
    gone = m.search("g", "Lyon", scopes=["facts", "episodes"])
    assert gone.facts == [] and gone.episodes == [] and gone.left_out == 0


def test_entities_under_as_of_are_those_known_by_then(memory_factory: MakeMemory):
    m = memory_factory(model=None)
    m.add_episode("g", "Tom Hill: I live in Berlin.", reference_time="2024-01-08", episode_id="c1")
    m.add_episode("g", "Tom Hill: I moved to Paris.", reference_time="2024-05-08", episode_id="c2")
    assert "Paris" in [h.item.name for h in m.search("g", "Paris", scopes=["entities"]).entities]
    then = m.search("g", "Paris", scopes=["entities"], as_of="2024-03-01")
    assert "Paris" not in [h.item.name for h in then.entities]


@pytest.mark.parametrize(
    "make",
    [
        lambda: SearchFilters(labels="Person"),  # type: ignore[arg-type]
        lambda: SearchFilters(sagas=("",)),
        lambda: SearchFilters(valid_at="2024"),  # type: ignore[arg-type]
        lambda: DateRange(start="yesterday"),  # type: ignore[arg-type]
    ],
)
def test_bad_filters_are_refused_clearly(make):
    with pytest.raises(InvalidInputError):
        make()
    assert DateRange(start="2024-01-01").start == parse_time("2024-01-01")  # strings and naive times read as UTC


def test_episode_mentions_count_episodes_per_item(memory_factory: MakeMemory):
    m = memory_factory(model=None)
    m.add_fact("g", "Ann", "KNOWS", "Bob", fact="Ann knows Bob", episode_id="e1")
    m.add_fact("g", "Ann", "KNOWS", "Bob", fact="Ann knows Bob", episode_id="e2")  # the same fact, a second source
    m.add_fact("g", "Ann", "VISITED", "Rome", fact="Ann visited Rome", episode_id="e3")
    m.add_fact("g", "Bob", "LIKES", "Tea", fact="Bob likes tea", episode_id="e4")
    recipe = RECIPES["hybrid_episode_mentions"]
    entities = m.search("g", "Ann Bob Rome Tea", scopes=["entities"], recipe=recipe).entities
    # Ann: e1, e2, e3; Bob: e1, e2, e4; Rome: e3; Tea: e4 (each episode once, however many facts it states).
    assert sorted((h.item.name, h.score) for h in entities) == [("Ann", 3.0), ("Bob", 3.0), ("Rome", 1.0), ("Tea", 1.0)]
    facts = m.search("g", "Ann Bob Rome tea", scopes=["facts"], recipe=recipe).facts
    assert [(h.item.triple, h.score) for h in facts][0] == ("Ann KNOWS Bob", 2.0)
    assert sorted(h.score for h in facts) == [1.0, 1.0, 2.0]


def test_the_store_walks_the_graph_as_the_level_by_level_search_did(backend: Callable[..., Store]):
    """``Store.reachable`` (one recursive query) against the reference walk over
    ``Store.neighbours`` (a query per level): the same hops for random graphs
    with retired and expired facts, for seeds, depths and moments."""
    rng = random.Random(11)
    names = [f"N{i:02d}" for i in range(14)]
    moments = [None, *(parse_time(f"{year}-06-01") for year in (2012, 2016, 2020, 2024))]

    async def check() -> None:
        memory = AsyncMemory(backend(), model=None, relation_types={"LIVES_IN": ONE})
        try:
            for _ in range(40):
                a, b, c = rng.sample(names, 3)
                relation, start = rng.choice(["KNOWS", "KNOWS", "LIVES_IN"]), rng.randint(2010, 2024)
                end = f"{start + rng.randint(1, 6)}-01-01" if rng.random() < 0.3 else None
                await memory.add_fact("g", a, relation, b, valid_at=f"{start}-01-01", invalid_at=end)
                if relation == "LIVES_IN" and rng.random() < 0.4:  # a correction: the first record expires
                    await memory.add_fact("g", a, relation, c, valid_at=f"{start}-01-01")
            await memory.add_fact("h", names[0], "KNOWS", "Elsewhere")  # another group's fact: never walked
            expired = await memory.facts("g", include_retired=True, include_expired=True)
            assert any(f.expired_at is not None for f in expired) and any(f.invalid_at is not None for f in expired)
            store, uuids = memory.store, [e.uuid for e in await memory.entities("g")]
            for _ in range(12):
                seeds = rng.sample(uuids, rng.randint(1, 3)) + (["nobody"] if rng.random() < 0.3 else [])
                for depth in range(5):
                    for at in moments:

                        async def level(frontier: Sequence[str]) -> dict[str, set[str]]:
                            return await store.neighbours("g", frontier, at)

                        expected = await shortest_hops_async(seeds, level, depth=depth)
                        assert await store.reachable("g", seeds, depth, at) == expected, (seeds, depth, at)
        finally:
            await memory.aclose()

    asyncio.run(check())
