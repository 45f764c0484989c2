"""A shared query (``..sql``) run on a PostgreSQL connection."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection

from ..sql.dialect import Query

__all__ = ["fetch_all", "fetch_one"]


async def fetch_all(conn: AsyncConnection, query: Query) -> list[tuple[Any, ...]]:
    cur = await conn.execute(*query)  # type: ignore[arg-type]  # built from fixed parts only
    return await cur.fetchall()


async def fetch_one(conn: AsyncConnection, query: Query) -> tuple[Any, ...] | None:
    cur = await conn.execute(*query)  # type: ignore[arg-type]  # built from fixed parts only
    return await cur.fetchone()
