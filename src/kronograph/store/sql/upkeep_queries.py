"""The reads of upkeep: a group's current graph and its communities (for
community detection), and its integrity scan (for ``reconcile``). Every
query is scoped by the group and every join stays within it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from functools import cache
from typing import Any

from ...time import from_micros, to_micros
from ..records import HealthScan
from .dialect import Dialect, Query

__all__ = ["communities", "current_edges", "health_scan", "scan"]


def current_edges(d: Dialect, group_id: str, at: datetime) -> Query:
    """(uuid, source, target) of every fact valid at ``at`` and unexpired."""
    g, t = d.p("g"), d.p("t")
    return (
        f"SELECT uuid, source_uuid, target_uuid FROM facts WHERE group_id = {g} AND expired_at IS NULL"
        f" AND valid_at <= {t} AND (invalid_at IS NULL OR invalid_at > {t}) ORDER BY {d.bytewise('uuid')}",
        {"g": group_id, "t": to_micros(at)},
    )


@cache
def _communities_sql(d: Dialect, listed: bool) -> str:
    sql = (
        "SELECT c.uuid, c.name, c.summary, c.method, c.built_at, m.entity_uuid, e.name, m.attached_at"
        f" FROM communities c LEFT JOIN community_members m ON {d.on('m', 'c', 'm.community_uuid = c.uuid')}"
        f" LEFT JOIN entities e ON {d.on('e', 'm', 'e.uuid = m.entity_uuid')} WHERE c.group_id = {d.p('g')}"
    )
    if listed:
        sql += f" AND {d.in_list('c.uuid', 'ids')}"
    return sql + f" ORDER BY {d.bytewise('c.uuid')}, m.rank"


def communities(d: Dialect, group_id: str, uuids: Collection[str] | None) -> Query:
    """The group's communities (only ``uuids``, when given), a row per member
    (see ``community_rows``)."""
    params: dict[str, object] = {"g": group_id}
    if uuids is not None:
        params["ids"] = d.bind_list(uuids)
    return _communities_sql(d, uuids is not None), params


@cache
def _scan_sql(d: Dialect) -> tuple[str, str, str, str]:
    g = d.p("g")
    unmentioned = (
        f"SELECT p.uuid, p.name, p.reference_time FROM episodes p WHERE p.group_id = {g}"
        " AND p.status = 'complete' AND p.kind != 'fact' AND p.content IS NOT NULL AND p.content != ''"
        " AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.group_id = p.group_id AND m.episode_id = p.uuid)"
        f" AND COALESCE({d.json_length('p.result', 'notes')}, 0) = 0"  # its notes say why: not a defect
        f" ORDER BY p.reference_time, {d.bytewise('p.uuid')}"
    )
    dangling = (
        f"SELECT s.fact_uuid, s.episode_id FROM fact_sources s WHERE s.group_id = {g}"
        " AND NOT EXISTS (SELECT 1 FROM episodes p WHERE p.group_id = s.group_id AND p.uuid = s.episode_id)"
        f" ORDER BY {d.bytewise('s.episode_id')}, {d.bytewise('s.fact_uuid')}"
    )
    fragments = (
        "SELECT f.a, ea.name, f.b, eb.name, f.score, f.episode_id FROM entity_fragments f"
        " JOIN entities ea ON ea.group_id = f.group_id AND ea.uuid = f.a"
        " JOIN entities eb ON eb.group_id = f.group_id AND eb.uuid = f.b"
        f" WHERE f.group_id = {g} ORDER BY f.score DESC, {d.bytewise('f.a')}, {d.bytewise('f.b')}"
    )
    orphans = (
        f"SELECT e.uuid, e.name FROM entities e WHERE e.group_id = {g}"
        " AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.group_id = e.group_id AND f.source_uuid = e.uuid)"
        " AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.group_id = e.group_id AND f.target_uuid = e.uuid)"
        " AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.group_id = e.group_id AND m.entity_uuid = e.uuid)"
        f" ORDER BY e.created_at, {d.bytewise('e.uuid')}"
    )
    return unmentioned, dangling, fragments, orphans


def health_scan(d: Dialect, group_id: str) -> tuple[Query, Query, Query, Query]:
    """The integrity scan's four queries: complete episodes no entity came
    from (without notes saying why), sources naming a missing episode,
    suspected entity fragments, and entities nothing refers to."""
    params: dict[str, object] = {"g": group_id}
    unmentioned, dangling, fragments, orphans = _scan_sql(d)
    return (unmentioned, params), (dangling, params), (fragments, params), (orphans, params)


def scan(*found: Iterable[Sequence[Any]]) -> HealthScan:
    """The scan from the rows of :func:`health_scan`'s four queries, in order."""
    unmentioned, dangling, fragments, orphans = found
    return HealthScan(
        [(uuid, name, from_micros(at)) for uuid, name, at in unmentioned],
        [(fact_uuid, episode_id) for fact_uuid, episode_id in dangling],
        [(a, a_name, b, b_name, float(score), episode) for a, a_name, b, b_name, score, episode in fragments],
        [(uuid, name) for uuid, name in orphans],
    )
