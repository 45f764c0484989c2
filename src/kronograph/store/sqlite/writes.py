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
from ..sql.plan_sql import statements
from .rows import DIALECT as D

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


# The SQL of each change of a plan (see ..plan_rows for the parameters): the
# shared statements, and those this engine writes its own way.
SQL = {
    **statements(D),
    "episodes": "INSERT OR IGNORE INTO episodes(group_id, uuid, name, kind, content, content_hash,"
    " source_description, reference_time, created_at, saga, status, metadata, actor, on_behalf_of, speaker, role,"
    " data_subject) VALUES (?1,?2,?3,?4,?5,?6,?7,?8, MAX(?9, COALESCE((SELECT MAX(e.created_at) + 1 FROM episodes e"
    " WHERE e.group_id = ?1 AND e.saga = ?10), ?9)), ?10,?11,?12,?13,?14,?15,?16,?17)",
    "entity_alias_lists": "UPDATE entities SET aliases = (SELECT json_group_array(value) FROM"
    " (SELECT value FROM json_each(entities.aliases) UNION SELECT ?)) WHERE uuid = ? AND group_id = ?",
    "stale_sagas": "UPDATE saga_summaries AS s SET version = s.version + 1, stale = s.stale +"
    " (s.cursor_at IS NOT NULL AND (p.created_at < s.cursor_at OR (p.created_at = s.cursor_at"
    " AND p.uuid <= s.cursor_uuid))) FROM episodes p WHERE p.group_id = ? AND p.uuid = ?"
    " AND s.group_id = p.group_id AND s.saga = p.saga",
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
