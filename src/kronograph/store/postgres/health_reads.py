"""The reads ``reconcile`` makes of PostgreSQL: one group's integrity scan.

The port of ``..sqlite.health_reads``, with the same answers; every table is
filtered by the group and every join stays within it.
"""

from __future__ import annotations

from psycopg import AsyncConnection

from ...time import from_micros
from ..records import HealthScan

__all__ = ["health_scan"]

_UNMENTIONED = (
    "SELECT p.uuid, p.name, p.reference_time FROM episodes p WHERE p.group_id = %(g)s"
    " AND p.status = 'complete' AND p.kind != 'fact' AND p.content IS NOT NULL AND p.content != ''"
    " AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.group_id = p.group_id AND m.episode_id = p.uuid)"
    " AND COALESCE(jsonb_array_length(p.result -> 'notes'), 0) = 0"  # its notes say why: not a defect
    ' ORDER BY p.reference_time, p.uuid COLLATE "C"'
)
_DANGLING = (
    "SELECT s.fact_uuid, s.episode_id FROM fact_sources s WHERE s.group_id = %(g)s"
    " AND NOT EXISTS (SELECT 1 FROM episodes p WHERE p.group_id = s.group_id AND p.uuid = s.episode_id)"
    ' ORDER BY s.episode_id COLLATE "C", s.fact_uuid COLLATE "C"'
)
_FRAGMENTS = (
    "SELECT f.a, ea.name, f.b, eb.name, f.score, f.episode_id FROM entity_fragments f"
    " JOIN entities ea ON ea.group_id = f.group_id AND ea.uuid = f.a"
    " JOIN entities eb ON eb.group_id = f.group_id AND eb.uuid = f.b"
    ' WHERE f.group_id = %(g)s ORDER BY f.score DESC, f.a COLLATE "C", f.b COLLATE "C"'
)
_ORPHANS = (
    "SELECT e.uuid, e.name FROM entities e WHERE e.group_id = %(g)s"
    " AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.group_id = e.group_id AND f.source_uuid = e.uuid)"
    " AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.group_id = e.group_id AND f.target_uuid = e.uuid)"
    " AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.group_id = e.group_id AND m.entity_uuid = e.uuid)"
    ' ORDER BY e.created_at, e.uuid COLLATE "C"'
)


async def health_scan(conn: AsyncConnection, group_id: str) -> HealthScan:
    params = {"g": group_id}
    cur = await conn.execute(_UNMENTIONED, params)
    unmentioned = [(uuid, name, from_micros(at)) for uuid, name, at in await cur.fetchall()]
    cur = await conn.execute(_DANGLING, params)
    dangling = [(fact_uuid, episode_id) for fact_uuid, episode_id in await cur.fetchall()]
    cur = await conn.execute(_FRAGMENTS, params)
    fragments = [(a, an, b, bn, float(score), ep) for a, an, b, bn, score, ep in await cur.fetchall()]
    cur = await conn.execute(_ORPHANS, params)
    orphans = [(uuid, name) for uuid, name in await cur.fetchall()]
    return HealthScan(unmentioned, dangling, fragments, orphans)
