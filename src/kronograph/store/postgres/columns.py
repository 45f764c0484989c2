"""The PostgreSQL column lists each row converter reads (in its order).

Entities and facts are joined within their group (``s.group_id =
f.group_id``), which keeps every join on one shard when the tables are
distributed by ``group_id``. Ties in an order fall back on uuids compared
byte by byte (``COLLATE "C"``), as SQLite compares them, whatever the
database's collation.
"""

from __future__ import annotations

from ..sql.dialect import Columns, PostgresDialect

__all__ = [
    "DIALECT",
    "ENTITY_COLUMNS",
    "ENTITY_ORDER",
    "EPISODE_COLUMNS",
    "FACT_COLUMNS",
    "FACT_ORDER",
    "FROM_FACTS",
    "HISTORY_FACT_COLUMNS",
    "RECORD_COLUMNS",
    "SOURCE_COLUMN",
]

ENTITY_COLUMNS = (
    "e.uuid, e.group_id, e.name, e.labels, e.aliases, e.summary, e.attributes, e.created_at, e.provenance,"
    " e.summary_stale, e.summary_built_at"
)
ENTITY_ORDER = 'e.created_at, e.uuid COLLATE "C"'
EPISODE_COLUMNS = (
    "p.uuid, p.group_id, p.name, p.kind, p.content, p.content_hash, p.source_description,"
    " p.reference_time, p.created_at, p.saga, p.status, p.metadata, p.error, p.actor, p.on_behalf_of,"
    " p.lease_owner, p.lease_until, p.result, p.speaker, p.role, p.data_subject"
)
# A fact's source episodes in order (jsonb, the type of a history snapshot's
# list, so the two can be unioned). The subquery names its group by the
# query's own parameter ``g`` (every query reading these columns has it),
# not by ``f.group_id``: Citus routes a correlated subquery to the group's
# shard only when its group is a constant; correlated, it runs on every shard.
_EPISODES = (
    '(SELECT jsonb_agg(fs.episode_id ORDER BY fs.added_at, fs.episode_id COLLATE "C") FROM fact_sources fs'
    "  WHERE fs.group_id = %(g)s AND fs.fact_uuid = f.uuid)"
)
# Public facts: the stored columns, the endpoint names and the sources.
FACT_COLUMNS = (
    "f.uuid, f.group_id, s.name, f.source_uuid, f.relation, o.name, f.target_uuid, f.fact,"
    " f.valid_at, f.invalid_at, f.created_at, f.expired_at, f.invalidated_by, f.attributes,"
    f" {_EPISODES}, f.event, f.tier, f.qualifiers, f.data_subject"
)
FACT_ORDER = 'f.valid_at, f.created_at, f.uuid COLLATE "C"'
# The same shape, read from a history snapshot.
HISTORY_FACT_COLUMNS = (
    "h.fact_uuid, h.group_id, h.subject, h.source_uuid, h.relation, h.object, h.target_uuid, h.fact,"
    " h.valid_at, h.invalid_at, h.created_at, h.expired_at, h.invalidated_by, '{}'::jsonb, h.episodes, h.event, h.tier,"
    " h.qualifiers, NULL::text"
)
RECORD_COLUMNS = (
    "f.uuid, f.group_id, f.source_uuid, f.target_uuid, s.name, o.name, f.relation, f.relation_key,"
    " f.fact, f.valid_at, f.invalid_at, f.stated_invalid_at, f.created_at, f.expired_at,"
    " f.invalidated_by, f.attributes, f.recorded_at, f.cause, f.cause_episode, f.event, f.tier, f.qualifiers,"
    " f.data_subject"
)
# A fact record's sources in the same row: [[episode, valid_at, stated_invalid_at,
# added_at], ...] in order, or NULL; one round trip instead of SQLite's two.
# The group is the parameter ``g``, as in _EPISODES.
SOURCE_COLUMN = (
    "(SELECT json_agg(json_build_array(fs.episode_id, fs.valid_at, fs.stated_invalid_at, fs.added_at)"
    ' ORDER BY fs.added_at, fs.episode_id COLLATE "C") FROM fact_sources fs'
    " WHERE fs.group_id = %(g)s AND fs.fact_uuid = f.uuid)"
)
# Facts with their endpoint entities (f, s, o).
FROM_FACTS = (
    " FROM facts f JOIN entities s ON s.group_id = f.group_id AND s.uuid = f.source_uuid"
    " JOIN entities o ON o.group_id = f.group_id AND o.uuid = f.target_uuid"
)

DIALECT = PostgresDialect(
    Columns(
        entity=ENTITY_COLUMNS,
        episode=EPISODE_COLUMNS,
        fact=FACT_COLUMNS,
        fact_list=FACT_COLUMNS,
        history_fact=HISTORY_FACT_COLUMNS,
        record=RECORD_COLUMNS,
        record_sources=", " + SOURCE_COLUMN,
        fact_episodes=_EPISODES,
    )
)
