"""A search's reads in one: on a file-backed store it is answered by one
reader, in one read transaction (one hand-off, one snapshot), with the same
hits as read by read; a job that awaits anything else is refused there."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from kronograph import AsyncMemory
from kronograph.store import SQLiteStore

G = "g1"


def _hits(found: Any) -> list[tuple[str, float]]:
    scopes = ("facts", "entities", "episodes")
    return [(h.item.uuid, round(h.score, 9)) for scope in scopes for h in getattr(found, scope)]


def test_a_search_is_one_reader_call_with_the_hits_of_read_by_read(tmp_path: Path, monkeypatch: Any) -> None:
    async def run() -> None:
        memory = AsyncMemory(tmp_path / "m.db", model=None)
        for text in ("Alice Smith works at Acme.", "Bruno Novak lives in Paris.", "Alice Smith lives in Oslo."):
            await memory.add_episode(G, text)
        store = memory.store
        assert isinstance(store, SQLiteStore)
        await memory.facts(G)  # the readers started
        pool = store._reader_pool()
        assert pool is not None
        calls: list[object] = []
        real = pool.call

        async def counting(fn: Any, *args: Any) -> Any:
            calls.append(fn)
            return await real(fn, *args)

        monkeypatch.setattr(pool, "call", counting)
        together = await memory.search(G, "where does Alice Smith work")
        assert len(calls) == 1  # the whole search: one hand-off to a reader
        monkeypatch.setattr(store, "in_one_read", None)  # read by read, as a store without it
        apart = await memory.search(G, "where does Alice Smith work")
        assert len(calls) > 5
        assert _hits(together) == _hits(apart) and together.facts
        await memory.aclose()

    asyncio.run(run())


def test_a_job_that_awaits_anything_but_the_stores_reads_is_refused(tmp_path: Path) -> None:
    async def run() -> None:
        memory = AsyncMemory(tmp_path / "m.db", model=None)
        await memory.add_fact(G, "alice", "works_at", "acme")
        store = memory.store
        assert isinstance(store, SQLiteStore)
        await memory.facts(G)

        async def sleeps() -> int:
            await asyncio.sleep(0)  # a real suspension
            return 1

        async def asks_the_writer() -> int:
            return await store.revision(G)  # the writer's thread: no loop to wait on there

        with pytest.raises(RuntimeError, match="other than the store's reads"):
            await store.in_one_read(sleeps)
        with pytest.raises(RuntimeError):
            await store.in_one_read(asks_the_writer)
        async with store.unit(G):  # inside a unit of work it simply runs, on the writer
            assert await store.in_one_read(sleeps) == 1
        await memory.aclose()

    asyncio.run(run())


def test_search_runs_unchanged_where_there_are_no_readers() -> None:
    async def run() -> None:
        memory = AsyncMemory(":memory:", model=None)
        await memory.add_fact(G, "alice", "works_at", "acme")
        assert (await memory.search(G, "alice")).facts
        await memory.aclose()

    asyncio.run(run())
