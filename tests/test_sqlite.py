"""What is particular to the SQLite backend: schema, migrations, FTS, processes."""

from __future__ import annotations

import multiprocessing
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kronograph import Memory, SchemaError
from kronograph.store import SQLiteStore, open_store
from kronograph.store.sqlite.schema import MIGRATIONS


def test_schema_is_versioned_and_pragmas_are_set(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Memory(path) as memory:
        memory.add_fact("g", "A", "R", "B")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
    assert versions == [m[0] for m in MIGRATIONS]
    conn.close()
    with Memory(path) as memory:  # reopening applies nothing twice
        assert len(memory.facts("g")) == 1


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Memory(path) as memory:
        memory.add_fact("g", "A", "R", "B")
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_migrations VALUES (999, 'future', 'now')")
    conn.commit()
    conn.close()
    with Memory(path) as memory, pytest.raises(SchemaError, match="999"):
        memory.facts("g")


def test_full_text_tables_follow_the_data(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Memory(path) as memory:
        memory.add_fact("g", "Zanzibar", "LIVES_IN", "Quux", fact="Zanzibar lives in Quux", episode_id="e1")
        conn = sqlite3.connect(path)
        hits = conn.execute("SELECT rowid FROM facts_fts WHERE facts_fts MATCH 'quux'").fetchall()
        names = conn.execute("SELECT rowid FROM entities_fts WHERE entities_fts MATCH 'zanzibar'").fetchall()
        assert len(hits) == 1 and len(names) == 1
        memory.remove_episode("g", "e1")
        assert conn.execute("SELECT count(*) FROM facts_fts WHERE facts_fts MATCH 'quux'").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM entities_fts WHERE entities_fts MATCH 'zanzibar'").fetchone()[0] == 0
        conn.close()


def test_store_urls() -> None:
    assert SQLiteStore.from_url("sqlite:///rel.db").path == "rel.db"
    assert SQLiteStore.from_url("sqlite:////abs/x.db").path == "/abs/x.db"
    assert SQLiteStore.from_url("sqlite://:memory:").path == ":memory:"
    with pytest.raises(ValueError, match="three slashes"):
        SQLiteStore.from_url("sqlite://rel.db")
    with pytest.raises(ValueError, match="mysql"):
        open_store("mysql://x")


def _writer(path: str, name: str, start: int) -> None:
    clock_base = datetime(2030, 1, 1, tzinfo=UTC)
    ticks = iter(range(10_000))
    with Memory(
        path,
        relation_types={"LIVES_IN": {"cardinality": "many_to_one"}},
        clock=lambda: clock_base + timedelta(seconds=next(ticks)),
    ) as memory:
        for i in range(25):
            memory.add_fact(
                "g",
                "Alice",
                "LIVES_IN",
                f"{name}-{i}",
                valid_at=datetime(2000, 1, 1, tzinfo=UTC) + timedelta(days=start + 2 * i),
                episode_id=f"{name}-{i}",
            )


def test_two_processes_writing_one_group_keep_the_slot_consistent(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    with Memory(path) as memory:
        memory.facts("g")  # create the schema once
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_writer, args=(path, n, s)) for n, s in (("p", 0), ("q", 1))]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
        assert w.exitcode == 0
    with Memory(path) as memory:
        facts = memory.facts("g", subject="alice", include_retired=True)
        assert len(facts) == 50
        ordered = sorted(facts, key=lambda f: f.valid_at)
        for before, after in zip(ordered, ordered[1:]):
            assert before.invalid_at == after.valid_at
        assert ordered[-1].invalid_at is None
        assert len(memory.facts("g", subject="alice")) == 1


def test_a_write_by_another_connection_makes_a_prepared_plan_stale(tmp_path: Path) -> None:
    import asyncio

    from kronograph.errors import ConcurrentWriteError
    from kronograph.model import Entity
    from kronograph.store.plan import Plan

    now = datetime(2025, 1, 1, tzinfo=UTC)

    def plan(revision: int, uuid: str) -> Plan:
        p = Plan(group_id="g", now=now, expected_revision=revision)
        p.new_entities.append(Entity(uuid=uuid, group_id="g", name=uuid, created_at=now))
        return p

    async def go() -> None:
        path = tmp_path / "m.db"
        first, second = SQLiteStore(path, threaded=False), SQLiteStore(path, threaded=False)
        await first.open()
        await second.open()
        prepared = await first.revision("g")
        await second.apply(plan(await second.revision("g"), "from-second"))
        with pytest.raises(ConcurrentWriteError):
            await first.apply(plan(prepared, "from-first"))
        await first.apply(plan(await first.revision("g"), "from-first"))  # a fresh read succeeds
        assert {e.uuid for e in await first.entities("g")} == {"from-first", "from-second"}
        await first.close()
        await second.close()

    asyncio.run(go())


def test_entity_lookups_see_other_connections_and_own_writes(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Memory(path) as one, Memory(path) as two:
        one.add_fact("g", "Apple", "MAKES", "iPhone", subject_labels=["Organization"])
        two.add_fact("g", "apple", "IS_A", "fruit", subject_labels=["Food"])  # another connection
        one.add_fact("g", "Apple", "MAKES", "Mac", subject_labels=["Company"])  # must see both entities
        one.add_fact("g", "apple", "GROWS_ON", "trees", subject_labels=["Fruit"])
        assert {(e.name, e.labels) for e in one.entities("g", name="apple")} == {
            ("Apple", ("Organization",)),
            ("apple", ("Food",)),
        }
        made = {f.subject_uuid for f in one.facts("g", subject="apple") if f.relation == "MAKES"}
        grows = {f.subject_uuid for f in one.facts("g", subject="apple") if f.relation != "MAKES"}
        assert len(made) == 1 and len(grows) == 1 and made != grows
        # A retraction that deletes an entity is followed by the cache too.
        episode = one.add_fact("g", "Zed", "KNOWS", "Ann").episode_id
        one.remove_episode("g", episode)
        again = one.add_fact("g", "Zed", "KNOWS", "Ann").fact
        assert [e.uuid for e in one.entities("g", name="zed")] == [again.subject_uuid]


def test_a_v3_memory_gains_actor_columns_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "v3.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT)")
    for number, name, apply in MIGRATIONS[:3]:
        apply(conn)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, 'now')", (number, name))
    conn.execute(
        "INSERT INTO episodes(group_id, uuid, name, kind, content, reference_time, created_at, status)"
        " VALUES ('g', 'old', 'old', 'text', 'Ann lives in Rome.', 0, 0, 'complete')"
    )
    conn.commit()
    conn.close()
    with Memory(path, resume=False) as memory:
        (old,) = memory.episodes("g")
        assert old.uuid == "old" and old.actor is None
        memory.add_fact("g", "A", "R", "B", episode_id="new", actor="agent:x")
        assert {e.uuid: e.actor for e in memory.episodes("g")} == {"old": None, "new": "agent:x"}
    conn = sqlite3.connect(path)
    assert max(r[0] for r in conn.execute("SELECT version FROM schema_migrations")) == MIGRATIONS[-1][0]
    assert "actor" in {r[1] for r in conn.execute("PRAGMA table_info(audit_events)")}
    conn.close()
