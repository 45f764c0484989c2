"""The SQLite store's readers: pure reads on connections of their own beside
the one writer. A read never waits behind a unit of work, sees what the same
memory committed before it, and the caches the writer keeps in step (vectors,
entities, full-text rows, names) never contradict a reader's snapshot, after
forget and merge too, nor another process's writes. No timing assertions:
events order what must happen, ``wait_for`` only guards against a hang."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from kronograph import AsyncMemory, Memory
from kronograph.store import SQLiteStore

G = "g1"


def readers_alive() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("kronograph-sqlite-reader")]


async def _vector_uuids(memory: AsyncMemory, fact_uuid: str) -> list[str]:
    """Every fact the vector index holds (searched with a stored fact's vector)."""
    store = memory.store
    vector = (await store.item_vectors(G, "facts", [fact_uuid]))[fact_uuid]
    return [u for u, _ in await store.search_vectors(G, "facts", vector, 1000)]


async def _all_facts(memory: AsyncMemory) -> list[str]:
    return [f.uuid for f in await memory.facts(G, include_retired=True, include_expired=True)]


def test_a_read_completes_while_another_task_holds_a_unit_of_work_open(tmp_path: Path) -> None:
    async def run() -> None:
        memory = AsyncMemory(tmp_path / "m.db", model=None)
        await memory.add_fact(G, "alice", "works_at", "acme")
        store = memory.store
        assert isinstance(store, SQLiteStore)
        entered, release = asyncio.Event(), asyncio.Event()

        async def hold() -> None:
            async with store.unit(G):
                entered.set()
                await release.wait()

        holder = asyncio.create_task(hold())
        await entered.wait()
        facts = await asyncio.wait_for(memory.facts(G), 30)  # answered with the unit still open
        found = await asyncio.wait_for(memory.search(G, "alice acme"), 30)
        assert not release.is_set() and not holder.done()
        assert [f.subject for f in facts] == ["alice"] and found.facts
        release.set()
        await holder
        await memory.aclose()

    asyncio.run(run())


def test_a_reader_does_not_see_an_open_unit_and_sees_it_once_committed(tmp_path: Path) -> None:
    async def run() -> None:
        memory = AsyncMemory(tmp_path / "m.db", model=None)
        await memory.add_fact(G, "alice", "works_at", "acme")
        store = memory.store
        assert isinstance(store, SQLiteStore)
        written, release = asyncio.Event(), asyncio.Event()

        def revision(conn: object) -> int:
            return int(conn.execute("SELECT revision FROM groups WHERE group_id = ?", (G,)).fetchone()[0])  # type: ignore[attr-defined]

        before = await store._read(revision)

        async def hold() -> None:
            async with store.unit(G):
                await store._run(lambda conn: conn.execute("UPDATE groups SET revision = revision + 1"))
                assert await store._read(revision) == before + 1  # the unit's own reads see its writes
                written.set()
                await release.wait()

        holder = asyncio.create_task(hold())
        await written.wait()
        assert await asyncio.wait_for(store._read(revision), 30) == before  # a snapshot without the open unit
        release.set()
        await holder
        assert await store._read(revision) == before + 1
        await memory.aclose()

    asyncio.run(run())


def test_reads_see_the_writes_the_same_memory_committed(tmp_path: Path) -> None:
    async def run() -> None:
        memory = AsyncMemory(tmp_path / "m.db", model=None)

        async def writer(i: int) -> None:
            for k in range(6):
                fact = (await memory.add_fact(G, f"person{i}", "works_at", f"company{i}x{k}")).fact
                assert fact.uuid in {f.uuid for f in await memory.facts(G, subject=f"person{i}")}
                assert fact.uuid in {f.uuid for f in await memory.timeline(G, f"person{i}")}
                assert fact.uuid in await _vector_uuids(memory, fact.uuid)

        await asyncio.gather(*(writer(i) for i in range(4)))
        known = await _all_facts(memory)
        everything = await _vector_uuids(memory, known[0])
        assert sorted(everything) == sorted(set(everything)) == sorted(known)
        await memory.aclose()

    asyncio.run(run())


@pytest.mark.parametrize("readers", [4, 0], ids=["readers", "writer-only"])
def test_caches_follow_merge_and_forget(tmp_path: Path, readers: int) -> None:
    async def run() -> None:
        memory = AsyncMemory(SQLiteStore(tmp_path / "m.db", readers=readers), model=None)
        await memory.add_fact(G, "Alice Smith", "works_at", "Acme")
        await memory.add_fact(G, "A. Smith", "lives_in", "Paris")
        await memory.add_fact(G, "Bob Jones", "works_at", "Initech")
        for query in ("Smith", "Paris", "Bob Jones"):  # fill every cache the readers keep
            assert (await memory.search(G, query)).facts
        alice = next(e for e in await memory.entities(G) if e.name == "Alice Smith")
        await memory.merge_entities(G, alice.uuid, "A. Smith")
        names = {e.name for e in await memory.entities(G)}
        assert "A. Smith" not in names
        hits = await memory.search(G, "Smith Paris")
        assert all(h.item.subject != "A. Smith" for h in hits.facts)
        assert {f.subject for f in await memory.facts(G, object="Paris")} == {"Alice Smith"}
        report = await memory.forget(G, entity="Bob Jones")
        assert report.verified, report.leftovers
        assert not (await memory.search(G, "Bob Jones Initech")).entities
        assert all("Bob" not in h.item.fact for h in (await memory.search(G, "Initech")).facts)
        known = await _all_facts(memory)
        assert sorted(await _vector_uuids(memory, known[0])) == sorted(known)
        await memory.aclose()

    asyncio.run(run())


def test_another_process_writes_are_seen_by_readers_and_after_the_writer_commits(tmp_path: Path) -> None:
    async def run() -> None:
        db = tmp_path / "m.db"
        mine, other = AsyncMemory(db, model=None), AsyncMemory(db, model=None)
        first = (await mine.add_fact(G, "alice", "works_at", "acme")).fact
        assert len(await _vector_uuids(mine, first.uuid)) == 1  # the vectors are held now
        await other.add_fact(G, "bob", "works_at", "initech")  # another connection's commit
        assert len(await _vector_uuids(mine, first.uuid)) == 2
        assert {h.item.subject for h in (await mine.search(G, "initech")).facts} >= {"bob"}
        await other.add_fact(G, "carol", "works_at", "globex")
        await mine.add_fact(G, "dave", "works_at", "hooli")  # the writer commits after another's
        found = await _vector_uuids(mine, first.uuid)
        assert sorted(found) == sorted(set(found)) == sorted(await _all_facts(mine))
        assert len(found) == 4
        await other.aclose()
        await mine.aclose()

    asyncio.run(run())


def test_a_memory_store_keeps_every_call_on_its_one_connection() -> None:
    async def run() -> None:
        memory = AsyncMemory(":memory:", model=None)
        fact = (await memory.add_fact(G, "alice", "works_at", "acme")).fact
        assert [f.uuid for f in await memory.facts(G)] == [fact.uuid]
        assert (await memory.search(G, "alice")).facts
        assert memory.store._pool is None  # another connection would open another, empty, database
        await memory.aclose()

    asyncio.run(run())


def test_sync_memory_runs_reads_inline(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", model=None) as memory:
        fact = memory.add_fact(G, "alice", "works_at", "acme").fact
        assert [f.uuid for f in memory.facts(G)] == [fact.uuid]
        assert memory.search(G, "alice").facts
        assert memory.store._pool is None  # no reader thread started (other tests' may be alive)


def test_close_stops_every_reader_and_closes_its_connection(tmp_path: Path) -> None:
    before = set(readers_alive())

    async def run() -> SQLiteStore:
        memory = AsyncMemory(tmp_path / "m.db", model=None)
        await memory.add_fact(G, "alice", "works_at", "acme")
        await asyncio.gather(*(memory.search(G, "alice") for _ in range(8)))
        store = memory.store
        assert isinstance(store, SQLiteStore) and store._pool is not None
        assert store._pool.alive() == 4
        await memory.aclose()
        return store

    store = asyncio.run(run())
    assert set(readers_alive()) == before
    assert store._pool is not None and store._pool.alive() == 0
    assert all(r.conn is None for r in store._pool._readers)  # each closed its connection


def test_readers_refuse_a_negative_count() -> None:
    with pytest.raises(ValueError, match="readers"):
        SQLiteStore(":memory:", readers=-1)
