"""A group's overview against PostgreSQL (``..sql.overview_queries``).
Under Citus, one shard."""

from __future__ import annotations

from datetime import datetime

from psycopg import AsyncConnection

from ...model import Episode
from .. import rows
from ..sql import overview_queries as q
from .columns import DIALECT as D
from .execute import fetch_all, fetch_one

__all__ = ["connected", "episode_statuses", "fact_counts", "latest_episodes"]


async def fact_counts(conn: AsyncConnection, group_id: str, at: datetime) -> tuple[int, int, int, int]:
    row = await fetch_one(conn, q.fact_counts(D, group_id, at))
    return (int(row[0]), int(row[1]), int(row[2]), int(row[3])) if row else (0, 0, 0, 0)


async def connected(conn: AsyncConnection, group_id: str, at: datetime, limit: int) -> list[tuple[str, str, int]]:
    return [(u, name, int(n)) for u, name, n in await fetch_all(conn, q.connected(D, group_id, at, limit))]


async def episode_statuses(conn: AsyncConnection, group_id: str) -> dict[str, int]:
    return {status: int(n) for status, n in await fetch_all(conn, q.episode_statuses(D, group_id))}


async def latest_episodes(conn: AsyncConnection, group_id: str, limit: int) -> list[Episode]:
    return [rows.episode(r) for r in await fetch_all(conn, q.latest_episodes(D, group_id, limit))]
