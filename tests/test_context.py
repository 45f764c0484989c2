"""``memory.context`` through the public API, on every backend
(``memory_factory`` is parametrised over them): the budget, the temporal
modes, what a fact replaced, templates, determinism, group isolation."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import pytest

from kronograph import AsyncMemory, Context, ContextParts, Memory, RelationType
from kronograph.context.tokens import EstimateCounter
from kronograph.errors import InvalidInputError
from kronograph.time import parse_time

from .conftest import StepClock

ONE = RelationType(cardinality="many_to_one")
MakeMemory = Callable[..., Memory]
OPTIONS: dict[str, object] = {"model": None, "relation_types": {"WORKS_AT": ONE, "LIVES_IN": ONE}}


def sam(m: Memory, clock: StepClock) -> dict[str, object]:
    """Sam's small history, written a day apart in transaction time; returns the moments between."""
    clock.set(parse_time("2024-06-01"))
    m.configure("g", user_name="Sam")
    m.add_fact("g", "Sam", "WORKS_AT", "Acme", fact="Sam works at Acme", valid_at="2022-01-10", episode_id="e1",
               subject_labels=["Person"])
    clock.tick(days=1)
    m.add_fact("g", "Sam", "LIVES_IN", "Chicago", fact="Sam lived in Chicago", valid_at="2023-11-02",
               invalid_at="2024-07-01", episode_id="e2")
    clock.tick(days=1)
    m.add_episode("g", "Maya and I got engaged last weekend! We are planning a small wedding in Lisbon.",
                  speaker="Sam", role="user", reference_time="2024-05-20T10:00:00Z", episode_id="e3")
    learned = clock.tick(days=1)
    clock.set(parse_time("2024-09-01"))
    m.add_fact("g", "Sam", "WORKS_AT", "Initech", fact="Sam works at Initech", valid_at="2024-08-25",
               episode_id="e4")
    clock.tick(days=1)
    m.add_fact("other", "Sam", "WORKS_AT", "Globex Secret", fact="Sam works at Globex Secret",
               valid_at="2024-01-01")
    clock.set(parse_time("2026-01-01"))
    return {"before_initech": learned}


@pytest.fixture
def memory(memory_factory: MakeMemory, clock: StepClock) -> Memory:
    m = memory_factory(**OPTIONS)
    sam(m, clock)
    return m


def test_the_block_says_what_holds_what_ended_and_what_it_replaced(memory: Memory):
    c = memory.context("g", "where does Sam work and live?")
    assert isinstance(c, Context) and c.text == str(c)
    assert "Sam works at Initech (since 2024-08-25; replaced: Sam works at Acme, 2022-01-10 to 2024-08-25)" in c.text
    assert "Sam lived in Chicago (2023-11-02 to 2024-07-01)" in c.text  # retired, with its end date
    assert c.text.index("Initech") < c.text.index("Chicago")  # what holds first
    assert c.user is not None and c.user.name == "Sam" and c.text.startswith("User: Sam")
    assert c.tokens <= c.max_tokens == 1000 and c.counter in ("o200k_base", "estimate")
    cited = {e for h in c.facts for e in h.item.episodes}
    assert "e4" in cited and "[ep e4]" in c.text  # sources by episode id
    # The Acme fact is told inside Initech's line, not twice.
    assert c.text.count("Sam works at Acme") == 1


def test_episodes_are_dated_excerpts_with_their_speaker(memory: Memory):
    c = memory.context("g", "when did Sam get engaged to Maya?")
    assert "2024-05-20:\n[e3] Sam: Maya and I got engaged last weekend!" in c.text  # each day once, above its lines
    assert c.parts is not None and any(
        line.startswith("[2024-05-20] Sam: Maya and I got engaged last weekend!") for line in c.parts.episodes
    )
    assert any(h.item.uuid == "e3" for h in c.episodes)
    assert "(ep e3)" in " ".join(c.parts.episodes)  # the parts keep day and citation on each line


def test_the_reply_after_a_matching_question_comes_in_but_not_before_as_of(memory_factory: MakeMemory):
    """The answer is the message after the question that matches: it comes with it (same thread), though
    it shares no word with the query; never a reply from later than ``as_of``, nor from another thread."""
    m = memory_factory(model=None)
    said = [("Ann", "Which restaurant should we book for Friday?", "t1"), ("Bo", "Chez Panisse, definitely.", "t1"),
            ("Ann", "Which restaurant do you like for Friday lunch?", "t2"), ("Cy", "The Blue Door downtown.", "t3")]
    for i, (who, text, thread) in enumerate(said):
        m.add_episode("g", text, speaker=who, saga=thread, episode_id=f"m{i}",
                      reference_time=f"2024-05-20T10:0{i}:00Z")
    for i in range(12):
        m.add_episode("g", f"Unrelated note {i} about gardening tomatoes.", speaker="Ann", saga="t9",
                      episode_id=f"n{i}", reference_time=f"2024-05-2{1 + i % 5}T10:00:00Z")
    c = m.context("g", "which restaurant for Friday?")
    assert "[m1] Bo: Chez Panisse, definitely." in c.text and "Blue Door" not in c.text
    assert "Chez Panisse" not in m.context("g", "which restaurant for Friday?", as_of="2024-05-20T10:00:30Z").text


def test_a_period_the_question_names_brings_its_episodes(memory_factory: MakeMemory, monkeypatch):
    """"What did Ann bake in July 2023?": an episode of July 2023 sharing the question's words is weighed,
    though many from other months match its words better (even its month) and search alone leaves it
    out; it comes in when the block has room, and never from after ``as_of``."""
    import kronograph._context as context_module

    m = memory_factory(model=None)
    for i in range(30):
        m.add_episode("g", f"Ann will bake for the July 2023 fair: bake, bake, bake (batch {i}).", speaker="Ann",
                      episode_id=f"b{i}", reference_time=f"2023-0{1 + i % 6}-1{i % 9}T10:00:00Z")
    m.add_episode("g", "Ann made a lemon tart, her best bake so far.", speaker="Bo", episode_id="july",
                  reference_time="2023-07-14T10:00:00Z")
    question = "What did Ann bake in July 2023?"

    def weighed(c: Context) -> dict[str, tuple[str, ...]]:
        return {h.item.uuid: h.methods for h in [*c.episodes, *c.left_out] if hasattr(h.item, "content")}

    small = m.context("g", question, max_tokens=150)
    july = m.episode("g", "july").uuid
    assert weighed(small)[july] == ("period",)
    assert "[july]" in m.context("g", question, max_tokens=2000).text
    assert july not in weighed(m.context("g", question, max_tokens=150, as_of="2023-07-01"))
    monkeypatch.setattr(context_module, "named_period", lambda text: None)  # search alone
    assert july not in weighed(m.context("g", question, max_tokens=150))


def test_as_of_and_known_at_hold_nothing_later(memory: Memory, clock: StepClock):
    c = memory.context("g", "where does Sam work and live?", as_of="2023-01-01")
    assert "Acme (since 2022-01-10)" in c.text
    for later in ("Initech", "Chicago", "engaged", "2024"):
        assert later not in c.text
    c = memory.context("g", "where does Sam work and live?", as_of="2024-03-01")
    assert "Sam lived in Chicago (since 2023-11-02)" in c.text  # its end was still to come
    assert "2024-07-01" not in c.text
    assert "engaged" not in c.text  # told of on 2024-05-20
    # Believed before Initech was learned: Acme still held, nothing of Initech.
    k = parse_time("2024-06-04")
    c = memory.context("g", "where does Sam work?", known_at=k)
    assert "Initech" not in c.text and "Sam works at Acme (since 2022-01-10)" in c.text
    for hit in c.facts:
        assert hit.item.created_at <= k
    for hit in c.episodes:
        assert hit.item.created_at <= k
    assert c.as_of is None and c.known_at == k and "as known at 2024-06-04" in c.text


def test_the_budget_is_never_exceeded(memory: Memory):
    for i in range(30):
        memory.add_fact("g", "Sam", "VISITED", f"City number {i}", fact=f"Sam visited the lovely city number {i}",
                        valid_at=f"2023-{1 + i % 12:02d}-{1 + i % 27:02d}")
    calls: list[str] = []

    def words(text: str) -> int:
        calls.append(text)
        return len(text.split())

    for budget in (50, 73, 120, 200, 400, 1000):
        for counter in (None, words, EstimateCounter()):
            c = memory.context("g", "which cities did Sam visit, and where does he work?", max_tokens=budget,
                               token_counter=counter)
            measure = counter.count if isinstance(counter, EstimateCounter) else counter
            if measure is not None:
                assert c.tokens == measure(c.text)
            assert c.tokens <= budget
            if budget >= 400:
                assert len(c.facts) >= 5
        assert memory.context("g", "Sam", max_tokens=budget, token_counter=words).counter == "words"
    assert calls
    small = memory.context("g", "which cities did Sam visit?", max_tokens=60)
    big = memory.context("g", "which cities did Sam visit?", max_tokens=1000)
    assert small.left_out and len(big.facts) > len(small.facts)


def test_templates_receive_the_same_parts(memory: Memory):
    seen: list[ContextParts] = []

    def xml(parts: ContextParts) -> str:
        seen.append(parts)
        return "<facts>\n" + "\n".join(parts.facts) + "\n</facts>"

    plain = memory.context("g", "where does Sam work?")
    c = memory.context("g", "where does Sam work?", template=xml)
    assert seen and seen[-1].facts == plain.parts.facts and seen[-1].episodes == plain.parts.episodes
    assert seen[-1].user is not None and seen[-1].user.name == "Sam"
    assert c.text.startswith("<facts>") and all(line in c.text for line in seen[-1].facts)
    f = memory.context("g", "where does Sam work?", template="Q: {query}\nUSER: {user}\n{facts_text}\n{episodes_text}")
    assert f.text.startswith("Q: where does Sam work?\nUSER: Sam")
    assert all(line in f.text for line in plain.parts.facts)
    with pytest.raises(InvalidInputError, match="template"):
        memory.context("g", "Sam", template="{nothing}")
    with pytest.raises(InvalidInputError, match="template"):
        memory.context("g", "Sam", template=lambda parts: 3)  # type: ignore[arg-type,return-value]
    with pytest.raises(InvalidInputError, match="template"):
        memory.context("g", "Sam", template="x" * 3000, max_tokens=50)


def test_same_inputs_same_block(memory: Memory):
    a = memory.context("g", "Sam's work and Maya", max_tokens=150)
    b = memory.context("g", "Sam's work and Maya", max_tokens=150)
    assert a.text == b.text and a.tokens == b.tokens
    assert [h.item.uuid for h in a.facts] == [h.item.uuid for h in b.facts]


def test_another_groups_facts_never_appear(memory: Memory):
    for query in ("where does Sam work?", "Globex Secret", None):
        c = memory.context("g", query)
        assert "Globex" not in c.text
        assert all(h.item.group_id == "g" for h in [*c.facts, *c.entities, *c.episodes])
    assert "Globex Secret" in memory.context("other", "where does Sam work?").text


def test_messages_build_the_query_the_latest_first(memory: Memory):
    c = memory.context("g", messages=[
        {"role": "user", "content": "I had a long week"},
        {"role": "assistant", "content": "Sorry to hear that."},
        {"role": "user", "name": "Sam", "content": "Tell me about the engagement"},
    ])
    assert c.query.startswith("Tell me about the engagement") and "Sam" in c.query
    assert "engaged" in c.text


def test_no_query_tells_of_the_user_and_the_latest(memory: Memory):
    c = memory.context("g")
    assert c.query == "" and c.text.startswith("User: Sam")
    assert "Initech" in c.text  # the latest fact learned


def test_scopes_narrow_the_block(memory: Memory):
    c = memory.context("g", "Sam engaged Maya", scopes=["episodes"])
    assert not c.facts and not c.entities and c.user is None and c.episodes
    c = memory.context("g", "Sam works", scopes=("facts",))
    assert c.facts and not c.episodes and "Episodes:" not in c.text


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"max_tokens": 10}, "max_tokens"),
        ({"max_tokens": 10**6}, "max_tokens"),
        ({"max_tokens": 100.0}, "max_tokens"),
        ({"max_tokens": True}, "max_tokens"),
        ({"scopes": "facts"}, "scopes"),
        ({"scopes": ["communities"]}, "scopes"),
        ({"scopes": []}, "scopes"),
        ({"query": "x" * 10_001}, "query"),
        ({"query": "  "}, "query"),
        ({"query": "a\x00b"}, "query"),
        ({"as_of": "yesterday-ish"}, "as_of"),
        ({"known_at": 12}, "known_at"),
        ({"template": 3}, "template"),
        ({"token_counter": 3}, "token_counter"),
        ({"token_counter": "p50k"}, "token_counter"),
        ({"token_counter": lambda text: -1}, "token_counter"),
        ({"messages": [{"role": "user"}]}, "messages[0].content"),
        ({"messages": "hello"}, "messages"),
    ],
)
def test_bad_arguments_name_the_parameter(memory: Memory, kwargs: dict[str, object], field: str):
    kwargs.setdefault("query", "Sam")
    with pytest.raises(InvalidInputError) as info:
        memory.context("g", **kwargs)  # type: ignore[arg-type]
    assert info.value.field == field  # type: ignore[attr-defined]


def test_sync_and_async_give_the_same_block(tmp_path):
    clock = StepClock()

    async def run() -> str:
        async with AsyncMemory(tmp_path / "a.db", clock=clock, **OPTIONS) as m:  # type: ignore[arg-type]
            await m.add_fact("g", "Sam", "WORKS_AT", "Initech", valid_at="2024-08-25", episode_id="e1")
            return (await m.context("g", "where does Sam work?", max_tokens=100)).text

    text = asyncio.run(run())
    with Memory(tmp_path / "a.db", clock=clock, **OPTIONS) as m:  # type: ignore[arg-type]
        assert m.context("g", "where does Sam work?", max_tokens=100).text == text
    assert re.search(r"Sam works at Initech \(since 2024-08-25\) \[ep e1\]", text)


def test_an_episode_sharing_no_word_with_the_question_and_weakly_found_stays_out(memory_factory: MakeMemory):
    m = memory_factory(model=None)
    m.add_messages("g", [
        {"role": "user", "content": "hi, I am Sam. I work at Acme as a designer.", "created_at": "2024-01-10"},
        {"role": "assistant", "content": "Nice to meet you, Sam! Go is a solid choice for backend services.",
         "created_at": "2024-01-10T00:01:00Z"},
        {"role": "user", "content": "my girlfriend Maya lives in Lisbon.", "created_at": "2024-03-02"},
        {"role": "user", "content": "I live in Chicago.", "created_at": "2024-03-02T00:01:00Z"},
    ], thread="t", user_name="Sam Carter")
    text = m.context("g", "who is Maya", max_tokens=300).text
    assert "Maya lives in Lisbon" in text
    assert "Go is a solid choice" not in text and "I live in Chicago." not in text
    assert "Go is a solid choice" in m.context("g", "which language for backend services?").text


@pytest.mark.parametrize(
    "template",
    ["{user.__class__}", "{facts[0]}", "{user:>999999999}", "{query!r:^50000000}", "{", "{0}", "{}"],
)
def test_a_format_template_takes_plain_fields_only(memory: Memory, template: str):
    with pytest.raises(InvalidInputError, match="template"):
        memory.context("g", "Sam", template=template)
