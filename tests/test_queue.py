"""The durable ingestion queue, on every backend: accepted episodes are in the
store before the call returns, each group's are ingested in the order
accepted, failures stay visible on the episode, an interrupted episode is
resumed (not repeated) and nothing is ingested twice."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from kronograph import AsyncMemory, Memory
from kronograph.errors import InvalidInputError, NotFoundError
from kronograph.ingest.ownership import new_owner
from kronograph.model import EpisodeStatus
from kronograph.store import Store

from .conftest import StepClock
from .ingest_helpers import ScriptedProvider
from .test_ingest import client

T = datetime(2024, 1, 1, tzinfo=UTC)
FIRMS = ["Acme", "Globex", "Initech", "Umbrella"]


def test_an_accepted_episode_is_queued_then_ingested(memory_factory: Callable[..., Memory]) -> None:
    memory = memory_factory(model=None)
    queued = memory.enqueue_episode("g", "Alice works at Acme.", episode_id="e1", reference_time=T)
    assert queued.status == "queued" and queued.uuid == "e1"
    assert memory.episode("g", "e1").status == "queued"
    assert memory.facts("g") == []  # not ingested yet
    assert memory.queue_stats().queued == 1
    assert memory.process_queue() == 1
    assert memory.episode("g", "e1").status == "complete"
    assert [f.triple for f in memory.facts("g")] == ["Alice WORKS_AT Acme"]
    stats = memory.queue_stats()
    assert (stats.queued, stats.complete, stats.failed) == (0, 1, 0)
    assert memory.process_queue() == 0


def test_enqueue_is_idempotent_by_id_and_refuses_other_content(memory_factory: Callable[..., Memory]) -> None:
    memory = memory_factory(model=None)
    memory.enqueue_episode("g", "Alice works at Acme.", episode_id="e1", reference_time=T)
    assert memory.enqueue_episode("g", "Alice works at Acme.", episode_id="e1", reference_time=T).status == "queued"
    with pytest.raises(InvalidInputError, match="episode_id"):
        memory.enqueue_episode("g", "Bob works at Acme.", episode_id="e1")
    with pytest.raises(InvalidInputError, match="kind"):
        memory.enqueue_episode("g", "x", kind="poem")
    memory.process_queue()
    again = memory.enqueue_episode("g", "Alice works at Acme.", episode_id="e1", reference_time=T)
    assert again.status == "complete"  # the same episode, already in: nothing queued again
    assert memory.process_queue() == 0
    assert len(memory.facts("g")) == 1
    with pytest.raises(NotFoundError):
        memory.episode("g", "nope")
    with pytest.raises(NotFoundError):
        memory.episode("other", "e1")  # groups are separate


def test_each_group_is_taken_in_the_order_accepted(backend: Callable[..., Store]) -> None:
    async def run() -> None:
        memory = AsyncMemory(backend(), model=None)
        try:
            # Accepted in this order, though their reference times run the other way.
            for i, day in enumerate([5, 3, 1]):
                await memory.enqueue_episode("g", f"Ann works at Firm{i}.", episode_id=f"e{i}",
                                             reference_time=datetime(2024, 1, day, tzinfo=UTC))
            await memory.enqueue_episode("h", "Bo works at Acme.", episode_id="h0")
            store = memory.store
            assert await store.queued_groups() == ["g", "h"]
            me, now = new_owner(), datetime.now(UTC)
            until = now + timedelta(seconds=60)
            first = await store.claim_queued("g", me, until, now)
            assert first is not None and first.episode.uuid == "e0" and first.episode.status == "received"
            assert (first.episode.held_by, first.episode.held_until) == (me, until)
            # While e0 is in progress (its lease live), g's next episode waits; h goes on.
            assert await store.claim_queued("g", new_owner(), until, now) is None
            other = await store.claim_queued("h", me, until, now)
            assert other is not None and other.episode.uuid == "h0"
            assert await store.claim_queued("h", me, until, now) is None  # nothing left there
            assert (await store.episode_counts()) == {"queued": 2, "received": 2}
        finally:
            await memory.aclose()

    asyncio.run(run())


def test_an_interrupted_episode_is_resumed_first_and_nothing_twice(
    memory_factory: Callable[..., Memory], clock: StepClock
) -> None:
    memory = memory_factory(model=None)
    for i, firm in enumerate(FIRMS):
        memory.enqueue_episode("g", f"Ann works at {firm}.", episode_id=f"e{i}",
                               reference_time=datetime(2024, 1, 1 + i, tzinfo=UTC))

    async def crash() -> None:  # a worker took e0 and died before finishing it: its lease has run out
        long_ago = clock() - timedelta(minutes=10)
        await memory.store.claim_queued("g", new_owner(), long_ago + timedelta(seconds=60), long_ago)

    memory._portal.call(crash())
    assert memory.episode("g", "e0").status == "received"
    assert memory.process_queue() == 3  # e1..e3, after e0 was resumed
    episodes = memory.episodes("g")
    assert [e.status for e in episodes] == ["complete"] * 4
    facts = memory.facts("g", include_retired=True)
    assert sorted(f.object for f in facts) == sorted(FIRMS)
    assert all(len(f.episodes) == 1 for f in facts)
    # Ingested in the order accepted: each later job retired the one before.
    assert [f.object for f in memory.facts("g")] == ["Umbrella"]


def test_a_failure_stays_on_the_episode_and_is_counted(memory_factory: Callable[..., Memory]) -> None:
    def broken(system: str, user: str) -> object:
        return ValueError("the extractor broke")  # unexpected: quarantined

    provider = ScriptedProvider(Extraction=broken)
    memory = memory_factory(model=client(provider))
    memory.enqueue_episode("g", "Alice works at Acme.", episode_id="bad")
    memory.enqueue_episode("g", '{"name": "x"}', kind="json", episode_id="fine")
    assert memory.process_queue() == 2
    bad = memory.episode("g", "bad")
    assert bad.status == EpisodeStatus.QUARANTINED and "the extractor broke" in (bad.error or "")
    assert memory.episode("g", "fine").status == "complete"
    assert memory.queue_stats().failed == 1


def test_the_worker_waits_for_more_and_stops_cleanly(backend: Callable[..., Store]) -> None:
    async def run() -> None:
        memory = AsyncMemory(backend(), model=None)
        try:
            worker = asyncio.create_task(memory.process_queue(concurrency=2, wait=True, poll=0.05))
            for g in ("a", "b", "c"):
                for i in range(3):
                    await memory.enqueue_episode(g, f"P{i} works at Q{i}.", episode_id=f"{g}{i}")
            for _ in range(400):
                if (await memory.queue_stats()).complete == 9:
                    break
                await asyncio.sleep(0.025)
            assert (await memory.queue_stats()).complete == 9
            worker.cancel()
            with pytest.raises(asyncio.CancelledError):
                await worker
        finally:
            await memory.aclose()

    asyncio.run(run())


def test_an_accepted_episode_survives_closing_the_memory(tmp_path) -> None:
    db = tmp_path / "q.db"
    with Memory(db, model=None) as memory:
        memory.enqueue_episode("g", "Alice works at Acme.", episode_id="e1")
    with Memory(db, model=None, store_raw_content=False) as memory:
        assert memory.episode("g", "e1").status == "queued"
        assert memory.process_queue() == 1
        assert [f.triple for f in memory.facts("g")] == ["Alice WORKS_AT Acme"]


def test_raw_content_suppressed_waits_outside_the_row(tmp_path) -> None:
    with Memory(tmp_path / "q.db", model=None, store_raw_content=False) as memory:
        memory.enqueue_episode("g", "Alice works at Acme.", episode_id="e1")
        assert memory.episode("g", "e1").content is None
        memory.process_queue()
        done = memory.episode("g", "e1")
        assert done.status == "complete" and done.content is None
        assert [f.triple for f in memory.facts("g")] == ["Alice WORKS_AT Acme"]
