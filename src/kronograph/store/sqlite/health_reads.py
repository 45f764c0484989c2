"""The reads ``reconcile`` makes of SQLite: one group's integrity scan
(``..sql.upkeep_queries``)."""

from __future__ import annotations

import sqlite3

from ..records import HealthScan
from ..sql import upkeep_queries as q
from .rows import DIALECT as D

__all__ = ["health_scan"]


def health_scan(conn: sqlite3.Connection, group_id: str) -> HealthScan:
    return q.scan(*(conn.execute(*query).fetchall() for query in q.health_scan(D, group_id)))
