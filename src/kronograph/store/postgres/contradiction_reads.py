"""A group's contradictions read from PostgreSQL (``..sql.contradiction_queries``); under Citus, one shard."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from psycopg import AsyncConnection

from .. import rows
from ..records import ContradictionRecord
from ..sql import contradiction_queries as q
from .columns import DIALECT as D
from .execute import fetch_all, fetch_one

__all__ = ["contradictions", "open_contradiction_count"]


async def contradictions(
    conn: AsyncConnection, group_id: str, fact_uuids: Collection[str] | None, open_only: bool, at: datetime
) -> list[ContradictionRecord]:
    if fact_uuids is not None and not fact_uuids:
        return []
    found = await fetch_all(conn, q.contradictions(D, group_id, fact_uuids, open_only, at))
    return [rows.contradiction(r) for r in found]


async def open_contradiction_count(conn: AsyncConnection, group_id: str, at: datetime) -> int:
    row = await fetch_one(conn, q.open_count(D, group_id, at))
    return int(row[0]) if row else 0
