"""PostgreSQL's reads of data subjects and of the erasure log (see ..sql.erasure_queries)."""

from __future__ import annotations

from psycopg import AsyncConnection

from ...erasure import ErasureReceipt
from ..sql import erasure_queries as q
from .columns import DIALECT as D
from .execute import fetch_all

__all__ = ["data_subject_items", "erasures"]


async def data_subject_items(conn: AsyncConnection, group_id: str, key: str) -> tuple[list[str], list[str]]:
    episodes = [u for (u,) in await fetch_all(conn, q.subject_episodes(D, group_id, key))]
    facts = [u for (u,) in await fetch_all(conn, q.subject_facts(D, group_id, key))]
    return episodes, facts


async def erasures(
    conn: AsyncConnection, group_id: str, request_id: str | None, last_only: bool
) -> list[ErasureReceipt]:
    return [q.receipt(D, row) for row in await fetch_all(conn, q.erasures(D, group_id, request_id, last_only))]
