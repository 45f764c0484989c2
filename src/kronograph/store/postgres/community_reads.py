"""Community queries against PostgreSQL (``..sql.upkeep_queries``): the
group's current graph in one query, and its communities with their members.
Under Citus, one shard."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from psycopg import AsyncConnection

from ...model import Community
from .. import community_rows
from ..sql import upkeep_queries as q
from .columns import DIALECT as D
from .execute import fetch_all

__all__ = ["communities", "current_edges"]


async def current_edges(conn: AsyncConnection, group_id: str, at: datetime) -> list[tuple[str, str, str]]:
    """(uuid, source, target) of every fact valid at ``at`` and unexpired."""
    return [(u, s, o) for u, s, o in await fetch_all(conn, q.current_edges(D, group_id, at))]


async def communities(conn: AsyncConnection, group_id: str, uuids: Collection[str] | None) -> list[Community]:
    """The group's communities (only ``uuids``, when given) with their members."""
    return community_rows.communities(group_id, await fetch_all(conn, q.communities(D, group_id, uuids)))
