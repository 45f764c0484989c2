"""The exception tree, in one place.

::

    KronographError
    ├── InvalidInputError      bad argument; nothing was written (also a ValueError)
    ├── NotFoundError          the named episode, fact or entity does not exist (also a KeyError)
    ├── ClosedError            the memory or store was used after close()
    ├── JudgeError             the contradiction judge failed; nothing was written
    └── StoreError             the backend failed; its own exception is the __cause__
        ├── SchemaError        the database schema is newer than this library, or broken
        └── ConcurrentWriteError
                               another writer changed the group between read and write;
                               the memory retries these itself

Backend exceptions (sqlite3, psycopg) are translated at the store seam and never
leak to callers.
"""

from __future__ import annotations

__all__ = [
    "ClosedError",
    "ConcurrentWriteError",
    "InvalidInputError",
    "JudgeError",
    "KronographError",
    "NotFoundError",
    "SchemaError",
    "StoreError",
]


class KronographError(Exception):
    """Base class of every error kronograph raises on purpose."""


class InvalidInputError(KronographError, ValueError):
    """An argument is wrong; the message names it. Nothing was stored."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class NotFoundError(KronographError, KeyError):
    """The thing asked for does not exist in that group."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class ClosedError(KronographError):
    """The memory (or its store) has been closed."""


class StoreError(KronographError):
    """The storage backend failed."""


class SchemaError(StoreError):
    """The database schema cannot be used by this version of kronograph."""


class ConcurrentWriteError(StoreError):
    """The group changed between the read and the write of one unit of work."""


class JudgeError(KronographError):
    """The contradiction judge failed or answered something that is not a Verdict.
    Nothing was written; the judge's own exception is the __cause__."""
