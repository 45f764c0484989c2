"""A group's overview against PostgreSQL (``..sql.overview_queries``).
Under Citus, one shard."""

from __future__ import annotations

from datetime import datetime

from psycopg import AsyncConnection

from ..sql import overview_queries as q
from .columns import DIALECT as D
from .execute import fetch_all, fetch_one

__all__ = ["connected", "fact_counts"]


async def fact_counts(conn: AsyncConnection, group_id: str, at: datetime) -> tuple[int, int, int, int]:
    row = await fetch_one(conn, q.fact_counts(D, group_id, at))
    return (int(row[0]), int(row[1]), int(row[2]), int(row[3])) if row else (0, 0, 0, 0)


async def connected(conn: AsyncConnection, group_id: str, at: datetime, limit: int) -> list[tuple[str, str, int]]:
    return [(u, name, int(n)) for u, name, n in await fetch_all(conn, q.connected(D, group_id, at, limit))]
