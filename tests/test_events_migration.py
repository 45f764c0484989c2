"""Upgrading to events (SQLite v15, PostgreSQL v12): the ``event`` flag is
added to facts and their history, and back-filled for the facts ingestion
extracted of a built-in event relation (facts added directly stay states, as
they were written); ``kronograph migrate`` copies it."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kronograph import Memory
from kronograph.store.sqlite.schema import MIGRATIONS as SQLITE_MIGRATIONS
from kronograph.time import from_micros

from . import pg_server

DAY = 86_400_000_000  # a day in microseconds
T0 = 1_700_000_000_000_000  # 2023-11-14, in microseconds


def _rows() -> list[tuple[str, str, tuple[Any, ...]]]:
    """(table, columns, values) of a small memory as a schema before events held it: Sam's job
    (extracted), his leaving it (extracted, with an earlier version in history), Ann's leaving
    (added directly) and Sam's lunch with Omar (extracted)."""
    rows: list[tuple[str, str, tuple[Any, ...]]] = [("groups", "group_id, created_at", ("g", T0))]
    for eid, kind in (("e1", "message"), ("e2", "fact")):
        rows.append(("episodes", "group_id, uuid, name, kind, reference_time, created_at, status",
                     ("g", eid, eid, kind, T0, T0, "complete")))
    for ent, name in (("sam", "Sam"), ("nw", "Northwind"), ("ann", "Ann"), ("acme", "Acme"), ("omar", "Omar")):
        rows.append(("entities", "uuid, group_id, name, name_key, created_at", (ent, "g", name, name.lower(), T0)))
    facts = [("f-job", "sam", "nw", "WORKS_AT", "worksat", "e1", "offline"),
             ("f-left", "sam", "nw", "LEFT", "left", "e1", "offline"),
             ("f-ann", "ann", "acme", "LEFT", "left", "e2", "direct"),
             ("f-lunch", "sam", "omar", "HAD_LUNCH_WITH", "hadlunchwith", "e1", "scripted-model")]
    for i, (fid, s, o, rel, key, eid, extractor) in enumerate(facts):
        at = T0 + i * DAY
        rows.append(("facts", "uuid, group_id, source_uuid, target_uuid, relation, relation_key, fact, valid_at,"
                     " created_at, recorded_at, cause", (fid, "g", s, o, rel, key, f"{s} {rel} {o}", at, at,
                                                        at + (DAY // 2 if fid == "f-left" else 0), "created")))
        rows.append(("fact_sources", "fact_uuid, group_id, episode_id, valid_at, added_at, provenance",
                     (fid, "g", eid, at, at, json.dumps({"extractor": extractor}))))
    rows.append(("fact_history", "group_id, fact_uuid, recorded_at, cause, status, source_uuid, target_uuid, subject,"
                 " object, subject_key, object_key, relation, relation_key, fact, valid_at, created_at, episodes",
                 ("g", "f-left", T0 + DAY, "created", "live", "sam", "nw", "Sam", "Northwind", "sam", "northwind",
                  "LEFT", "left", "Sam left Northwind", T0 + DAY, T0 + DAY, '["e1"]')))
    return rows


def _check(memory: Memory) -> None:
    every = memory.facts("g", include_retired=True, include_events=True)
    assert {f.uuid: f.event for f in every} == {"f-job": False, "f-left": True, "f-ann": False, "f-lunch": True}
    assert {f.uuid for f in memory.facts("g", include_retired=True)} == {"f-job", "f-ann"}
    assert [f.uuid for f in memory.events("g")] == ["f-left", "f-lunch"]
    believed = T0 + DAY + DAY // 4  # when only the history's version of f-left was recorded
    (old,) = memory.events("g", subject="Sam", relation="LEFT", known_at=from_micros(believed))
    assert old.uuid == "f-left" and old.event  # the history's version was back-filled too
    added = memory.add_fact("g", "Sam", "MET", "Omar", valid_at="2024-01-01")
    assert not added.fact.event  # a fact added directly of an undeclared relation: a state


def _sqlite_at(path: Path, keep: Callable[[int], bool]) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT)")
    for number, name, apply in SQLITE_MIGRATIONS:
        if keep(number):
            apply(conn)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?, 'now')", (number, name))
    for table, columns, values in _rows():
        conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({', '.join('?' * len(values))})", values)
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("before", ["v13", "latest before events"])
def test_a_sqlite_memory_from_before_events_is_back_filled(tmp_path: Path, before: str) -> None:
    """At v13, and at whatever came last before v15 (another change may hold v14)."""
    keep = (lambda n: n <= 13) if before == "v13" else (lambda n: n < 15)
    path = _sqlite_at(tmp_path / "old.db", keep)
    with Memory(path, model=None, resume=False) as memory:
        _check(memory)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == SQLITE_MIGRATIONS[-1][0]
    assert conn.execute("SELECT fact_uuid, event FROM fact_history").fetchall() == [("f-left", 1)]
    conn.close()


def _postgres_database() -> tuple[str, Callable[[], None]]:
    import psycopg

    databases = pg_server.databases()
    name = f"kg_events_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(databases.url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]

    def drop() -> None:
        with psycopg.connect(databases.url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]

    return pg_server._with_database(databases.url, name), drop


@pytest.mark.parametrize("before", ["v10", "latest before events"])
def test_a_postgres_memory_from_before_events_is_back_filled(before: str) -> None:
    """At v10, and at whatever came last before v12 (another change may hold v11)."""
    pytest.importorskip("psycopg")
    import psycopg

    from kronograph.store.postgres.schema import MIGRATIONS as PG_MIGRATIONS

    url, drop = _postgres_database()
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                         " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            for number, step, script in PG_MIGRATIONS:
                if number <= 10 if before == "v10" else number < 12:
                    conn.execute(script)  # type: ignore[arg-type]
                    conn.execute("INSERT INTO schema_migrations(version, name) VALUES (%s, %s)", (number, step))
            for table, columns, values in _rows():
                marks = ", ".join(["%s"] * len(values))
                conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", values)  # type: ignore[arg-type]
        with Memory(url, model=None, resume=False) as memory:
            _check(memory)
        with psycopg.connect(url, autocommit=True) as conn:
            assert conn.execute("SELECT fact_uuid, event FROM fact_history").fetchall() == [("f-left", True)]
    finally:
        drop()


def test_kronograph_migrate_copies_the_event_flag(tmp_path: Path) -> None:
    pytest.importorskip("pgvector")
    from kronograph.migrate import migrate_memory_sync

    source = tmp_path / "source.db"
    with Memory(source, model=None) as memory:
        memory.add_episode("g", "Sam: I work at Northwind.", reference_time="2023-01-10")
        memory.add_episode("g", "Sam: I left Northwind on 1 March 2024.", reference_time="2024-03-05")
        memory.add_episode("g", "Sam: I met Maya on 3 May 2024.", reference_time="2024-05-06")
        expected = [(f.uuid, f.event) for f in memory.facts("g", include_retired=True, include_events=True)]
    assert sorted(e for _, e in expected) == [False, True, True]
    url, drop = _postgres_database()
    try:
        assert migrate_memory_sync(source, url, sample=3).ok
        with Memory(url, model=None, resume=False) as copied:
            assert [(f.uuid, f.event) for f in copied.facts("g", include_retired=True, include_events=True)] == expected
            assert [f.triple for f in copied.events("g")] == ["Sam LEFT Northwind", "Sam MET Maya"]
    finally:
        drop()
