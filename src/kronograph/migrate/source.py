"""The SQLite side of a migration: the URL, the checks that it is a current
kronograph memory, and its tables read from one snapshot.

The file is opened read-only and read inside one transaction, so what is
copied is one consistent state even if a process writes to the file
meanwhile (its later writes are not copied).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from ..store.sqlite.schema import MIGRATIONS
from .errors import MigrationError

__all__ = ["SQLITE_ONLY_COLUMNS", "SqliteSource", "source_path"]

# Columns SQLite has and PostgreSQL does not: the rowids its FTS5 tables index by.
SQLITE_ONLY_COLUMNS = {("entities", "id"), ("facts", "id"), ("communities", "id")}


def source_path(url: str) -> Path:
    """The file of ``sqlite:///relative.db``, ``sqlite:////absolute.db`` or a
    plain path; any other URL is refused, naming what was given."""
    text = url.strip()
    if not text:
        raise MigrationError("--from: give the SQLite memory to copy, e.g. sqlite:///kronograph.db")
    if text.startswith("sqlite:"):
        rest = text[len("sqlite:") :]
        if not rest.startswith("///") or rest[3:] in ("", ":memory:"):
            raise MigrationError(
                f"--from: {url!r} is not a SQLite file URL: write sqlite:///relative.db or sqlite:////absolute.db"
            )
        return Path(rest[3:])
    if "://" in text:
        scheme = text.split("://", 1)[0]
        raise MigrationError(
            f"--from: a {scheme}:// URL cannot be a source: kronograph migrate copies a SQLite memory "
            "(sqlite:///path.db) into PostgreSQL"
        )
    if text == ":memory:":
        raise MigrationError("--from: an in-memory database holds nothing to copy; give a SQLite file")
    return Path(text)


class SqliteSource:
    """A kronograph SQLite memory, open read-only in one read transaction."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise MigrationError(f"--from: no SQLite database at {path}")
        self.path = path
        uri = f"file:{quote(str(path.resolve()))}?mode=ro"
        self.conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        try:
            self.conn.execute("BEGIN")  # one snapshot for every read that follows
            tables = {
                name for (name,) in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        except sqlite3.DatabaseError as exc:
            self.close()
            raise MigrationError(f"--from: {path} is not a SQLite database ({exc})") from None
        self.tables = tables
        self.version = self._check_version()

    def _check_version(self) -> int:
        if "schema_migrations" not in self.tables or "groups" not in self.tables:
            self.close()
            raise MigrationError(f"--from: {self.path} is a SQLite database but not a kronograph memory")
        (found,) = self.conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        version, latest = int(found or 0), MIGRATIONS[-1][0]
        if version < latest:
            self.close()
            raise MigrationError(
                f"--from: {self.path} has kronograph schema version {version}, older than this kronograph's "
                f"{latest}: open it once with this kronograph (any command, e.g. "
                f"`kronograph episodes GROUP --db {self.path}`) to migrate it, then run kronograph migrate again"
            )
        if version > latest:
            self.close()
            raise MigrationError(
                f"--from: {self.path} has kronograph schema version {version}, but this kronograph only knows "
                f"versions up to {latest}: upgrade kronograph to migrate it"
            )
        return version

    def columns(self, table: str) -> list[str]:
        if table not in self.tables:
            raise MigrationError(f"--from: {self.path} has no table {table}: its schema is not kronograph's")
        return [row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")]

    def count(self, table: str) -> int:
        return int(self.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])

    def groups(self) -> list[str]:
        return [g for (g,) in self.conn.execute("SELECT group_id FROM groups ORDER BY group_id")]

    def rows(self, table: str, columns: list[str], order: str, batch: int) -> Iterator[list[tuple]]:  # type: ignore[type-arg]
        """The table's rows in batches, in ``order`` (arrival order where there is one)."""
        cur = self.conn.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}")
        while chunk := cur.fetchmany(batch):
            yield chunk

    def vector_dimensions(self) -> set[int]:
        """The dimensions of the stored vectors (float32: four bytes a number)."""
        dims: set[int] = set()
        for table in ("facts", "entities", "episodes", "communities"):
            sql = f"SELECT DISTINCT length(embedding) FROM {table} WHERE embedding IS NOT NULL"
            dims |= {int(n) // 4 for (n,) in self.conn.execute(sql)}
        return dims

    def close(self) -> None:
        try:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
        finally:
            self.conn.close()
