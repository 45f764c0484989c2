"""SQLite's held vectors are locked per group: one group's cold load (a large
group reading its table) does not hold up another group's vector search, and a
table evicted for room is still saved, under its own group's lock."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from kronograph import HashingEmbedder, Memory
from kronograph.store import SQLiteStore
from kronograph.store.sqlite.vectors import VectorIndex

from .conftest import StepClock


def _add(memory: Memory, group: str, n: int) -> list[str]:
    return [
        memory.add_fact(group, f"person {i}", "LIKES", f"thing {i}", fact=f"person {i} likes thing {i}",
                        valid_at="2020-01-01").fact.uuid
        for i in range(n)
    ]


def test_a_group_loading_its_vectors_does_not_block_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "m.db"
    memory = Memory(SQLiteStore(db), model=None, clock=StepClock())
    try:
        big, small = _add(memory, "big", 6), _add(memory, "small", 6)
    finally:
        memory.close()

    loading, release = threading.Event(), threading.Event()
    real_open = VectorIndex._open  # noqa: SLF001

    def slow_open(self: VectorIndex, conn: sqlite3.Connection, scope: str, group_id: str, held: object) -> object:
        if group_id == "big":  # the big group's cold load waits until told
            loading.set()
            assert release.wait(60)
        return real_open(self, conn, scope, group_id, held)  # type: ignore[arg-type]

    monkeypatch.setattr(VectorIndex, "_open", slow_open)
    vector = HashingEmbedder().embed_sync(["person 2 likes thing 2"])[0]
    store = SQLiteStore(db, readers=2)

    async def run() -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        cold = asyncio.create_task(store.search_vectors("big", "facts", vector, 3))
        assert await asyncio.to_thread(loading.wait, 60)  # the big group's load is under way, and stuck
        try:
            # Answered while the big group's load still holds its lock (the global
            # lock this replaces made it wait; the deadline only ends a hang).
            other = await asyncio.wait_for(store.search_vectors("small", "facts", vector, 3), 60)
            assert not cold.done()
        finally:
            release.set()
        return other, await cold

    try:
        other, cold = asyncio.run(run())
    finally:
        asyncio.run(store.close())
    assert other[0][0] == small[2] and cold[0][0] == big[2]


def test_a_table_evicted_for_room_is_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(VectorIndex, "HELD", 1)
    monkeypatch.setattr(VectorIndex, "SAVE_MIN", 1)
    db = tmp_path / "m.db"
    memory = Memory(SQLiteStore(db), model=None, clock=StepClock())
    vector = HashingEmbedder().embed_sync(["person 4 likes thing 4"])[0]
    try:
        a = _add(memory, "a", 6)
        store = memory.store
        assert memory._portal.call(store.search_vectors("a", "facts", vector, 1))[0][0] == a[4]  # noqa: SLF001
        saved = list((tmp_path / "m.db-vectors").glob("facts-*.json"))
        a_file = saved[0].read_text() if saved else ""
        _add(memory, "a", 7)  # the held table follows: changed since saved
        b = _add(memory, "b", 6)
        assert memory._portal.call(store.search_vectors("b", "facts", vector, 1))[0][0] == b[4]  # noqa: SLF001
        # a's table was evicted for b's, and saved at the end of that read
        files = {p.read_text() for p in (tmp_path / "m.db-vectors").glob("facts-*.json")}
        assert len(files) == 2 and a_file not in files
        assert memory._portal.call(store.search_vectors("a", "facts", vector, 1))[0][0] == a[4]  # noqa: SLF001
    finally:
        memory.close()
