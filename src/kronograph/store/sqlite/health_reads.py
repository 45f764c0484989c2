"""The reads ``reconcile`` makes of SQLite: one group's integrity scan."""

from __future__ import annotations

import sqlite3

from ...time import from_micros
from ..records import HealthScan

__all__ = ["health_scan"]


def health_scan(conn: sqlite3.Connection, group_id: str) -> HealthScan:
    unmentioned = [
        (uuid, name, from_micros(at))
        for uuid, name, at in conn.execute(
            "SELECT p.uuid, p.name, p.reference_time FROM episodes p WHERE p.group_id = ?"
            " AND p.status = 'complete' AND p.kind != 'fact' AND p.content IS NOT NULL AND p.content != ''"
            " AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.group_id = p.group_id AND m.episode_id = p.uuid)"
            " AND COALESCE(json_array_length(p.result, '$.notes'), 0) = 0"  # its notes say why: not a defect
            " ORDER BY p.reference_time, p.uuid",
            (group_id,),
        )
    ]
    dangling = [
        (fact_uuid, episode_id)
        for fact_uuid, episode_id in conn.execute(
            "SELECT s.fact_uuid, s.episode_id FROM fact_sources s WHERE s.group_id = ?"
            " AND NOT EXISTS (SELECT 1 FROM episodes p WHERE p.group_id = s.group_id AND p.uuid = s.episode_id)"
            " ORDER BY s.episode_id, s.fact_uuid",
            (group_id,),
        )
    ]
    fragments = [
        (a, a_name, b, b_name, float(score), episode_id)
        for a, a_name, b, b_name, score, episode_id in conn.execute(
            "SELECT f.a, ea.name, f.b, eb.name, f.score, f.episode_id FROM entity_fragments f"
            " JOIN entities ea ON ea.uuid = f.a AND ea.group_id = f.group_id"
            " JOIN entities eb ON eb.uuid = f.b AND eb.group_id = f.group_id"
            " WHERE f.group_id = ? ORDER BY f.score DESC, f.a, f.b",
            (group_id,),
        )
    ]
    orphans = [
        (uuid, name)
        for uuid, name in conn.execute(
            "SELECT e.uuid, e.name FROM entities e WHERE e.group_id = ?"
            " AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.group_id = e.group_id AND f.source_uuid = e.uuid)"
            " AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.group_id = e.group_id AND f.target_uuid = e.uuid)"
            " AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_uuid = e.uuid AND m.group_id = e.group_id)"
            " ORDER BY e.created_at, e.uuid",
            (group_id,),
        )
    ]
    return HealthScan(unmentioned, dangling, fragments, orphans)
