"""The block built from gathered material (``kronograph.context.block``),
pure: the compact episode lines, facts that share only a name with the
question, and the reply that follows a matching question."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kronograph.context import Material, build
from kronograph.context.block import NAME_ONLY, OTHER_VOICE, _pieces, compact_line, speaker_of
from kronograph.context.excerpt import excerpt, terms
from kronograph.context.render import Citations
from kronograph.context.tokens import EstimateCounter
from kronograph.model import Entity, Episode, Fact
from kronograph.search.types import Hit

T0 = datetime(2024, 5, 20, 10, 0, tzinfo=UTC)
COUNTER = EstimateCounter()


def episode(uuid: str, text: str, minutes: int, speaker: str = "Ann", saga: str | None = None) -> Episode:
    at = T0 + timedelta(minutes=minutes)
    return Episode(uuid=uuid, group_id="g", name=uuid, kind="message", content=text, reference_time=at,
                   created_at=at, speaker=speaker, saga=saga)


def fact(uuid: str, text: str, episode_id: str) -> Fact:
    return Fact(uuid=uuid, group_id="g", subject="Ann", subject_uuid="ann", relation="LIKES", object=uuid,
                object_uuid=f"o-{uuid}", fact=text, valid_at=T0, created_at=T0, episodes=(episode_id,))


def material(query: str, **kw: object) -> Material:
    return Material(query=query, moment=T0 + timedelta(days=1), as_of=None, known_at=None, **kw)  # type: ignore[arg-type]


def test_compact_line_puts_the_day_above_and_the_id_first():
    assert compact_line("[2024-05-20] Sam: I got engaged (ep e3)") == ("2024-05-20:", "[e3] Sam: I got engaged")
    assert compact_line("[2024-05-20] Sam: said (ep 1) then (ep e3)") == ("2024-05-20:", "[e3] Sam: said (ep 1) then")
    fact = "Sam works at Initech (since 2024-08-25)"
    assert compact_line(fact) == (None, f"- {fact}")


def test_the_default_layout_says_each_day_once_and_cites_each_episode():
    eps = [episode("e1", "We ran a charity race.", 0), episode("e2", "The race was for charity.", 5)]
    c = build(material("charity race", episodes=[Hit(e, 1.0 - i / 10, ("bm25",)) for i, e in enumerate(eps)]),
              counter=COUNTER, max_tokens=200, template=None)
    assert c.text == "Episodes:\n2024-05-20:\n[e1] Ann: We ran a charity race.\n[e2] Ann: The race was for charity."
    assert c.parts is not None and c.parts.episodes[0] == "[2024-05-20] Ann: We ran a charity race. (ep e1)"
    assert c.tokens == COUNTER.count(c.text) <= 200


def test_a_fact_or_summary_sharing_only_a_name_with_the_question_gives_way():
    """"Ann likes pottery" answers nothing about Ann's charity race: with room for one more line, the
    episode that says something about the race goes in, though search ranked the fact first."""
    race = episode("e1", "Last Saturday I ran a charity race for mental health and it was really rewarding.", 0)
    pottery = fact("f1", "Ann likes pottery", "e9")
    m = material("When did Ann run a charity race?", facts=[Hit(pottery, 1.0, ("bm25",))],
                 episodes=[Hit(race, 0.2, ("bm25",))])
    c = build(m, counter=COUNTER, max_tokens=40, template=None)
    assert "charity race" in c.text and "pottery" not in c.text
    # A fact that shares a word of the question besides the name keeps its value.
    racing = fact("f2", "Ann ran a charity race", "e1")
    c = build(material("When did Ann run a charity race?", facts=[Hit(racing, 1.0, ("bm25",))]),
              counter=COUNTER, max_tokens=100, template=None)
    assert "Ann ran a charity race" in c.text


def test_an_entity_summary_sharing_only_a_name_is_worth_a_tenth():
    ann = Entity(uuid="ann", group_id="g", name="Ann", labels=("Person",), created_at=T0)

    def value(query: str) -> float:
        m = material(query, entities=[Hit(ann, 1.0, ("names",))], summaries={"ann": "Ann likes pottery."})
        (piece,) = _pieces(m, Citations([]), terms(query), COUNTER)
        return piece.value

    assert value("When did Ann run a charity race?") == pytest.approx(NAME_ONLY * value("Who is Ann?"))
    assert value("Does Ann like pottery?") == value("Who is Ann?")  # another shared word: full value


def test_the_reply_to_a_matching_question_comes_with_it():
    """The question that matches ("which restaurant...?") brings the message after it in its thread,
    which shares no word with the query and would otherwise be left out as a weak likeness."""
    ask = episode("e1", "Which restaurant should we book for Friday?", 0, speaker="Ann", saga="t1")
    reply = episode("e2", "Chez Panisse, definitely. Their tasting menu is wonderful.", 1, speaker="Bo", saga="t1")
    m = material("restaurant booked for Friday", episodes=[Hit(ask, 1.0, ("bm25",)), Hit(reply, 0.1, ("context",))])
    assert "Chez Panisse" not in build(m, counter=COUNTER, max_tokens=300, template=None).text
    m.replies = {"e1": reply}
    c = build(m, counter=COUNTER, max_tokens=300, template=None)
    assert "[e2] Bo: Chez Panisse, definitely." in c.text
    m.episodes = m.episodes[:1]  # a reply search did not rank at all comes in too
    assert "Chez Panisse" in build(m, counter=COUNTER, max_tokens=300, template=None).text


def test_the_best_episodes_are_cut_only_past_twice_the_excerpt_length():
    """The best match keeps its other sentences (the answer need not share a word with the question);
    an episode far down the ranking is cut to the sentence that matches."""
    long = ("I ran a charity race for mental health last Saturday. " + "It was really rewarding and the crowd "
            "cheered the whole way. " * 3 + "My time was 48 minutes, a personal best for me!")
    assert 200 < len(long) <= 400
    best, low = episode("e1", long, 0), episode("e2", long.replace("Saturday", "Sunday"), 5)
    hits = [Hit(best, 1.0, ("bm25",))] + [Hit(episode(f"x{i}", f"Note {i}.", 9), 0.05, ("bm25",)) for i in range(30)]
    c = build(material("charity race", episodes=[*hits, Hit(low, 0.01, ("bm25",))]), counter=COUNTER,
              max_tokens=1000, template=None)
    lines = {p.split(" (ep ")[-1]: p for p in c.parts.episodes} if c.parts else {}
    assert "48 minutes" in lines["e1)"] and "48 minutes" not in lines["e2)"] and "charity race" in lines["e2)"]


def test_a_question_naming_a_speaker_weighs_their_own_words_more():
    """"What race did Ann run?": Ann's own message says what she did; Bo's that names her ("go, Ann!") says
    less and is worth OTHER_VOICE of it. A question naming no speaker, or someone who said nothing, weighs
    both alike; the speaker of a message stored as "Name: text" is read from its text."""
    mine = episode("e1", "I ran the city race in May.", 0, speaker="Ann")
    theirs = episode("e2", "Go, Ann! The city race looked great.", 1, speaker="Bo")

    def values(query: str) -> list[float]:
        m = material(query, episodes=[Hit(mine, 1.0, ("bm25",)), Hit(theirs, 1.0, ("bm25",))])
        return [p.value for p in _pieces(m, Citations([]), terms(query), COUNTER)]

    base = values("What city race was run?")
    assert values("What city race did Ann run?") == pytest.approx([base[0], OTHER_VOICE * base[1]])
    assert values("What city race did Cy run?") == pytest.approx(base)
    plain = episode("e3", "Bo Lee: I ran too.", 2, speaker=None)  # type: ignore[arg-type]
    assert speaker_of(plain) == "Bo Lee" and speaker_of(mine) == "Ann"
    assert speaker_of(episode("e4", "note: buy milk", 3, speaker=None)) is None  # type: ignore[arg-type]


def test_an_excerpt_keeps_the_speaker_in_front_and_matches_the_rest():
    """A message stored as "Sam: text" keeps its speaker in front, and the speaker's name (in every line
    Sam said) does not make the greeting a sentence that matches "where did Sam go on a road trip?"."""
    text = ("Sam: Hey Evan, good to hear from you! Since we last talked, lots has been happening! Last weekend I "
            "took my family on a road trip to Jasper. It was amazing, the glaciers and the lakes were gorgeous "
            "and we stopped at every lookout on the parkway.")
    assert excerpt(text, terms("Where did Sam go on a road trip?")) == (
        "Sam: Last weekend I took my family on a road trip to Jasper.")
