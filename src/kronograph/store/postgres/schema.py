"""The PostgreSQL schema, as named forward migrations.

The tables mirror SQLite's, column for column (times are microseconds since
the epoch, UTC, in BIGINT), so a memory copies across unchanged. What differs
is made for a server: every key, unique constraint and foreign key leads with
``group_id`` (so Citus can distribute every table by it, co-located); JSON is
``jsonb``; full text is a generated ``tsvector`` with a GIN index; vectors
are pgvector ``vector`` columns, given an HNSW index per dimension in use
(:func:`vector_index_statements`).

Migrations run under an advisory lock, each in one transaction with its row
in ``schema_migrations``; opening applies whatever is missing and refuses a
database written by a newer kronograph.
"""

from __future__ import annotations

from collections.abc import Iterable

from psycopg import AsyncConnection

from ...errors import SchemaError
from ...event_relations import BUILT_IN_EVENTS
from .citus import distribute
from .schema_erasure import V20 as _V20
from .script import statements

__all__ = [
    "GROUP_TABLES", "HNSW_MAX_DIMENSIONS", "LOCK_SPACE", "MIGRATIONS", "STORE_TABLES", "VECTOR_TABLES", "migrate",
    "vector_index_statements",
]

# First key of kronograph's two-key advisory locks (the second is per group,
# or 0 for schema changes).
LOCK_SPACE = 0x6B67  # "kg"

_V1 = """
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE groups (
    group_id   TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL,
    -- Moved by every plan applied to the group: a plan prepared from reads at
    -- one revision is refused at another.
    revision   BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE episodes (
    id                 BIGINT GENERATED ALWAYS AS IDENTITY,  -- order of arrival
    group_id           TEXT NOT NULL REFERENCES groups(group_id),
    uuid               TEXT NOT NULL,
    name               TEXT NOT NULL,
    kind               TEXT NOT NULL,
    content            TEXT,
    content_hash       TEXT,
    source_description TEXT,
    reference_time     BIGINT NOT NULL,
    created_at         BIGINT NOT NULL,
    saga               TEXT,
    status             TEXT NOT NULL,
    metadata           JSONB NOT NULL DEFAULT '{}',
    error              TEXT,
    pending            JSONB,
    checkpoint         JSONB,
    result             JSONB,
    updated_at         BIGINT,
    embedding          vector,
    fts                tsvector GENERATED ALWAYS AS (
        CASE WHEN content IS NULL THEN NULL ELSE to_tsvector('english', name || ' ' || content) END
    ) STORED,
    PRIMARY KEY (group_id, uuid)
);
CREATE INDEX episodes_by_time ON episodes(group_id, reference_time, id);
CREATE INDEX episodes_by_arrival ON episodes(group_id, id);
CREATE INDEX episodes_unfinished ON episodes(status) WHERE status NOT IN ('complete', 'quarantined');
CREATE INDEX episodes_by_saga ON episodes(group_id, saga, reference_time) WHERE saga IS NOT NULL;
CREATE INDEX episodes_complete ON episodes(group_id, reference_time, id) WHERE status = 'complete';
CREATE INDEX episodes_fts ON episodes USING gin(fts);

CREATE TABLE entities (
    group_id   TEXT NOT NULL REFERENCES groups(group_id),
    uuid       TEXT NOT NULL,
    name       TEXT NOT NULL,
    name_key   TEXT NOT NULL,
    labels     JSONB NOT NULL DEFAULT '[]',
    aliases    JSONB NOT NULL DEFAULT '[]',
    summary    TEXT,
    attributes JSONB NOT NULL DEFAULT '{}',
    provenance JSONB NOT NULL DEFAULT '{}',
    -- Initials of a name of two or more words (NYC for New York City).
    acronym    TEXT,
    embedding  vector,
    created_at BIGINT NOT NULL,
    -- The name weighs A, the summary B: a search of names alone asks for A.
    fts        tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', name), 'A') || setweight(to_tsvector('english', coalesce(summary, '')), 'B')
    ) STORED,
    PRIMARY KEY (group_id, uuid)
);
CREATE INDEX entities_by_name ON entities(group_id, name_key);
CREATE INDEX entities_by_acronym ON entities(group_id, acronym) WHERE acronym IS NOT NULL;
CREATE INDEX entities_fts ON entities USING gin(fts);

CREATE TABLE entity_aliases (
    group_id    TEXT NOT NULL,
    alias_key   TEXT NOT NULL,
    entity_uuid TEXT NOT NULL,
    PRIMARY KEY (group_id, alias_key, entity_uuid),
    FOREIGN KEY (group_id, entity_uuid) REFERENCES entities(group_id, uuid) ON DELETE CASCADE
);
CREATE INDEX entity_aliases_by_entity ON entity_aliases(group_id, entity_uuid);

-- Pairs of entities that may be one (a fuzzy match no one could confirm).
CREATE TABLE entity_fragments (
    group_id   TEXT NOT NULL,
    a          TEXT NOT NULL,
    b          TEXT NOT NULL,
    score      DOUBLE PRECISION NOT NULL,
    episode_id TEXT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (group_id, a, b),
    FOREIGN KEY (group_id, a) REFERENCES entities(group_id, uuid) ON DELETE CASCADE,
    FOREIGN KEY (group_id, b) REFERENCES entities(group_id, uuid) ON DELETE CASCADE
);

CREATE TABLE facts (
    group_id          TEXT NOT NULL REFERENCES groups(group_id),
    uuid              TEXT NOT NULL,
    source_uuid       TEXT NOT NULL,
    target_uuid       TEXT NOT NULL,
    relation          TEXT NOT NULL,
    relation_key      TEXT NOT NULL,
    fact              TEXT NOT NULL,
    valid_at          BIGINT NOT NULL,
    invalid_at        BIGINT,
    stated_invalid_at BIGINT,
    created_at        BIGINT NOT NULL,
    expired_at        BIGINT,
    invalidated_by    TEXT,
    attributes        JSONB NOT NULL DEFAULT '{}',
    embedding         vector,
    -- The current version: since when it is believed, and why. Earlier
    -- versions are in fact_history.
    recorded_at       BIGINT NOT NULL,
    cause             TEXT NOT NULL,
    cause_episode     TEXT,
    fts               tsvector GENERATED ALWAYS AS (to_tsvector('english', fact)) STORED,
    PRIMARY KEY (group_id, uuid),
    FOREIGN KEY (group_id, source_uuid) REFERENCES entities(group_id, uuid),
    FOREIGN KEY (group_id, target_uuid) REFERENCES entities(group_id, uuid)
);
CREATE INDEX facts_by_source ON facts(group_id, source_uuid, relation_key, valid_at);
CREATE INDEX facts_by_target ON facts(group_id, target_uuid, relation_key, valid_at);
CREATE INDEX facts_by_relation ON facts(group_id, relation_key, valid_at);
CREATE INDEX facts_by_pair ON facts(group_id, source_uuid, target_uuid);
CREATE INDEX facts_fts ON facts USING gin(fts);

CREATE TABLE fact_sources (
    group_id          TEXT NOT NULL,
    fact_uuid         TEXT NOT NULL,
    episode_id        TEXT NOT NULL,
    valid_at          BIGINT NOT NULL,
    stated_invalid_at BIGINT,
    added_at          BIGINT NOT NULL,
    provenance        JSONB NOT NULL DEFAULT '{}',
    PRIMARY KEY (group_id, fact_uuid, episode_id),
    FOREIGN KEY (group_id, fact_uuid) REFERENCES facts(group_id, uuid) ON DELETE CASCADE,
    FOREIGN KEY (group_id, episode_id) REFERENCES episodes(group_id, uuid)
);
CREATE INDEX fact_sources_by_episode ON fact_sources(group_id, episode_id);

CREATE TABLE fact_conflicts (
    group_id   TEXT NOT NULL,
    a          TEXT NOT NULL,
    b          TEXT NOT NULL,
    episode_id TEXT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (group_id, a, b),
    FOREIGN KEY (group_id, a) REFERENCES facts(group_id, uuid) ON DELETE CASCADE,
    FOREIGN KEY (group_id, b) REFERENCES facts(group_id, uuid) ON DELETE CASCADE
);
CREATE INDEX fact_conflicts_by_b ON fact_conflicts(group_id, b);

-- Append-only: every superseded version of a fact (from its recorded_at until
-- the next version's), and a 'deleted' marker when a retraction removes it.
CREATE TABLE fact_history (
    seq            BIGINT GENERATED ALWAYS AS IDENTITY,
    group_id       TEXT NOT NULL,
    fact_uuid      TEXT NOT NULL,
    recorded_at    BIGINT NOT NULL,
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
    valid_at       BIGINT NOT NULL,
    invalid_at     BIGINT,
    invalidated_by TEXT,
    created_at     BIGINT NOT NULL,
    expired_at     BIGINT,
    episodes       JSONB NOT NULL DEFAULT '[]',
    PRIMARY KEY (group_id, seq)
);
CREATE INDEX history_by_fact ON fact_history(group_id, fact_uuid, recorded_at, seq);
CREATE INDEX history_by_relation ON fact_history(group_id, relation_key);

-- Facts retracted by remove_episode: gone from the current graph, but still
-- findable by name for known_at queries about the time they were believed.
CREATE TABLE retracted_facts (
    group_id     TEXT NOT NULL,
    fact_uuid    TEXT NOT NULL,
    subject_key  TEXT NOT NULL,
    object_key   TEXT NOT NULL,
    retracted_at BIGINT NOT NULL,
    PRIMARY KEY (group_id, fact_uuid)
);
CREATE INDEX retracted_by_subject ON retracted_facts(group_id, subject_key);
CREATE INDEX retracted_by_object ON retracted_facts(group_id, object_key);

CREATE TABLE mentions (
    group_id    TEXT NOT NULL,
    episode_id  TEXT NOT NULL,
    entity_uuid TEXT NOT NULL,
    PRIMARY KEY (group_id, episode_id, entity_uuid),
    FOREIGN KEY (group_id, episode_id) REFERENCES episodes(group_id, uuid) ON DELETE CASCADE,
    FOREIGN KEY (group_id, entity_uuid) REFERENCES entities(group_id, uuid) ON DELETE CASCADE
);
CREATE INDEX mentions_by_entity ON mentions(group_id, entity_uuid);

CREATE TABLE audit_events (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY,
    group_id    TEXT NOT NULL,
    kind        TEXT NOT NULL,
    recorded_at BIGINT NOT NULL,
    episode_id  TEXT,
    detail      JSONB NOT NULL DEFAULT '{}',
    PRIMARY KEY (group_id, seq)
);

-- Model replies by a hash of model, schema and prompt, so a retry or
-- re-ingestion is not paid twice (per group since version 8).
CREATE TABLE model_replies (
    key        TEXT PRIMARY KEY,
    model      TEXT NOT NULL,
    reply      TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- Store-wide (Citus: a reference table), e.g. the embedder whose vectors the store holds.
CREATE TABLE store_settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

_V2 = """
-- Who filed an episode, and who caused an audit event (a user, an agent, an API key id).
ALTER TABLE episodes ADD COLUMN actor TEXT;
ALTER TABLE audit_events ADD COLUMN actor TEXT;
"""

_V3 = """
-- Entity summaries: built lazily from an entity's current facts. summary_stale
-- counts the changes to its facts since its summary was built (0: fresh); a
-- rebuild clears it only if no change came in while it was being built.
ALTER TABLE entities ADD COLUMN summary_stale INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entities ADD COLUMN summary_built_at BIGINT;
UPDATE entities e SET summary_stale = 1 WHERE EXISTS (
    SELECT 1 FROM facts f WHERE f.group_id = e.group_id AND f.source_uuid = e.uuid
) OR EXISTS (
    SELECT 1 FROM facts f WHERE f.group_id = e.group_id AND f.target_uuid = e.uuid
);
CREATE INDEX entities_stale_summaries ON entities(group_id, uuid) WHERE summary_stale > 0;
"""

_V4 = """
-- Sagas: a running summary per (group, saga) with its two watermarks, the
-- ingestion cursor (created_at, uuid) of the last episode included and the
-- event-time coverage, written together. version moves with every change to
-- the row; stale counts removals of included episodes since it was built.
CREATE TABLE saga_summaries (
    group_id     TEXT NOT NULL REFERENCES groups(group_id),
    saga         TEXT NOT NULL,
    summary      TEXT,
    version      BIGINT NOT NULL,
    cursor_at    BIGINT,
    cursor_uuid  TEXT,
    covered_from BIGINT,
    covered_to   BIGINT,
    episodes     BIGINT NOT NULL DEFAULT 0,
    without_text BIGINT NOT NULL DEFAULT 0,
    method       TEXT,
    state        JSONB,
    built_at     BIGINT,
    stale        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (group_id, saga)
);
-- A saga's episodes in cursor order (uuids byte by byte, as SQLite orders
-- them); also where a new one's stamp is read.
CREATE INDEX episodes_saga_arrival ON episodes(group_id, saga, created_at, uuid COLLATE "C")
    WHERE saga IS NOT NULL;
"""

_V6 = """
-- The group and episode whose processing was given a reply (NULL: asked
-- outside an episode), so that forgetting an episode drops its replies too.
ALTER TABLE model_replies ADD COLUMN group_id TEXT;
ALTER TABLE model_replies ADD COLUMN episode_id TEXT;
CREATE INDEX model_replies_by_episode ON model_replies(group_id, episode_id) WHERE episode_id IS NOT NULL;
"""

_V5 = """
-- Communities: clusters of the entity graph (maintain/communities.py), each
-- with a name, a summary and a vector; a rebuild replaces a group's in one
-- transaction. Members are ranked most central first; attached_at is set on
-- those update_communities attached after the build.
CREATE TABLE communities (
    group_id  TEXT NOT NULL REFERENCES groups(group_id),
    uuid      TEXT NOT NULL,
    name      TEXT NOT NULL,
    summary   TEXT,
    method    TEXT NOT NULL,
    built_at  BIGINT NOT NULL,
    embedding vector,
    fts       tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', name), 'A') || setweight(to_tsvector('english', coalesce(summary, '')), 'B')
    ) STORED,
    PRIMARY KEY (group_id, uuid)
);
CREATE INDEX communities_fts ON communities USING gin(fts);

CREATE TABLE community_members (
    group_id       TEXT NOT NULL,
    community_uuid TEXT NOT NULL,
    entity_uuid    TEXT NOT NULL,
    rank           INTEGER NOT NULL,
    attached_at    BIGINT,
    PRIMARY KEY (group_id, community_uuid, entity_uuid),
    FOREIGN KEY (group_id, community_uuid) REFERENCES communities(group_id, uuid) ON DELETE CASCADE,
    FOREIGN KEY (group_id, entity_uuid) REFERENCES entities(group_id, uuid) ON DELETE CASCADE
);
CREATE INDEX community_members_by_entity ON community_members(group_id, entity_uuid);
"""

_V7 = """
-- The ingestion queue (ingest/queue.py): an accepted episode waits with status
-- 'queued', and each group's queue is taken in arrival order.
CREATE INDEX episodes_queued ON episodes(group_id, id) WHERE status = 'queued';
"""

_V8 = """
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
    created_at BIGINT NOT NULL,
    episode_id TEXT,
    PRIMARY KEY (group_id, key)
);
INSERT INTO model_replies_by_group(group_id, key, model, reply, created_at, episode_id)
    SELECT group_id, key, model, reply, created_at, episode_id FROM model_replies WHERE group_id IS NOT NULL;
DROP TABLE model_replies;
ALTER TABLE model_replies_by_group RENAME TO model_replies;
CREATE INDEX model_replies_by_episode ON model_replies(group_id, episode_id) WHERE episode_id IS NOT NULL;
"""

_V9 = """
-- Whom the actor acted for (a service records the calling key as actor, and
-- what the caller named as on_behalf_of, never in its place).
ALTER TABLE episodes ADD COLUMN on_behalf_of TEXT;
ALTER TABLE audit_events ADD COLUMN on_behalf_of TEXT;
"""

_V10 = """
-- Leases (ingest/ownership.py): the worker holding an unfinished episode
-- (a token unique to one memory in one process, with host and pid to show)
-- and until when; its heartbeat moves lease_until on while it works, and
-- anyone may take the episode over once lease_until has passed.
ALTER TABLE episodes ADD COLUMN lease_owner TEXT;
ALTER TABLE episodes ADD COLUMN lease_until BIGINT;
CREATE INDEX episodes_leased ON episodes(lease_owner, group_id) WHERE lease_owner IS NOT NULL;
"""

_V11 = """
-- Who said an episode (whom "I" means) and in what role (user, assistant...).
ALTER TABLE episodes ADD COLUMN speaker TEXT;
ALTER TABLE episodes ADD COLUMN role TEXT;
-- Each group's settings (its user's name, and what later features keep per
-- group), one row a setting, the value as JSON.
CREATE TABLE group_settings (
    group_id   TEXT NOT NULL REFERENCES groups(group_id),
    name       TEXT NOT NULL,
    value      JSONB NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (group_id, name)
);
"""


def _quoted(values: Iterable[str]) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in sorted(values))


# Events (kronograph.event_relations): a fact that is a moment (Sam LEFT
# Northwind on its valid_at), not a standing one; reads of what is true now
# leave it out unless asked for. Decided when a fact is written; the history
# keeps it with each version, so that known_at reads tell too. Existing facts
# of a built-in event relation that ingestion extracted (a source not added
# with add_fact, which applies no built-in defaults) become events, their
# history with them; relation types a memory declared are not stored, so a
# declared event stays a state until it is restated.
_V12 = f"""
ALTER TABLE facts ADD COLUMN event BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE fact_history ADD COLUMN event BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE facts f SET event = TRUE WHERE f.relation_key IN ({_quoted(BUILT_IN_EVENTS)})
AND EXISTS (SELECT 1 FROM fact_sources fs WHERE fs.group_id = f.group_id AND fs.fact_uuid = f.uuid
            AND coalesce(fs.provenance->>'extractor', '') <> 'direct');
UPDATE fact_history h SET event = TRUE FROM facts f
WHERE f.group_id = h.group_id AND f.uuid = h.fact_uuid AND f.event;
"""

# The change feed (memory.changes) reads a group's versions in the order of the time they were
# recorded, then by fact (uuids in byte order, as the feed sorts them).
_V13 = """
CREATE INDEX facts_by_recorded ON facts(group_id, recorded_at, uuid COLLATE "C");
CREATE INDEX history_by_recorded ON fact_history(group_id, recorded_at, fact_uuid COLLATE "C", seq);
CREATE INDEX audit_by_kind ON audit_events(group_id, kind, recorded_at);
"""

# A write's preconditions (the group's revision, a saga's version, an
# episode's lease) checked by the server inside the pipeline that writes: a
# failed one aborts the transaction with SQLSTATE KG001, ``what`` as the
# message and the facts as JSON detail (see .pipelined), so the client never
# waits midway for an answer to compare.
_V16 = """
CREATE OR REPLACE FUNCTION kronograph_expect(ok boolean, what text, detail text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION USING ERRCODE = 'KG001', MESSAGE = what, DETAIL = detail;
    END IF;
    RETURN true;
END
$$;
"""

# An index that cost more than it earned: its predicate names summary_stale,
# which every fact written moves on both its entities, so none of those
# updates could be HOT (each put the entity's row in every index of entities
# again, its HNSW graph included: 0.55 -> 0.27 ms of server time per
# add_fact). Summarising reads a group's stale entities by the group's own
# rows instead, a batch job's read, not the write path's.
_V18 = """
DROP INDEX IF EXISTS entities_stale_summaries;
"""

# Contradictions with authority (kronograph.authority): a fact's governance
# tier, kept with each version (a tier changed by hand is a new version), and
# the group's contradiction rows, as on SQLite: a contradicting fact (or the
# episode whose meaning flagged it: no foreign key) against the fact it
# contradicts, read by either side; rows naming a deleted fact or episode go
# with it, in the plan that deletes it. Distributed by group_id on Citus
# (GROUP_TABLES).
_V19 = """
ALTER TABLE facts ADD COLUMN IF NOT EXISTS tier TEXT;
ALTER TABLE fact_history ADD COLUMN IF NOT EXISTS tier TEXT;
CREATE TABLE IF NOT EXISTS contradictions (
    group_id         TEXT NOT NULL,
    fact_uuid        TEXT NOT NULL,
    target_uuid      TEXT NOT NULL,
    kind             TEXT NOT NULL,
    reason           TEXT NOT NULL,
    target_authority DOUBLE PRECISION NOT NULL,
    actor_weight     DOUBLE PRECISION NOT NULL,
    score            DOUBLE PRECISION NOT NULL,
    similarity       DOUBLE PRECISION,
    note             TEXT,
    actor            TEXT,
    episode_id       TEXT,
    created_at       BIGINT NOT NULL,
    dismissed_at     BIGINT,
    PRIMARY KEY (group_id, fact_uuid, target_uuid, kind)
);
CREATE INDEX IF NOT EXISTS contradictions_by_target ON contradictions(group_id, target_uuid);
CREATE INDEX IF NOT EXISTS facts_tiered ON facts(group_id) WHERE tier IS NOT NULL;
"""

# Qualified slots (kronograph.qualifiers): a fact's qualifiers as canonical
# JSON text (keys sorted; NULL for none), kept with each version; text, not
# jsonb, so that the stored form is the same on every backend. No index: a
# slot's facts are found by subject and relation as before.
_V21 = """
ALTER TABLE facts ADD COLUMN IF NOT EXISTS qualifiers TEXT;
ALTER TABLE fact_history ADD COLUMN IF NOT EXISTS qualifiers TEXT;
"""

MIGRATIONS: list[tuple[int, str, str]] = [
    (1, "initial", _V1),
    (2, "actor", _V2),
    (3, "summaries", _V3),
    (4, "sagas", _V4),
    (5, "communities", _V5),
    (6, "reply_sources", _V6),
    (7, "queue", _V7),
    (8, "group_replies", _V8),
    (9, "on_behalf_of", _V9),
    (10, "leases", _V10),
    (11, "speakers", _V11),
    (12, "events", _V12),
    (13, "change_feed", _V13),
    (16, "write_checks", _V16),
    (18, "hot_stale_summaries", _V18),
    (19, "contradictions", _V19),
    (20, "erasure_log", _V20),
    (21, "qualifiers", _V21),
]

# Every table of group data (each keyed by group_id), parents first.
GROUP_TABLES = (
    "groups", "episodes", "entities", "entity_aliases", "entity_fragments", "facts", "fact_sources",
    "fact_conflicts", "fact_history", "retracted_facts", "mentions", "audit_events", "saga_summaries",
    "communities", "community_members", "model_replies", "group_settings", "contradictions",
    "erasure_log",
)

# Store-wide tables (Citus: reference tables, a copy on every node).
STORE_TABLES = ("store_settings",)

# Tables with vectors, and the rows of each that search reads.
VECTOR_TABLES = ("facts", "entities", "episodes", "communities")


# pgvector's HNSW indexes vectors of up to this many dimensions.
HNSW_MAX_DIMENSIONS = 2000


def vector_index_statements(dimension: int) -> list[str]:
    """HNSW indexes (cosine) over the vectors of one dimension: a ``vector``
    column without a fixed size cannot be indexed, its cast to ``vector(n)``
    can, and searches order by that same cast. None past HNSW's limit
    (3,072 numbers, say): those vectors are searched exactly, unindexed."""
    n = int(dimension)
    if n > HNSW_MAX_DIMENSIONS:
        return []
    return [
        f"CREATE INDEX IF NOT EXISTS {table}_embedding_{n} ON {table}"
        f" USING hnsw ((embedding::vector({n})) vector_cosine_ops)"
        f" WHERE embedding IS NOT NULL AND vector_dims(embedding) = {n}"
        for table in VECTOR_TABLES
    ]


async def _version(conn: AsyncConnection) -> int:
    await conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
    )
    cur = await conn.execute("SELECT MAX(version) FROM schema_migrations")
    row = await cur.fetchone()
    return int(row[0] or 0) if row else 0


async def _check_replica(conn: AsyncConnection) -> int:
    cur = await conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL")
    row = await cur.fetchone()
    current = 0
    if row and row[0]:
        cur = await conn.execute("SELECT MAX(version) FROM schema_migrations")
        found = await cur.fetchone()
        current = int(found[0] or 0) if found else 0
    latest = MIGRATIONS[-1][0]
    if current != latest:
        raise SchemaError(
            f"this read replica has schema version {current}, and this kronograph needs {latest}:"
            " open the primary with this kronograph first (it migrates; replicas follow it)"
        )
    return latest


async def migrate(conn: AsyncConnection) -> int:
    """Bring the schema up to date. ``conn`` is in autocommit mode; each
    migration is one transaction, under a lock other openers wait on. On a
    read replica nothing can change: its schema is checked, not migrated."""
    cur = await conn.execute("SELECT pg_is_in_recovery()")
    row = await cur.fetchone()
    if row and row[0]:
        return await _check_replica(conn)
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (LOCK_SPACE,))
        current = await _version(conn)
    latest = MIGRATIONS[-1][0]
    if current > latest:
        raise SchemaError(
            f"this database has schema version {current}, but this kronograph only knows "
            f"versions up to {latest}: upgrade kronograph to open it"
        )
    for version, name, script in MIGRATIONS:
        if version <= current:
            continue
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (LOCK_SPACE,))
            if await _version(conn) >= version:  # another process got there first
                continue
            for statement in statements(script):  # one by one: Citus runs a text of several on no worker
                await conn.execute(statement)  # type: ignore[arg-type]  # a fixed script, no parameters
            await conn.execute(
                "INSERT INTO schema_migrations(version, name) VALUES (%s, %s)", (version, name)
            )
    await distribute(conn, GROUP_TABLES, STORE_TABLES, (LOCK_SPACE, 0))  # where Citus is installed
    return latest
