"""What ``forget`` asks of SQLite: where text occurs, and erasing its traces.

A deleted row's bytes can outlive the row: in freed pages, in the write-ahead
log, and in full-text index segments that still list its words until they are
merged. A purge is written with ``secure_delete`` on (freed content is
zeroed), and :func:`erase_traces` then merges the full-text indexes and
truncates the log, so the words are gone from the files, not just unreachable.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator
from contextlib import contextmanager

from ..text_scan import TEXT_TABLES, TextHit, TextTable, needle_forms

__all__ = ["FTS_TABLES", "episode_replies", "erase_traces", "register_functions", "secure_delete", "text_occurrences"]

# Full-text tables (external content: they keep their own index segments).
FTS_TABLES = ("facts_fts", "entities_fts", "episodes_fts", "communities_fts")


def _casefold(value: object) -> object:
    return value.casefold() if isinstance(value, str) else value


def register_functions(conn: sqlite3.Connection) -> None:
    """SQLite's lower() folds ASCII only; the scan needs Python's casefold."""
    conn.create_function("kg_casefold", 1, _casefold, deterministic=True)


def _scan(conn: sqlite3.Connection, table: TextTable, forms: list[str], group_id: str) -> list[TextHit]:
    tests = " OR ".join(f"instr(kg_casefold({c}), ?) > 0" for c in table.columns for _ in forms)
    params: list[object] = [group_id, *(form for _ in table.columns for form in forms)]
    where = f"group_id = ? AND ({tests})"
    columns = ", ".join(table.columns)
    hits: list[TextHit] = []
    for row in conn.execute(f"SELECT {table.key}, {columns} FROM {table.name} WHERE {where}", params):
        key = str(row[0])
        for column, value in zip(table.columns, row[1:], strict=True):
            if isinstance(value, str) and any(form in value.casefold() for form in forms):
                hits.append(TextHit(table.name, key, column, value))
    return hits


def text_occurrences(
    conn: sqlite3.Connection, group_id: str, needles: Collection[str], tables: tuple[TextTable, ...] = TEXT_TABLES
) -> list[TextHit]:
    forms = sorted({form for needle in needles for form in needle_forms(needle) if form})
    if not forms:
        return []
    hits: list[TextHit] = []
    for table in tables:
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


def erase_traces(conn: sqlite3.Connection) -> None:
    """Merge each full-text index into one segment (dropping deleted words),
    then copy the log back and truncate it, with freed pages zeroed."""
    with secure_delete(conn):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for table in FTS_TABLES:
                conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
