"""The ingestion queue's queries on PostgreSQL (see :mod:`kronograph.ingest.queue`).

A queued episode is an episode row with status ``queued``; each group's queue
is its queued rows in arrival order (``id``). Taking the head holds the
group's advisory lock, so workers in any number of processes take each
episode once, and a group's next episode only once none of its episodes is
in progress: each group's episodes commit in the order they were accepted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from psycopg import AsyncConnection

from ...time import to_micros
from ..records import EpisodeProgress
from .connection import lock_group
from .ingest_reads import episode_progress

__all__ = ["IN_PROGRESS", "claim_queued", "episode_counts", "queued_groups"]

IN_PROGRESS = ["received", "extracting", "resolving", "committing"]


async def queued_groups(conn: AsyncConnection, limit: int) -> list[str]:
    """Store-wide: groups with queued episodes, the longest waiting first."""
    cur = await conn.execute(
        "SELECT group_id FROM episodes WHERE status = 'queued' GROUP BY group_id ORDER BY MIN(id) LIMIT %s",
        (limit,),
    )
    return [g for (g,) in await cur.fetchall()]


async def claim_queued(
    conn: AsyncConnection, group_id: str, owner: Mapping[str, Any], now: datetime
) -> EpisodeProgress | None:
    """Mark the group's oldest queued episode ``received`` and owned, unless
    another episode of the group is in progress; the claimed episode, or None."""
    async with conn.transaction():
        await lock_group(conn, group_id)
        cur = await conn.execute(
            "SELECT 1 FROM episodes WHERE group_id = %s AND status = ANY(%s::text[]) LIMIT 1",
            (group_id, IN_PROGRESS),
        )
        if await cur.fetchone() is not None:
            return None
        cur = await conn.execute(
            "SELECT uuid, pending FROM episodes WHERE group_id = %s AND status = 'queued' ORDER BY id LIMIT 1",
            (group_id,),
        )
        head = await cur.fetchone()
        if head is None:
            return None
        uuid, pending = head
        mine = {**(pending or {}), "owner": dict(owner)}
        await conn.execute(
            "UPDATE episodes SET status = 'received', pending = %s::jsonb, updated_at = %s"
            " WHERE group_id = %s AND uuid = %s",
            (json.dumps(mine), to_micros(now), group_id, uuid),
        )
        return await episode_progress(conn, group_id, uuid)


async def episode_counts(conn: AsyncConnection) -> dict[str, int]:
    """Store-wide: how many episodes are in each status."""
    cur = await conn.execute("SELECT status, COUNT(*) FROM episodes GROUP BY status")
    return {s: int(n) for s, n in await cur.fetchall()}
