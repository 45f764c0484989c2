"""The reads sagas make of SQLite: the shared queries of ``..sql.saga_queries``
run on a connection."""

from __future__ import annotations

import sqlite3

from ...model import Episode
from ..records import SagaCount, SagaState
from ..sql import saga_queries as q
from ..sql.saga_queries import Key
from . import rows
from .rows import DIALECT as D

__all__ = ["saga_bound", "saga_episodes", "saga_lags", "saga_state"]


def saga_state(conn: sqlite3.Connection, group_id: str, saga: str) -> SagaState | None:
    row = conn.execute(*q.saga_state(D, group_id, saga)).fetchone()
    return None if row is None else q.state(D, row)


def saga_bound(conn: sqlite3.Connection, group_id: str, saga: str) -> Key | None:
    row = conn.execute(*q.saga_bound(D, group_id, saga)).fetchone()
    return q.bound(row) if row else None


def saga_episodes(
    conn: sqlite3.Connection, group_id: str, saga: str, after: Key | None, upto: Key, limit: int
) -> list[Episode]:
    return [rows.episode(r) for r in conn.execute(*q.saga_episodes(D, group_id, saga, after, upto, limit))]


def saga_lags(conn: sqlite3.Connection, group_id: str) -> list[SagaCount]:
    return q.lags(conn.execute(*q.saga_lags(D, group_id)).fetchall())
