"""The durable ingestion queue, on every backend: accepted episodes are in the
store before the call returns, each group's are ingested in the order
accepted, failures stay visible on the episode, an interrupted episode is
resumed (not repeated) and nothing is ingested twice."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from kronograph import AsyncMemory, Memory
from kronograph.embed.hashing import HashingEmbedder
from kronograph.errors import InvalidInputError, NotFoundError
from kronograph.ingest.ownership import new_owner
from kronograph.model import Episode, EpisodeStatus
from kronograph.store import SQLiteStore, Store

from . import pg_server
from .conftest import StepClock
from .ingest_helpers import ScriptedProvider
from .test_ingest import client

ON_CITUS = True  # the backend fixture adds the Citus cluster (tests/conftest.py)

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
            # Once e0's lease has run out (its worker died), g's next claim takes e0 over, not e1.
            other = new_owner()
            taken = await store.claim_queued("g", other, until + timedelta(seconds=60), until)
            assert taken is not None and taken.episode.uuid == "e0" and taken.episode.held_by == other
            assert await store.claim_queued("g", me, until, until) is None  # held again, by the new owner
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


# -- leases: who holds an unfinished episode, and until when --------------------------------
SHARED = ["sqlite-file", "postgres"]


@pytest.fixture(params=SHARED)
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Store]:
    """Store objects on one database, as two processes would open it (one per call)."""
    if request.param == "sqlite-file":
        return lambda: SQLiteStore(tmp_path / "shared.db")
    from kronograph.store.postgres import PostgresStore

    url = pg_server.databases().fresh()
    return lambda: PostgresStore(url, min_size=0, max_size=4)


class GatedEmbedder(HashingEmbedder):
    """The built-in embedder, made to wait at its first call while ``gate`` is shut:
    a worker caught mid-episode, holding its lease."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.waiting = asyncio.Event()

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.waiting.set()
        await self.gate.wait()
        return await super().embed(texts)


def _reused_owner() -> str:
    """The owner id a dead worker left: this very host, and a pid that is alive
    (ours' parent) as a reused pid would be; only the token tells it apart."""
    return f"{socket.gethostname()}:{os.getppid()}:0123456789ab"


async def _held(memory: AsyncMemory, episode_id: str) -> Episode:
    found = [e for e in await memory.held_episodes() if e.uuid == episode_id]
    assert len(found) == 1, found
    return found[0]


def test_a_dead_owners_lease_is_taken_over_once_it_expires_never_before(
    shared: Callable[[], Store], clock: StepClock
) -> None:
    async def run() -> None:
        memory = AsyncMemory(shared(), model=None, clock=clock)
        try:
            for i, firm in enumerate(FIRMS[:2]):
                await memory.enqueue_episode("g", f"Ann works at {firm}.", episode_id=f"e{i}",
                                             reference_time=datetime(2024, 1, 1 + i, tzinfo=UTC))
            # A worker on this host, whose pid is now someone else's, took e0 and died.
            dead = _reused_owner()
            until = clock() + timedelta(seconds=60)
            assert (await memory.store.claim_queued("g", dead, until, clock())) is not None
            held = await _held(memory, "e0")
            assert (held.held_by, held.held_until, held.status) == (dead, until, "received")
            assert (await memory.episode("g", "e0")).held_by == dead  # what REST and MCP answer with
            # Before its lease runs out, nobody takes it: not resume, not the queue, not add_episode.
            clock.tick(seconds=59)
            assert await memory.resume() == []
            assert await memory.process_queue() == 0  # and e1 waits behind it, in order
            busy = await memory.add_episode("g", "Ann works at Acme.", episode_id="e0",
                                            reference_time=datetime(2024, 1, 1, tzinfo=UTC))
            assert busy.status == "received" and dead in (busy.error or "") and not busy.ok
            assert (await memory.episode("g", "e1")).status == "queued"
            # Past it, the queue's worker takes e0 over (from where it was), then e1.
            clock.tick(seconds=1)
            assert await memory.held_episodes() == []
            assert await memory.process_queue() == 1  # e1; e0 was resumed first
            episodes = await memory.episodes("g")
            assert [(e.status, e.held_by, e.held_until) for e in episodes] == [("complete", None, None)] * 2
            assert [f.object for f in await memory.facts("g")] == ["Globex"]
        finally:
            await memory.aclose()

    asyncio.run(run())


def test_a_dead_owners_interrupted_episode_is_resumed_once_its_lease_expires(
    shared: Callable[[], Store], clock: StepClock
) -> None:
    async def run() -> None:
        first = AsyncMemory(shared(), model=None, clock=clock)
        gated = GatedEmbedder()
        second = AsyncMemory(shared(), model=None, clock=clock, embedder=gated, resume=False)
        try:
            await first.add_episode("g", "Bo lives in Oslo.", episode_id="warm")  # the store records its embedder
            # The second worker starts an episode and is stopped dead in it (no heartbeat ever again).
            task = asyncio.create_task(second.add_episode("g", "Ann works at Acme.", episode_id="e0"))
            await gated.waiting.wait()
            task.cancel()  # as a kill would: nothing lets its lease go
            second._leases._held.clear()
            await second._leases.close()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await first.store.claim_episode("g", "e0", ["received", "extracting"], second._leases.owner,
                                            clock() + timedelta(seconds=60), clock())  # (the kill came first)
            assert (await _held(first, "e0")).held_by == second._leases.owner
            assert await first.resume() == []  # held
            clock.tick(seconds=61)
            resumed = await first.resume()
            assert [(r.episode_id, r.status) for r in resumed] == [("e0", "complete")]
            assert [f.triple for f in await first.facts("g") if f.subject == "Ann"] == ["Ann WORKS_AT Acme"]
        finally:
            gated.gate.set()
            await first.aclose()
            await second.aclose()

    asyncio.run(run())


def test_a_live_owners_lease_is_never_taken_over(shared: Callable[[], Store], clock: StepClock) -> None:
    """However long a live worker takes (here, five lease lengths by the clock),
    its heartbeat keeps its episodes: add_episode, resume and the queue of
    another worker all leave them alone; a bulk batch holds all of its own."""

    async def run() -> None:
        gated = GatedEmbedder()
        live = AsyncMemory(shared(), model=None, clock=clock, embedder=gated)
        other = AsyncMemory(shared(), model=None, clock=clock)
        try:
            await other.enqueue_episode("g", "Cy works at Umbrella.", episode_id="later")
            batch = [{"content": f"Ann works at {firm}.", "episode_id": f"e{i}",
                      "reference_time": datetime(2024, 1, 1 + i, tzinfo=UTC)} for i, firm in enumerate(FIRMS[:3])]
            task = asyncio.create_task(live.add_episodes("g", batch))
            await gated.waiting.wait()  # mid-batch: e0 is being embedded, e1 and e2 wait their turn
            for _ in range(5):
                clock.tick(seconds=50)
                assert await live._leases.beat() == 3  # the heartbeat's work, on the test's clock
                for i in range(3):
                    held = await _held(other, f"e{i}")
                    assert held.held_by == live._leases.owner and held.held_until == clock() + timedelta(seconds=60)
                    busy = await other.add_episode("g", **batch[i])
                    assert not busy.ok and live._leases.owner in (busy.error or "")
                assert await other.resume() == []
                assert await other.process_queue() == 0  # the group's queue waits behind the live batch
            gated.gate.set()
            results = await task
            assert [r.status for r in results] == ["complete"] * 3
            assert await other.held_episodes() == []
            assert await other.process_queue() == 1
            facts = await other.facts("g", include_retired=True)
            assert sorted(f.object for f in facts) == ["Acme", "Globex", "Initech", "Umbrella"]
            assert all(len(f.episodes) == 1 for f in facts)  # nothing ingested twice
        finally:
            gated.gate.set()
            await live.aclose()
            await other.aclose()

    asyncio.run(run())


def test_the_heartbeat_renews_by_itself_and_stops_on_close(shared: Callable[[], Store]) -> None:
    async def run() -> None:
        gated = GatedEmbedder()
        live = AsyncMemory(shared(), model=None, embedder=gated, lease_seconds=0.3)
        try:
            task = asyncio.create_task(live.add_episode("g", "Ann works at Acme.", episode_id="e0"))
            await gated.waiting.wait()
            first = (await _held(live, "e0")).held_until
            assert first is not None
            for _ in range(200):  # a renewal every 0.1 s: wait for one, however slow this machine is
                await asyncio.sleep(0.05)
                if (await _held(live, "e0")).held_until > first:  # type: ignore[operator]
                    break
            assert (await _held(live, "e0")).held_until > first  # type: ignore[operator]
            beating = live._leases._task
            assert beating is not None and not beating.done()
        finally:
            await live.aclose()  # mid-episode: the heartbeat stops with the memory
        assert beating.done()
        gated.gate.set()  # the episode goes on, into a closed store: it stops there
        with contextlib.suppress(Exception):
            await task

    asyncio.run(run())


def test_a_lapsed_worker_cannot_commit_over_the_one_that_took_its_episode_over(
    shared: Callable[[], Store], clock: StepClock
) -> None:
    async def run() -> None:
        gated = GatedEmbedder()
        slow = AsyncMemory(shared(), model=None, clock=clock, embedder=gated)
        other = AsyncMemory(shared(), model=None, clock=clock)
        try:
            task = asyncio.create_task(slow.add_episode("g", "Ann works at Acme.", episode_id="e0"))
            await gated.waiting.wait()
            clock.tick(seconds=61)  # the slow worker's heartbeat missed its lease altogether
            taken = await other._leases.claim("g", "e0", ["extracting", "received"])
            assert taken is not None and taken.episode.held_by == other._leases.owner
            gated.gate.set()
            late = await task
            assert not late.ok and other._leases.owner in (late.error or "")
            assert await other.facts("g") == []  # the slow worker wrote nothing
            assert (await other.episode("g", "e0")).held_by == other._leases.owner
        finally:
            gated.gate.set()
            await slow.aclose()
            await other.aclose()

    asyncio.run(run())


def test_a_bad_lease_length_is_refused() -> None:
    for bad in (0, -1, "60", True):
        with pytest.raises(InvalidInputError, match="lease_seconds"):
            AsyncMemory(model=None, lease_seconds=bad)  # type: ignore[arg-type]


def test_the_cli_shows_who_holds_an_episode_and_until_when(tmp_path: Path) -> None:
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from kronograph.cli import app

    db = tmp_path / "held.db"
    dead = _reused_owner()
    until = datetime.now(UTC) + timedelta(hours=1)  # the CLI reads the system clock
    with Memory(db, model=None) as memory:
        memory.enqueue_episode("team", "Ann works at Acme.", episode_id="m42")
        memory._portal.call(memory.store.claim_queued("team", dead, until, datetime.now(UTC)))
    runner = CliRunner()
    env = {"COLUMNS": "250"}
    shown = runner.invoke(app, ["episodes", "team", "--db", str(db)], env=env)
    assert shown.exit_code == 0, shown.output
    assert "held by" in shown.output and dead in shown.output and until.strftime("%Y-%m-%d %H:%M") in shown.output
    listed = runner.invoke(app, ["episodes", "team", "--json", "--db", str(db)], env=env)
    assert [(e["held_by"], e["status"]) for e in json.loads(listed.output)] == [(dead, "received")]
    resumed = runner.invoke(app, ["resume", "--offline", "--db", str(db)], env=env)
    assert resumed.exit_code == 0, resumed.output
    assert "nothing to resume" not in resumed.output
    assert "1 episode held by another worker" in resumed.output
    assert "team / m42: received, held by " + dead in resumed.output
    with Memory(db, model=None, resume=False) as memory:
        assert memory.episode("team", "m42").status == "received"  # left to its holder


def test_a_batch_that_fails_while_registering_lets_its_leases_go(
    monkeypatch: pytest.MonkeyPatch, clock: StepClock
) -> None:
    from kronograph.errors import StoreError
    from kronograph.ingest.pipeline import Pipeline

    real = Pipeline.admit
    calls = 0

    async def flaky(self: Pipeline, inp: object, **kw: object) -> object:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise StoreError("the database went away")
        return await real(self, inp, **kw)  # type: ignore[arg-type]

    batch = [{"content": f"Ann works at {firm}.", "episode_id": f"e{i}"} for i, firm in enumerate(FIRMS[:3])]
    with Memory(model=None, clock=clock) as memory:
        monkeypatch.setattr(Pipeline, "admit", flaky)
        with pytest.raises(StoreError):
            memory.add_episodes("g", batch)
        assert memory.held_episodes() == []  # e0 was registered, and is not held a lease length on
        monkeypatch.setattr(Pipeline, "admit", real)
        assert [r.status for r in memory.add_episodes("g", batch)] == ["complete"] * 3  # at once, same clock


def test_a_queued_episode_taken_up_in_place_is_not_claimed_by_the_queue(
    shared: Callable[[], Store], clock: StepClock
) -> None:
    async def run() -> None:
        gated = GatedEmbedder()
        direct = AsyncMemory(shared(), model=None, clock=clock, embedder=gated)
        worker = AsyncMemory(shared(), model=None, clock=clock)
        try:
            jan, feb = datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 2, 1, tzinfo=UTC)
            await worker.enqueue_episode("g", "Ann works at Acme.", episode_id="e0", reference_time=jan)
            await worker.enqueue_episode("g", "Ann works at Globex.", episode_id="e1", reference_time=feb)
            task = asyncio.create_task(
                direct.add_episode("g", "Ann works at Acme.", episode_id="e0", reference_time=jan)
            )
            await gated.waiting.wait()  # add_episode holds e0, still marked queued
            assert (await _held(worker, "e0")).held_by == direct._leases.owner
            assert await worker.process_queue() == 0  # neither e0 under it nor e1 before it
            gated.gate.set()
            assert (await task).ok
            assert await worker.process_queue() == 1
            facts = await worker.facts("g", include_retired=True)
            assert sorted((f.object, len(f.episodes)) for f in facts) == [("Acme", 1), ("Globex", 1)]
        finally:
            gated.gate.set()
            await direct.aclose()
            await worker.aclose()

    asyncio.run(run())


def _extracting(names: tuple[str, str]) -> Callable[[str, str], object]:
    subject, firm = names
    return lambda system, user: {
        "reasoning": "", "entities": [{"name": subject, "labels": []}, {"name": firm, "labels": []}],
        "facts": [{"subject": subject, "relation": "WORKS_AT", "object": firm, "fact": f"{subject} works at {firm}",
                   "valid_at": None}],
    }


def test_a_lapsed_worker_writes_nothing_about_the_episode_it_lost(
    shared: Callable[[], Store], clock: StepClock
) -> None:
    """Every state write is fenced by the lease, not only the commit: worker A
    claims e0, its lease lapses and B takes e0 over; A then records a status
    change, saves a checkpoint, and fails e0 as retryable. None of it lands
    (the row keeps B's lease, status and checkpoint), each answers as for an
    episode another worker holds, and B completes e0 exactly once."""
    from kronograph.ingest.checkpoint import Checkpoint
    from kronograph.ingest.episode_input import EpisodeInput
    from kronograph.llm.protocol import Usage

    from .ingest_helpers import transient

    async def run() -> None:
        mine = ScriptedProvider(Extraction=_extracting(("Ann", "Acme")))
        mine.name = "scripted-a"  # its own replies: none of B's comes from the reply cache
        a = AsyncMemory(shared(), model=client(mine), embedder=HashingEmbedder(), clock=clock, resume=False)
        gated = GatedEmbedder()
        b = AsyncMemory(shared(), model=client(ScriptedProvider(Extraction=_extracting(("Ann", "Acme Inc")))),
                        embedder=gated, clock=clock, resume=False)
        try:
            await a.enqueue_episode("g", "Ann works at Acme.", episode_id="e0")
            claimed = await a._leases.claim_queued("g")  # worker A takes e0 up...
            assert claimed is not None and claimed.episode.held_by == a._leases.owner
            inp = EpisodeInput.resumed(claimed.episode, claimed.pending or {})
            clock.tick(seconds=61)  # ... and stalls past its lease
            taking = asyncio.create_task(b.process_queue())  # B takes e0 over: extracts, checkpoints, embeds...
            await gated.waiting.wait()
            held = await a.store.episode_progress("g", "e0")
            assert held is not None and held.episode.held_by == b._leases.owner
            assert held.episode.status == "resolving" and held.checkpoint is not None
            pipeline = await a._ingestion._pipeline()

            async def unchanged() -> None:
                assert await a.store.episode_progress("g", "e0") == held

            clock.tick()
            # (a) a status change (extracting), then (b) a checkpoint of its own extraction:
            for checkpoint in (Checkpoint(), Checkpoint(extracting=True)):
                calls = len(mine.calls)
                late = await pipeline.run(inp, checkpoint, Usage())
                await unchanged()
                assert not late.ok and late.status == "resolving" and b._leases.owner in (late.error or "")
                assert len(mine.calls) == calls + (1 if checkpoint.extracting else 0)  # (a) stops before asking
            # (c) its failure, retryable, which would also have cleared B's lease:
            failed = await pipeline.failed(inp, transient(), True, Usage())
            await unchanged()
            assert not failed.ok and failed.status == "resolving" and b._leases.owner in (failed.error or "")
            gated.gate.set()
            await taking  # B resumed e0 (before the group's queue), to the end
            done = await a.episode("g", "e0")
            assert (done.status, done.held_by, done.held_until) == ("complete", None, None)
            facts = await a.facts("g", include_retired=True)
            assert [(f.triple, list(f.episodes)) for f in facts] == [("Ann WORKS_AT Acme Inc", ["e0"])]
            # After B's completion A still writes nothing: its late failure answers as a duplicate.
            after = await pipeline.failed(inp, transient(), True, Usage())
            assert after.status == "complete" and after.duplicate
            assert (await a.episode("g", "e0")).status == "complete"
        finally:
            gated.gate.set()
            await a.aclose()
            await b.aclose()

    asyncio.run(run())


def test_the_store_refuses_a_state_from_an_owner_that_lost_the_lease(
    shared: Callable[[], Store], clock: StepClock
) -> None:
    """The fence is the store's, on both backends: a state written by an owner
    other than the lease's refuses its whole plan (the replies cached with it
    too) with LeaseLostError; the holder's own, and a state written without an
    owner (no lease path), apply; a complete episode takes no owner's state."""
    from kronograph.errors import LeaseLostError
    from kronograph.store.plan import EpisodeState, Plan

    async def run() -> None:
        memory = AsyncMemory(shared(), model=None, clock=clock)
        store = memory.store
        try:
            await memory.enqueue_episode("g", "Ann works at Acme.", episode_id="e0")
            a, b = new_owner(), new_owner()
            assert await store.claim_queued("g", a, clock() + timedelta(seconds=60), clock()) is not None
            clock.tick(seconds=61)
            until = clock() + timedelta(seconds=60)
            assert await store.claim_episode("g", "e0", ["received"], b, until, clock()) is not None

            def plan(owner: str | None, status: str, **fields: object) -> Plan:
                p = Plan(group_id="g", now=clock(), expected_revision=None)
                p.episode_states.append(EpisodeState("e0", status, clock(), owner=owner, **fields))
                p.cached_replies.append((f"key-{status}-{owner}", "m", "a reply"))
                p.replies_episode = "e0"
                return p

            await store.apply(plan(b, "extracting", checkpoint={"by": "b"}))
            for status, fields in (("resolving", {}), ("resolving", {"checkpoint": {"by": "a"}}),
                                   ("retryable", {"error": "late", "lease": None})):
                with pytest.raises(LeaseLostError) as refused:
                    await store.apply(plan(a, status, **fields))
                assert (refused.value.holder, refused.value.status) == (b, "extracting")
                assert await store.cached_reply("g", f"key-{status}-{a}") is None  # nothing of the plan
            now = await store.episode_progress("g", "e0")
            assert now is not None and now.checkpoint == {"by": "b"}
            assert (now.episode.status, now.episode.held_by, now.episode.held_until) == ("extracting", b, until)
            await store.apply(plan(None, "received"))  # no lease path: not fenced
            assert (await memory.episode("g", "e0")).status == "received"
            await store.apply(plan(b, "complete", lease=None))
            with pytest.raises(LeaseLostError) as refused:
                await store.apply(plan(b, "retryable", error="late"))
            assert (refused.value.holder, refused.value.status) == (None, "complete")
            gone = Plan(group_id="g", now=clock(), expected_revision=None)
            gone.delete_episodes.append("e0")
            await store.apply(gone)
            await store.apply(plan(a, "retryable", error="late"))  # a removed episode's state: nothing, as before
            assert await store.episode_progress("g", "e0") is None
        finally:
            await memory.aclose()

    asyncio.run(run())


def test_a_takeover_the_commits_first_check_missed_still_refuses_the_commit(
    shared: Callable[[], Store], clock: StepClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit's own episode state is fenced in the store, not only checked
    before: were the takeover to slip past the check (here the check is made
    to read the episode as free), the unit is refused whole, facts and all."""
    import dataclasses

    async def run() -> None:
        gated = GatedEmbedder()
        slow = AsyncMemory(shared(), model=None, clock=clock, embedder=gated)
        other = AsyncMemory(shared(), model=None, clock=clock)
        try:
            task = asyncio.create_task(slow.add_episode("g", "Ann works at Acme.", episode_id="e0"))
            await gated.waiting.wait()
            clock.tick(seconds=61)
            assert await other._leases.claim("g", "e0", ["extracting", "received"]) is not None
            real = slow.store.episode_progress

            async def blind(group_id: str, episode_id: str):  # type: ignore[no-untyped-def]
                found = await real(group_id, episode_id)
                if found is None:
                    return None
                return dataclasses.replace(found, episode=found.episode.model_copy(update={"held_by": None}))

            monkeypatch.setattr(slow.store, "episode_progress", blind)
            gated.gate.set()
            late = await task
            assert not late.ok and late.status == "received"
            assert await other.facts("g") == [] and await other.entities("g") == []  # the unit was refused whole
            assert (await other.episode("g", "e0")).held_by == other._leases.owner
        finally:
            gated.gate.set()
            await slow.aclose()
            await other.aclose()

    asyncio.run(run())
