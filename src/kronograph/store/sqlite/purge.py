"""What ``forget`` asks of SQLite: where text occurs, and erasing its traces.

A deleted row's bytes can outlive the row: in freed pages, in the write-ahead
log, and in full-text index segments that still list its words until they are
merged. A purge is written with ``secure_delete`` on (freed content is
zeroed), and :func:`erase_traces` then merges the full-text indexes and
checkpoints the log back into the database, truncating it, so the words are
gone from the files, not just unreachable.

The checkpoint can be held back: a connection (of this process or another)
reading a snapshot older than the purge still needs the old pages, so they
stay in the log and the database file until it ends. :func:`erase_traces`
then waits a bounded time, and if the reader is still there it says so
(``Erasure.complete`` False) and records that an erasure is pending; the next
forget, or ``doctor --repair``, finishes it (:func:`pending_erasure`).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from ..text_scan import PENDING_ERASURE, Erasure, TextHit, TextTable, coarse_forms, text_tables

__all__ = [
    "CHECKPOINT_WAIT_S", "FTS_TABLES", "episode_replies", "erase_traces", "pending_erasure", "register_functions",
    "scanned_tables", "secure_delete", "text_occurrences",
]

# Full-text tables (external content: they keep their own index segments).
FTS_TABLES = ("facts_fts", "entities_fts", "episodes_fts", "communities_fts")

# How long an erasure waits for readers holding an old snapshot, in all.
CHECKPOINT_WAIT_S = 5.0
_TRY_MS = 100  # the busy timeout of one checkpoint attempt: writers get in between attempts


def _casefold(value: str | bytes | int | float | None) -> str | bytes | int | float | None:
    return value.casefold() if isinstance(value, str) else value


def register_functions(conn: sqlite3.Connection) -> None:
    """SQLite's lower() folds ASCII only; the scan needs Python's casefold."""
    conn.create_function("kg_casefold", 1, _casefold, deterministic=True)


def _is_text(declared: str) -> bool:
    """SQLite's affinity rules: a declared type naming CHAR, CLOB or TEXT, or none, holds text."""
    upper = declared.upper()
    return not upper or any(word in upper for word in ("CHAR", "CLOB", "TEXT"))


def scanned_tables(conn: sqlite3.Connection) -> tuple[TextTable, ...]:
    """Every table with a ``group_id`` column, with its text columns, read from
    the schema (virtual and shadow full-text tables have no group)."""
    columns: dict[str, list[str]] = {}
    tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'")
    for (table,) in tables.fetchall():
        info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
        if any(row[1] == "group_id" for row in info):
            columns[table] = [row[1] for row in info if _is_text(row[2] or "")]
    return text_tables(columns)


def _scan(conn: sqlite3.Connection, table: TextTable, forms: list[str], group_id: str) -> list[TextHit]:
    tests = " OR ".join(f'instr(kg_casefold("{c}"), ?) > 0' for c in table.columns for _ in forms)
    params: list[object] = [group_id, *(form for _ in table.columns for form in forms)]
    columns = ", ".join(f'"{c}"' for c in table.columns)
    query = (f'SELECT "{table.key}", {columns} FROM "{table.name}"'
             f" WHERE group_id = ? AND ({tests})")
    hits: list[TextHit] = []
    for row in conn.execute(query, params):
        key = str(row[0])
        for column, value in zip(table.columns, row[1:], strict=True):
            if isinstance(value, str) and any(form in value.casefold() for form in forms):
                hits.append(TextHit(table.name, key, column, value))
    return hits


def text_occurrences(conn: sqlite3.Connection, group_id: str, needles: Collection[str]) -> list[TextHit]:
    forms = coarse_forms(needles)
    if not forms:
        return []
    hits: list[TextHit] = []
    for table in scanned_tables(conn):
        hits += _scan(conn, table, forms, group_id)
    return hits


@contextmanager
def secure_delete(conn: sqlite3.Connection) -> Iterator[None]:
    """Zero the content of whatever is deleted meanwhile (outside a transaction)."""
    before = conn.execute("PRAGMA secure_delete").fetchone()[0]
    conn.execute("PRAGMA secure_delete = ON")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA secure_delete = {int(before)}")


def episode_replies(conn: sqlite3.Connection, group_id: str, episode_ids: Collection[str]) -> list[str]:
    ids = sorted(episode_ids)
    out: list[str] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        out += [k for (k,) in conn.execute(
            f"SELECT key FROM model_replies WHERE group_id = ? AND episode_id IN ({marks})", (group_id, *chunk)
        )]
    return sorted(out)


def _checkpoint(conn: sqlite3.Connection, wait_s: float) -> tuple[bool, str]:
    """Copy the log back and truncate it; retried while a reader or another
    checkpointer holds it back, for ``wait_s`` at most. Whether it completed,
    and what the last attempt said."""
    before = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute(f"PRAGMA busy_timeout = {_TRY_MS}")
    deadline = time.monotonic() + wait_s
    try:
        while True:
            busy, log, done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if busy == 0 and log == done:  # (0, -1, -1): not in WAL mode, nothing to copy
                return True, "checkpoint complete, log truncated"
            if time.monotonic() >= deadline:
                return False, (
                    f"the write-ahead log could not be checkpointed (busy={busy}, {log} frames,"
                    f" {done} copied back): another connection holds a read snapshot from before the purge"
                    " (or a write lock), so the old pages stay in the database file and its log until it ends"
                )
            time.sleep(0.05)
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(before)}")


def _pending(conn: sqlite3.Connection, group_id: str | None) -> bool:
    if group_id is None:
        found = conn.execute("SELECT 1 FROM store_settings WHERE substr(key, 1, ?) = ? LIMIT 1",
                             (len(PENDING_ERASURE), PENDING_ERASURE))
    else:
        found = conn.execute("SELECT 1 FROM store_settings WHERE key = ?", (PENDING_ERASURE + group_id,))
    return found.fetchone() is not None


def pending_erasure(conn: sqlite3.Connection, group_id: str) -> bool:
    """Whether an erasure of a forget in the group was held back and is still to finish."""
    return _pending(conn, group_id)


def erase_traces(conn: sqlite3.Connection, group_id: str, wait_s: float | None = None) -> Erasure:
    """Merge each full-text index into one segment (dropping deleted words),
    then copy the log back and truncate it, with freed pages zeroed. Held
    back past ``wait_s`` (default :data:`CHECKPOINT_WAIT_S`) by a reader, it
    records a pending erasure for the group and says why."""
    was_pending = _pending(conn, None)
    with secure_delete(conn):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for table in FTS_TABLES:
                conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        complete, detail = _checkpoint(conn, CHECKPOINT_WAIT_S if wait_s is None else wait_s)
        if not complete:
            conn.execute("INSERT OR REPLACE INTO store_settings(key, value) VALUES (?, ?)",
                         (PENDING_ERASURE + group_id, datetime.now(UTC).isoformat()))
        elif was_pending:  # complete for every group; a write is a new page in the log, so only if needed
            conn.execute("DELETE FROM store_settings WHERE substr(key, 1, ?) = ?",
                         (len(PENDING_ERASURE), PENDING_ERASURE))
            _checkpoint(conn, 0.0)  # that page holds no text; truncate the log again if no one is reading
    return Erasure(complete, f"SQLite: full-text indexes merged, freed pages zeroed, {detail}")
