"""Community queries against SQLite: the group's current graph in one query,
and its communities with their members. Every query is scoped by group_id."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from datetime import datetime

from ...model import Community
from ...time import to_micros
from .. import community_rows

__all__ = ["communities", "current_edges"]


def current_edges(conn: sqlite3.Connection, group_id: str, at: datetime) -> list[tuple[str, str, str]]:
    """(uuid, source, target) of every fact valid at ``at`` and unexpired."""
    t = to_micros(at)
    cur = conn.execute(
        "SELECT uuid, source_uuid, target_uuid FROM facts WHERE group_id = ? AND expired_at IS NULL"
        " AND valid_at <= ? AND (invalid_at IS NULL OR invalid_at > ?) ORDER BY uuid",
        (group_id, t, t),
    )
    return [(u, s, o) for u, s, o in cur]


def communities(conn: sqlite3.Connection, group_id: str, uuids: Collection[str] | None) -> list[Community]:
    """The group's communities (only ``uuids``, when given) with their members."""
    sql = (
        "SELECT c.uuid, c.name, c.summary, c.method, c.built_at, m.entity_uuid, e.name, m.attached_at"
        " FROM communities c LEFT JOIN community_members m ON m.community_uuid = c.uuid"
        " LEFT JOIN entities e ON e.uuid = m.entity_uuid WHERE c.group_id = ?"
    )
    args: tuple[object, ...] = (group_id,)
    if uuids is not None:
        sql += " AND c.uuid IN (SELECT value FROM json_each(?))"
        args += (json.dumps(list(uuids)),)
    sql += " ORDER BY c.uuid, m.rank"
    return community_rows.communities(group_id, conn.execute(sql, args))
