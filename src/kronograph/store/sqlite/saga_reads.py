"""The reads sagas make of SQLite: a saga's summary row, its episodes in
cursor order (``(created_at, uuid)``, uuids byte by byte) and its lag."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from ...model import Episode
from ...time import from_micros, to_micros
from ..records import SagaCount, SagaState
from . import rows
from .rows import opt_time

__all__ = ["saga_bound", "saga_episodes", "saga_lags", "saga_state"]

Key = tuple[datetime, str]


def saga_state(conn: sqlite3.Connection, group_id: str, saga: str) -> SagaState | None:
    row = conn.execute(
        "SELECT saga, summary, version, cursor_at, cursor_uuid, covered_from, covered_to, episodes, without_text,"
        " method, state, built_at, stale FROM saga_summaries WHERE group_id = ? AND saga = ?",
        (group_id, saga),
    ).fetchone()
    if row is None:
        return None
    return SagaState(
        saga=row[0], summary=row[1], version=int(row[2]), cursor_at=opt_time(row[3]), cursor_uuid=row[4],
        covered_from=opt_time(row[5]), covered_to=opt_time(row[6]), episodes=int(row[7]),
        without_text=int(row[8]), method=row[9], state=json.loads(row[10]) if row[10] else None,
        built_at=opt_time(row[11]), stale=int(row[12]),
    )


def saga_bound(conn: sqlite3.Connection, group_id: str, saga: str) -> Key | None:
    row = conn.execute(
        "SELECT created_at, uuid FROM episodes WHERE group_id = ? AND saga = ?"
        " ORDER BY created_at DESC, uuid DESC LIMIT 1",
        (group_id, saga),
    ).fetchone()
    return (from_micros(row[0]), row[1]) if row else None


def saga_episodes(
    conn: sqlite3.Connection, group_id: str, saga: str, after: Key | None, upto: Key, limit: int
) -> list[Episode]:
    sql = f"SELECT {rows.EPISODE_COLUMNS} FROM episodes p WHERE p.group_id = ? AND p.saga = ?"
    params: list[object] = [group_id, saga]
    if after is not None:
        sql += " AND (p.created_at, p.uuid) > (?, ?)"
        params += [to_micros(after[0]), after[1]]
    sql += " AND (p.created_at, p.uuid) <= (?, ?) ORDER BY p.created_at, p.uuid LIMIT ?"
    params += [to_micros(upto[0]), upto[1], limit]
    return [rows.episode(r) for r in conn.execute(sql, params)]


def saga_lags(conn: sqlite3.Connection, group_id: str) -> list[SagaCount]:
    found = conn.execute(
        "SELECT p.saga, COUNT(*), SUM(CASE WHEN s.cursor_at IS NULL OR p.created_at > s.cursor_at"
        " OR (p.created_at = s.cursor_at AND p.uuid > s.cursor_uuid) THEN 1 ELSE 0 END),"
        " MAX(s.version), MAX(s.stale), MAX(s.built_at)"
        " FROM episodes p LEFT JOIN saga_summaries s ON s.group_id = p.group_id AND s.saga = p.saga"
        " WHERE p.group_id = ? AND p.saga IS NOT NULL GROUP BY p.saga"
        " UNION ALL SELECT s.saga, 0, 0, s.version, s.stale, s.built_at FROM saga_summaries s"
        " WHERE s.group_id = ? AND NOT EXISTS"
        " (SELECT 1 FROM episodes p WHERE p.group_id = s.group_id AND p.saga = s.saga)",
        (group_id, group_id),
    ).fetchall()
    counts = [
        SagaCount(saga, int(n), int(lag), int(v or 0), int(st or 0), opt_time(at))
        for saga, n, lag, v, st, at in found
    ]
    return sorted(counts, key=lambda c: c.saga)
