"""What to ask of one group when checking a copy, chosen from the SQLite
snapshot: entity names spread over the group, the times at which their facts
changed (valid time and transaction time, where answers turn), facts with a
history, episodes in every status, and items whose own vector must find them."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

__all__ = ["AUDIT_LIMIT", "TEXT_LIMIT", "GroupSample", "sample_group", "spread"]

T = TypeVar("T")
AUDIT_LIMIT = 5_000  # a group's audit trail is compared whole up to this many events
_ROWS = 200  # rows read per sampled entity, enough to find its turning points
_TIMES = 3  # valid and transaction times asked per entity (each also 1 µs before)
TEXT_LIMIT = 10_000  # a full-text probe asks for every match, in groups of up to this many rows


@dataclass(slots=True)
class GroupSample:
    entity_keys: list[str] = field(default_factory=list)
    valid_times: dict[str, list[int]] = field(default_factory=dict)
    known_times: dict[str, list[int]] = field(default_factory=dict)
    fact_uuids: list[str] = field(default_factory=list)
    episode_uuids: list[str] = field(default_factory=list)
    audit_small: bool = False
    vectors: list[tuple[str, str, np.ndarray]] = field(default_factory=list)  # (scope, uuid, vector)
    texts: list[tuple[str, str, str, int]] = field(default_factory=list)  # (scope, words, uuid, rows)


def spread(items: Sequence[T], n: int) -> list[T]:
    """Up to ``n`` items evenly spread over ``items``, first and last included."""
    if n <= 0 or not items:
        return []
    if len(items) <= n:
        return list(items)
    if n == 1:
        return [items[0]]
    picks = sorted({round(i * (len(items) - 1) / (n - 1)) for i in range(n)})
    return [items[i] for i in picks]


def _column(conn: sqlite3.Connection, sql: str, *args: object) -> list:  # type: ignore[type-arg]
    return [row[0] for row in conn.execute(sql, args)]


def _keys(conn: sqlite3.Connection, g: str, n: int) -> list[str]:
    keys = _column(
        conn,
        "SELECT e.name_key FROM facts f JOIN entities e ON e.uuid = f.source_uuid WHERE f.group_id = ?"
        " UNION SELECT subject_key FROM retracted_facts WHERE group_id = ? ORDER BY 1",
        g, g,
    )
    return spread(keys or _column(conn, "SELECT DISTINCT name_key FROM entities WHERE group_id = ? ORDER BY 1", g), n)


def _times(conn: sqlite3.Connection, g: str, key: str, s: GroupSample) -> list[str]:
    """Record the entity's turning points; returns the facts it touches (with history first)."""
    facts = conn.execute(
        "SELECT f.uuid, f.valid_at, f.invalid_at, f.created_at, f.expired_at, f.recorded_at FROM facts f"
        " JOIN entities a ON a.uuid = f.source_uuid JOIN entities b ON b.uuid = f.target_uuid"
        " WHERE f.group_id = ? AND (a.name_key = ? OR b.name_key = ?) ORDER BY f.id LIMIT ?",
        (g, key, key, _ROWS),
    ).fetchall()
    history = conn.execute(
        "SELECT fact_uuid, valid_at, invalid_at, created_at, expired_at, recorded_at FROM fact_history"
        " WHERE group_id = ? AND (subject_key = ? OR object_key = ?) ORDER BY seq LIMIT ?",
        (g, key, key, _ROWS),
    ).fetchall()
    retracted = _column(
        conn, "SELECT retracted_at FROM retracted_facts WHERE group_id = ? AND (subject_key = ? OR object_key = ?)",
        g, key, key,
    )
    rows = facts + history
    valid = sorted({t for r in rows for t in (r[1], r[2]) if t is not None})
    known = sorted({t for r in rows for t in (r[3], r[4], r[5]) if t is not None} | set(retracted))
    s.valid_times[key] = spread(valid, _TIMES)
    s.known_times[key] = spread(known, _TIMES)
    return list(dict.fromkeys([r[0] for r in history] + [r[0] for r in facts]))


def _episodes(conn: sqlite3.Connection, g: str, n: int) -> list[str]:
    unfinished = _column(
        conn, "SELECT uuid FROM episodes WHERE group_id = ? AND status != 'complete' ORDER BY id LIMIT ?", g, n
    )
    every = _column(conn, "SELECT uuid FROM episodes WHERE group_id = ? ORDER BY id", g)
    return list(dict.fromkeys(unfinished + spread(every, n)))


def _vector(conn: sqlite3.Connection, sql: str, *args: object) -> tuple[str, np.ndarray] | None:
    row = conn.execute(sql, args).fetchone()
    return None if row is None else (row[0], np.frombuffer(row[1], dtype=np.float32))


def _vectors(conn: sqlite3.Connection, g: str, s: GroupSample) -> None:
    """One item a scope (an entity and a fact sampled, a complete episode)."""
    marks, facts = ",".join("?" * len(s.entity_keys)), ",".join("?" * len(s.fact_uuids))
    probes = {
        "entities": _vector(
            conn, f"SELECT uuid, embedding FROM entities WHERE group_id = ? AND name_key IN ({marks})"
            " AND embedding IS NOT NULL ORDER BY id LIMIT 1", g, *s.entity_keys,
        ) if s.entity_keys else None,
        "facts": _vector(
            conn, f"SELECT uuid, embedding FROM facts WHERE group_id = ? AND uuid IN ({facts})"
            " AND embedding IS NOT NULL ORDER BY id LIMIT 1", g, *s.fact_uuids,
        ) if s.fact_uuids else None,
        "episodes": _vector(
            conn, "SELECT uuid, embedding FROM episodes WHERE group_id = ? AND status = 'complete'"
            " AND embedding IS NOT NULL ORDER BY id LIMIT 1", g,
        ),
    }
    s.vectors = [(scope, found[0], found[1]) for scope, found in probes.items() if found is not None]


def _texts(conn: sqlite3.Connection, g: str, s: GroupSample) -> None:
    """An entity's name and a fact's text, each to be found by a search for
    its own words; asked for every match (ranking differs between backends)."""
    for scope, column in (("entities", "name"), ("facts", "fact")):
        (rows,) = conn.execute(f"SELECT COUNT(*) FROM {scope} WHERE group_id = ?", (g,)).fetchone()
        if rows > TEXT_LIMIT:
            continue
        keys = s.entity_keys if scope == "entities" else s.fact_uuids
        by = "name_key" if scope == "entities" else "uuid"
        for key in keys[:2]:
            row = conn.execute(
                f"SELECT uuid, {column} FROM {scope} WHERE group_id = ? AND {by} = ? ORDER BY id LIMIT 1", (g, key)
            ).fetchone()
            if row is not None:
                s.texts.append((scope, row[1], row[0], rows))


def sample_group(conn: sqlite3.Connection, g: str, n: int) -> GroupSample:
    """About ``n`` entities, facts and episodes of group ``g`` to ask about."""
    s = GroupSample(entity_keys=_keys(conn, g, n))
    touched: list[str] = []
    for key in s.entity_keys:
        touched += _times(conn, g, key, s)
    s.fact_uuids = list(dict.fromkeys(touched))[:n]
    s.episode_uuids = _episodes(conn, g, n)
    (events,) = conn.execute("SELECT COUNT(*) FROM audit_events WHERE group_id = ?", (g,)).fetchone()
    s.audit_small = events <= AUDIT_LIMIT
    _vectors(conn, g, s)
    _texts(conn, g, s)
    return s
