"""Round trips to the PostgreSQL server, counted (not timed): what a write,
an ``add_fact`` and an episode wait for. A round trip is a point where the
client waits for the server's answer: a statement outside a pipeline, a
fetch of results not yet received, or the end (Sync) of a pipeline."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from psycopg import AsyncConnection
from psycopg.pq import TransactionStatus

from kronograph import Memory
from kronograph.errors import ConcurrentWriteError
from kronograph.model import Entity
from kronograph.store.plan import Plan
from kronograph.store.postgres import PostgresStore
from kronograph.store.records import CandidateAsk

from . import pg_server

NOW = datetime(2025, 1, 1, tzinfo=UTC)
_ALONE = {"BaseCursor._execute_gen", "BaseCursor._executemany_gen_no_pipeline", "BaseTransaction._enter_gen",
          "BaseTransaction._exit_gen"}


def _waits_for_server(conn: AsyncConnection, gen: Any) -> bool:
    name = getattr(gen, "__qualname__", "")
    pipeline = conn._pipeline
    if pipeline is None:
        if name in ("BaseConnection._commit_gen", "BaseConnection._rollback_gen"):
            return bool(conn.pgconn.transaction_status != TransactionStatus.IDLE)
        return name in _ALONE
    if name in ("BasePipeline._exit_gen", "BasePipeline._sync_gen"):
        return True
    if name == "BasePipeline._fetch_gen" and pipeline.result_queue:
        conn.pgconn.consume_input()  # results a fetch before this one asked for may be here already
        return bool(conn.pgconn.is_busy())
    if name == "BasePipeline._enter_gen":
        return pipeline.level > 0 and bool(pipeline.command_queue or conn.pgconn.transaction_status == 1)
    return False


class Trips:
    def __init__(self) -> None:
        self.count = 0

    def take(self) -> int:
        count, self.count = self.count, 0
        return count


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[Trips]:
    counter = Trips()
    wait = AsyncConnection.wait

    async def counted(self: AsyncConnection, gen: Any, *args: Any, **kwargs: Any) -> Any:
        counter.count += _waits_for_server(self, gen)
        return await wait(self, gen, *args, **kwargs)

    monkeypatch.setattr(AsyncConnection, "wait", counted)
    yield counter


@pytest.fixture
def url() -> str:
    return pg_server.databases().fresh()


def test_a_plan_is_written_in_one_round_trip_with_its_revision_checked(url: str, trips: Trips) -> None:
    async def run() -> list[int]:
        store = PostgresStore(url, min_size=1, max_size=1)
        await store.open()
        out = []
        for revision, uuid in ((0, "a"), (1, "b"), (None, "c")):
            trips.take()
            plan = Plan(group_id="g", now=NOW, expected_revision=revision)
            plan.new_entities.append(Entity(uuid=uuid, group_id="g", name=uuid, created_at=NOW))
            await store.apply(plan)
            out.append(trips.take())
        await store.close()
        return out

    assert asyncio.run(run()) == [1, 1, 1]


def test_a_stale_plan_is_refused_by_the_server_quietly_and_writes_nothing(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def run() -> None:
        store = PostgresStore(url, min_size=1, max_size=1)
        for revision, uuid in ((0, "a"), (0, "b")):
            plan = Plan(group_id="g", now=NOW, expected_revision=revision)
            plan.new_entities.append(Entity(uuid=uuid, group_id="g", name=uuid, created_at=NOW))
            if uuid == "a":
                await store.apply(plan)
            else:
                with pytest.raises(ConcurrentWriteError, match="changed while this write"):
                    await store.apply(plan)
        assert [e.uuid for e in await store.entities("g")] == ["a"]
        assert await store.revision("g") == 1
        await store.close()

    with caplog.at_level(logging.WARNING):
        asyncio.run(run())
    assert not [r for r in caplog.records if r.name.startswith("psycopg")]  # no pipeline closed with an error in flight


def test_add_fact_between_known_entities_takes_four_round_trips(url: str, trips: Trips) -> None:
    with Memory(url, model=None) as memory:
        memory.add_fact("g", "Ann", "KNOWS", "Bob")
        memory.add_fact("g", "Ann", "LIKES", "Tea")
        trips.take()
        memory.add_fact("g", "Bob", "LIKES", "Tea")
        # the facts nearest in meaning (the contradiction check, issue 19; the group's policy is
        # kept from the first write), the two names, the candidates, the write (lock, plan, commit)
        assert trips.take() <= 4
        assert len(memory.facts("g")) == 3


def test_an_episode_waits_for_the_server_a_bounded_number_of_times(url: str, trips: Trips) -> None:
    with Memory(url, model=None) as memory:
        memory.add_episode("g", "Ann works at Acme.", reference_time=NOW)
        counts = []
        for text in ("Bob works at Acme.", "Ann lives in Paris.", "Bob knows Ann."):
            trips.take()
            memory.add_episode("g", text, reference_time=NOW)
            counts.append(trips.take())
        # 30 to 40 before pipelining the units and their checks; 11 before issue 17's reads together;
        # one more since issue 19: the facts nearest the episode and its facts, in one read
        assert max(counts) <= 10, counts
        assert memory.facts("g")


def test_a_unit_moves_the_revision_once_per_plan_in_fewer_statements(url: str) -> None:
    async def run() -> list[int]:
        store = PostgresStore(url, min_size=1, max_size=2)
        seen = []
        async with store.unit("g") as tx:
            for uuid in "abc":
                plan = Plan(group_id="g", now=NOW, expected_revision=None)
                plan.new_entities.append(Entity(uuid=uuid, group_id="g", name=uuid, created_at=NOW))
                await tx.apply(plan)
            seen.append(await tx.revision("g"))  # the moves still owed are made before the read
            plan = Plan(group_id="g", now=NOW, expected_revision=None)
            await tx.apply(plan)
        seen.append(await store.revision("g"))
        assert await store.groups() == ["g"]
        await store.close()
        return seen

    assert asyncio.run(run()) == [3, 4]


def test_the_reads_asked_together_take_one_round_trip_each(url: str, trips: Trips) -> None:
    async def run() -> list[int]:
        store = PostgresStore(url, min_size=1, max_size=1)
        plan = Plan(group_id="g", now=NOW, expected_revision=None)
        for uuid, name in (("a", "Ann"), ("b", "Bob")):
            plan.new_entities.append(Entity(uuid=uuid, group_id="g", name=name, created_at=NOW))
        await store.apply(plan)
        out = []
        trips.take()
        matches = await store.entity_matches("g", ["Ann", "Bo", "Carl"])  # a name known, two not
        out.append(trips.take())
        named, listed = await store.entities_named_and_listed("g", ["ann"], ["b"])
        out.append(trips.take())
        ask = CandidateAsk("a", "b", "knows", ("subject", "object"), True, True, NOW, 5)
        found = await store.fact_candidates_each("g", [ask, ask])
        out.append(trips.take())
        await store.close()
        assert [m.entity.uuid for m in matches["ann"]] == ["a"] and [e.uuid for e in named] == ["a"]
        assert [e.uuid for e in listed] == ["b"] and found == [[], []]
        return out

    assert asyncio.run(run()) == [1, 1, 1]
