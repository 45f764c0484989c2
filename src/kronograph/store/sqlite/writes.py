"""Applying a plan to SQLite: one IMMEDIATE transaction, all or nothing."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from ...errors import ConcurrentWriteError
from ...model import acronym, normalise_name
from ...time import to_micros
from ..plan import EpisodeState, Plan
from ..records import FactRecord

__all__ = ["apply_plan", "write_plan"]


def _t(value):  # type: ignore[no-untyped-def]
    return None if value is None else to_micros(value)


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


class _Batch:
    """``executemany`` that skips empty batches (most plans touch few tables)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def executemany(self, sql: str, rows: list[Any]) -> None:
        if rows:
            self.conn.executemany(sql, rows)


def write_plan(raw: sqlite3.Connection, plan: Plan) -> None:
    """Write every change of ``plan`` inside the caller's open transaction."""
    conn = _Batch(raw)
    g, now = plan.group_id, to_micros(plan.now)
    raw.execute("INSERT OR IGNORE INTO groups(group_id, created_at) VALUES (?, ?)", (g, now))
    conn.executemany(
        "INSERT OR IGNORE INTO episodes(group_id, uuid, name, kind, content, content_hash, source_description,"
        " reference_time, created_at, saga, status, metadata) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (g, e.uuid, e.name, str(e.kind), e.content, e.content_hash, e.source_description,
             to_micros(e.reference_time), to_micros(e.created_at), e.saga, e.status, _json(e.metadata))
            for e in plan.new_episodes
        ],
    )
    for state in plan.episode_states:
        _episode_state(raw, g, state)
    conn.executemany(
        "UPDATE episodes SET embedding = ? WHERE group_id = ? AND uuid = ?",
        [(vector, g, uuid) for uuid, vector in plan.episode_embeddings.items()],
    )
    conn.executemany(
        "INSERT INTO entities(uuid, group_id, name, name_key, labels, aliases, summary, attributes,"
        " created_at, provenance, acronym, embedding) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (e.uuid, g, e.name, normalise_name(e.name), _json(list(e.labels)),
             _json(list(e.aliases)), e.summary, _json(e.attributes), to_micros(e.created_at),
             _json(e.provenance), acronym(e.name), plan.entity_embeddings.get(e.uuid))
            for e in plan.new_entities
        ],
    )
    conn.executemany(
        "UPDATE entities SET labels = ? WHERE uuid = ? AND group_id = ?",
        [(_json(list(labels)), uuid, g) for uuid, labels in plan.entity_labels.items()],
    )
    conn.executemany(
        "UPDATE entities SET summary = ? WHERE uuid = ? AND group_id = ? AND summary IS NULL",
        [(summary, uuid, g) for uuid, summary in plan.entity_summaries.items()],
    )
    conn.executemany(
        "UPDATE entities SET aliases = (SELECT json_group_array(value) FROM"
        " (SELECT value FROM json_each(entities.aliases) UNION SELECT ?)) WHERE uuid = ? AND group_id = ?",
        [(alias, uuid, g) for uuid, alias in plan.entity_aliases],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO entity_aliases(group_id, alias_key, entity_uuid) VALUES (?,?,?)",
        [(g, normalise_name(alias), uuid) for uuid, alias in plan.entity_aliases],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO entity_fragments(a, b, group_id, score, episode_id, created_at) VALUES (?,?,?,?,?,?)",
        [(min(a, b), max(a, b), g, score, episode_id, now) for a, b, score, episode_id in plan.fragments],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO mentions(group_id, episode_id, entity_uuid) VALUES (?,?,?)",
        [(g, episode_id, entity_uuid) for episode_id, entity_uuid in plan.mentions],
    )
    conn.executemany(
        "INSERT INTO facts(uuid, group_id, source_uuid, target_uuid, relation, relation_key, fact,"
        " valid_at, invalid_at, stated_invalid_at, created_at, expired_at, invalidated_by, attributes,"
        " recorded_at, cause, cause_episode, embedding) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (f.uuid, g, f.source_uuid, f.target_uuid, f.relation, f.relation_key, f.fact,
             to_micros(f.valid_at), _t(f.invalid_at), _t(f.stated_invalid_at), to_micros(f.created_at),
             _t(f.expired_at), f.invalidated_by, _json(f.attributes), to_micros(f.version_at), f.cause,
             f.cause_episode, plan.fact_embeddings.get(f.uuid))
            for f in plan.new_facts
        ],
    )
    sources = [(f.uuid, s) for f in plan.new_facts for s in f.sources] + plan.add_sources
    conn.executemany(
        "INSERT OR REPLACE INTO fact_sources(fact_uuid, group_id, episode_id, valid_at, stated_invalid_at, added_at,"
        " provenance) VALUES (?,?,?,?,?,?,?)",
        [
            (fact_uuid, g, s.episode_id, to_micros(s.valid_at), _t(s.stated_invalid_at), to_micros(s.added_at),
             _json(s.provenance or {}))
            for fact_uuid, s in sources
        ],
    )
    conn.executemany(
        "DELETE FROM fact_sources WHERE group_id = ? AND fact_uuid = ? AND episode_id = ?",
        [(g, fact_uuid, episode_id) for fact_uuid, episode_id in plan.remove_sources],
    )
    conn.executemany(
        "UPDATE facts SET valid_at = ?, invalid_at = ?, stated_invalid_at = ?, expired_at = ?,"
        " invalidated_by = ?, recorded_at = ?, cause = ?, cause_episode = ? WHERE uuid = ? AND group_id = ?",
        [
            (to_micros(f.valid_at), _t(f.invalid_at), _t(f.stated_invalid_at), _t(f.expired_at),
             f.invalidated_by, to_micros(f.version_at), f.cause, f.cause_episode, f.uuid, g)
            for f in plan.updated_facts
        ],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO fact_conflicts(a, b, group_id, episode_id, created_at) VALUES (?,?,?,?,?)",
        [(min(a, b), max(a, b), g, episode_id, now) for a, b, episode_id in plan.add_conflicts],
    )
    conn.executemany(
        "INSERT INTO fact_history(group_id, fact_uuid, recorded_at, cause, episode_id, status,"
        " source_uuid, target_uuid, subject, object, subject_key, object_key, relation, relation_key,"
        " fact, valid_at, invalid_at, invalidated_by, created_at, expired_at, episodes)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [_history_row(g, h.record, h.status) for h in plan.history],
    )
    conn.executemany(
        "INSERT OR REPLACE INTO retracted_facts(fact_uuid, group_id, subject_key, object_key, retracted_at)"
        " VALUES (?,?,?,?,?)",
        [
            (h.record.uuid, g, normalise_name(h.record.subject), normalise_name(h.record.object), now)
            for h in plan.history
            if h.status == "deleted"
        ],
    )
    conn.executemany(
        "DELETE FROM facts WHERE uuid = ? AND group_id = ?", [(u, g) for u in plan.delete_facts]
    )
    conn.executemany(
        "DELETE FROM episodes WHERE group_id = ? AND uuid = ?", [(g, u) for u in plan.delete_episodes]
    )
    conn.executemany(
        "DELETE FROM entities WHERE uuid = ? AND group_id = ?", [(u, g) for u in plan.delete_entities]
    )
    conn.executemany(
        "INSERT OR REPLACE INTO model_replies(key, model, reply, created_at) VALUES (?,?,?,?)",
        [(key, model, text, now) for key, model, text in plan.cached_replies],
    )
    conn.executemany(
        "INSERT INTO audit_events(group_id, kind, recorded_at, episode_id, detail) VALUES (?,?,?,?,?)",
        [(g, a.kind, to_micros(a.recorded_at), a.episode_id, _json(a.detail)) for a in plan.audit],
    )


def _episode_state(conn: sqlite3.Connection, g: str, state: EpisodeState) -> None:
    sets = ["status = ?", "error = ?", "updated_at = ?"]
    values: list[Any] = [state.status, state.error, to_micros(state.updated_at)]
    for column in ("pending", "checkpoint", "result"):
        value = getattr(state, column)
        if value is not EpisodeState.KEEP:
            sets.append(f"{column} = ?")
            values.append(None if value is None else json.dumps(value))
    if state.clear_content:
        sets.append("content = NULL")
    # Nothing overwrites a completed episode: a worker that lost a race to
    # finish it cannot mark it failed afterwards.
    conn.execute(
        f"UPDATE episodes SET {', '.join(sets)} WHERE group_id = ? AND uuid = ? AND status != 'complete'",
        (*values, g, state.uuid),
    )


def _history_row(g: str, f: FactRecord, status: str) -> tuple:  # type: ignore[type-arg]
    return (
        g, f.uuid, to_micros(f.version_at), f.cause, f.cause_episode, status, f.source_uuid, f.target_uuid,
        f.subject, f.object, normalise_name(f.subject), normalise_name(f.object), f.relation, f.relation_key,
        f.fact, to_micros(f.valid_at), _t(f.invalid_at), f.invalidated_by, to_micros(f.created_at),
        _t(f.expired_at), _json(list(f.episodes)),
    )
