"""The reads of a group's contradictions (kronograph.authority), for every
backend: the rows naming some facts (either side), and the count of open
ones. A row is open while nobody dismissed it, the fact it contradicts is
current, and the contradicting side is a current fact or, not a fact at all,
an episode that still exists (a candidate found by an episode's meaning).
Every subquery names the group as a constant: Citus routes the whole read
to the group's shard.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from functools import cache

from ...time import to_micros
from .dialect import Dialect, Query

__all__ = ["COLUMNS", "contradictions", "open_count"]

# rows.contradiction reads them in this order.
COLUMNS = (
    "c.group_id, c.fact_uuid, c.target_uuid, c.kind, c.reason, c.target_authority, c.actor_weight, c.score,"
    " c.similarity, c.note, c.actor, c.episode_id, c.created_at, c.dismissed_at"
)


def _current(d: Dialect, alias: str, uuid: str) -> str:
    """The test that fact ``uuid`` of the group exists and is current at ``t``
    (unexpired, and not ended by then)."""
    g, t = d.p("g"), d.p("t")
    return (
        f"EXISTS (SELECT 1 FROM facts {alias} WHERE {alias}.group_id = {g} AND {alias}.uuid = {uuid}"
        f" AND {alias}.expired_at IS NULL AND ({alias}.invalid_at IS NULL OR {alias}.invalid_at > {t}))"
    )


def _open(d: Dialect) -> str:
    g = d.p("g")
    return (
        f"c.dismissed_at IS NULL AND {_current(d, 'ct', 'c.target_uuid')}"
        f" AND ({_current(d, 'cf', 'c.fact_uuid')}"
        f" OR (NOT EXISTS (SELECT 1 FROM facts cx WHERE cx.group_id = {g} AND cx.uuid = c.fact_uuid)"
        f" AND EXISTS (SELECT 1 FROM episodes cp WHERE cp.group_id = {g} AND cp.uuid = c.fact_uuid)))"
    )


@cache
def _rows_sql(d: Dialect, listed: bool, open_only: bool) -> str:
    g = d.p("g")
    also = f" AND {_open(d)}" if open_only else ""
    if not listed:
        return (
            f"SELECT {COLUMNS} FROM contradictions c WHERE c.group_id = {g}{also}"
            f" ORDER BY c.score DESC, c.created_at, {d.bytewise('c.fact_uuid')}, {d.bytewise('c.target_uuid')},"
            f" {d.bytewise('c.kind')}"
        )
    # Each side by its own index (SQLite takes no index union on a table without rowids); a row
    # listed on both sides comes once.
    sides = " UNION ".join(
        f"SELECT {COLUMNS} FROM contradictions c{hint} WHERE c.group_id = {g} AND {d.in_list(f'c.{side}', 'f')}{also}"
        for side, hint in (("fact_uuid", ""), ("target_uuid", d.indexed("contradictions_by_target")))
    )
    return (
        f"SELECT * FROM ({sides}) u ORDER BY u.score DESC, u.created_at, {d.bytewise('u.fact_uuid')},"
        f" {d.bytewise('u.target_uuid')}, {d.bytewise('u.kind')}"
    )


def contradictions(
    d: Dialect, group_id: str, fact_uuids: Collection[str] | None, open_only: bool, at: datetime
) -> Query:
    """The group's rows naming one of ``fact_uuids`` on either side (all when
    None), only the open ones at ``at`` with ``open_only``; by score (highest
    first), then created_at, fact_uuid, target_uuid and kind."""
    params: dict[str, object] = {"g": group_id, "t": to_micros(at)}
    if fact_uuids is not None:
        params["f"] = d.bind_list(sorted(set(fact_uuids)))
    return _rows_sql(d, fact_uuids is not None, open_only), params


@cache
def _count_sql(d: Dialect) -> str:
    return f"SELECT COUNT(*) FROM contradictions c WHERE c.group_id = {d.p('g')} AND c.score > 0 AND {_open(d)}"


def open_count(d: Dialect, group_id: str, at: datetime) -> Query:
    """How many of the group's rows are open at ``at`` with a score above 0."""
    return _count_sql(d), {"g": group_id, "t": to_micros(at)}
