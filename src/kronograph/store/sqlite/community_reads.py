"""Community queries against SQLite (``..sql.upkeep_queries``): the group's
current graph in one query, and its communities with their members."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from datetime import datetime

from ...model import Community
from .. import community_rows
from ..sql import upkeep_queries as q
from .rows import DIALECT as D

__all__ = ["communities", "current_edges"]


def current_edges(conn: sqlite3.Connection, group_id: str, at: datetime) -> list[tuple[str, str, str]]:
    """(uuid, source, target) of every fact valid at ``at`` and unexpired."""
    return [(u, s, o) for u, s, o in conn.execute(*q.current_edges(D, group_id, at))]


def communities(conn: sqlite3.Connection, group_id: str, uuids: Collection[str] | None) -> list[Community]:
    """The group's communities (only ``uuids``, when given) with their members."""
    return community_rows.communities(group_id, conn.execute(*q.communities(D, group_id, uuids)))
