"""SQLite's reads of data subjects and of the erasure log (see ..sql.erasure_queries)."""

from __future__ import annotations

import sqlite3

from ...erasure import ErasureReceipt
from ..sql import erasure_queries as q
from .rows import DIALECT as D

__all__ = ["data_subject_items", "erasures"]


def data_subject_items(conn: sqlite3.Connection, group_id: str, key: str) -> tuple[list[str], list[str]]:
    episodes = [u for (u,) in conn.execute(*q.subject_episodes(D, group_id, key))]
    facts = [u for (u,) in conn.execute(*q.subject_facts(D, group_id, key))]
    return episodes, facts


def erasures(conn: sqlite3.Connection, group_id: str, request_id: str | None, last_only: bool) -> list[ErasureReceipt]:
    return [q.receipt(D, row) for row in conn.execute(*q.erasures(D, group_id, request_id, last_only))]
