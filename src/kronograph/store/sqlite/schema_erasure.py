"""SQLite migration 19: data subjects and the erasure log (docs/forgetting.md).

Kept apart from schema.py and schema_recent.py only to keep each module short.
"""

from __future__ import annotations

import sqlite3

from .schema_recent import statements

__all__ = ["erasure_log"]

# A data subject (a customer id, say) is a key episodes and facts are filed
# under, so ``forget(data_subject=...)`` finds them by index. A fact's key is
# a property of the fact, not of a version: fact_history does not copy it.
# The erasure log is append-only: triggers refuse every UPDATE and DELETE of it.
# Idempotent: the columns are added only where missing.
_V19 = """
CREATE INDEX IF NOT EXISTS episodes_by_subject ON episodes(group_id, data_subject) WHERE data_subject IS NOT NULL;
CREATE INDEX IF NOT EXISTS facts_by_subject ON facts(group_id, data_subject) WHERE data_subject IS NOT NULL;
CREATE TABLE IF NOT EXISTS erasure_log (
    group_id      TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    receipt_id    TEXT NOT NULL,
    entry         TEXT NOT NULL,
    request_id    TEXT,
    reason        TEXT,
    actor         TEXT,
    on_behalf_of  TEXT,
    recorded_at   INTEGER NOT NULL,
    target        TEXT NOT NULL,
    counts        TEXT NOT NULL DEFAULT '{}',
    verified      INTEGER,
    leftovers     INTEGER,
    previous      TEXT NOT NULL,
    digest        TEXT NOT NULL,
    PRIMARY KEY (group_id, seq)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS erasure_log_no_update BEFORE UPDATE ON erasure_log
BEGIN
    SELECT RAISE(ABORT, 'erasure_log is append-only');
END;
CREATE TRIGGER IF NOT EXISTS erasure_log_no_delete BEFORE DELETE ON erasure_log
BEGIN
    SELECT RAISE(ABORT, 'erasure_log is append-only');
END;
"""


def erasure_log(conn: sqlite3.Connection) -> None:
    for table in ("episodes", "facts"):
        if not any(row[1] == "data_subject" for row in conn.execute(f"PRAGMA table_info({table})")):
            conn.execute(f"ALTER TABLE {table} ADD COLUMN data_subject TEXT")
    for statement in statements(_V19):
        conn.execute(statement)
