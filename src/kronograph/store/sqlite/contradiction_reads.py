"""A group's contradictions read from SQLite (``..sql.contradiction_queries``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from datetime import datetime

from .. import rows
from ..records import ContradictionRecord
from ..sql import contradiction_queries as q
from .rows import DIALECT as D

__all__ = ["contradictions", "open_contradiction_count"]


def contradictions(
    conn: sqlite3.Connection, group_id: str, fact_uuids: Collection[str] | None, open_only: bool, at: datetime
) -> list[ContradictionRecord]:
    if fact_uuids is not None and not fact_uuids:
        return []
    return [rows.contradiction(r) for r in conn.execute(*q.contradictions(D, group_id, fact_uuids, open_only, at))]


def open_contradiction_count(conn: sqlite3.Connection, group_id: str, at: datetime) -> int:
    return int(conn.execute(*q.open_count(D, group_id, at)).fetchone()[0])
