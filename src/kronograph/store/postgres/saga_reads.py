"""The reads sagas make of PostgreSQL: the shared queries of
``..sql.saga_queries`` run on a connection."""

from __future__ import annotations

from psycopg import AsyncConnection

from ...model import Episode
from .. import rows
from ..records import SagaCount, SagaState
from ..sql import saga_queries as q
from ..sql.saga_queries import Key
from .columns import DIALECT as D
from .execute import fetch_all, fetch_one

__all__ = ["saga_bound", "saga_episodes", "saga_lags", "saga_state"]


async def saga_state(conn: AsyncConnection, group_id: str, saga: str) -> SagaState | None:
    row = await fetch_one(conn, q.saga_state(D, group_id, saga))
    return None if row is None else q.state(D, row)


async def saga_bound(conn: AsyncConnection, group_id: str, saga: str) -> Key | None:
    row = await fetch_one(conn, q.saga_bound(D, group_id, saga))
    return q.bound(row) if row else None


async def saga_episodes(
    conn: AsyncConnection, group_id: str, saga: str, after: Key | None, upto: Key, limit: int
) -> list[Episode]:
    return [rows.episode(r) for r in await fetch_all(conn, q.saga_episodes(D, group_id, saga, after, upto, limit))]


async def saga_lags(conn: AsyncConnection, group_id: str) -> list[SagaCount]:
    return q.lags(await fetch_all(conn, q.saga_lags(D, group_id)))
