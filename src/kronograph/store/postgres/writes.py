"""Writing a plan to PostgreSQL, inside the caller's transaction.

The rows are SQLite's (``..plan_rows`` builds them for both); the statements
are SQLite's in PostgreSQL's words: ``ON CONFLICT`` for ``INSERT OR ...``,
jsonb for JSON text, vectors for float32 blobs. Each kind of change is one
``executemany``, and the whole plan is one pipeline: one round trip (one
more where a lease owner writes an episode's state: the fence's answer is
waited for, see ..fence).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from ...errors import ConcurrentWriteError
from ...time import to_micros
from .. import fence
from ..plan import Plan, SagaWrite
from ..plan_rows import Encoding, plan_rows

__all__ = ["write_plan"]


def _vector(blob: bytes | None) -> np.ndarray | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32)


# The SQL of each change of a plan (see ..plan_rows for the parameters).
SQL = {
    # An episode of a saga is stamped past the saga's latest created_at (see ..plan_rows).
    "episodes": "INSERT INTO episodes(group_id, uuid, name, kind, content, content_hash, source_description,"
    " reference_time, created_at, saga, status, metadata, actor, on_behalf_of, speaker, role)"
    " SELECT v.g, v.u, v.n, v.k, v.c, v.h, v.s, v.r,"
    " GREATEST(v.t, COALESCE((SELECT MAX(e.created_at) + 1 FROM episodes e WHERE e.group_id = v.g"
    " AND e.saga = v.sg), v.t)), v.sg, v.st, v.m, v.a, v.b, v.sp, v.ro FROM (VALUES (%s::text, %s::text, %s::text,"
    " %s::text, %s::text, %s::text, %s::text, %s::bigint, %s::bigint, %s::text, %s::text, %s::jsonb, %s::text,"
    " %s::text, %s::text, %s::text))"
    " AS v(g, u, n, k, c, h, s, r, t, sg, st, m, a, b, sp, ro) ON CONFLICT (group_id, uuid) DO NOTHING",
    "episode_vectors": "UPDATE episodes SET embedding = %s WHERE group_id = %s AND uuid = %s",
    "entities": "INSERT INTO entities(uuid, group_id, name, name_key, labels, aliases, summary, attributes,"
    " created_at, provenance, acronym, embedding) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
    "entity_labels": "UPDATE entities SET labels = %s WHERE uuid = %s AND group_id = %s",
    "entity_names": "UPDATE entities SET name = %s, name_key = %s, acronym = %s WHERE uuid = %s AND group_id = %s",
    "entity_vectors": "UPDATE entities SET embedding = %s WHERE group_id = %s AND uuid = %s",
    "entity_summaries": "UPDATE entities SET summary = %s WHERE uuid = %s AND group_id = %s AND summary IS NULL",
    # SQLite's union: the distinct aliases, in byte order (what its UNION gives).
    "built_summaries": "UPDATE entities SET summary = %s, summary_built_at = %s, summary_stale = 0"
    " WHERE uuid = %s AND group_id = %s AND summary_stale = %s",
    "saga_summaries": "INSERT INTO saga_summaries(group_id, saga, summary, version, cursor_at, cursor_uuid,"
    " covered_from, covered_to, episodes, without_text, method, state, built_at, stale)"
    " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (group_id, saga) DO UPDATE SET"
    " summary = excluded.summary, version = excluded.version, cursor_at = excluded.cursor_at,"
    " cursor_uuid = excluded.cursor_uuid, covered_from = excluded.covered_from, covered_to = excluded.covered_to,"
    " episodes = excluded.episodes, without_text = excluded.without_text, method = excluded.method,"
    " state = excluded.state, built_at = excluded.built_at, stale = excluded.stale",
    "entity_records": "UPDATE entities SET labels = %s, aliases = %s, attributes = %s WHERE uuid = %s"
    " AND group_id = %s",
    "cleared_aliases": "DELETE FROM entity_aliases WHERE group_id = %s AND entity_uuid = %s",
    "entity_alias_lists": "UPDATE entities SET aliases = (SELECT jsonb_agg(v ORDER BY v COLLATE \"C\") FROM"
    " (SELECT jsonb_array_elements_text(aliases) UNION SELECT %s::text) x(v)) WHERE uuid = %s AND group_id = %s",
    "entity_aliases": "INSERT INTO entity_aliases(group_id, alias_key, entity_uuid) VALUES (%s,%s,%s)"
    " ON CONFLICT DO NOTHING",
    "entity_fragments": "INSERT INTO entity_fragments(a, b, group_id, score, episode_id, created_at)"
    " VALUES (%s,%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING",
    "replaced_communities": "DELETE FROM communities WHERE group_id = %s",
    "communities": "INSERT INTO communities(uuid, group_id, name, summary, method, built_at)"
    " VALUES (%s,%s,%s,%s,%s,%s)",
    "community_states": "UPDATE communities SET name = %s, summary = %s, method = %s, built_at = %s"
    " WHERE uuid = %s AND group_id = %s",
    "community_members": "INSERT INTO community_members(community_uuid, entity_uuid, group_id, rank, attached_at)"
    " SELECT %s, %s, %s, %s::integer, %s::bigint WHERE EXISTS (SELECT 1 FROM communities WHERE uuid = %s"
    " AND group_id = %s) AND EXISTS (SELECT 1 FROM entities WHERE uuid = %s AND group_id = %s) ON CONFLICT DO NOTHING",
    "deleted_communities": "DELETE FROM communities WHERE group_id = %s AND uuid = %s",
    "community_vectors": "UPDATE communities SET embedding = %s WHERE group_id = %s AND uuid = %s",
    "mentions": "INSERT INTO mentions(group_id, episode_id, entity_uuid) VALUES (%s,%s,%s) ON CONFLICT DO NOTHING",
    "removed_mentions": "DELETE FROM mentions WHERE group_id = %s AND episode_id = %s AND entity_uuid = %s",
    "facts": "INSERT INTO facts(uuid, group_id, source_uuid, target_uuid, relation, relation_key, fact,"
    " valid_at, invalid_at, stated_invalid_at, created_at, expired_at, invalidated_by, attributes,"
    " recorded_at, cause, cause_episode, embedding, event)"
    " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
    "fact_sources": "INSERT INTO fact_sources(fact_uuid, group_id, episode_id, valid_at, stated_invalid_at,"
    " added_at, provenance) VALUES (%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (group_id, fact_uuid, episode_id) DO UPDATE"
    " SET valid_at = excluded.valid_at, stated_invalid_at = excluded.stated_invalid_at,"
    " added_at = excluded.added_at, provenance = excluded.provenance",
    "removed_sources": "DELETE FROM fact_sources WHERE group_id = %s AND fact_uuid = %s AND episode_id = %s",
    "fact_versions": "UPDATE facts SET valid_at = %s, invalid_at = %s, stated_invalid_at = %s, expired_at = %s,"
    " invalidated_by = %s, recorded_at = %s, cause = %s, cause_episode = %s WHERE uuid = %s AND group_id = %s",
    "fact_ends": "UPDATE facts SET source_uuid = %s, target_uuid = %s WHERE uuid = %s AND group_id = %s",
    "removed_conflicts": "DELETE FROM fact_conflicts WHERE a = %s AND b = %s AND group_id = %s",
    "fact_conflicts": "INSERT INTO fact_conflicts(a, b, group_id, episode_id, created_at) VALUES (%s,%s,%s,%s,%s)"
    " ON CONFLICT DO NOTHING",
    "fact_history": "INSERT INTO fact_history(group_id, fact_uuid, recorded_at, cause, episode_id, status,"
    " source_uuid, target_uuid, subject, object, subject_key, object_key, relation, relation_key,"
    " fact, valid_at, invalid_at, invalidated_by, created_at, expired_at, episodes, event)"
    " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
    "retracted_facts": "INSERT INTO retracted_facts(fact_uuid, group_id, subject_key, object_key, retracted_at)"
    " VALUES (%s,%s,%s,%s,%s) ON CONFLICT (group_id, fact_uuid) DO UPDATE SET subject_key = excluded.subject_key,"
    " object_key = excluded.object_key, retracted_at = excluded.retracted_at",
    "deleted_facts": "DELETE FROM facts WHERE uuid = %s AND group_id = %s",
    "stale_summaries": "UPDATE entities SET summary_stale = summary_stale + 1 WHERE uuid = %s AND group_id = %s",
    "stale_sagas": "UPDATE saga_summaries s SET version = s.version + 1, stale = s.stale + CASE WHEN"
    " s.cursor_at IS NOT NULL AND (p.created_at < s.cursor_at OR (p.created_at = s.cursor_at"
    ' AND p.uuid COLLATE "C" <= s.cursor_uuid)) THEN 1 ELSE 0 END FROM episodes p WHERE p.group_id = %s'
    " AND p.uuid = %s AND s.group_id = p.group_id AND s.saga = p.saga",
    "deleted_episodes": "DELETE FROM episodes WHERE group_id = %s AND uuid = %s",
    "deleted_entities": "DELETE FROM entities WHERE uuid = %s AND group_id = %s",
    "model_replies": "INSERT INTO model_replies(group_id, key, model, reply, created_at, episode_id)"
    " VALUES (%s,%s,%s,%s,%s,%s) ON CONFLICT (group_id, key) DO UPDATE SET model = excluded.model,"
    " reply = excluded.reply, created_at = excluded.created_at, episode_id = excluded.episode_id",
    "erased_history": "DELETE FROM fact_history WHERE group_id = %s AND fact_uuid = %s",
    "erased_retractions": "DELETE FROM retracted_facts WHERE group_id = %s AND fact_uuid = %s",
    "redacted_audit": "UPDATE audit_events SET detail = %s, episode_id = NULL, actor = NULL,"
    " on_behalf_of = NULL"
    " WHERE group_id = %s AND seq = %s",
    "dropped_replies": "DELETE FROM model_replies WHERE group_id = %s AND key = %s",
    "cleared_summaries": "UPDATE entities SET summary = NULL, summary_built_at = NULL,"
    " summary_stale = summary_stale + 1 WHERE uuid = %s AND group_id = %s",
    "cleared_entity_records": "UPDATE entities SET attributes = %s, provenance = %s WHERE uuid = %s AND group_id = %s",
    "cleared_communities": "UPDATE communities SET name = '', summary = NULL, embedding = NULL"
    " WHERE group_id = %s AND uuid = %s",
    "cleared_sagas": "UPDATE saga_summaries SET summary = NULL, state = NULL, version = version + 1,"
    " stale = stale + 1 WHERE group_id = %s AND saga = %s",
    "dropped_sagas": "DELETE FROM saga_summaries WHERE group_id = %s AND saga = %s",
    "group_settings": "INSERT INTO group_settings(group_id, name, value, updated_at) VALUES (%s,%s,%s::jsonb,%s)"
    " ON CONFLICT (group_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    "dropped_settings": "DELETE FROM group_settings WHERE group_id = %s AND name = %s",
    "audit_events": "INSERT INTO audit_events(group_id, kind, recorded_at, episode_id, detail, actor,"
    " on_behalf_of) VALUES (%s,%s,%s,%s,%s,%s,%s)",
}
_ENCODING = Encoding(json=Jsonb, vector=_vector)


async def _check_saga_version(conn: AsyncConnection, group_id: str, summary: SagaWrite) -> None:
    """Refuse a saga summary written from a version that has since moved (the
    group's lock is held: nothing moves it between this read and the write)."""
    cur = await conn.execute(
        "SELECT version FROM saga_summaries WHERE group_id = %s AND saga = %s",
        (group_id, summary.row.saga),
    )
    row = await cur.fetchone()  # in a pipeline, this syncs it
    if (int(row[0]) if row else 0) != summary.expected_version:
        raise ConcurrentWriteError(
            f"saga {summary.row.saga!r} of group {group_id!r} changed while it was being summarised"
        )


async def _write_state(
    conn: AsyncConnection, columns: list[str], values: list[Any], g: str, uuid: str, owner: str | None
) -> None:
    """An episode's new state; one its writer no longer holds refuses the plan
    (see ..fence). Only a fenced write waits for its answer (a sync of the
    pipeline): the row it changed, or else who holds the episode now."""
    sql, params = fence.update_sql(columns, owner, "%s"), fence.update_params(values, g, uuid, owner)
    if owner is None:
        await conn.execute(sql, params)
        return
    cur = await conn.execute(sql + " RETURNING 1", params)
    if await cur.fetchone() is None:
        cur = await conn.execute(fence.holder_sql("%s"), (g, uuid))
        refused = fence.refusal(g, uuid, await cur.fetchone())
        if refused is not None:
            raise refused


async def write_plan(conn: AsyncConnection, plan: Plan) -> None:
    """Write every change of ``plan``, and move the group's revision: as one
    pipeline, so the whole plan costs one round trip to the server (an
    error surfaces when the pipeline ends, and fails the transaction)."""
    async with conn.pipeline():
        await conn.execute(
            "INSERT INTO groups(group_id, created_at, revision) VALUES (%s, %s, 1)"
            " ON CONFLICT (group_id) DO UPDATE SET revision = groups.revision + 1",
            (plan.group_id, to_micros(plan.now)),
        )
        if plan.saga_summary is not None:
            await _check_saga_version(conn, plan.group_id, plan.saga_summary)
        for change, rows in plan_rows(plan, _ENCODING):
            if not rows:
                continue
            if change == "episode_states":
                for columns, values, g, uuid, owner in rows:
                    await _write_state(conn, columns, values, g, uuid, owner)
            else:
                async with conn.cursor() as cur:
                    await cur.executemany(SQL[change], rows)  # type: ignore[arg-type]
