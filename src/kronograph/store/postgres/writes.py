"""Writing a plan to PostgreSQL, inside the caller's transaction.

The rows are SQLite's (``..plan_rows`` builds them for both), and so are
the statements but three (``..sql.plan_sql``, in PostgreSQL's words: ``ON
CONFLICT`` for ``INSERT OR ...``); jsonb for JSON text, vectors for float32
blobs. Each kind of change is one
``executemany``, and the whole plan is one pipeline, nothing in it waited
for: a saga summary's version and a lease owner's fence (see ..fence) are
checked by the server in the statements themselves (see .pipelined).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from ...time import to_micros
from .. import fence
from ..plan import Plan, SagaWrite
from ..plan_rows import Encoding, plan_rows
from ..sql.plan_sql import statements
from .columns import DIALECT as D
from .pipelined import expect_sql, in_pipeline

__all__ = ["move_revision", "write_plan"]


def _vector(blob: bytes | None) -> np.ndarray | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32)


# The SQL of each change of a plan (see ..plan_rows for the parameters): the
# shared statements, and those this engine writes its own way.
SQL = {
    **statements(D),
    "episodes": "INSERT INTO episodes(group_id, uuid, name, kind, content, content_hash, source_description,"
    " reference_time, created_at, saga, status, metadata, actor, on_behalf_of, speaker, role, data_subject)"
    " SELECT v.g, v.u, v.n, v.k, v.c, v.h, v.s, v.r,"
    " GREATEST(v.t, COALESCE((SELECT MAX(e.created_at) + 1 FROM episodes e WHERE e.group_id = v.g"
    " AND e.saga = v.sg), v.t)), v.sg, v.st, v.m, v.a, v.b, v.sp, v.ro, v.ds"
    " FROM (VALUES (%s::text, %s::text, %s::text,"
    " %s::text, %s::text, %s::text, %s::text, %s::bigint, %s::bigint, %s::text, %s::text, %s::jsonb, %s::text,"
    " %s::text, %s::text, %s::text, %s::text))"
    " AS v(g, u, n, k, c, h, s, r, t, sg, st, m, a, b, sp, ro, ds) ON CONFLICT (group_id, uuid) DO NOTHING",
    # SQLite's union: the distinct aliases, in byte order (what its UNION gives).
    "entity_alias_lists": "UPDATE entities SET aliases = (SELECT jsonb_agg(v ORDER BY v COLLATE \"C\") FROM"
    " (SELECT jsonb_array_elements_text(aliases) UNION SELECT %s::text) x(v)) WHERE uuid = %s AND group_id = %s",
    "stale_sagas": "UPDATE saga_summaries s SET version = s.version + 1, stale = s.stale + CASE WHEN"
    " s.cursor_at IS NOT NULL AND (p.created_at < s.cursor_at OR (p.created_at = s.cursor_at"
    ' AND p.uuid COLLATE "C" <= s.cursor_uuid)) THEN 1 ELSE 0 END FROM episodes p WHERE p.group_id = %s'
    " AND p.uuid = %s AND s.group_id = p.group_id AND s.saga = p.saga",
}
_ENCODING = Encoding(json=Jsonb, vector=_vector)

# Changes whose rows go as one statement of arrays (one Bind and Execute
# instead of one per row) when there are several: an episode mentions a few
# entities and marks their summaries stale. Each takes one text[] per column
# of its rows, in plan_rows' order, except the columns of the group, which
# is the plan's and goes once, as text (see _array_params); a uuid named
# twice is marked stale twice, as row by row. The group is a constant of the
# statement, not joined from the arrays: Citus routes the update to the
# group's shard only so (joined, it runs on every shard).
_ARRAYS = {
    "mentions": "INSERT INTO mentions(group_id, episode_id, entity_uuid)"
    " SELECT %s::text, x.e, x.u FROM unnest(%s::text[], %s::text[]) AS x(e, u) ON CONFLICT DO NOTHING",
    "stale_summaries": "UPDATE entities e SET summary_stale = e.summary_stale + v.n FROM (SELECT u,"
    " count(*)::int AS n FROM unnest(%s::text[]) AS x(u) GROUP BY u) v"
    " WHERE e.group_id = %s AND e.uuid = v.u",
}
# Where each change's rows hold the group (plan_rows' order).
_GROUP_COLUMN = {"mentions": 0, "stale_summaries": 1}


def _array_params(change: str, rows: list[Any], group_id: str) -> list[Any]:
    """The parameters of ``_ARRAYS[change]`` for ``rows`` (every one of the
    plan's group, as plan_rows writes them): the group where the statement
    names it, a list per other column."""
    at = _GROUP_COLUMN[change]
    columns = [list(column) for column in zip(*rows, strict=True)]
    values: list[Any] = columns[:at] + columns[at + 1:]
    values.insert(0 if at == 0 else len(values), group_id)
    return values


_SAGA = expect_sql(
    "COALESCE((SELECT version FROM saga_summaries WHERE group_id = %s AND saga = %s), 0) = %s", "saga",
    "jsonb_build_array(%s::text, %s::text)",
)


async def _check_saga_version(conn: AsyncConnection, group_id: str, summary: SagaWrite) -> None:
    """Refuse a saga summary written from a version that has since moved (the
    group's lock is held: nothing moves it between this check and the write).
    Checked by the server (see .pipelined): nothing is waited for."""
    saga = summary.row.saga
    await conn.execute(_SAGA, (group_id, saga, summary.expected_version, group_id, saga))


def _fenced_sql(columns: list[str]) -> str:
    """A fenced state update the server refuses (see .pipelined) where it
    changed nothing of an episode that exists; the refusal names the
    episode's status and holder, as they were before the update."""
    return (
        f"WITH u AS ({fence.update_sql(columns, 'owner', '%s')} RETURNING 1) "
        + expect_sql(
            "EXISTS (SELECT 1 FROM u) OR e.uuid IS NULL", "lease",
            "jsonb_build_array(%s::text, %s::text, e.status, e.lease_owner)",
        )
        + " FROM (SELECT 1) one LEFT JOIN episodes e ON e.group_id = %s AND e.uuid = %s"
    )


async def _write_state(
    conn: AsyncConnection, columns: list[str], values: list[Any], g: str, uuid: str, owner: str | None
) -> None:
    """An episode's new state; one its writer no longer holds refuses the plan
    (see ..fence), checked by the server in the same statement: nothing is
    waited for."""
    params = fence.update_params(values, g, uuid, owner)
    if owner is None:
        await conn.execute(fence.update_sql(columns, owner, "%s"), params)
    else:
        await conn.execute(_fenced_sql(columns), (*params, g, uuid, g, uuid))


async def write_plan(conn: AsyncConnection, plan: Plan, *, bump: bool = True) -> None:
    """Write every change of ``plan``, and move the group's revision (unless
    ``bump`` is false: a unit of work moves it once for its later plans, see
    :func:`move_revision`): as one pipeline, so the whole plan costs one
    round trip to the server (an error surfaces when the pipeline ends, and
    fails the transaction). In a pipeline already (see .pipelined), the
    statements join it and nothing is waited for: they go with the next
    read, or the commit."""
    if in_pipeline(conn):
        await _write(conn, plan, bump)
        return
    async with conn.pipeline():
        await _write(conn, plan, bump)


async def move_revision(conn: AsyncConnection, group_id: str, plans: int) -> None:
    """Move the group's revision by ``plans`` committed in one transaction
    whose first plan created the group's row: the same revision as a move
    per plan, one statement instead of ``plans``."""
    await conn.execute("UPDATE groups SET revision = revision + %s WHERE group_id = %s", (plans, group_id))


async def _write(conn: AsyncConnection, plan: Plan, bump: bool) -> None:
    if bump:
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
        elif len(rows) > 1 and change in _ARRAYS:
            await conn.execute(_ARRAYS[change], _array_params(change, rows, plan.group_id))  # type: ignore[arg-type]
        else:
            async with conn.cursor() as cur:
                await cur.executemany(SQL[change], rows)  # type: ignore[arg-type]
