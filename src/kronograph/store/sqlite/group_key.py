"""The key under which SQLite reads keep what they learnt of a group.

A group's ``revision`` moves with every committed write to it, and its
``created_at`` with a group forgotten and made again, so what was kept under
an older key is stale. Search's full-text rows, name matches and entities
read by uuid are all kept this way.
"""

from __future__ import annotations

import sqlite3

__all__ = ["group_key"]


def group_key(conn: sqlite3.Connection, group_id: str) -> tuple[int, int] | None:
    """(created_at, revision) of the group; None when it does not exist."""
    row = conn.execute("SELECT created_at, revision FROM groups WHERE group_id = ?", (group_id,)).fetchone()
    return (int(row[0]), int(row[1])) if row is not None else None
