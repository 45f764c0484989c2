"""Copying a SQLite memory into PostgreSQL (``kronograph migrate``).

Modules: :mod:`.run` (the whole migration, :func:`migrate_memory`),
:mod:`.source` (the SQLite file: URL, checks, one snapshot), :mod:`.copy`
(every table in one PostgreSQL transaction), :mod:`.verify`, :mod:`.sample`
and :mod:`.snapshot` (the check: counts and the same questions asked of both).
Importing this package needs no PostgreSQL driver; running a migration does
(the ``postgres`` extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import MigrationError

if TYPE_CHECKING:
    from .run import MigrationReport, migrate_memory, migrate_memory_sync

__all__ = ["MigrationError", "MigrationReport", "migrate_memory", "migrate_memory_sync"]


def __getattr__(name: str) -> Any:
    """The migration itself is loaded on first use: it imports psycopg."""
    if name in ("MigrationReport", "migrate_memory", "migrate_memory_sync"):
        from . import run

        return getattr(run, name)
    raise AttributeError(name)
