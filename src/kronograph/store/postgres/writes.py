"""Writing a plan to PostgreSQL, inside the caller's transaction.

The statements are SQLite's (see ``..sqlite.writes``) in PostgreSQL's words:
``ON CONFLICT`` for ``INSERT OR ...``, jsonb for JSON text, vectors for
float32 blobs, every key led by ``group_id``. Each kind of change is one
``executemany``, which psycopg sends as a pipeline: one round trip per batch,
not per row, and the whole plan is one pipeline.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from ...model import acronym, normalise_name
from ...time import to_micros
from ..plan import EpisodeState, Plan
from ..records import FactRecord

__all__ = ["write_plan"]


def _t(value):  # type: ignore[no-untyped-def]
    return None if value is None else to_micros(value)


def _vector(blob: bytes | None) -> np.ndarray | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32)


async def _many(conn: AsyncConnection, sql: str, rows: list[Any]) -> None:
    if rows:
        async with conn.cursor() as cur:
            await cur.executemany(sql, rows)  # type: ignore[arg-type]


async def write_plan(conn: AsyncConnection, plan: Plan) -> None:
    """Write every change of ``plan``, and move the group's revision: as one
    pipeline, so the whole plan costs one round trip to the server (an
    error surfaces when the pipeline ends, and fails the transaction)."""
    async with conn.pipeline():
        await _write(conn, plan)


async def _write(conn: AsyncConnection, plan: Plan) -> None:
    g, now = plan.group_id, to_micros(plan.now)
    await conn.execute(
        "INSERT INTO groups(group_id, created_at, revision) VALUES (%s, %s, 1)"
        " ON CONFLICT (group_id) DO UPDATE SET revision = groups.revision + 1",
        (g, now),
    )
    await _many(
        conn,
        "INSERT INTO episodes(group_id, uuid, name, kind, content, content_hash, source_description,"
        " reference_time, created_at, saga, status, metadata) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)"
        " ON CONFLICT (group_id, uuid) DO NOTHING",
        [
            (g, e.uuid, e.name, str(e.kind), e.content, e.content_hash, e.source_description,
             to_micros(e.reference_time), to_micros(e.created_at), e.saga, e.status, Jsonb(e.metadata))
            for e in plan.new_episodes
        ],
    )
    for state in plan.episode_states:
        await _episode_state(conn, g, state)
    await _many(
        conn,
        "UPDATE episodes SET embedding = %s WHERE group_id = %s AND uuid = %s",
        [(_vector(vector), g, uuid) for uuid, vector in plan.episode_embeddings.items()],
    )
    await _many(
        conn,
        "INSERT INTO entities(group_id, uuid, name, name_key, labels, aliases, summary, attributes,"
        " created_at, provenance, acronym, embedding) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
        [
            (g, e.uuid, e.name, normalise_name(e.name), Jsonb(list(e.labels)), Jsonb(list(e.aliases)),
             e.summary, Jsonb(e.attributes), to_micros(e.created_at), Jsonb(e.provenance), acronym(e.name),
             _vector(plan.entity_embeddings.get(e.uuid)))
            for e in plan.new_entities
        ],
    )
    await _many(
        conn,
        "UPDATE entities SET labels = %s WHERE group_id = %s AND uuid = %s",
        [(Jsonb(list(labels)), g, uuid) for uuid, labels in plan.entity_labels.items()],
    )
    await _many(
        conn,
        "UPDATE entities SET summary = %s WHERE group_id = %s AND uuid = %s AND summary IS NULL",
        [(summary, g, uuid) for uuid, summary in plan.entity_summaries.items()],
    )
    await _many(
        conn,
        # SQLite's union: the distinct aliases, in byte order (what its UNION gives).
        "UPDATE entities SET aliases = (SELECT jsonb_agg(v ORDER BY v COLLATE \"C\") FROM"
        " (SELECT jsonb_array_elements_text(aliases) UNION SELECT %s::text) x(v))"
        " WHERE group_id = %s AND uuid = %s",
        [(alias, g, uuid) for uuid, alias in plan.entity_aliases],
    )
    await _many(
        conn,
        "INSERT INTO entity_aliases(group_id, alias_key, entity_uuid) VALUES (%s,%s,%s) ON CONFLICT DO NOTHING",
        [(g, normalise_name(alias), uuid) for uuid, alias in plan.entity_aliases],
    )
    await _many(
        conn,
        "INSERT INTO entity_fragments(group_id, a, b, score, episode_id, created_at) VALUES (%s,%s,%s,%s,%s,%s)"
        " ON CONFLICT DO NOTHING",
        [(g, min(a, b), max(a, b), score, episode_id, now) for a, b, score, episode_id in plan.fragments],
    )
    await _many(
        conn,
        "INSERT INTO mentions(group_id, episode_id, entity_uuid) VALUES (%s,%s,%s) ON CONFLICT DO NOTHING",
        [(g, episode_id, entity_uuid) for episode_id, entity_uuid in plan.mentions],
    )
    await _many(
        conn,
        "INSERT INTO facts(group_id, uuid, source_uuid, target_uuid, relation, relation_key, fact,"
        " valid_at, invalid_at, stated_invalid_at, created_at, expired_at, invalidated_by, attributes,"
        " recorded_at, cause, cause_episode, embedding)"
        " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
        [
            (g, f.uuid, f.source_uuid, f.target_uuid, f.relation, f.relation_key, f.fact,
             to_micros(f.valid_at), _t(f.invalid_at), _t(f.stated_invalid_at), to_micros(f.created_at),
             _t(f.expired_at), f.invalidated_by, Jsonb(f.attributes), to_micros(f.version_at), f.cause,
             f.cause_episode, _vector(plan.fact_embeddings.get(f.uuid)))
            for f in plan.new_facts
        ],
    )
    sources = [(f.uuid, s) for f in plan.new_facts for s in f.sources] + plan.add_sources
    await _many(
        conn,
        "INSERT INTO fact_sources(group_id, fact_uuid, episode_id, valid_at, stated_invalid_at, added_at,"
        " provenance) VALUES (%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (group_id, fact_uuid, episode_id) DO UPDATE SET"
        " valid_at = excluded.valid_at, stated_invalid_at = excluded.stated_invalid_at,"
        " added_at = excluded.added_at, provenance = excluded.provenance",
        [
            (g, fact_uuid, s.episode_id, to_micros(s.valid_at), _t(s.stated_invalid_at), to_micros(s.added_at),
             Jsonb(s.provenance or {}))
            for fact_uuid, s in sources
        ],
    )
    await _many(
        conn,
        "DELETE FROM fact_sources WHERE group_id = %s AND fact_uuid = %s AND episode_id = %s",
        [(g, fact_uuid, episode_id) for fact_uuid, episode_id in plan.remove_sources],
    )
    await _many(
        conn,
        "UPDATE facts SET valid_at = %s, invalid_at = %s, stated_invalid_at = %s, expired_at = %s,"
        " invalidated_by = %s, recorded_at = %s, cause = %s, cause_episode = %s WHERE group_id = %s AND uuid = %s",
        [
            (to_micros(f.valid_at), _t(f.invalid_at), _t(f.stated_invalid_at), _t(f.expired_at),
             f.invalidated_by, to_micros(f.version_at), f.cause, f.cause_episode, g, f.uuid)
            for f in plan.updated_facts
        ],
    )
    await _many(
        conn,
        "INSERT INTO fact_conflicts(group_id, a, b, episode_id, created_at) VALUES (%s,%s,%s,%s,%s)"
        " ON CONFLICT DO NOTHING",
        [(g, min(a, b), max(a, b), episode_id, now) for a, b, episode_id in plan.add_conflicts],
    )
    await _many(
        conn,
        "INSERT INTO fact_history(group_id, fact_uuid, recorded_at, cause, episode_id, status,"
        " source_uuid, target_uuid, subject, object, subject_key, object_key, relation, relation_key,"
        " fact, valid_at, invalid_at, invalidated_by, created_at, expired_at, episodes)"
        " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
        [_history_row(g, h.record, h.status) for h in plan.history],
    )
    await _many(
        conn,
        "INSERT INTO retracted_facts(group_id, fact_uuid, subject_key, object_key, retracted_at)"
        " VALUES (%s,%s,%s,%s,%s) ON CONFLICT (group_id, fact_uuid) DO UPDATE SET"
        " subject_key = excluded.subject_key, object_key = excluded.object_key, retracted_at = excluded.retracted_at",
        [
            (g, h.record.uuid, normalise_name(h.record.subject), normalise_name(h.record.object), now)
            for h in plan.history
            if h.status == "deleted"
        ],
    )
    await _many(conn, "DELETE FROM facts WHERE group_id = %s AND uuid = %s", [(g, u) for u in plan.delete_facts])
    await _many(
        conn, "DELETE FROM episodes WHERE group_id = %s AND uuid = %s", [(g, u) for u in plan.delete_episodes]
    )
    await _many(
        conn, "DELETE FROM entities WHERE group_id = %s AND uuid = %s", [(g, u) for u in plan.delete_entities]
    )
    await _many(
        conn,
        "INSERT INTO model_replies(key, model, reply, created_at) VALUES (%s,%s,%s,%s)"
        " ON CONFLICT (key) DO UPDATE SET model = excluded.model, reply = excluded.reply,"
        " created_at = excluded.created_at",
        [(key, model, text, now) for key, model, text in plan.cached_replies],
    )
    await _many(
        conn,
        "INSERT INTO audit_events(group_id, kind, recorded_at, episode_id, detail) VALUES (%s,%s,%s,%s,%s)",
        [(g, a.kind, to_micros(a.recorded_at), a.episode_id, Jsonb(a.detail)) for a in plan.audit],
    )


async def _episode_state(conn: AsyncConnection, g: str, state: EpisodeState) -> None:
    sets = ["status = %s", "error = %s", "updated_at = %s"]
    values: list[Any] = [state.status, state.error, to_micros(state.updated_at)]
    for column in ("pending", "checkpoint", "result"):
        value = getattr(state, column)
        if value is not EpisodeState.KEEP:
            sets.append(f"{column} = %s")
            values.append(None if value is None else Jsonb(value))
    if state.clear_content:
        sets.append("content = NULL")
    # Nothing overwrites a completed episode: a worker that lost a race to
    # finish it cannot mark it failed afterwards.
    await conn.execute(
        f"UPDATE episodes SET {', '.join(sets)} WHERE group_id = %s AND uuid = %s AND status != 'complete'",
        (*values, g, state.uuid),
    )


def _history_row(g: str, f: FactRecord, status: str) -> tuple:  # type: ignore[type-arg]
    return (
        g, f.uuid, to_micros(f.version_at), f.cause, f.cause_episode, status, f.source_uuid, f.target_uuid,
        f.subject, f.object, normalise_name(f.subject), normalise_name(f.object), f.relation, f.relation_key,
        f.fact, to_micros(f.valid_at), _t(f.invalid_at), f.invalidated_by, to_micros(f.created_at),
        _t(f.expired_at), Jsonb(list(f.episodes)),
    )
