"""Queries against the PostgreSQL schema. Every one is scoped by group_id."""

from __future__ import annotations

from psycopg import AsyncConnection

__all__ = ["revision"]


async def revision(conn: AsyncConnection, group_id: str) -> int:
    cur = await conn.execute("SELECT revision FROM groups WHERE group_id = %s", (group_id,))
    row = await cur.fetchone()
    return int(row[0]) if row else 0
