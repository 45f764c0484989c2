"""SQLite backend."""

from .store import SQLiteStore

__all__ = ["SQLiteStore"]
