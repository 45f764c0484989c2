"""The key under which SQLite reads keep what they learnt of a group.

A group's ``revision`` moves with every committed write to it, and its
``created_at`` with a group forgotten and made again, so what was kept under
an older key is stale. Search's full-text rows, name matches and entities
read by uuid are all kept this way.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .readers import Memos

__all__ = ["Snapshot", "group_key", "keeps"]


class Snapshot(sqlite3.Connection):
    """A reader's connection (readers.py): every call one read transaction,
    never a write to the database (full-text ranking's temporary tables
    aside), so what it reads inside its transaction may be kept."""

    memos: Memos


def keeps(conn: sqlite3.Connection) -> bool:
    """Whether what is read on ``conn`` now may be kept under the group's
    key: not from inside a writer's transaction, whose writes may yet roll
    back; always on a reader's snapshot."""
    return not conn.in_transaction or isinstance(conn, Snapshot)


def group_key(conn: sqlite3.Connection, group_id: str) -> tuple[int, int] | None:
    """(created_at, revision) of the group; None when it does not exist."""
    row = conn.execute("SELECT created_at, revision FROM groups WHERE group_id = ?", (group_id,)).fetchone()
    return (int(row[0]), int(row[1])) if row is not None else None
