"""The reads sagas make of PostgreSQL: the ports of ``..sqlite.saga_reads``,
with the same answers (uuids ordered byte by byte, ``COLLATE "C"``)."""

from __future__ import annotations

from datetime import datetime

from psycopg import AsyncConnection

from ...model import Episode
from ...time import from_micros, to_micros
from .. import rows
from ..records import SagaCount, SagaState
from ..rows import opt_time
from .columns import EPISODE_COLUMNS

__all__ = ["saga_bound", "saga_episodes", "saga_lags", "saga_state"]

Key = tuple[datetime, str]


async def saga_state(conn: AsyncConnection, group_id: str, saga: str) -> SagaState | None:
    cur = await conn.execute(
        "SELECT saga, summary, version, cursor_at, cursor_uuid, covered_from, covered_to, episodes, without_text,"
        " method, state, built_at, stale FROM saga_summaries WHERE group_id = %s AND saga = %s",
        (group_id, saga),
    )
    row = await cur.fetchone()
    if row is None:
        return None
    return SagaState(
        saga=row[0], summary=row[1], version=int(row[2]), cursor_at=opt_time(row[3]), cursor_uuid=row[4],
        covered_from=opt_time(row[5]), covered_to=opt_time(row[6]), episodes=int(row[7]),
        without_text=int(row[8]), method=row[9], state=row[10], built_at=opt_time(row[11]), stale=int(row[12]),
    )


async def saga_bound(conn: AsyncConnection, group_id: str, saga: str) -> Key | None:
    cur = await conn.execute(
        "SELECT created_at, uuid FROM episodes WHERE group_id = %s AND saga = %s"
        ' ORDER BY created_at DESC, uuid COLLATE "C" DESC LIMIT 1',
        (group_id, saga),
    )
    row = await cur.fetchone()
    return (from_micros(row[0]), row[1]) if row else None


async def saga_episodes(
    conn: AsyncConnection, group_id: str, saga: str, after: Key | None, upto: Key, limit: int
) -> list[Episode]:
    sql = f"SELECT {EPISODE_COLUMNS} FROM episodes p WHERE p.group_id = %s AND p.saga = %s"
    params: list[object] = [group_id, saga]
    if after is not None:
        sql += ' AND (p.created_at, p.uuid COLLATE "C") > (%s::bigint, %s::text)'
        params += [to_micros(after[0]), after[1]]
    sql += (
        ' AND (p.created_at, p.uuid COLLATE "C") <= (%s::bigint, %s::text)'
        ' ORDER BY p.created_at, p.uuid COLLATE "C" LIMIT %s'
    )
    params += [to_micros(upto[0]), upto[1], limit]
    cur = await conn.execute(sql, params)  # type: ignore[arg-type]
    return [rows.episode(r) for r in await cur.fetchall()]


async def saga_lags(conn: AsyncConnection, group_id: str) -> list[SagaCount]:
    cur = await conn.execute(
        "SELECT p.saga, COUNT(*), SUM(CASE WHEN s.cursor_at IS NULL OR p.created_at > s.cursor_at"
        ' OR (p.created_at = s.cursor_at AND p.uuid COLLATE "C" > s.cursor_uuid) THEN 1 ELSE 0 END),'
        " MAX(s.version), MAX(s.stale), MAX(s.built_at)"
        " FROM episodes p LEFT JOIN saga_summaries s ON s.group_id = p.group_id AND s.saga = p.saga"
        " WHERE p.group_id = %s AND p.saga IS NOT NULL GROUP BY p.saga"
        " UNION ALL SELECT s.saga, 0, 0, s.version, s.stale, s.built_at FROM saga_summaries s"
        " WHERE s.group_id = %s AND NOT EXISTS"
        " (SELECT 1 FROM episodes p WHERE p.group_id = s.group_id AND p.saga = s.saga)",
        (group_id, group_id),
    )
    found = await cur.fetchall()
    counts = [
        SagaCount(saga, int(n), int(lag), int(v or 0), int(st or 0), opt_time(at))
        for saga, n, lag, v, st, at in found
    ]
    return sorted(counts, key=lambda c: c.saga)
