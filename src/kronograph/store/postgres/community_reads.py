"""Community queries against PostgreSQL: the ports of
``..sqlite.community_reads``, with the same answers. Every query is scoped
by group_id (under Citus, one shard)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from psycopg import AsyncConnection

from ...model import Community
from ...time import to_micros
from .. import community_rows

__all__ = ["communities", "current_edges"]


async def current_edges(conn: AsyncConnection, group_id: str, at: datetime) -> list[tuple[str, str, str]]:
    """(uuid, source, target) of every fact valid at ``at`` and unexpired."""
    cur = await conn.execute(
        "SELECT uuid, source_uuid, target_uuid FROM facts WHERE group_id = %(g)s AND expired_at IS NULL"
        ' AND valid_at <= %(t)s AND (invalid_at IS NULL OR invalid_at > %(t)s) ORDER BY uuid COLLATE "C"',
        {"g": group_id, "t": to_micros(at)},
    )
    return [(u, s, o) for u, s, o in await cur.fetchall()]


async def communities(conn: AsyncConnection, group_id: str, uuids: Collection[str] | None) -> list[Community]:
    """The group's communities (only ``uuids``, when given) with their members."""
    sql = (
        "SELECT c.uuid, c.name, c.summary, c.method, c.built_at, m.entity_uuid, e.name, m.attached_at"
        " FROM communities c LEFT JOIN community_members m ON m.group_id = c.group_id AND m.community_uuid = c.uuid"
        " LEFT JOIN entities e ON e.group_id = m.group_id AND e.uuid = m.entity_uuid WHERE c.group_id = %(g)s"
    )
    params: dict[str, object] = {"g": group_id}
    if uuids is not None:
        sql += " AND c.uuid = ANY(%(ids)s)"
        params["ids"] = list(uuids)
    sql += ' ORDER BY c.uuid COLLATE "C", m.rank'
    cur = await conn.execute(sql, params)  # type: ignore[arg-type]  # built from fixed parts only
    return community_rows.communities(group_id, await cur.fetchall())
