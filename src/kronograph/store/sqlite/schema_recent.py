"""The SQLite migrations since v14, and the statement splitter every migration uses.

Kept apart from schema.py (the base schema, v1 to v13, and the runner) only
to keep each module short.
"""

from __future__ import annotations

import json
import sqlite3

__all__ = ["change_feed", "contradictions", "events", "qualifiers", "speakers", "statements", "summary_index"]


_V14 = """
-- Who said an episode (whom "I" means) and in what role (user, assistant...).
ALTER TABLE episodes ADD COLUMN speaker TEXT;
ALTER TABLE episodes ADD COLUMN role TEXT;
-- Each group's settings (its user's name, and what later features keep per
-- group), one row a setting, the value as JSON.
CREATE TABLE group_settings (
    group_id   TEXT NOT NULL REFERENCES groups(group_id),
    name       TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (group_id, name)
) WITHOUT ROWID;
"""


def speakers(conn: sqlite3.Connection) -> None:
    for statement in statements(_V14):
        conn.execute(statement)


# Events (kronograph.event_relations): a moment, not a standing fact; kept with each version. Facts of a
# built-in event relation that ingestion extracted (not add_fact) become events; declared types are not stored.
_V15 = """
ALTER TABLE facts ADD COLUMN event INTEGER NOT NULL DEFAULT 0;
ALTER TABLE fact_history ADD COLUMN event INTEGER NOT NULL DEFAULT 0;
UPDATE facts SET event = 1 WHERE relation_key IN (SELECT value FROM json_each(:events)) AND EXISTS (SELECT 1
FROM fact_sources fs WHERE fs.fact_uuid = facts.uuid AND json_extract(fs.provenance, '$.extractor') IS NOT 'direct');
UPDATE fact_history SET event = 1 WHERE fact_uuid IN (SELECT uuid FROM facts WHERE event = 1);
"""


def events(conn: sqlite3.Connection) -> None:
    from ...event_relations import BUILT_IN_EVENTS  # the list as this version knows it
    for statement in statements(_V15):
        conn.execute(statement, {"events": json.dumps(sorted(BUILT_IN_EVENTS))})


# The change feed (memory.changes) reads a group's versions in the order of the time they were
# recorded (then by fact), each with the version before it (PostgreSQL's history_by_fact starts with
# the group already).
_V16 = """
CREATE INDEX facts_by_recorded ON facts(group_id, recorded_at, uuid);
CREATE INDEX history_by_recorded ON fact_history(group_id, recorded_at, fact_uuid, seq);
CREATE INDEX history_by_group_fact ON fact_history(group_id, fact_uuid, seq);
CREATE INDEX audit_by_kind ON audit_events(group_id, kind, recorded_at);
"""


def change_feed(conn: sqlite3.Connection) -> None:
    for statement in statements(_V16):
        conn.execute(statement)


# Every fact written bumps its two entities' summary_stale; SQLite rewrites an
# index entry whenever a column its partial-index WHERE names is set, so the
# index of stale summaries cost two more pages in every commit (27.3 -> 25.2
# WAL frames an add_fact at 100,000 facts). The stale listing pages through a
# group's entities by uuid instead, skipping the fresh ones: one pass over the
# group, and maintenance is rare where writes are not.
_V17 = """
CREATE INDEX IF NOT EXISTS entities_by_group_uuid ON entities(group_id, uuid);
DROP INDEX IF EXISTS entities_stale_summaries;
"""


def summary_index(conn: sqlite3.Connection) -> None:
    for statement in statements(_V17):
        conn.execute(statement)


# Contradictions with authority (kronograph.authority): a fact's governance tier, kept with each
# version (a tier changed by hand is a new version), and the group's contradiction rows: a
# contradicting fact (or the episode whose meaning flagged it: no foreign key) against the fact it
# contradicts, read by either side. Rows naming a deleted fact or episode are deleted with it by the plan
# that deletes it. Idempotent: the columns are added only where missing.
_V18 = """
CREATE TABLE IF NOT EXISTS contradictions (
    group_id         TEXT NOT NULL,
    fact_uuid        TEXT NOT NULL,
    target_uuid      TEXT NOT NULL,
    kind             TEXT NOT NULL,
    reason           TEXT NOT NULL,
    target_authority REAL NOT NULL,
    actor_weight     REAL NOT NULL,
    score            REAL NOT NULL,
    similarity       REAL,
    note             TEXT,
    actor            TEXT,
    episode_id       TEXT,
    created_at       INTEGER NOT NULL,
    dismissed_at     INTEGER,
    PRIMARY KEY (group_id, fact_uuid, target_uuid, kind)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS contradictions_by_target ON contradictions(group_id, target_uuid);
"""

# The facts that carry a tier, by group: what every write's contradiction check
# compares by meaning (few beside a group's other facts).
_V18_TIERED = "CREATE INDEX IF NOT EXISTS facts_tiered ON facts(group_id) WHERE tier IS NOT NULL"


def contradictions(conn: sqlite3.Connection) -> None:
    for table in ("facts", "fact_history"):
        if not any(row[1] == "tier" for row in conn.execute(f"PRAGMA table_info({table})")):
            conn.execute(f"ALTER TABLE {table} ADD COLUMN tier TEXT")
    for statement in statements(_V18):
        conn.execute(statement)
    conn.execute(_V18_TIERED)  # after the column


# Qualified slots (kronograph.qualifiers): a fact's qualifiers as canonical JSON text (keys sorted),
# NULL for none, kept with each version. No index: a slot's facts are found by their subject and
# relation as before, and told apart by their qualifiers among those few. Idempotent.
def qualifiers(conn: sqlite3.Connection) -> None:
    for table in ("facts", "fact_history"):
        if not any(row[1] == "qualifiers" for row in conn.execute(f"PRAGMA table_info({table})")):
            conn.execute(f"ALTER TABLE {table} ADD COLUMN qualifiers TEXT")


def statements(script: str) -> list[str]:
    """Split a script into statements (triggers contain semicolons)."""
    out: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--") and not buffer:
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            out.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        out.append(buffer.strip())
    return out
