"""A shared query (``..sql``) run on a PostgreSQL connection."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection

from ..sql.dialect import Query
from .pipelined import in_pipeline

__all__ = ["fetch_all", "fetch_one", "fetch_together"]


async def fetch_all(conn: AsyncConnection, query: Query) -> list[tuple[Any, ...]]:
    cur = await conn.execute(*query)  # type: ignore[arg-type]  # built from fixed parts only
    return await cur.fetchall()


async def fetch_one(conn: AsyncConnection, query: Query) -> tuple[Any, ...] | None:
    cur = await conn.execute(*query)  # type: ignore[arg-type]  # built from fixed parts only
    return await cur.fetchone()


async def fetch_together(
    conn: AsyncConnection, *queries: Query | tuple[str, Any], binary: bool = False
) -> list[list[tuple[Any, ...]]]:
    """The rows of several independent queries, in one round trip: sent as
    one pipeline (the server answers them all at its end, or, inside a
    unit's pipeline, at the first fetch)."""
    if in_pipeline(conn):
        cursors = [await conn.execute(*q, binary=binary) for q in queries]  # type: ignore[arg-type]  # fixed parts only
        return [await cur.fetchall() for cur in cursors]
    async with conn.pipeline():
        cursors = [await conn.execute(*q, binary=binary) for q in queries]  # type: ignore[arg-type]  # fixed parts only
    return [await cur.fetchall() for cur in cursors]
