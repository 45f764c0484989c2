"""The SQLite column lists each row converter reads (in its order)."""

from __future__ import annotations

from ..rows import audit_event, entity, episode, fact, fact_change, fact_record, opt_time
from ..sql.dialect import Columns, SqliteDialect

__all__ = [
    "DIALECT",
    "ENTITY_COLUMNS",
    "EPISODE_COLUMNS",
    "EPISODE_WIDTH",
    "FACT_COLUMNS",
    "FACT_COLUMNS_LATER_SOURCES",
    "HISTORY_FACT_COLUMNS",
    "RECORD_COLUMNS",
    "audit_event",
    "entity",
    "episode",
    "fact",
    "fact_change",
    "fact_record",
    "opt_time",
]

ENTITY_COLUMNS = (
    "e.uuid, e.group_id, e.name, e.labels, e.aliases, e.summary, e.attributes, e.created_at, e.provenance,"
    " e.summary_stale, e.summary_built_at"
)

# Of an episode's result only its notes are read: SQLite picks them out, so
# Python never parses the rest (counts, usage) of every episode a search reads,
# nor an empty list of notes (most episodes'), which comes back NULL.
_NOTES = (
    "CASE WHEN json_valid(p.result) THEN CASE WHEN json_array_length(p.result, '$.notes') > 0"
    " THEN json_object('notes', json_extract(p.result, '$.notes')) END ELSE p.result END"
)

EPISODE_COLUMNS = (
    "p.uuid, p.group_id, p.name, p.kind, p.content, p.content_hash, p.source_description,"
    " p.reference_time, p.created_at, p.saga, p.status, p.metadata, p.error, p.actor, p.on_behalf_of,"
    " p.lease_owner, p.lease_until, " + _NOTES + ", p.speaker, p.role, p.data_subject"
)
EPISODE_WIDTH = 21  # the columns above (the notes expression holds commas of its own)

# A fact's source episodes, in order, as a JSON list.
_EPISODES = (
    "(SELECT json_group_array(episode_id) FROM (SELECT episode_id FROM fact_sources fs"
    "  WHERE fs.fact_uuid = f.uuid ORDER BY fs.added_at, fs.episode_id))"
)

# Public facts: the stored columns, the endpoint names and the sources in order.
FACT_COLUMNS = (
    "f.uuid, f.group_id, s.name, f.source_uuid, f.relation, o.name, f.target_uuid, f.fact,"
    " f.valid_at, f.invalid_at, f.created_at, f.expired_at, f.invalidated_by, f.attributes,"
    f" {_EPISODES}, f.event, f.tier, f.qualifiers, f.data_subject"
)

# The same with the sources left for one read of many facts' (``reads.facts``):
# a correlated subquery per fact costs more than the fact itself.
FACT_COLUMNS_LATER_SOURCES = (
    FACT_COLUMNS[: FACT_COLUMNS.index("(SELECT json_group_array")]
    + "NULL, f.event, f.tier, f.qualifiers, f.data_subject"
)

# The same shape, read from a history snapshot.
HISTORY_FACT_COLUMNS = (
    "h.fact_uuid, h.group_id, h.subject, h.source_uuid, h.relation, h.object, h.target_uuid, h.fact,"
    " h.valid_at, h.invalid_at, h.created_at, h.expired_at, h.invalidated_by, '{}', h.episodes, h.event, h.tier,"
    " h.qualifiers, NULL"
)

RECORD_COLUMNS = (
    "f.uuid, f.group_id, f.source_uuid, f.target_uuid, s.name, o.name, f.relation, f.relation_key,"
    " f.fact, f.valid_at, f.invalid_at, f.stated_invalid_at, f.created_at, f.expired_at,"
    " f.invalidated_by, f.attributes, f.recorded_at, f.cause, f.cause_episode, f.event, f.tier, f.qualifiers,"
    " f.data_subject"
)

DIALECT = SqliteDialect(
    Columns(
        entity=ENTITY_COLUMNS,
        episode=EPISODE_COLUMNS,
        fact=FACT_COLUMNS,
        fact_list=FACT_COLUMNS_LATER_SOURCES,
        history_fact=HISTORY_FACT_COLUMNS,
        record=RECORD_COLUMNS,
        record_sources="",  # read after, for many facts at once (reads._records)
        fact_episodes=_EPISODES,
    )
)
