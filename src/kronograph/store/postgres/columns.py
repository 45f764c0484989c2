"""The PostgreSQL column lists each row converter reads (in its order).

Entities and facts are joined within their group (``s.group_id =
f.group_id``), which keeps every join on one shard when the tables are
distributed by ``group_id``.
"""

from __future__ import annotations

__all__ = [
    "ENTITY_COLUMNS",
    "EPISODE_COLUMNS",
    "FACT_COLUMNS",
    "FROM_FACTS",
    "HISTORY_FACT_COLUMNS",
    "RECORD_COLUMNS",
]

ENTITY_COLUMNS = (
    "e.uuid, e.group_id, e.name, e.labels, e.aliases, e.summary, e.attributes, e.created_at, e.provenance"
)
EPISODE_COLUMNS = (
    "p.uuid, p.group_id, p.name, p.kind, p.content, p.content_hash, p.source_description,"
    " p.reference_time, p.created_at, p.saga, p.status, p.metadata, p.error"
)
# Public facts: the stored columns, the endpoint names and the sources in order.
FACT_COLUMNS = (
    "f.uuid, f.group_id, s.name, f.source_uuid, f.relation, o.name, f.target_uuid, f.fact,"
    " f.valid_at, f.invalid_at, f.created_at, f.expired_at, f.invalidated_by, f.attributes,"
    " (SELECT json_agg(fs.episode_id ORDER BY fs.added_at, fs.episode_id) FROM fact_sources fs"
    "  WHERE fs.group_id = f.group_id AND fs.fact_uuid = f.uuid)"
)
# The same shape, read from a history snapshot.
HISTORY_FACT_COLUMNS = (
    "h.fact_uuid, h.group_id, h.subject, h.source_uuid, h.relation, h.object, h.target_uuid, h.fact,"
    " h.valid_at, h.invalid_at, h.created_at, h.expired_at, h.invalidated_by, '{}'::jsonb, h.episodes"
)
RECORD_COLUMNS = (
    "f.uuid, f.group_id, f.source_uuid, f.target_uuid, s.name, o.name, f.relation, f.relation_key,"
    " f.fact, f.valid_at, f.invalid_at, f.stated_invalid_at, f.created_at, f.expired_at,"
    " f.invalidated_by, f.attributes, f.recorded_at, f.cause, f.cause_episode"
)
# Facts with their endpoint entities (f, s, o).
FROM_FACTS = (
    " FROM facts f JOIN entities s ON s.group_id = f.group_id AND s.uuid = f.source_uuid"
    " JOIN entities o ON o.group_id = f.group_id AND o.uuid = f.target_uuid"
)
