"""The ingestion queue's queries (see :mod:`kronograph.ingest.queue`).

A queued episode is an episode row with status ``queued``: accepted and
durable, not yet begun. Each group's queue is its queued rows in arrival
order (``id``). Taking the head is one immediate transaction, so two workers
(threads or processes) never take the same episode, and a group's next
episode is taken only once none of its episodes is in progress: each
group's episodes commit in the order they were accepted.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ...time import to_micros
from ..records import EpisodeProgress
from .ingest_reads import episode_progress

__all__ = ["IN_PROGRESS", "claim_queued", "episode_counts", "queued_groups"]

IN_PROGRESS = ("received", "extracting", "resolving", "committing")


def queued_groups(conn: sqlite3.Connection, limit: int) -> list[str]:
    """Store-wide: groups with queued episodes, the longest waiting first."""
    cur = conn.execute(
        "SELECT group_id FROM episodes WHERE status = 'queued' GROUP BY group_id ORDER BY MIN(id) LIMIT ?",
        (limit,),
    )
    return [g for (g,) in cur]


def claim_queued(
    conn: sqlite3.Connection, group_id: str, owner: Mapping[str, Any], now: datetime
) -> EpisodeProgress | None:
    """Mark the group's oldest queued episode ``received`` and owned, unless
    another episode of the group is in progress; the claimed episode, or None."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        busy = conn.execute(
            f"SELECT 1 FROM episodes WHERE group_id = ? AND status IN ({','.join('?' * len(IN_PROGRESS))}) LIMIT 1",
            (group_id, *IN_PROGRESS),
        ).fetchone()
        head = None if busy else conn.execute(
            "SELECT uuid, pending FROM episodes WHERE group_id = ? AND status = 'queued' ORDER BY id LIMIT 1",
            (group_id,),
        ).fetchone()
        if head is None:
            conn.execute("ROLLBACK")
            return None
        uuid, pending = head
        mine = {**(json.loads(pending) if pending else {}), "owner": dict(owner)}
        conn.execute(
            "UPDATE episodes SET status = 'received', pending = ?, updated_at = ? WHERE group_id = ? AND uuid = ?",
            (json.dumps(mine), to_micros(now), group_id, uuid),
        )
        claimed = episode_progress(conn, group_id, uuid)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return claimed


def episode_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Store-wide: how many episodes are in each status."""
    return {s: n for s, n in conn.execute("SELECT status, COUNT(*) FROM episodes GROUP BY status")}
