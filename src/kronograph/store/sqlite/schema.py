"""The SQLite schema, as named forward migrations.

Each migration is a function applied in one transaction together with its row
in ``schema_migrations``; opening a database applies whatever is missing, and
refuses a database written by a newer kronograph.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ...errors import SchemaError
from .schema_erasure import erasure_log as _erasure_log
from .schema_recent import change_feed as _change_feed
from .schema_recent import contradictions as _contradictions
from .schema_recent import events as _events
from .schema_recent import qualifiers as _qualifiers
from .schema_recent import speakers as _speakers
from .schema_recent import statements as _statements
from .schema_recent import summary_index as _summary_index

__all__ = ["MIGRATIONS", "migrate", "schema_version"]

_V1 = """
CREATE TABLE groups (
    group_id   TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL
);

CREATE TABLE episodes (
    id                 INTEGER PRIMARY KEY,
    group_id           TEXT NOT NULL REFERENCES groups(group_id),
    uuid               TEXT NOT NULL,
    name               TEXT NOT NULL,
    kind               TEXT NOT NULL,
    content            TEXT,
    content_hash       TEXT,
    source_description TEXT,
    reference_time     INTEGER NOT NULL,
    created_at         INTEGER NOT NULL,
    saga               TEXT,
    status             TEXT NOT NULL,
    metadata           TEXT NOT NULL DEFAULT '{}',
    UNIQUE (group_id, uuid)
);
CREATE INDEX episodes_by_time ON episodes(group_id, reference_time);

CREATE TABLE entities (
    id         INTEGER PRIMARY KEY,
    uuid       TEXT NOT NULL UNIQUE,
    group_id   TEXT NOT NULL REFERENCES groups(group_id),
    name       TEXT NOT NULL,
    name_key   TEXT NOT NULL,
    labels     TEXT NOT NULL DEFAULT '[]',
    aliases    TEXT NOT NULL DEFAULT '[]',
    summary    TEXT,
    attributes TEXT NOT NULL DEFAULT '{}',
    embedding  BLOB,
    created_at INTEGER NOT NULL
);
CREATE INDEX entities_by_name ON entities(group_id, name_key);

CREATE TABLE facts (
    id                INTEGER PRIMARY KEY,
    uuid              TEXT NOT NULL UNIQUE,
    group_id          TEXT NOT NULL REFERENCES groups(group_id),
    source_uuid       TEXT NOT NULL REFERENCES entities(uuid),
    target_uuid       TEXT NOT NULL REFERENCES entities(uuid),
    relation          TEXT NOT NULL,
    relation_key      TEXT NOT NULL,
    fact              TEXT NOT NULL,
    valid_at          INTEGER NOT NULL,
    invalid_at        INTEGER,
    stated_invalid_at INTEGER,
    created_at        INTEGER NOT NULL,
    expired_at        INTEGER,
    invalidated_by    TEXT,
    attributes        TEXT NOT NULL DEFAULT '{}',
    embedding         BLOB,
    -- The current version: since when it is believed, and why. Earlier
    -- versions are in fact_history.
    recorded_at       INTEGER NOT NULL,
    cause             TEXT NOT NULL,
    cause_episode     TEXT
);
CREATE INDEX facts_by_source ON facts(group_id, source_uuid, relation_key, valid_at);
CREATE INDEX facts_by_target ON facts(group_id, target_uuid, relation_key, valid_at);
CREATE INDEX facts_by_relation ON facts(group_id, relation_key, valid_at);

CREATE TABLE fact_sources (
    fact_uuid         TEXT NOT NULL REFERENCES facts(uuid) ON DELETE CASCADE,
    group_id          TEXT NOT NULL,
    episode_id        TEXT NOT NULL,
    valid_at          INTEGER NOT NULL,
    stated_invalid_at INTEGER,
    added_at          INTEGER NOT NULL,
    PRIMARY KEY (fact_uuid, episode_id),
    FOREIGN KEY (group_id, episode_id) REFERENCES episodes(group_id, uuid)
) WITHOUT ROWID;
CREATE INDEX fact_sources_by_episode ON fact_sources(group_id, episode_id);

CREATE TABLE fact_conflicts (
    a          TEXT NOT NULL REFERENCES facts(uuid) ON DELETE CASCADE,
    b          TEXT NOT NULL REFERENCES facts(uuid) ON DELETE CASCADE,
    group_id   TEXT NOT NULL,
    episode_id TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE INDEX fact_conflicts_by_b ON fact_conflicts(b);

-- Append-only: every superseded version of a fact (from its recorded_at until
-- the next version's), and a 'deleted' marker when a retraction removes it.
CREATE TABLE fact_history (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    group_id       TEXT NOT NULL,
    fact_uuid      TEXT NOT NULL,
    recorded_at    INTEGER NOT NULL,
    cause          TEXT NOT NULL,
    episode_id     TEXT,
    status         TEXT NOT NULL CHECK (status IN ('live', 'expired', 'deleted')),
    source_uuid    TEXT NOT NULL,
    target_uuid    TEXT NOT NULL,
    subject        TEXT NOT NULL,
    object         TEXT NOT NULL,
    subject_key    TEXT NOT NULL,
    object_key     TEXT NOT NULL,
    relation       TEXT NOT NULL,
    relation_key   TEXT NOT NULL,
    fact           TEXT NOT NULL,
    valid_at       INTEGER NOT NULL,
    invalid_at     INTEGER,
    invalidated_by TEXT,
    created_at     INTEGER NOT NULL,
    expired_at     INTEGER,
    episodes       TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX history_by_fact ON fact_history(fact_uuid, recorded_at, seq);
CREATE INDEX history_by_relation ON fact_history(group_id, relation_key);

-- Facts retracted by remove_episode: gone from the current graph, but still
-- findable by name for known_at queries about the time they were believed.
CREATE TABLE retracted_facts (
    fact_uuid   TEXT PRIMARY KEY,
    group_id    TEXT NOT NULL,
    subject_key TEXT NOT NULL,
    object_key  TEXT NOT NULL,
    retracted_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX retracted_by_subject ON retracted_facts(group_id, subject_key);
CREATE INDEX retracted_by_object ON retracted_facts(group_id, object_key);

CREATE TABLE mentions (
    group_id    TEXT NOT NULL,
    episode_id  TEXT NOT NULL,
    entity_uuid TEXT NOT NULL REFERENCES entities(uuid) ON DELETE CASCADE,
    PRIMARY KEY (group_id, episode_id, entity_uuid),
    FOREIGN KEY (group_id, episode_id) REFERENCES episodes(group_id, uuid) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX mentions_by_entity ON mentions(entity_uuid);

CREATE TABLE audit_events (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    group_id    TEXT NOT NULL,
    kind        TEXT NOT NULL,
    recorded_at INTEGER NOT NULL,
    episode_id  TEXT,
    detail      TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_by_group ON audit_events(group_id, seq);

-- Full-text tables, kept in sync by triggers (search reads them).
CREATE VIRTUAL TABLE facts_fts USING fts5(fact, content='facts', content_rowid='id');
CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts(rowid, fact) VALUES (new.id, new.fact);
END;
CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, fact) VALUES ('delete', old.id, old.fact);
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF fact ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, fact) VALUES ('delete', old.id, old.fact);
    INSERT INTO facts_fts(rowid, fact) VALUES (new.id, new.fact);
END;

CREATE VIRTUAL TABLE entities_fts USING fts5(name, summary, content='entities', content_rowid='id');
CREATE TRIGGER entities_fts_insert AFTER INSERT ON entities BEGIN
    INSERT INTO entities_fts(rowid, name, summary) VALUES (new.id, new.name, new.summary);
END;
CREATE TRIGGER entities_fts_delete AFTER DELETE ON entities BEGIN
    INSERT INTO entities_fts(entities_fts, rowid, name, summary)
    VALUES ('delete', old.id, old.name, old.summary);
END;
CREATE TRIGGER entities_fts_update AFTER UPDATE OF name, summary ON entities BEGIN
    INSERT INTO entities_fts(entities_fts, rowid, name, summary)
    VALUES ('delete', old.id, old.name, old.summary);
    INSERT INTO entities_fts(rowid, name, summary) VALUES (new.id, new.name, new.summary);
END;

CREATE VIRTUAL TABLE episodes_fts USING fts5(name, content, content='episodes', content_rowid='id');
-- Episodes without content (the sources of facts added directly) are not indexed.
CREATE TRIGGER episodes_fts_insert AFTER INSERT ON episodes WHEN new.content IS NOT NULL BEGIN
    INSERT INTO episodes_fts(rowid, name, content) VALUES (new.id, new.name, new.content);
END;
CREATE TRIGGER episodes_fts_delete AFTER DELETE ON episodes WHEN old.content IS NOT NULL BEGIN
    INSERT INTO episodes_fts(episodes_fts, rowid, name, content)
    VALUES ('delete', old.id, old.name, old.content);
END;
CREATE TRIGGER episodes_fts_update_old AFTER UPDATE OF name, content ON episodes
WHEN old.content IS NOT NULL BEGIN
    INSERT INTO episodes_fts(episodes_fts, rowid, name, content)
    VALUES ('delete', old.id, old.name, old.content);
END;
CREATE TRIGGER episodes_fts_update_new AFTER UPDATE OF name, content ON episodes
WHEN new.content IS NOT NULL BEGIN
    INSERT INTO episodes_fts(rowid, name, content) VALUES (new.id, new.name, new.content);
END;
"""


_V2 = """
-- Episode ingestion: an episode's progress, what it needs to be resumed
-- (pending), the model outputs already paid for (checkpoint) and its outcome.
ALTER TABLE episodes ADD COLUMN error TEXT;
ALTER TABLE episodes ADD COLUMN pending TEXT;
ALTER TABLE episodes ADD COLUMN checkpoint TEXT;
ALTER TABLE episodes ADD COLUMN result TEXT;
ALTER TABLE episodes ADD COLUMN updated_at INTEGER;
CREATE INDEX episodes_unfinished ON episodes(status) WHERE status NOT IN ('complete', 'quarantined');
CREATE INDEX episodes_by_saga ON episodes(group_id, saga, reference_time) WHERE saga IS NOT NULL;

ALTER TABLE entities ADD COLUMN provenance TEXT NOT NULL DEFAULT '{}';
-- Initials of a name of two or more words (NYC for New York City), for alias lookups.
ALTER TABLE entities ADD COLUMN acronym TEXT;
CREATE INDEX entities_by_acronym ON entities(group_id, acronym) WHERE acronym IS NOT NULL;

CREATE TABLE entity_aliases (
    group_id    TEXT NOT NULL,
    alias_key   TEXT NOT NULL,
    entity_uuid TEXT NOT NULL REFERENCES entities(uuid) ON DELETE CASCADE,
    PRIMARY KEY (group_id, alias_key, entity_uuid)
) WITHOUT ROWID;
CREATE INDEX entity_aliases_by_entity ON entity_aliases(entity_uuid);

-- Pairs of entities that may be one (a fuzzy match no one could confirm).
CREATE TABLE entity_fragments (
    a          TEXT NOT NULL REFERENCES entities(uuid) ON DELETE CASCADE,
    b          TEXT NOT NULL REFERENCES entities(uuid) ON DELETE CASCADE,
    group_id   TEXT NOT NULL,
    score      REAL NOT NULL,
    episode_id TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE INDEX entity_fragments_by_group ON entity_fragments(group_id);

ALTER TABLE fact_sources ADD COLUMN provenance TEXT NOT NULL DEFAULT '{}';
-- The facts between two entities, found without walking either one's others.
CREATE INDEX facts_by_pair ON facts(group_id, source_uuid, target_uuid);

-- Model replies by a hash of model, schema and prompt: a retry or a
-- re-ingestion of the same prompt is not paid twice.
CREATE TABLE model_replies (
    key        TEXT PRIMARY KEY,
    model      TEXT NOT NULL,
    reply      TEXT NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Store-wide settings, e.g. the embedder whose vectors the store holds.
CREATE TABLE store_settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
"""


_V3 = """
-- Search: episodes get a vector of their text (facts and entities have theirs).
ALTER TABLE episodes ADD COLUMN embedding BLOB;
CREATE INDEX episodes_complete ON episodes(group_id, reference_time) WHERE status = 'complete';

-- Full text with English stemming (work ~ works ~ working), rebuilt from the
-- tables they index; the triggers of v1 keep writing to them by name.
DROP TABLE facts_fts;
CREATE VIRTUAL TABLE facts_fts USING fts5(fact, content='facts', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO facts_fts(facts_fts) VALUES ('rebuild');
DROP TABLE entities_fts;
CREATE VIRTUAL TABLE entities_fts USING fts5(name, summary, content='entities', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO entities_fts(entities_fts) VALUES ('rebuild');
DROP TABLE episodes_fts;
CREATE VIRTUAL TABLE episodes_fts USING fts5(name, content, content='episodes', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO episodes_fts(rowid, name, content) SELECT id, name, content FROM episodes WHERE content IS NOT NULL;
"""


_V4 = """
-- Who filed an episode, and who caused an audit event (a user, an agent, an API key id).
ALTER TABLE episodes ADD COLUMN actor TEXT;
ALTER TABLE audit_events ADD COLUMN actor TEXT;
"""


_V5 = """
-- Entity summaries: built lazily from an entity's current facts. summary_stale
-- counts the changes to its facts since its summary was built (0: fresh); a
-- rebuild clears it only if no change came in while it was being built.
ALTER TABLE entities ADD COLUMN summary_stale INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entities ADD COLUMN summary_built_at INTEGER;
UPDATE entities SET summary_stale = 1 WHERE EXISTS (
    SELECT 1 FROM facts f WHERE f.group_id = entities.group_id AND f.source_uuid = entities.uuid
) OR EXISTS (
    SELECT 1 FROM facts f WHERE f.group_id = entities.group_id AND f.target_uuid = entities.uuid
);
CREATE INDEX entities_stale_summaries ON entities(group_id, uuid) WHERE summary_stale > 0;
"""


_V6 = """
-- Sagas: a running summary per (group, saga) with its two watermarks, the
-- ingestion cursor (created_at, uuid) of the last episode included and the
-- event-time coverage, written together. version moves with every change to
-- the row; stale counts removals of included episodes since it was built.
CREATE TABLE saga_summaries (
    group_id     TEXT NOT NULL REFERENCES groups(group_id),
    saga         TEXT NOT NULL,
    summary      TEXT,
    version      INTEGER NOT NULL,
    cursor_at    INTEGER,
    cursor_uuid  TEXT,
    covered_from INTEGER,
    covered_to   INTEGER,
    episodes     INTEGER NOT NULL DEFAULT 0,
    without_text INTEGER NOT NULL DEFAULT 0,
    method       TEXT,
    state        TEXT,
    built_at     INTEGER,
    stale        INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (group_id, saga)
) WITHOUT ROWID;
-- A saga's episodes in cursor order; also where a new one's stamp is read.
CREATE INDEX episodes_saga_arrival ON episodes(group_id, saga, created_at, uuid) WHERE saga IS NOT NULL;
"""


_V8 = """
-- The group and episode whose processing was given a reply (NULL: asked
-- outside an episode), so that forgetting an episode drops its replies too.
ALTER TABLE model_replies ADD COLUMN group_id TEXT;
ALTER TABLE model_replies ADD COLUMN episode_id TEXT;
CREATE INDEX model_replies_by_episode ON model_replies(group_id, episode_id) WHERE episode_id IS NOT NULL;
"""


_V7 = """
-- Communities: clusters of the entity graph (maintain/communities.py), each
-- with a name, a summary and a vector; a rebuild replaces a group's in one
-- transaction. Members are ranked most central first; attached_at is set on
-- those update_communities attached after the build.
CREATE TABLE communities (
    id         INTEGER PRIMARY KEY,
    uuid       TEXT NOT NULL UNIQUE,
    group_id   TEXT NOT NULL REFERENCES groups(group_id),
    name       TEXT NOT NULL,
    summary    TEXT,
    method     TEXT NOT NULL,
    built_at   INTEGER NOT NULL,
    embedding  BLOB
);
CREATE INDEX communities_by_group ON communities(group_id, uuid);

CREATE TABLE community_members (
    community_uuid TEXT NOT NULL REFERENCES communities(uuid) ON DELETE CASCADE,
    entity_uuid    TEXT NOT NULL REFERENCES entities(uuid) ON DELETE CASCADE,
    group_id       TEXT NOT NULL,
    rank           INTEGER NOT NULL,
    attached_at    INTEGER,
    PRIMARY KEY (community_uuid, entity_uuid)
) WITHOUT ROWID;
CREATE INDEX community_members_by_entity ON community_members(entity_uuid);
CREATE INDEX community_members_by_group ON community_members(group_id);

CREATE VIRTUAL TABLE communities_fts USING fts5(name, summary, content='communities', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER communities_fts_insert AFTER INSERT ON communities BEGIN
    INSERT INTO communities_fts(rowid, name, summary) VALUES (new.id, new.name, new.summary);
END;
CREATE TRIGGER communities_fts_delete AFTER DELETE ON communities BEGIN
    INSERT INTO communities_fts(communities_fts, rowid, name, summary)
    VALUES ('delete', old.id, old.name, old.summary);
END;
CREATE TRIGGER communities_fts_update AFTER UPDATE OF name, summary ON communities BEGIN
    INSERT INTO communities_fts(communities_fts, rowid, name, summary)
    VALUES ('delete', old.id, old.name, old.summary);
    INSERT INTO communities_fts(rowid, name, summary) VALUES (new.id, new.name, new.summary);
END;
"""


_V9 = """
-- The ingestion queue (ingest/queue.py): an accepted episode waits with status
-- 'queued', and each group's queue is taken in arrival order.
CREATE INDEX episodes_queued ON episodes(group_id, id) WHERE status = 'queued';
"""


_V10 = """
-- The reply cache is per group (group first, like every group table): one
-- group's replies never answer, nor reveal, another's prompt. A reply cached
-- before stays with the group whose episode it was given for; one asked
-- outside an episode had no group and is dropped (a cache: the cost is one
-- more model call).
CREATE TABLE model_replies_by_group (
    group_id   TEXT NOT NULL,
    key        TEXT NOT NULL,
    model      TEXT NOT NULL,
    reply      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    episode_id TEXT,
    PRIMARY KEY (group_id, key)
) WITHOUT ROWID;
INSERT INTO model_replies_by_group(group_id, key, model, reply, created_at, episode_id)
    SELECT group_id, key, model, reply, created_at, episode_id FROM model_replies WHERE group_id IS NOT NULL;
DROP TABLE model_replies;
ALTER TABLE model_replies_by_group RENAME TO model_replies;
CREATE INDEX model_replies_by_episode ON model_replies(group_id, episode_id) WHERE episode_id IS NOT NULL;
"""


_V12 = """
-- Leases (ingest/ownership.py): the worker holding an unfinished episode
-- (a token unique to one memory in one process, with host and pid to show)
-- and until when; its heartbeat moves lease_until on while it works, and
-- anyone may take the episode over once lease_until has passed.
ALTER TABLE episodes ADD COLUMN lease_owner TEXT;
ALTER TABLE episodes ADD COLUMN lease_until INTEGER;
CREATE INDEX episodes_leased ON episodes(lease_owner, group_id) WHERE lease_owner IS NOT NULL;
"""


def _initial(conn: sqlite3.Connection) -> None:
    for statement in _statements(_V1):
        conn.execute(statement)


def _ingestion(conn: sqlite3.Connection) -> None:
    for statement in _statements(_V2):
        conn.execute(statement)


def _search(conn: sqlite3.Connection) -> None:
    for statement in _statements(_V3):
        conn.execute(statement)


def _actor(conn: sqlite3.Connection) -> None:
    for statement in _statements(_V4):
        conn.execute(statement)


def _summaries(conn: sqlite3.Connection) -> None:
    for statement in _statements(_V5):
        conn.execute(statement)


def _sagas(conn: sqlite3.Connection) -> None:
    for statement in _statements(_V6):
        conn.execute(statement)


def _reply_sources(conn: sqlite3.Connection) -> None:
    for statement in _statements(_V8):
        conn.execute(statement)


def _communities(conn: sqlite3.Connection) -> None:
    for statement in _statements(_V7):
        conn.execute(statement)


def _group_revisions(conn: sqlite3.Connection) -> None:
    # Moved by every plan committed to the group: a plan prepared from reads at
    # one revision is refused at another (as on PostgreSQL). Before it, the
    # file's data_version stood in, which any other group's commit moved.
    conn.execute("ALTER TABLE groups ADD COLUMN revision INTEGER NOT NULL DEFAULT 0")


def _queue(conn: sqlite3.Connection) -> None:
    for statement in _statements(_V9):
        conn.execute(statement)


def _group_replies(conn: sqlite3.Connection) -> None:
    for statement in _statements(_V10):
        conn.execute(statement)


_V11 = """
-- Whom the actor acted for (a service records the calling key as actor, and
-- what the caller named as on_behalf_of, never in its place).
ALTER TABLE episodes ADD COLUMN on_behalf_of TEXT;
ALTER TABLE audit_events ADD COLUMN on_behalf_of TEXT;
"""


def _on_behalf_of(conn: sqlite3.Connection) -> None:
    for statement in _statements(_V11):
        conn.execute(statement)


def _leases(conn: sqlite3.Connection) -> None:
    for statement in _statements(_V12):
        conn.execute(statement)


MIGRATIONS: list[tuple[int, str, Callable[[sqlite3.Connection], None]]] = [
    (1, "initial", _initial),
    (2, "ingestion", _ingestion),
    (3, "search", _search),
    (4, "actor", _actor),
    (5, "summaries", _summaries),
    (6, "sagas", _sagas),
    (7, "communities", _communities),
    (8, "reply_sources", _reply_sources),
    (9, "queue", _queue),
    (10, "group_replies", _group_replies),
    (11, "on_behalf_of", _on_behalf_of),
    (12, "leases", _leases),
    (13, "group_revisions", _group_revisions),
    (14, "speakers", _speakers),
    (15, "events", _events),
    (16, "change_feed", _change_feed),
    (17, "summary_index", _summary_index),
    (18, "contradictions", _contradictions),
    (19, "erasure_log", _erasure_log),
    (20, "qualifiers", _qualifiers),
]


def schema_version(conn: sqlite3.Connection) -> int:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    row = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    return int(row[0] or 0)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the schema up to date, one transaction per migration."""
    current = schema_version(conn)
    latest = MIGRATIONS[-1][0]
    if current > latest:
        raise SchemaError(
            f"this database has schema version {current}, but this kronograph only knows "
            f"versions up to {latest}: upgrade kronograph to open it"
        )
    for version, name, apply in MIGRATIONS:
        if version <= current:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            if schema_version(conn) >= version:  # another process got there first
                conn.execute("ROLLBACK")
                continue
            apply(conn)
            conn.execute(
                "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, datetime('now'))",
                (version, name),
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return latest
