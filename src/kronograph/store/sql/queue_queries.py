"""The queue's and the leases' queries, for every backend (how each takes
the group's head atomically, an immediate transaction or the group's
advisory lock, is its own: ``..sqlite.queue_rows``, ``..postgres.queue_rows``).

A lease is free when it has no owner or end, or its end is not after ``now``.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from functools import cache

from ...time import to_micros
from .dialect import Dialect, Query

__all__ = [
    "IN_PROGRESS",
    "busy",
    "claim_episode",
    "episode_counts",
    "extend_leases",
    "head",
    "held_episodes",
    "queued_groups",
    "take",
]

IN_PROGRESS = ("received", "extracting", "resolving", "committing")


def _free(d: Dialect) -> str:
    return f"(lease_owner IS NULL OR lease_until IS NULL OR lease_until <= {d.p('now')})"


def queued_groups(d: Dialect, limit: int) -> Query:
    """Store-wide: groups with queued episodes, the longest waiting first."""
    return (
        f"SELECT group_id FROM episodes WHERE status = 'queued' GROUP BY group_id ORDER BY MIN(id) LIMIT {d.p('n')}",
        {"n": limit},
    )


def take(d: Dialect, group_id: str, uuid: str, status: str, owner: str, until: datetime, now: datetime) -> Query:
    """The episode leased to ``owner`` until ``until``, in ``status``."""
    p = d.p
    return (
        f"UPDATE episodes SET status = {p('s')}, lease_owner = {p('owner')}, lease_until = {p('until')},"
        f" updated_at = {p('now')} WHERE group_id = {p('g')} AND uuid = {p('u')}",
        {"s": status, "owner": owner, "until": to_micros(until), "now": to_micros(now), "g": group_id, "u": uuid},
    )


@cache
def _busy_sql(d: Dialect) -> str:
    return (
        f"SELECT uuid, status, NOT {_free(d)} FROM episodes WHERE group_id = {d.p('g')}"
        f" AND {d.in_list('status', 'busy')} ORDER BY id"
    )


def busy(d: Dialect, group_id: str, now: datetime) -> Query:
    """Rows (uuid, status, held) of the group's episodes in progress, oldest first."""
    return _busy_sql(d), {"g": group_id, "busy": d.bind_list(IN_PROGRESS), "now": to_micros(now)}


def head(d: Dialect, group_id: str, now: datetime) -> Query:
    """A row (uuid, held) of the group's oldest queued episode."""
    return (
        f"SELECT uuid, NOT {_free(d)} FROM episodes WHERE group_id = {d.p('g')} AND status = 'queued'"
        " ORDER BY id LIMIT 1",
        {"g": group_id, "now": to_micros(now)},
    )


@cache
def _claim_sql(d: Dialect) -> str:
    p = d.p
    return (
        f"UPDATE episodes SET lease_owner = {p('owner')}, lease_until = {p('until')}"
        f" WHERE group_id = {p('g')} AND uuid = {p('e')} AND {d.in_list('status', 'statuses')} AND {_free(d)}"
    )


def claim_episode(
    d: Dialect, group_id: str, episode_id: str, statuses: Collection[str], owner: str, until: datetime,
    now: datetime,
) -> Query:
    """The lease of the episode to ``owner``, if it is in one of ``statuses`` and its lease is free."""
    return _claim_sql(d), {
        "owner": owner, "until": to_micros(until), "g": group_id, "e": episode_id,
        "statuses": d.bind_list(statuses), "now": to_micros(now),
    }


def extend_leases(d: Dialect, group_id: str, episode_ids: Collection[str], owner: str, until: datetime) -> Query:
    """The leases ``owner`` still holds on these episodes moved to ``until``."""
    p = d.p
    return (
        f"UPDATE episodes SET lease_until = {p('until')} WHERE group_id = {p('g')} AND lease_owner = {p('owner')}"
        f" AND {d.in_list('uuid', 'ids')}",
        {"until": to_micros(until), "g": group_id, "owner": owner, "ids": d.bind_list(episode_ids)},
    )


def held_episodes(d: Dialect, now: datetime) -> Query:
    """Store-wide: unfinished episodes a live lease holds, the soonest free first."""
    return (
        f"SELECT {d.columns.episode} FROM episodes p WHERE p.lease_owner IS NOT NULL"
        f" AND p.lease_until > {d.p('now')} AND p.status != 'complete' ORDER BY p.lease_until, p.group_id, p.id",
        {"now": to_micros(now)},
    )


def episode_counts() -> Query:
    """Store-wide: how many episodes are in each status."""
    return "SELECT status, COUNT(*) FROM episodes GROUP BY status", {}
