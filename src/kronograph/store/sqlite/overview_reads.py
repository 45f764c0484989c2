"""A group's overview against SQLite (``..sql.overview_queries``)."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from ...model import Episode
from ..sql import overview_queries as q
from . import rows
from .rows import DIALECT as D

__all__ = ["connected", "episode_statuses", "fact_counts", "latest_episodes"]


def fact_counts(conn: sqlite3.Connection, group_id: str, at: datetime) -> tuple[int, int, int, int]:
    return tuple(int(n) for n in conn.execute(*q.fact_counts(D, group_id, at)).fetchone())  # type: ignore[return-value]


def connected(conn: sqlite3.Connection, group_id: str, at: datetime, limit: int) -> list[tuple[str, str, int]]:
    return [(u, name, int(n)) for u, name, n in conn.execute(*q.connected(D, group_id, at, limit))]


def episode_statuses(conn: sqlite3.Connection, group_id: str) -> dict[str, int]:
    return {status: int(n) for status, n in conn.execute(*q.episode_statuses(D, group_id))}


def latest_episodes(conn: sqlite3.Connection, group_id: str, limit: int) -> list[Episode]:
    return [rows.episode(r) for r in conn.execute(*q.latest_episodes(D, group_id, limit))]
