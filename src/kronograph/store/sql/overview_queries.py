"""The reads of a group's overview (``AsyncMemory.overview``), written once
for both dialects: its standing facts counted by kind in one aggregate, and
its most connected entities (most facts holding at a time). Group-scoped,
and no row leaves the database but the counts and the top entities."""

from __future__ import annotations

from datetime import datetime
from functools import cache

from ...time import to_micros
from .dialect import Dialect, Query

__all__ = ["connected", "episode_statuses", "fact_counts", "latest_episodes"]


@cache
def _counts_sql(d: Dialect) -> str:
    g, t = d.p("g"), d.p("t")
    event, standing = d.is_("event", True), d.is_("event", False)
    holds = f"valid_at <= {t} AND (invalid_at IS NULL OR invalid_at > {t})"
    return (
        f"SELECT COALESCE(SUM(CASE WHEN {standing} AND {holds} THEN 1 ELSE 0 END), 0),"
        f" COALESCE(SUM(CASE WHEN {standing} AND invalid_at IS NOT NULL AND invalid_at <= {t} THEN 1 ELSE 0 END), 0),"
        f" COALESCE(SUM(CASE WHEN {event} THEN 1 ELSE 0 END), 0),"
        f" (SELECT COUNT(*) FROM entities WHERE group_id = {g})"
        f" FROM facts WHERE group_id = {g} AND expired_at IS NULL"
    )


def fact_counts(d: Dialect, group_id: str, at: datetime) -> Query:
    """One row: the group's unexpired facts holding at ``at`` (events apart),
    those ended by then, its events, and its entities."""
    return _counts_sql(d), {"g": group_id, "t": to_micros(at)}


@cache
def _connected_sql(d: Dialect) -> str:
    g, t = d.p("g"), d.p("t")
    holding = (
        f"FROM facts WHERE group_id = {g} AND expired_at IS NULL AND {d.is_('event', False)}"
        f" AND valid_at <= {t} AND (invalid_at IS NULL OR invalid_at > {t})"
    )
    ends = f"SELECT group_id, source_uuid AS u {holding} UNION ALL SELECT group_id, target_uuid AS u {holding}"
    return (
        f"SELECT e.uuid, e.name, COUNT(*) AS n FROM ({ends}) x"
        f" JOIN entities e ON {d.on('e', 'x', 'e.uuid = x.u')} WHERE e.group_id = {g}"
        f" GROUP BY e.uuid, e.name ORDER BY n DESC, {d.bytewise('e.name')}, {d.bytewise('e.uuid')} LIMIT {d.p('n')}"
    )


def connected(d: Dialect, group_id: str, at: datetime, limit: int) -> Query:
    """(uuid, name, facts) of the ``limit`` entities at an end of the most
    facts holding at ``at`` (events apart), then by name and uuid (byte order)."""
    return _connected_sql(d), {"g": group_id, "t": to_micros(at), "n": limit}


def episode_statuses(d: Dialect, group_id: str) -> Query:
    """(status, count) of the group's episodes."""
    return f"SELECT status, COUNT(*) FROM episodes WHERE group_id = {d.p('g')} GROUP BY status", {"g": group_id}


@cache
def _latest_sql(d: Dialect) -> str:
    return (f"SELECT {d.columns.episode} FROM episodes p WHERE p.group_id = {d.p('g')}"
            f" ORDER BY p.id DESC LIMIT {d.p('n')}")


def latest_episodes(d: Dialect, group_id: str, limit: int) -> Query:
    """The group's ``limit`` episodes received last, newest first (rows of ``rows.episode``)."""
    return _latest_sql(d), {"g": group_id, "n": limit}
