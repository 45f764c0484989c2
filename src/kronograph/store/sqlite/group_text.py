"""A small group's full-text rows in an index of their own, so that a word
costs what the group holds of it, not what every group does.

FTS5's index is one per table, for all groups: a common word's doclist (or
a name word such as "Person") lists the rows of every group, and reading it
to keep one group's costs time in proportion to the whole store. A group
small beside its table has its rows copied into a temporary FTS5 table of
the same columns and tokenizer (so a match there is a match in the main
index, row for row; contentless: only row ids come back, and clearing it
tokenizes nothing again), one group and scope at a time per connection,
read again when the group changes. Which group it holds is written beside it in
the temporary database, so the two are always of one piece, a rollback
included, and a new connection starts empty.
"""

from __future__ import annotations

import sqlite3

from .group_key import group_key

__all__ = ["COLUMNS", "LOCAL_MAX", "forget", "local_index"]

COLUMNS = {"facts": ("fact",), "entities": ("name", "summary"), "episodes": ("name", "content"),
           "communities": ("name", "summary")}
_TOKENIZER = "porter unicode61 remove_diacritics 2"  # as the full-text tables (schema v3)
LOCAL_MAX = 2_000  # a group with more rows in a scope reads the main index
_SHARE = 8  # ... and so does one holding more than 1/_SHARE of its table


def _setup(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS temp.kg_local_held (scope TEXT PRIMARY KEY, group_id TEXT NOT NULL,"
        " created_at INTEGER NOT NULL, revision INTEGER NOT NULL)"
    )
    for scope, cols in COLUMNS.items():
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.kg_local_{scope} USING fts5({', '.join(cols)},"
            f" content='', tokenize='{_TOKENIZER}')"
        )
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.kg_local_{scope}_i USING fts5vocab(temp, kg_local_{scope},"
            " 'instance')"
        )


def _held(conn: sqlite3.Connection, scope: str) -> tuple[str, int, int] | None:
    try:
        row = conn.execute(
            "SELECT group_id, created_at, revision FROM temp.kg_local_held WHERE scope = ?", (scope,)
        ).fetchone()
    except sqlite3.OperationalError:  # a connection that has none yet
        _setup(conn)
        return None
    return (str(row[0]), int(row[1]), int(row[2])) if row is not None else None


def _small(conn: sqlite3.Connection, scope: str, group_id: str, rows: int | None) -> bool:
    """Whether the group is small enough, and its table large enough beside
    it, that its own index pays (counted up to LOCAL_MAX)."""
    if rows is None:
        rows = conn.execute(
            f"SELECT COUNT(*) FROM (SELECT 1 FROM {scope} WHERE group_id = ? LIMIT ?)", (group_id, LOCAL_MAX + 1)
        ).fetchone()[0]
    if rows > LOCAL_MAX:
        return False
    top = conn.execute(f"SELECT MAX(id) FROM {scope}").fetchone()[0] or 0  # rows in the table, at most
    return rows * _SHARE <= top


def local_index(
    conn: sqlite3.Connection, scope: str, group_id: str, rows: int | None = None,
    key: tuple[int, int] | None = None,
) -> str | None:
    """The temporary FTS5 table holding exactly the group's indexed rows of
    ``scope`` (rowid = the row's id, the same columns), loaded now unless it
    holds them already; None when the group is better read from the main
    index (large, or most of its table) or does not exist. ``rows``: the
    group's row count when known; ``key``: its :func:`group_key`."""
    key = key if key is not None else group_key(conn, group_id)
    if key is None:
        return None
    held = _held(conn, scope)
    table = f"temp.kg_local_{scope}"
    if held == (group_id, *key):
        return table
    if not _small(conn, scope, group_id, rows):
        return None
    cols = COLUMNS[scope]
    fresh = not conn.in_transaction
    if fresh:
        conn.execute("BEGIN")
    try:
        conn.execute(f"INSERT INTO {table}(kg_local_{scope}) VALUES ('delete-all')")
        conn.execute(
            f"INSERT INTO {table}(rowid, {', '.join(cols)}) SELECT t.id, {', '.join(f't.{c}' for c in cols)}"
            f" FROM {scope} t JOIN {scope}_fts_docsize d ON d.id = t.id WHERE t.group_id = ?",
            (group_id,),
        )
        conn.execute(
            "INSERT OR REPLACE INTO temp.kg_local_held(scope, group_id, created_at, revision) VALUES (?, ?, ?, ?)",
            (scope, group_id, *key),
        )
    except BaseException:
        if fresh:
            conn.execute("ROLLBACK")
        raise
    if fresh:
        conn.execute("COMMIT")
    return table


def forget(conn: sqlite3.Connection, group_id: str) -> None:
    """Empty the temporary indexes that hold the group (``forget``: none of
    its words stays on the connection)."""
    for scope in COLUMNS:
        held = _held(conn, scope)
        if held is not None and held[0] == group_id:
            conn.execute(f"INSERT INTO temp.kg_local_{scope}(kg_local_{scope}) VALUES ('delete-all')")
            conn.execute("DELETE FROM temp.kg_local_held WHERE scope = ?", (scope,))
