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
from .. import rows
from ..records import EpisodeProgress
from ..sql import queue_queries as q
from ..sql.queue_queries import IN_PROGRESS
from .columns import DIALECT as D
from .connection import lock_group
from .execute import fetch_all, fetch_one
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


async def queued_groups(conn: AsyncConnection, limit: int) -> list[str]:
    """Store-wide: groups with queued episodes, the longest waiting first."""
    return [g for (g,) in await fetch_all(conn, q.queued_groups(D, limit))]


async def _take(conn: AsyncConnection, group_id: str, uuid: str, status: str, owner: str, until: datetime,
                now: datetime) -> EpisodeProgress | None:
    await conn.execute(*q.take(D, group_id, uuid, status, owner, until, now))  # type: ignore[arg-type]
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
        busy = await fetch_all(conn, q.busy(D, group_id, now))
        if any(held for _, _, held in busy):
            return None
        if busy:
            uuid, status, _ = busy[0]
            return await _take(conn, group_id, uuid, status, owner, until, now)
        head = await fetch_one(conn, q.head(D, group_id, now))
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
        query = q.claim_episode(D, group_id, episode_id, statuses, owner, until, now)
        cur = await conn.execute(*query)  # type: ignore[arg-type]
        return await episode_progress(conn, group_id, episode_id) if cur.rowcount else None


async def extend_leases(
    conn: AsyncConnection, group_id: str, episode_ids: Collection[str], owner: str, until: datetime
) -> int:
    """Move the leases ``owner`` still holds on these episodes to ``until``
    (a heartbeat; ``until`` = now lets them go); how many it held."""
    cur = await conn.execute(*q.extend_leases(D, group_id, episode_ids, owner, until))  # type: ignore[arg-type]
    return cur.rowcount


async def held_episodes(conn: AsyncConnection, now: datetime) -> list[Episode]:
    """Store-wide: unfinished episodes a live lease holds, the soonest free first."""
    return [rows.episode(r) for r in await fetch_all(conn, q.held_episodes(D, now))]


async def episode_counts(conn: AsyncConnection) -> dict[str, int]:
    """Store-wide: how many episodes are in each status."""
    return {s: int(n) for s, n in await fetch_all(conn, q.episode_counts())}
