"""Applying a plan to SQLite: one IMMEDIATE transaction, all or nothing."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from ...errors import ConcurrentWriteError
from ...time import to_micros
from .. import fence
from ..plan import Plan, SagaWrite
from ..plan_rows import Encoding, plan_rows

__all__ = ["apply_plan", "write_plan"]


def _json(value: Any) -> str:
    """JSON text of a column; the common empty values skip the encoder."""
    return json.dumps(value) if value else ("{}" if isinstance(value, dict) else "[]")


def apply_plan(conn: sqlite3.Connection, plan: Plan, revision: Callable[[sqlite3.Connection], int]) -> None:
    """Apply ``plan`` in one IMMEDIATE transaction, refusing it if the database
    moved on (``revision``) since the plan's reads."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if plan.expected_revision is not None and revision(conn) != plan.expected_revision:
            raise ConcurrentWriteError(f"group {plan.group_id!r} changed while this write was being prepared")
        write_plan(conn, plan)
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (disk full, I/O error)
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


# The SQL of each change of a plan (see ..plan_rows for the parameters).
SQL = {
    # An episode of a saga is stamped past the saga's latest created_at (see ..plan_rows).
    "episodes": "INSERT OR IGNORE INTO episodes(group_id, uuid, name, kind, content, content_hash,"
    " source_description, reference_time, created_at, saga, status, metadata, actor, on_behalf_of, speaker, role)"
    " VALUES (?1,?2,?3,?4,?5,?6,?7,?8, MAX(?9, COALESCE((SELECT MAX(e.created_at) + 1 FROM episodes e"
    " WHERE e.group_id = ?1 AND e.saga = ?10), ?9)), ?10,?11,?12,?13,?14,?15,?16)",
    "episode_vectors": "UPDATE episodes SET embedding = ? WHERE group_id = ? AND uuid = ?",
    "entities": "INSERT INTO entities(uuid, group_id, name, name_key, labels, aliases, summary, attributes,"
    " created_at, provenance, acronym, embedding) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
    "entity_labels": "UPDATE entities SET labels = ? WHERE uuid = ? AND group_id = ?",
    "entity_names": "UPDATE entities SET name = ?, name_key = ?, acronym = ? WHERE uuid = ? AND group_id = ?",
    "entity_vectors": "UPDATE entities SET embedding = ? WHERE group_id = ? AND uuid = ?",
    "entity_summaries": "UPDATE entities SET summary = ? WHERE uuid = ? AND group_id = ? AND summary IS NULL",
    "built_summaries": "UPDATE entities SET summary = ?, summary_built_at = ?, summary_stale = 0"
    " WHERE uuid = ? AND group_id = ? AND summary_stale = ?",
    "saga_summaries": "INSERT INTO saga_summaries(group_id, saga, summary, version, cursor_at, cursor_uuid,"
    " covered_from, covered_to, episodes, without_text, method, state, built_at, stale)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (group_id, saga) DO UPDATE SET summary = excluded.summary,"
    " version = excluded.version, cursor_at = excluded.cursor_at, cursor_uuid = excluded.cursor_uuid,"
    " covered_from = excluded.covered_from, covered_to = excluded.covered_to, episodes = excluded.episodes,"
    " without_text = excluded.without_text, method = excluded.method, state = excluded.state,"
    " built_at = excluded.built_at, stale = excluded.stale",
    "entity_records": "UPDATE entities SET labels = ?, aliases = ?, attributes = ? WHERE uuid = ? AND group_id = ?",
    "cleared_aliases": "DELETE FROM entity_aliases WHERE group_id = ? AND entity_uuid = ?",
    "entity_alias_lists": "UPDATE entities SET aliases = (SELECT json_group_array(value) FROM"
    " (SELECT value FROM json_each(entities.aliases) UNION SELECT ?)) WHERE uuid = ? AND group_id = ?",
    "entity_aliases": "INSERT OR IGNORE INTO entity_aliases(group_id, alias_key, entity_uuid) VALUES (?,?,?)",
    "entity_fragments": "INSERT OR IGNORE INTO entity_fragments(a, b, group_id, score, episode_id, created_at)"
    " VALUES (?,?,?,?,?,?)",
    "replaced_communities": "DELETE FROM communities WHERE group_id = ?",
    "communities": "INSERT INTO communities(uuid, group_id, name, summary, method, built_at) VALUES (?,?,?,?,?,?)",
    "community_states": "UPDATE communities SET name = ?, summary = ?, method = ?, built_at = ?"
    " WHERE uuid = ? AND group_id = ?",
    "community_members": "INSERT OR IGNORE INTO community_members(community_uuid, entity_uuid, group_id, rank,"
    " attached_at) SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM communities WHERE uuid = ? AND group_id = ?)"
    " AND EXISTS (SELECT 1 FROM entities WHERE uuid = ? AND group_id = ?)",
    "deleted_communities": "DELETE FROM communities WHERE group_id = ? AND uuid = ?",
    "community_vectors": "UPDATE communities SET embedding = ? WHERE group_id = ? AND uuid = ?",
    "mentions": "INSERT OR IGNORE INTO mentions(group_id, episode_id, entity_uuid) VALUES (?,?,?)",
    "removed_mentions": "DELETE FROM mentions WHERE group_id = ? AND episode_id = ? AND entity_uuid = ?",
    "facts": "INSERT INTO facts(uuid, group_id, source_uuid, target_uuid, relation, relation_key, fact,"
    " valid_at, invalid_at, stated_invalid_at, created_at, expired_at, invalidated_by, attributes,"
    " recorded_at, cause, cause_episode, embedding, event) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "fact_sources": "INSERT OR REPLACE INTO fact_sources(fact_uuid, group_id, episode_id, valid_at,"
    " stated_invalid_at, added_at, provenance) VALUES (?,?,?,?,?,?,?)",
    "removed_sources": "DELETE FROM fact_sources WHERE group_id = ? AND fact_uuid = ? AND episode_id = ?",
    "fact_versions": "UPDATE facts SET valid_at = ?, invalid_at = ?, stated_invalid_at = ?, expired_at = ?,"
    " invalidated_by = ?, recorded_at = ?, cause = ?, cause_episode = ? WHERE uuid = ? AND group_id = ?",
    "fact_ends": "UPDATE facts SET source_uuid = ?, target_uuid = ? WHERE uuid = ? AND group_id = ?",
    "removed_conflicts": "DELETE FROM fact_conflicts WHERE a = ? AND b = ? AND group_id = ?",
    "fact_conflicts": "INSERT OR IGNORE INTO fact_conflicts(a, b, group_id, episode_id, created_at)"
    " VALUES (?,?,?,?,?)",
    "fact_history": "INSERT INTO fact_history(group_id, fact_uuid, recorded_at, cause, episode_id, status,"
    " source_uuid, target_uuid, subject, object, subject_key, object_key, relation, relation_key,"
    " fact, valid_at, invalid_at, invalidated_by, created_at, expired_at, episodes, event)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "retracted_facts": "INSERT OR REPLACE INTO retracted_facts(fact_uuid, group_id, subject_key, object_key,"
    " retracted_at) VALUES (?,?,?,?,?)",
    "deleted_facts": "DELETE FROM facts WHERE uuid = ? AND group_id = ?",
    "stale_summaries": "UPDATE entities SET summary_stale = summary_stale + 1 WHERE uuid = ? AND group_id = ?",
    "stale_sagas": "UPDATE saga_summaries AS s SET version = s.version + 1, stale = s.stale +"
    " (s.cursor_at IS NOT NULL AND (p.created_at < s.cursor_at OR (p.created_at = s.cursor_at"
    " AND p.uuid <= s.cursor_uuid))) FROM episodes p WHERE p.group_id = ? AND p.uuid = ?"
    " AND s.group_id = p.group_id AND s.saga = p.saga",
    "deleted_episodes": "DELETE FROM episodes WHERE group_id = ? AND uuid = ?",
    "deleted_entities": "DELETE FROM entities WHERE uuid = ? AND group_id = ?",
    "model_replies": "INSERT OR REPLACE INTO model_replies(group_id, key, model, reply, created_at, episode_id)"
    " VALUES (?,?,?,?,?,?)",
    "erased_history": "DELETE FROM fact_history WHERE group_id = ? AND fact_uuid = ?",
    "erased_retractions": "DELETE FROM retracted_facts WHERE group_id = ? AND fact_uuid = ?",
    "redacted_audit": "UPDATE audit_events SET detail = ?, episode_id = NULL, actor = NULL,"
    " on_behalf_of = NULL"
    " WHERE group_id = ? AND seq = ?",
    "dropped_replies": "DELETE FROM model_replies WHERE group_id = ? AND key = ?",
    "cleared_summaries": "UPDATE entities SET summary = NULL, summary_built_at = NULL,"
    " summary_stale = summary_stale + 1 WHERE uuid = ? AND group_id = ?",
    "cleared_entity_records": "UPDATE entities SET attributes = ?, provenance = ? WHERE uuid = ? AND group_id = ?",
    "cleared_communities": "UPDATE communities SET name = '', summary = NULL, embedding = NULL"
    " WHERE group_id = ? AND uuid = ?",
    "cleared_sagas": "UPDATE saga_summaries SET summary = NULL, state = NULL, version = version + 1,"
    " stale = stale + 1 WHERE group_id = ? AND saga = ?",
    "dropped_sagas": "DELETE FROM saga_summaries WHERE group_id = ? AND saga = ?",
    "group_settings": "INSERT INTO group_settings(group_id, name, value, updated_at) VALUES (?,?,?,?)"
    " ON CONFLICT (group_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    "dropped_settings": "DELETE FROM group_settings WHERE group_id = ? AND name = ?",
    "audit_events": "INSERT INTO audit_events(group_id, kind, recorded_at, episode_id, detail, actor,"
    " on_behalf_of) VALUES (?,?,?,?,?,?,?)",
}
_ENCODING = Encoding(json=_json, vector=lambda blob: blob)


def _check_saga_version(conn: sqlite3.Connection, group_id: str, summary: SagaWrite) -> None:
    """Refuse a saga summary written from a version that has since moved."""
    row = conn.execute(
        "SELECT version FROM saga_summaries WHERE group_id = ? AND saga = ?",
        (group_id, summary.row.saga),
    ).fetchone()
    if (row[0] if row else 0) != summary.expected_version:
        raise ConcurrentWriteError(
            f"saga {summary.row.saga!r} of group {group_id!r} changed while it was being summarised"
        )


def _write_state(
    conn: sqlite3.Connection, columns: list[str], values: list[Any], g: str, uuid: str, owner: str | None
) -> None:
    """An episode's new state; one its writer no longer holds refuses the plan (see ..fence)."""
    cur = conn.execute(fence.update_sql(columns, owner, "?"), fence.update_params(values, g, uuid, owner))
    if owner is not None and cur.rowcount == 0:
        refused = fence.refusal(g, uuid, conn.execute(fence.holder_sql("?"), (g, uuid)).fetchone())
        if refused is not None:
            raise refused


def write_plan(conn: sqlite3.Connection, plan: Plan) -> None:
    """Write every change of ``plan`` inside the caller's open transaction."""
    g, now = plan.group_id, to_micros(plan.now)
    conn.execute(  # the group's revision moves with every plan, in the plan's transaction
        "INSERT INTO groups(group_id, created_at, revision) VALUES (?, ?, 1)"
        " ON CONFLICT (group_id) DO UPDATE SET revision = revision + 1",
        (g, now),
    )
    if plan.saga_summary is not None:
        _check_saga_version(conn, plan.group_id, plan.saga_summary)
    for change, rows in plan_rows(plan, _ENCODING):
        if not rows:  # most plans touch few tables
            continue
        if change == "episode_states":
            for columns, values, g, uuid, owner in rows:
                _write_state(conn, columns, values, g, uuid, owner)
        else:
            conn.executemany(SQL[change], rows)
