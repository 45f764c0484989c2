"""The ingestion queue's and the leases' queries (see :mod:`kronograph.ingest.queue`
and :mod:`kronograph.ingest.ownership`).

A queued episode is an episode row with status ``queued``: accepted and
durable, not yet begun. Each group's queue is its queued rows in arrival
order (``id``). Taking the head is one immediate transaction, so two workers
(threads or processes) never take the same episode, and a group's next
episode is taken only once none of its episodes is in progress: each
group's episodes commit in the order they were accepted.

An unfinished episode is held by a lease (``lease_owner``, ``lease_until``),
written in the transaction that claims it; a claim succeeds only where the
lease is free: none, or one whose ``lease_until`` is not after ``now``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection
from datetime import datetime

from ...model import Episode
from ..records import EpisodeProgress
from ..sql import queue_queries as q
from ..sql.queue_queries import IN_PROGRESS
from . import rows
from .ingest_reads import episode_progress
from .rows import DIALECT as D

__all__ = [
    "IN_PROGRESS",
    "claim_episode",
    "claim_queued",
    "episode_counts",
    "extend_leases",
    "held_episodes",
    "queued_groups",
]


def queued_groups(conn: sqlite3.Connection, limit: int) -> list[str]:
    """Store-wide: groups with queued episodes, the longest waiting first."""
    return [g for (g,) in conn.execute(*q.queued_groups(D, limit))]


def _immediate(conn: sqlite3.Connection, work: Callable[[], EpisodeProgress | None]) -> EpisodeProgress | None:
    conn.execute("BEGIN IMMEDIATE")  # read and write as one: no other writer between them
    try:
        found = work()
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return found


def _take(conn: sqlite3.Connection, group_id: str, uuid: str, status: str, owner: str, until: datetime,
          now: datetime) -> EpisodeProgress | None:
    conn.execute(*q.take(D, group_id, uuid, status, owner, until, now))
    return episode_progress(conn, group_id, uuid)


def claim_queued(
    conn: sqlite3.Connection, group_id: str, owner: str, until: datetime, now: datetime
) -> EpisodeProgress | None:
    """The group's next episode to work on, leased to ``owner`` until ``until``:
    its oldest episode in progress whose lease has lapsed (a dead worker's),
    else, when none is in progress, its oldest queued one (now ``received``).
    None while a live lease holds an episode of the group, or when nothing waits."""

    def claim() -> EpisodeProgress | None:
        busy = conn.execute(*q.busy(D, group_id, now)).fetchall()
        if any(held for _, _, held in busy):
            return None
        if busy:
            uuid, status, _ = busy[0]
            return _take(conn, group_id, uuid, status, owner, until, now)
        head = conn.execute(*q.head(D, group_id, now)).fetchone()
        if head is None or head[1]:  # none, or add_episode took it up in place: the queue waits on it
            return None
        return _take(conn, group_id, head[0], "received", owner, until, now)

    return _immediate(conn, claim)


def claim_episode(
    conn: sqlite3.Connection, group_id: str, episode_id: str, statuses: Collection[str], owner: str,
    until: datetime, now: datetime,
) -> EpisodeProgress | None:
    """Lease the episode to ``owner`` until ``until`` if it is in one of
    ``statuses`` and its lease is free; the episode as claimed, or None."""

    def claim() -> EpisodeProgress | None:
        cur = conn.execute(*q.claim_episode(D, group_id, episode_id, statuses, owner, until, now))
        return episode_progress(conn, group_id, episode_id) if cur.rowcount else None

    return _immediate(conn, claim)


def extend_leases(
    conn: sqlite3.Connection, group_id: str, episode_ids: Collection[str], owner: str, until: datetime
) -> int:
    """Move the leases ``owner`` still holds on these episodes to ``until``
    (a heartbeat; ``until`` = now lets them go); how many it held."""
    return conn.execute(*q.extend_leases(D, group_id, episode_ids, owner, until)).rowcount


def held_episodes(conn: sqlite3.Connection, now: datetime) -> list[Episode]:
    """Store-wide: unfinished episodes a live lease holds, the soonest free first."""
    return [rows.episode(r) for r in conn.execute(*q.held_episodes(D, now))]


def episode_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Store-wide: how many episodes are in each status."""
    return {s: n for s, n in conn.execute(*q.episode_counts())}
