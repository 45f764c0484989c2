"""The ingestion queue's and the leases' queries on PostgreSQL (see
:mod:`kronograph.ingest.queue` and :mod:`kronograph.ingest.ownership`).

A queued episode is an episode row with status ``queued``; each group's queue
is its queued rows in arrival order (``id``). Taking the head holds the
group's advisory lock, so workers in any number of processes take each
episode once, and a group's next episode only once none of its episodes is
in progress: each group's episodes commit in the order they were accepted.

An unfinished episode is held by a lease (``lease_owner``, ``lease_until``),
written in the transaction that claims it, under the group's lock (which an
episode's commit holds too); a claim succeeds only where the lease is free:
none, or one whose ``lease_until`` is not after ``now``.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from psycopg import AsyncConnection

from ...model import Episode
from ...time import to_micros
from .. import rows
from ..records import EpisodeProgress
from .columns import EPISODE_COLUMNS
from .connection import lock_group
from .ingest_reads import episode_progress

__all__ = [
    "IN_PROGRESS",
    "claim_episode",
    "claim_queued",
    "episode_counts",
    "extend_leases",
    "held_episodes",
    "queued_groups",
]

IN_PROGRESS = ["received", "extracting", "resolving", "committing"]
_FREE = "(lease_owner IS NULL OR lease_until IS NULL OR lease_until <= %(now)s)"


async def queued_groups(conn: AsyncConnection, limit: int) -> list[str]:
    """Store-wide: groups with queued episodes, the longest waiting first."""
    cur = await conn.execute(
        "SELECT group_id FROM episodes WHERE status = 'queued' GROUP BY group_id ORDER BY MIN(id) LIMIT %s",
        (limit,),
    )
    return [g for (g,) in await cur.fetchall()]


async def _take(conn: AsyncConnection, group_id: str, uuid: str, status: str, owner: str, until: datetime,
                now: datetime) -> EpisodeProgress | None:
    await conn.execute(
        "UPDATE episodes SET status = %s, lease_owner = %s, lease_until = %s, updated_at = %s"
        " WHERE group_id = %s AND uuid = %s",
        (status, owner, to_micros(until), to_micros(now), group_id, uuid),
    )
    return await episode_progress(conn, group_id, uuid)


async def claim_queued(
    conn: AsyncConnection, group_id: str, owner: str, until: datetime, now: datetime
) -> EpisodeProgress | None:
    """The group's next episode to work on, leased to ``owner`` until ``until``:
    its oldest episode in progress whose lease has lapsed (a dead worker's),
    else, when none is in progress, its oldest queued one (now ``received``).
    None while a live lease holds an episode of the group, or when nothing waits."""
    async with conn.transaction():
        await lock_group(conn, group_id)
        cur = await conn.execute(
            f"SELECT uuid, status, NOT {_FREE} FROM episodes"
            " WHERE group_id = %(g)s AND status = ANY(%(busy)s::text[]) ORDER BY id",
            {"g": group_id, "busy": IN_PROGRESS, "now": to_micros(now)},
        )
        busy = await cur.fetchall()
        if any(held for _, _, held in busy):
            return None
        if busy:
            uuid, status, _ = busy[0]
            return await _take(conn, group_id, uuid, status, owner, until, now)
        cur = await conn.execute(
            f"SELECT uuid, NOT {_FREE} FROM episodes WHERE group_id = %(g)s AND status = 'queued' ORDER BY id LIMIT 1",
            {"g": group_id, "now": to_micros(now)},
        )
        head = await cur.fetchone()
        if head is None or head[1]:  # none, or add_episode took it up in place: the queue waits on it
            return None
        return await _take(conn, group_id, head[0], "received", owner, until, now)


async def claim_episode(
    conn: AsyncConnection, group_id: str, episode_id: str, statuses: Collection[str], owner: str,
    until: datetime, now: datetime,
) -> EpisodeProgress | None:
    """Lease the episode to ``owner`` until ``until`` if it is in one of
    ``statuses`` and its lease is free; the episode as claimed, or None."""
    async with conn.transaction():
        await lock_group(conn, group_id)
        cur = await conn.execute(
            "UPDATE episodes SET lease_owner = %(owner)s, lease_until = %(until)s"
            f" WHERE group_id = %(g)s AND uuid = %(e)s AND status = ANY(%(statuses)s::text[]) AND {_FREE}",
            {"owner": owner, "until": to_micros(until), "g": group_id, "e": episode_id,
             "statuses": list(statuses), "now": to_micros(now)},
        )
        return await episode_progress(conn, group_id, episode_id) if cur.rowcount else None


async def extend_leases(
    conn: AsyncConnection, group_id: str, episode_ids: Collection[str], owner: str, until: datetime
) -> int:
    """Move the leases ``owner`` still holds on these episodes to ``until``
    (a heartbeat; ``until`` = now lets them go); how many it held."""
    cur = await conn.execute(
        "UPDATE episodes SET lease_until = %s WHERE group_id = %s AND lease_owner = %s AND uuid = ANY(%s::text[])",
        (to_micros(until), group_id, owner, list(episode_ids)),
    )
    return cur.rowcount


async def held_episodes(conn: AsyncConnection, now: datetime) -> list[Episode]:
    """Store-wide: unfinished episodes a live lease holds, the soonest free first."""
    cur = await conn.execute(
        f"SELECT {EPISODE_COLUMNS} FROM episodes p WHERE p.lease_owner IS NOT NULL"
        " AND p.lease_until > %s AND p.status != 'complete' ORDER BY p.lease_until, p.group_id, p.id",
        (to_micros(now),),
    )
    return [rows.episode(r) for r in await cur.fetchall()]


async def episode_counts(conn: AsyncConnection) -> dict[str, int]:
    """Store-wide: how many episodes are in each status."""
    cur = await conn.execute("SELECT status, COUNT(*) FROM episodes GROUP BY status")
    return {s: int(n) for s, n in await cur.fetchall()}
