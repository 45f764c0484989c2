"""Sagas on every backend: a running summary with an ingestion cursor and
event-time coverage, saved together; extractive with no model, by the model
in bounded calls (a long episode in parts) when one is given; no episode is
ever skipped, even when episodes arrive during a run or commit out of clock
order; a removal makes it stale and the next run rebuilds it."""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kronograph import AsyncMemory, InvalidInputError, Memory, NotFoundError, metrics
from kronograph.errors import ConcurrentWriteError, ModelError
from kronograph.llm.client import ModelClient
from kronograph.maintain import saga_text
from kronograph.maintain.sagas import CALL_CHARS, summarize_saga
from kronograph.store.plan import Plan, SagaWrite
from kronograph.store.records import SagaState

from .conftest import StepClock
from .ingest_helpers import ScriptedProvider

G = "g"
S = "standup"
MakeMemory = Callable[..., Memory]
NAMES = re.compile(r'<episode time="[^"]*" name="([^"]*)"')


def _nothing(system: str, user: str) -> dict[str, Any]:
    return {"reasoning": "scripted", "entities": [], "facts": []}


class SagaModel(ScriptedProvider):
    """A model whose summary lists the episodes it was shown: ``seen`` counts,
    per episode name, the calls that answered (a failed call counts nothing)."""

    def __init__(self) -> None:
        super().__init__(SagaAnswer=self._answer, Extraction=_nothing)
        self.seen: Counter[str] = Counter()
        self.fail_on: set[int] = set()  # numbers (1-based) of the saga calls that fail

    def _answer(self, system: str, user: str) -> Any:
        if self.count("SagaAnswer") in self.fail_on:
            return ModelError("scripted failure")
        names = NAMES.findall(user)
        parts = re.findall(r'part="(\d+)/(\d+)"', user)
        if not parts or parts[0][0] == parts[0][1]:  # a part counts once its episode's last part is in
            self.seen.update(names)
        previous = re.search(r"<summary_so_far>\n(.*)\n</summary_so_far>", user, re.S)
        before = "" if previous is None or previous.group(1) == "(none yet)" else previous.group(1) + " "
        return {"summary": before + " ".join(names)}


def _client(provider: ScriptedProvider) -> ModelClient:
    return ModelClient(provider, base_delay=0.001, max_delay=0.002, max_attempts=1)  # type: ignore[arg-type]


def _add(memory: Memory, n: int, *, start: int = 0, saga: str = S, group: str = G, size: int = 0) -> None:
    for i in range(start, start + n):
        text = f"Ann told Bob that release {i} ships on day {i} in Lisbon."
        memory.add_episode(group, text + " more words" * (size // 11), saga=saga, episode_id=f"e{i:03}",
                           name=f"e{i:03}", reference_time=datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=i))


# -- the extractive summary ----------------------------------------------------------


def test_watermarks_coverage_and_a_summary_that_goes_on(memory_factory: MakeMemory, clock: StepClock) -> None:
    memory = memory_factory(model=None)
    assert memory.sagas(G) == []
    memory.add_episode(G, "Ann: the Lisbon launch moved to March 3.", saga=S, reference_time="2024-02-01",
                       episode_id="a")
    clock.tick()
    memory.add_episode(G, "Bob: Initech signed the 40,000 euro contract.", saga=S, reference_time="2024-01-15",
                       episode_id="b")  # earlier in event time, later in arrival
    clock.tick()
    memory.add_episode(G, "Not in the saga at all, about Paris.", episode_id="x")
    [info] = memory.sagas(G)
    assert (info.saga, info.episodes, info.lag, info.version) == (S, 2, 2, 0)
    assert memory.saga_summary(G, S).version == 0  # nothing built yet, nothing built by reading

    first = memory.summarize_saga(G, S)
    stored = {e.uuid: e for e in memory.episodes(G)}
    assert (first.version, first.episodes, first.added, first.method) == (1, 2, 2, "extractive")
    assert first.cursor == (stored["b"].created_at, "b")
    assert first.covered_from == datetime(2024, 1, 15, tzinfo=UTC)
    assert first.covered_to == datetime(2024, 2, 1, tzinfo=UTC)
    assert first.summary == "Ann: the Lisbon launch moved to March 3. Bob: Initech signed the 40,000 euro contract."
    assert "Paris" not in first.summary and first.complete and first.model_calls == 0
    assert memory.saga_summary(G, S) == first.model_copy(update={"added": 0})
    assert memory.sagas(G)[0].lag == 0

    again = memory.summarize_saga(G, S)  # nothing new: nothing written
    assert (again.version, again.added) == (1, 0)
    clock.tick()
    memory.add_episode(G, "Carol: the Berlin office opens on 2024-05-06.", saga=S, reference_time="2023-12-01",
                       episode_id="c")
    assert memory.sagas(G)[0].lag == 1
    third = memory.summarize_saga(G, S)
    assert (third.version, third.episodes, third.added) == (2, 3, 1)
    assert third.cursor is not None and third.cursor[1] == "c"
    assert third.covered_from == datetime(2023, 12, 1, tzinfo=UTC)
    assert third.summary is not None and third.summary.startswith("Ann: the Lisbon")
    assert "Berlin office" in third.summary


def test_the_extractive_summary_is_bounded_and_keeps_the_informative_sentences() -> None:
    pool: list[saga_text.Item] = []
    for i in range(60):
        items = [[saga_text.score(s), i, f"e{i:03}", n, s] for n, s in enumerate(saga_text.sentences(
            f"ok thanks. Release {i} of Atlas ships to Lisbon on 2024-03-{i % 28 + 1:02}. see you"))]
        pool = saga_text.fold(pool, items)
    text = saga_text.render(pool)
    assert text is not None and len(text) <= saga_text.SUMMARY_CHARS
    assert "ok thanks" not in text and "see you" not in text  # too short to say anything
    assert [item[1] for item in pool] == sorted(item[1] for item in pool)  # saga order
    assert saga_text.split_parts("word " * 2000, 4000) and all(
        len(p) <= 4000 for p in saga_text.split_parts("word " * 2000, 4000)
    )
    assert "".join(saga_text.split_parts("x" * 9000, 4000)) == "x" * 9000


def test_an_episode_without_its_text_is_included_and_counted(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None, store_raw_content=False)
    _add(memory, 3)
    built = memory.summarize_saga(G, S)
    assert (built.episodes, built.without_text, built.summary) == (3, 3, None)
    assert built.covered_from is None and built.cursor is not None and built.cursor[1] == "e002"
    assert memory.sagas(G)[0].lag == 0


# -- by model ------------------------------------------------------------------------


def test_model_calls_are_batched_by_size(memory_factory: MakeMemory) -> None:
    metrics.reset()
    provider = SagaModel()
    memory = memory_factory(model=provider)
    _add(memory, 10, size=900)  # about 950 characters each: four to a call
    built = memory.summarize_saga(G, S)
    assert built.method == "model" and built.episodes == 10 and built.complete
    assert built.model_calls == provider.count("SagaAnswer") == math.ceil(10 / (CALL_CHARS // 960))
    assert set(provider.seen.values()) == {1} and len(provider.seen) == 10
    for name, user in provider.calls:
        if name == "SagaAnswer":
            episodes = user.split("<episodes>\n", 1)[1]
            assert len(episodes) <= CALL_CHARS + 120 * len(NAMES.findall(user))  # the text, and its tags
    assert built.summary == " ".join(f"e{i:03}" for i in range(10))
    calls = metrics.snapshot()["kronograph_model_calls_total"]
    assert calls['{cached="false",purpose="saga"}'] == provider.count("SagaAnswer")
    fewer = memory.summarize_saga(G, S)
    assert fewer.model_calls == 0 and fewer.version == built.version  # nothing new: no call


def test_a_long_episode_is_summarised_in_parts_never_skipped(memory_factory: MakeMemory) -> None:
    provider = SagaModel()
    memory = memory_factory(model=provider)
    _add(memory, 1)
    memory.add_episode(G, "Minutes. " + "The board discussed the Lisbon budget at length. " * 200, saga=S,
                       episode_id="long", name="long")  # about 9,800 characters: three parts
    _add(memory, 1, start=1)
    built = memory.summarize_saga(G, S, max_calls=2)  # an episode begun is finished, past the limit
    prompts = [user for name, user in provider.calls if name == "SagaAnswer"]
    assert [re.findall(r'part="(\d)/(\d)"', p) for p in prompts] == [[], [("1", "3")], [("2", "3")], [("3", "3")]]
    assert built.episodes == 2 and not built.complete and built.cursor is not None and built.cursor[1] == "long"
    rest = memory.summarize_saga(G, S)
    assert rest.episodes == 3 and rest.complete and provider.seen == Counter({"e000": 1, "long": 1, "e001": 1})


def test_a_model_failure_stops_the_cursor_at_the_last_episode_included(memory_factory: MakeMemory) -> None:
    provider = SagaModel()
    memory = memory_factory(model=provider)
    _add(memory, 10, size=900)
    provider.fail_on = {2}
    stopped = memory.summarize_saga(G, S)
    assert stopped.error and "scripted failure" in stopped.error and not stopped.complete
    assert stopped.episodes == 4 and stopped.cursor is not None and stopped.cursor[1] == "e003"
    assert memory.saga_summary(G, S).summary == "e000 e001 e002 e003"
    assert memory.sagas(G)[0].lag == 6
    provider.fail_on = set()
    rest = memory.summarize_saga(G, S)
    assert rest.episodes == 10 and rest.added == 6 and rest.error is None
    assert provider.seen == Counter({f"e{i:03}": 1 for i in range(10)})

    provider.fail_on = {provider.count("SagaAnswer") + 1}  # the first call of a saga fails: nothing is written
    _add(memory, 1, start=50, saga="other")
    first = memory.summarize_saga(G, "other")
    assert first.version == 0 and first.error and memory.saga_summary(G, "other").version == 0


# -- no episode is skipped ---------------------------------------------------------------


def test_episodes_added_during_a_run_are_never_skipped(backend: Callable[..., Any]) -> None:
    """The issue's test: episodes arrive while the model is being asked, and
    there are more of them than a page or a call holds; repeated runs include
    every one exactly once."""
    provider = SagaModel()
    added = 0

    async def scenario() -> None:
        nonlocal added
        memory = AsyncMemory(backend(threaded=True), model=None)
        async with memory:
            answer = provider.complete

            async def complete(**kwargs: Any) -> Any:
                nonlocal added
                if added < 40:  # three more episodes land while the model thinks
                    for _ in range(3):
                        await memory.add_episode(G, f"Late note {added}: Lisbon is on track.", saga=S,
                                                 episode_id=f"n{added:03}", name=f"n{added:03}")
                        added += 1
                return await answer(**kwargs)

            provider.complete = complete  # type: ignore[method-assign]
            for i in range(25):
                await memory.add_episode(G, f"Note {i}: the Lisbon launch needs {i} more testers.", saga=S,
                                         episode_id=f"e{i:03}", name=f"e{i:03}")
            model = _client(provider)
            runs = 0
            while (await memory.sagas(G))[0].lag:
                await summarize_saga(memory.store, G, S, clock=memory._now, model=model, call_chars=120, page=4,
                                     max_calls=5)
                runs += 1
                assert runs < 50
            final = await memory.saga_summary(G, S)
            assert final.episodes == 25 + added == len(await memory.episodes(G))
            assert runs > 1 and added > 30

    asyncio.run(scenario())
    every = {f"e{i:03}" for i in range(25)} | {f"n{i:03}" for i in range(added)}
    assert provider.seen == Counter(dict.fromkeys(every, 1))  # each once, none skipped


class _Arriving:
    """A store through which more episodes arrive before each page is read."""

    def __init__(self, memory: AsyncMemory, more: int) -> None:
        self._memory, self._more, self.added = memory, more, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._memory.store, name)

    async def saga_episodes(self, group_id: str, saga: str, **kwargs: Any) -> Any:
        for _ in range(min(2, self._more - self.added)):
            await self._memory.add_episode(group_id, f"Arrival {self.added} about Porto and 7 crates.", saga=saga)
            self.added += 1
        return await self._memory.store.saga_episodes(group_id, saga, **kwargs)


def test_episodes_added_between_pages_are_never_skipped(backend: Callable[..., Any]) -> None:
    async def scenario() -> None:
        memory = AsyncMemory(backend(threaded=True), model=None)
        async with memory:
            for i in range(23):
                await memory.add_episode(G, f"Note {i}: ship {i} crates to Lisbon.", saga=S)
            store = _Arriving(memory, 30)
            total_added = 0
            for _ in range(30):
                built = await summarize_saga(store, G, S, clock=memory._now, page=5)  # type: ignore[arg-type]
                total_added += built.added
                if not (await memory.sagas(G))[0].lag:
                    break
            final = await memory.saga_summary(G, S)
            assert store.added == 30 and final.episodes == total_added == 53 == len(await memory.episodes(G))

    asyncio.run(scenario())


def test_an_episode_stamped_by_a_clock_that_went_back_is_not_passed(memory_factory: MakeMemory,
                                                                   clock: StepClock) -> None:
    """Two writers' clocks disagree (or one is set back): the store stamps a
    saga's new episode past the saga's latest, so it cannot land behind the cursor."""
    memory = memory_factory(model=None)
    memory.add_episode(G, "First: the Lisbon office opens in May.", saga=S, episode_id="m")
    assert memory.summarize_saga(G, S).episodes == 1
    clock.set(clock.now - timedelta(hours=5))  # a writer whose clock is behind
    memory.add_episode(G, "Second: Porto follows in June.", saga=S, episode_id="a")  # a smaller uuid too
    memory.add_episode(G, "Third: Faro in July.", saga=S, episode_id="0")
    stamps = {e.uuid: e.created_at for e in memory.episodes(G)}
    assert stamps["m"] < stamps["a"] < stamps["0"]
    assert memory.sagas(G)[0].lag == 2
    built = memory.summarize_saga(G, S)
    assert built.added == 2 and built.cursor == (stamps["0"], "0") and "Faro" in (built.summary or "")
    memory.add_episode(G, "Not in a saga: stamped by the clock as it is.", episode_id="plain")
    assert {e.uuid: e.created_at for e in memory.episodes(G)}["plain"] == clock.now


# -- removal, concurrency, groups, errors ------------------------------------------------


def test_removing_an_included_episode_makes_the_summary_stale_and_a_rebuild_drops_it(
    memory_factory: MakeMemory,
) -> None:
    memory = memory_factory(model=None)
    memory.add_episode(G, "Ann: the secret code name is Bluebird for 2024.", saga=S, episode_id="secret")
    memory.add_episode(G, "Bob: the Lisbon launch is on March 3.", saga=S, episode_id="launch")
    built = memory.summarize_saga(G, S)
    assert "Bluebird" in (built.summary or "")
    memory.add_episode(G, "Carol: not summarised yet, about Porto shipments.", saga=S, episode_id="later")
    memory.remove_episode(G, "later")  # past the cursor: the summary never drew on it
    assert not memory.saga_summary(G, S).stale

    memory.remove_episode(G, "secret")
    stale = memory.saga_summary(G, S)
    assert stale.stale and stale.version > built.version and "Bluebird" in (stale.summary or "")
    assert memory.sagas(G)[0].stale and [s.saga for s in memory.reconcile(G).saga_lag] == [S]
    rebuilt = memory.summarize_saga(G, S)
    assert not rebuilt.stale and rebuilt.episodes == 1 and rebuilt.added == 1
    assert "Bluebird" not in (rebuilt.summary or "") and "Lisbon" in (rebuilt.summary or "")
    assert memory.reconcile(G).saga_lag == []


def test_a_write_from_a_version_that_moved_is_refused(backend: Callable[..., Any]) -> None:
    memory = Memory(backend(), model=None)
    try:
        memory.add_episode(G, "Ann: the Lisbon launch is on March 3.", saga=S)
        built = memory.summarize_saga(G, S)
        row = SagaState(saga=S, summary="outdated", version=2, cursor_at=None, cursor_uuid=None, covered_from=None,
                        covered_to=None, episodes=0, without_text=0, method="extractive", state=None,
                        built_at=built.built_at, stale=0)
        plan = Plan(group_id=G, now=built.built_at or datetime.now(UTC), expected_revision=None)
        plan.saga_summary = SagaWrite(row, expected_version=0)  # it is at 1
        with pytest.raises(ConcurrentWriteError):
            memory._call(memory.store.apply(plan))
        assert memory.saga_summary(G, S) == built.model_copy(update={"added": 0})
    finally:
        memory.close()


def test_sagas_are_kept_apart_by_group(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    memory.add_episode("one", "Ann: the Lisbon launch is on March 3.", saga=S)
    memory.add_episode("two", "Zed: the Oslo depot closes in 2025 for good.", saga=S)
    built = memory.summarize_saga("one", S)
    assert built.episodes == 1 and "Oslo" not in (built.summary or "")
    assert memory.saga_summary("two", S).version == 0 and memory.sagas("two")[0].lag == 1
    assert "Lisbon" not in (memory.summarize_saga("two", S).summary or "")
    with pytest.raises(NotFoundError, match="no saga 'standup' in group 'three'"):
        memory.saga_summary("three", S)


def test_bad_input_is_refused_clearly(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    memory.add_episode(G, "Ann: hello there, Lisbon team.", saga=S)
    with pytest.raises(NotFoundError, match="no saga 'nope'"):
        memory.summarize_saga(G, "nope")
    with pytest.raises(InvalidInputError, match="saga"):
        memory.summarize_saga(G, "  ")
    with pytest.raises(InvalidInputError, match="max_calls"):
        memory.summarize_saga(G, S, max_calls=0)


def test_reconcile_reports_saga_lag(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _add(memory, 3)
    report = memory.reconcile(G)
    assert report.not_checked == () and report.counts["saga_lag"] == 1
    [lag] = report.saga_lag
    assert (lag.saga, lag.episodes, lag.lag, lag.stale) == (S, 3, 3, False)
    memory.summarize_saga(G, S)
    assert memory.reconcile(G).saga_lag == [] and memory.reconcile(G).counts["saga_lag"] == 0


def test_a_v5_memory_gains_sagas(tmp_path: Any) -> None:
    import sqlite3

    from kronograph.store.sqlite.schema import MIGRATIONS

    path = tmp_path / "v5.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT)")
    for number, name, apply in MIGRATIONS[:5]:
        apply(conn)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, 'now')", (number, name))
    conn.execute("INSERT INTO groups VALUES ('g', 0)")
    for uuid, at in (("b", 5), ("a", 5), ("c", 1)):  # stamped before stamping: ties and disorder, kept as they are
        conn.execute(
            "INSERT INTO episodes(group_id, uuid, name, kind, content, reference_time, created_at, saga, status)"
            " VALUES ('g', ?, ?, 'message', ?, 0, ?, 'standup', 'complete')",
            (uuid, uuid, f"Episode {uuid} says Lisbon ships crate {uuid} soon.", at),
        )
    conn.commit()
    conn.close()
    with Memory(path, model=None, resume=False) as memory:
        built = memory.summarize_saga(G, S)
        assert built.episodes == 3 and built.cursor is not None and built.cursor[1] == "b"
        assert (built.summary or "").index("crate c") < (built.summary or "").index("crate a")
        memory.add_episode(G, "Episode d says Porto ships crate d soon.", saga=S, episode_id="d")
        assert memory.summarize_saga(G, S).added == 1
