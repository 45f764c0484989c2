"""The SQL of each change of a plan, for every backend: the statements take
the parameters ``..plan_rows`` gives, in that order (positional).

Most are the same on every engine but for the parameter mark; an insert
that ignores or replaces an existing row is spelt by the dialect
(:meth:`Dialect.insert`). The few that the engines write their own way (an
episode's saga stamp, the set of an entity's aliases, a saga's staleness)
each backend's ``writes`` adds.
"""

from __future__ import annotations

from .dialect import Dialect

__all__ = ["statements"]

_SAGA_COLUMNS = (
    "group_id", "saga", "summary", "version", "cursor_at", "cursor_uuid", "covered_from", "covered_to", "episodes",
    "without_text", "method", "state", "built_at", "stale",
)
_FACT_COLUMNS = (
    "uuid", "group_id", "source_uuid", "target_uuid", "relation", "relation_key", "fact", "valid_at", "invalid_at",
    "stated_invalid_at", "created_at", "expired_at", "invalidated_by", "attributes", "recorded_at", "cause",
    "cause_episode", "embedding", "event", "tier", "qualifiers", "data_subject",
)
_CONTRADICTION_COLUMNS = (
    "group_id", "fact_uuid", "target_uuid", "kind", "reason", "target_authority", "actor_weight", "score",
    "similarity", "note", "actor", "episode_id", "created_at", "dismissed_at",
)
_HISTORY_COLUMNS = (
    "group_id", "fact_uuid", "recorded_at", "cause", "episode_id", "status", "source_uuid", "target_uuid", "subject",
    "object", "subject_key", "object_key", "relation", "relation_key", "fact", "valid_at", "invalid_at",
    "invalidated_by", "created_at", "expired_at", "episodes", "event", "tier", "qualifiers",
)


def statements(d: Dialect) -> dict[str, str]:
    """Each change's statement in dialect ``d``, but for ``episodes``,
    ``entity_alias_lists`` and ``stale_sagas`` (a new dict each call)."""
    m = d.mark

    def sets(*columns: str) -> str:
        return ", ".join(f"{c} = {m}" for c in columns)

    def where(*columns: str) -> str:
        return " AND ".join(f"{c} = {m}" for c in columns)

    return {
        "episode_vectors": f"UPDATE episodes SET embedding = {m} WHERE {where('group_id', 'uuid')}",
        "entities": d.insert("entities", (
            "uuid", "group_id", "name", "name_key", "labels", "aliases", "summary", "attributes", "created_at",
            "provenance", "acronym", "embedding",
        )),
        "entity_labels": f"UPDATE entities SET labels = {m} WHERE {where('uuid', 'group_id')}",
        "entity_names": f"UPDATE entities SET {sets('name', 'name_key', 'acronym')} WHERE {where('uuid', 'group_id')}",
        "entity_vectors": f"UPDATE entities SET embedding = {m} WHERE {where('group_id', 'uuid')}",
        "entity_summaries": f"UPDATE entities SET summary = {m} WHERE {where('uuid', 'group_id')} AND summary IS NULL",
        "built_summaries": f"UPDATE entities SET {sets('summary', 'summary_built_at')}, summary_stale = 0"
        f" WHERE {where('uuid', 'group_id', 'summary_stale')}",
        "saga_summaries": d.insert("saga_summaries", _SAGA_COLUMNS, update=("group_id", "saga")),
        "entity_records": f"UPDATE entities SET {sets('labels', 'aliases', 'attributes')}"
        f" WHERE {where('uuid', 'group_id')}",
        "cleared_aliases": f"DELETE FROM entity_aliases WHERE {where('group_id', 'entity_uuid')}",
        "entity_aliases": d.insert("entity_aliases", ("group_id", "alias_key", "entity_uuid"), ignore=True),
        "entity_fragments": d.insert(
            "entity_fragments", ("a", "b", "group_id", "score", "episode_id", "created_at"), ignore=True
        ),
        "replaced_communities": f"DELETE FROM communities WHERE group_id = {m}",
        "communities": d.insert("communities", ("uuid", "group_id", "name", "summary", "method", "built_at")),
        "community_states": f"UPDATE communities SET {sets('name', 'summary', 'method', 'built_at')}"
        f" WHERE {where('uuid', 'group_id')}",
        "community_members": d.insert(
            "community_members", ("community_uuid", "entity_uuid", "group_id", "rank", "attached_at"), ignore=True,
            source=f"SELECT {m}, {m}, {m}, {d.typed(m, 'integer')}, {d.typed(m, 'bigint')} WHERE EXISTS"
            f" (SELECT 1 FROM communities WHERE {where('uuid', 'group_id')})"
            f" AND EXISTS (SELECT 1 FROM entities WHERE {where('uuid', 'group_id')})",
        ),
        "deleted_communities": f"DELETE FROM communities WHERE {where('group_id', 'uuid')}",
        "community_vectors": f"UPDATE communities SET embedding = {m} WHERE {where('group_id', 'uuid')}",
        "mentions": d.insert("mentions", ("group_id", "episode_id", "entity_uuid"), ignore=True),
        "removed_mentions": f"DELETE FROM mentions WHERE {where('group_id', 'episode_id', 'entity_uuid')}",
        "facts": d.insert("facts", _FACT_COLUMNS),
        "fact_sources": d.insert(
            "fact_sources",
            ("fact_uuid", "group_id", "episode_id", "valid_at", "stated_invalid_at", "added_at", "provenance"),
            replace=("group_id", "fact_uuid", "episode_id"),
        ),
        "removed_sources": f"DELETE FROM fact_sources WHERE {where('group_id', 'fact_uuid', 'episode_id')}",
        "fact_versions": "UPDATE facts SET " + sets(
            "valid_at", "invalid_at", "stated_invalid_at", "expired_at", "invalidated_by", "recorded_at", "cause",
            "cause_episode", "tier",
        ) + f" WHERE {where('uuid', 'group_id')}",
        "fact_ends": f"UPDATE facts SET {sets('source_uuid', 'target_uuid')} WHERE {where('uuid', 'group_id')}",
        "removed_conflicts": f"DELETE FROM fact_conflicts WHERE {where('a', 'b', 'group_id')}",
        "fact_conflicts": d.insert("fact_conflicts", ("a", "b", "group_id", "episode_id", "created_at"), ignore=True),
        "contradictions": d.insert("contradictions", _CONTRADICTION_COLUMNS, ignore=True),
        "dismissed_contradictions": f"UPDATE contradictions SET dismissed_at = {m}"
        f" WHERE {where('group_id', 'fact_uuid', 'target_uuid', 'kind')} AND dismissed_at IS NULL",
        "fact_history": d.insert("fact_history", _HISTORY_COLUMNS),
        "retracted_facts": d.insert(
            "retracted_facts", ("fact_uuid", "group_id", "subject_key", "object_key", "retracted_at"),
            replace=("group_id", "fact_uuid"),
        ),
        "deleted_facts": f"DELETE FROM facts WHERE {where('uuid', 'group_id')}",
        # Two statements, each by its own index (SQLite takes no index union on a table without rowids).
        "deleted_contradictions": f"DELETE FROM contradictions WHERE {where('group_id', 'fact_uuid')}",
        "deleted_contradiction_targets": f"DELETE FROM contradictions WHERE {where('group_id', 'target_uuid')}",
        "stale_summaries": f"UPDATE entities SET summary_stale = summary_stale + 1 WHERE {where('uuid', 'group_id')}",
        "deleted_episodes": f"DELETE FROM episodes WHERE {where('group_id', 'uuid')}",
        "deleted_entities": f"DELETE FROM entities WHERE {where('uuid', 'group_id')}",
        "model_replies": d.insert(
            "model_replies", ("group_id", "key", "model", "reply", "created_at", "episode_id"),
            replace=("group_id", "key"),
        ),
        "erased_history": f"DELETE FROM fact_history WHERE {where('group_id', 'fact_uuid')}",
        "erased_retractions": f"DELETE FROM retracted_facts WHERE {where('group_id', 'fact_uuid')}",
        "redacted_audit": f"UPDATE audit_events SET detail = {m}, episode_id = NULL, actor = NULL, on_behalf_of = NULL"
        f" WHERE {where('group_id', 'seq')}",
        "redacted_episode_audit": f"UPDATE audit_events SET detail = {m}, episode_id = NULL, actor = NULL,"
        f" on_behalf_of = NULL WHERE {where('group_id', 'episode_id')}",
        "dropped_replies": f"DELETE FROM model_replies WHERE {where('group_id', 'key')}",
        "cleared_summaries": "UPDATE entities SET summary = NULL, summary_built_at = NULL,"
        f" summary_stale = summary_stale + 1 WHERE {where('uuid', 'group_id')}",
        "cleared_entity_records": f"UPDATE entities SET {sets('attributes', 'provenance')}"
        f" WHERE {where('uuid', 'group_id')}",
        "cleared_communities": "UPDATE communities SET name = '', summary = NULL, embedding = NULL"
        f" WHERE {where('group_id', 'uuid')}",
        "cleared_sagas": "UPDATE saga_summaries SET summary = NULL, state = NULL, version = version + 1,"
        f" stale = stale + 1 WHERE {where('group_id', 'saga')}",
        "dropped_sagas": f"DELETE FROM saga_summaries WHERE {where('group_id', 'saga')}",
        "dropped_contradictions": f"DELETE FROM contradictions WHERE {where('group_id', 'fact_uuid')}",
        "group_settings": d.insert(
            "group_settings", ("group_id", "name", "value", "updated_at"), update=("group_id", "name"),
            source=f"VALUES ({m},{m},{d.typed(m, 'jsonb')},{m})",
        ),
        "dropped_settings": f"DELETE FROM group_settings WHERE {where('group_id', 'name')}",
        "cleared_fact_subjects": f"UPDATE facts SET data_subject = NULL WHERE {where('uuid', 'group_id')}",
        "erasure_log": d.insert("erasure_log", (
            "group_id", "seq", "receipt_id", "entry", "target", "request_id", "reason", "actor", "on_behalf_of",
            "recorded_at", "counts", "verified", "leftovers", "previous", "digest",
        )),
        "audit_events": d.insert(
            "audit_events", ("group_id", "kind", "recorded_at", "episode_id", "detail", "actor", "on_behalf_of")
        ),
    }
