"""What an episode's ingestion saves without changing what it writes: the
commit answering candidate reads from the resolve stage's while they still
hold, and the SQLite store's short reads made without a thread hop when its
thread is idle."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kronograph.ingest.candidate_reads import Recording, Replaying
from kronograph.store import SQLiteStore
from kronograph.store.plan import Plan
from kronograph.store.records import CandidateAsk, FactRecord, Source

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def _fact(uuid: str, source: str, target: str, relation: str = "works_at") -> FactRecord:
    return FactRecord(
        uuid=uuid, group_id="g", source_uuid=source, target_uuid=target, subject=source, object=target,
        relation=relation.upper(), relation_key=relation, fact=f"{source} {relation} {target}", valid_at=T0,
        invalid_at=None, stated_invalid_at=None, created_at=T0, expired_at=None, invalidated_by=None,
        sources=(Source("e", T0, None, T0),),
    )


class _Reads:
    """A store that answers every candidate read with one stored fact, and counts the reads."""

    def __init__(self) -> None:
        self.reads = 0

    async def fact_candidates(self, group_id: str, subject_uuid: str, object_uuid: str, relation_key: str,
                              **kw: Any) -> list[FactRecord]:
        self.reads += 1
        return [_fact(f"old-{subject_uuid}-{relation_key}", subject_uuid, "x", relation_key)]

    async def fact_candidates_each(self, group_id: str, asks: Any) -> list[list[FactRecord]]:
        return [
            await self.fact_candidates(group_id, a.subject_uuid, a.object_uuid, a.relation_key) for a in asks
        ]


def _ask(store: Any, s: str, o: str, r: str = "works_at") -> Any:
    return store.fact_candidates("g", s, o, r, sides=("subject",), either_end=True, whole_pair=True,
                                 around=T0, limit=50)


def test_a_recorded_candidate_read_is_used_again_until_a_written_fact_could_change_it() -> None:
    async def run() -> None:
        store = _Reads()
        recording = Recording(store)
        for s, o, r in (("ann", "acme", "works_at"), ("ann", "paris", "lives_in"), ("bob", "new:globex", "works_at")):
            await _ask(recording, s, o, r)
        assert store.reads == 3
        replay = Replaying(store, recording.found, {"globex-uuid": "new:globex", "zed-uuid": "new:zed"})
        assert [f.uuid for f in await _ask(replay, "ann", "acme")] == ["old-ann-works_at"]
        assert [f.uuid for f in await _ask(replay, "bob", "globex-uuid")] == ["old-bob-works_at"]  # made here
        assert await _ask(replay, "globex-uuid", "zed-uuid") == []  # two entities made here: no fact yet
        assert store.reads == 3 and replay.reused == 3
        written = Plan(group_id="g", now=T0, expected_revision=None)
        written.new_facts.append(_fact("f1", "ann", "acme"))
        replay.applied(written)
        await _ask(replay, "ann", "acme")  # ann's works_at facts moved: read again
        await _ask(replay, "ann", "paris", "lives_in")  # another relation of ann's: still as recorded
        assert store.reads == 4 and replay.reused == 4
        merged = Plan(group_id="g", now=T0, expected_revision=None)
        merged.add_sources.append(("unknown-fact", Source("e2", T0, None, T0)))
        replay.applied(merged)  # a fact the unit never saw: nothing recorded is used from here on
        await _ask(replay, "ann", "paris", "lives_in")
        assert store.reads == 5

    asyncio.run(run())


def test_candidates_read_together_before_the_judge_are_recorded_each() -> None:
    async def run() -> None:
        store = _Reads()
        recording = Recording(store)
        asks = [CandidateAsk(s, o, "works_at", ("subject",), True, True, T0, 50) for s, o in (("ann", "acme"),
                                                                                           ("bob", "initech"))]
        found = await recording.fact_candidates_each("g", asks)
        assert [[f.uuid for f in each] for each in found] == [["old-ann-works_at"], ["old-bob-works_at"]]
        replay = Replaying(store, recording.found, {})
        assert [f.uuid for f in await _ask(replay, "bob", "initech")] == ["old-bob-works_at"]
        assert store.reads == 2 and replay.reused == 1

    asyncio.run(run())


def test_short_reads_skip_the_store_thread_while_it_is_idle(tmp_path: Path) -> None:
    async def run() -> None:
        store = SQLiteStore(tmp_path / "m.db", threaded=True)
        try:
            plan = Plan(group_id="g", now=T0, expected_revision=None)
            await store.apply(plan)
            worker = store._executor
            assert worker is not None
            hops: list[object] = []
            call = worker.call

            async def counted(fn: Any, *args: Any) -> Any:
                hops.append(fn)
                return await call(fn, *args)

            worker.call = counted  # type: ignore[method-assign]
            assert await store.revision("g") == 1  # idle: read right here
            assert hops == []
            blocker = asyncio.ensure_future(store.apply(Plan(group_id="g", now=T0, expected_revision=None)))
            await asyncio.sleep(0)  # the write is on the store's thread: the read comes after it
            assert await store.revision("g") == 2
            await blocker
            assert len(hops) == 1  # the write's
        finally:
            await store.close()

    asyncio.run(run())
