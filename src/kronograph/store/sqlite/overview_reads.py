"""A group's overview against SQLite (``..sql.overview_queries``)."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from ..sql import overview_queries as q
from .rows import DIALECT as D

__all__ = ["connected", "fact_counts"]


def fact_counts(conn: sqlite3.Connection, group_id: str, at: datetime) -> tuple[int, int, int, int]:
    return tuple(int(n) for n in conn.execute(*q.fact_counts(D, group_id, at)).fetchone())  # type: ignore[return-value]


def connected(conn: sqlite3.Connection, group_id: str, at: datetime, limit: int) -> list[tuple[str, str, int]]:
    return [(u, name, int(n)) for u, name, n in conn.execute(*q.connected(D, group_id, at, limit))]
