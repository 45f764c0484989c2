"""SQLite v17: the stale summaries are listed through a plain (group_id, uuid)
index; the partial index on ``summary_stale > 0`` that every fact's bump of
its entities' counters rewrote is gone (see schema_recent._V17)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from kronograph import Memory
from kronograph.store.sql import entity_queries
from kronograph.store.sqlite.rows import DIALECT
from kronograph.store.sqlite.schema import MIGRATIONS
from kronograph.store.sqlite.store import SQLiteStore


def _indexes(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'entities'")}


def test_a_v16_store_lists_its_stale_summaries_by_the_group_index(tmp_path: Path) -> None:
    path = tmp_path / "v16.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT)")
    for number, name, apply in [m for m in MIGRATIONS if m[0] <= 16]:
        apply(conn)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, 'now')", (number, name))
    for g in ("g", "h"):
        conn.execute("INSERT INTO groups(group_id, created_at) VALUES (?, 0)", (g,))
        for i, stale in enumerate((0, 2, 0, 1)):
            conn.execute(
                "INSERT INTO entities(uuid, group_id, name, name_key, created_at, summary_stale)"
                " VALUES (?, ?, ?, ?, 0, ?)", (f"{g}-{i}", g, f"E{i}", f"e{i}", stale),
            )
    conn.commit()
    assert "entities_stale_summaries" in _indexes(conn)
    conn.close()

    async def listed() -> None:
        store = SQLiteStore(path)
        try:
            states = await store.summary_states("g", stale_only=True, limit=10)
            assert [(e.uuid, n) for e, n in states] == [("g-1", 2), ("g-3", 1)]
            later = await store.summary_states("g", stale_only=True, after="g-1", limit=10)
            assert [e.uuid for e, _ in later] == ["g-3"]
        finally:
            await store.close()

    asyncio.run(listed())
    conn = sqlite3.connect(path)
    indexes = _indexes(conn)
    assert "entities_stale_summaries" not in indexes and "entities_by_group_uuid" in indexes
    assert max(r[0] for r in conn.execute("SELECT version FROM schema_migrations")) == MIGRATIONS[-1][0]
    sql, params = entity_queries.summary_states(DIALECT, "g", None, True, "g-0", 10)
    plan = " ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, params))
    assert "entities_by_group_uuid" in plan and "TEMP B-TREE" not in plan  # the group's rows, in uuid order
    conn.close()


def test_a_new_fact_still_makes_its_entities_summaries_stale(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db") as memory:
        memory.add_fact("g", "Ann", "KNOWS", "Bo")
        memory.add_fact("h", "Cy", "KNOWS", "Di")
        assert {e.name for e in memory.entities("g") if e.summary_stale} == {"Ann", "Bo"}
