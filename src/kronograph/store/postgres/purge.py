"""What ``forget`` asks of PostgreSQL: where text occurs, and erasing its traces.

The port of ``..sqlite.purge``. A deleted row is unreachable by any query at
once; its bytes (and its full-text and vector index entries) stay in the
table's pages as a dead tuple until VACUUM removes them, which
:func:`erase_traces` runs on every group table. VACUUM cannot remove a tuple
that a snapshot older than the purge may still see (an open repeatable-read
transaction, a long query, a prepared transaction, a replication slot or a
standby's feedback): :func:`erase_traces` waits a bounded time for those to
end, then says what holds it back and records a pending erasure that the next
forget or ``doctor --repair`` finishes. (VACUUM marks the space free; the bytes
are overwritten when it is reused. Backups and WAL archives are the
operator's to expire.)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection
from datetime import UTC, datetime

from psycopg import AsyncConnection, sql

from ..text_scan import PENDING_ERASURE, Erasure, TextHit, TextTable, coarse_forms, text_tables

__all__ = ["VACUUM_WAIT_S", "episode_replies", "erase_traces", "pending_erasure", "scanned_tables",
           "text_occurrences"]

# How long an erasure waits for older snapshots to end, in all.
VACUUM_WAIT_S = 5.0

_TEXT_TYPES = ("text", "character varying", "character", "json", "jsonb")

# Who may still see what a purge deleted: a session, prepared transaction or
# replication slot whose transaction or snapshot is not newer than a
# transaction id taken once the purge had committed (so, conservatively, also
# one that began in between). This session excepted.
_HOLDERS = """
WITH h AS (SELECT %(x)s::text::xid AS x)
SELECT 'session ' || pid || coalesce(' (' || backend_type || ')', '')
FROM pg_stat_activity, h
WHERE pid <> pg_backend_pid() AND (datname = current_database() OR datid IS NULL)
  AND ((backend_xmin IS NOT NULL AND age(backend_xmin) >= age(h.x))
       OR (backend_xid IS NOT NULL AND age(backend_xid) >= age(h.x)))
UNION ALL
SELECT 'prepared transaction ' || gid FROM pg_prepared_xacts, h
WHERE database = current_database() AND age(transaction) >= age(h.x)
UNION ALL
SELECT 'replication slot ' || slot_name FROM pg_replication_slots, h
WHERE xmin IS NOT NULL AND age(xmin) >= age(h.x)
"""


async def scanned_tables(conn: AsyncConnection) -> tuple[TextTable, ...]:
    """Every table of this schema with a ``group_id`` column, with its text
    and JSON columns, read from the catalogue."""
    cur = await conn.execute(
        "SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c"
        " JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name"
        " WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'"
        " AND c.table_name IN (SELECT table_name FROM information_schema.columns"
        "   WHERE table_schema = current_schema() AND column_name = 'group_id')"
        " ORDER BY c.table_name, c.ordinal_position"
    )
    columns: dict[str, list[str]] = {}
    for table, column, data_type in await cur.fetchall():
        listed = columns.setdefault(table, [])
        if data_type in _TEXT_TYPES:
            listed.append(column)
    return text_tables(columns)


async def _scan(conn: AsyncConnection, table: TextTable, forms: list[str], group_id: str) -> list[TextHit]:
    tests = sql.SQL(" OR ").join(
        sql.SQL("strpos(lower({}::text), %s) > 0").format(sql.Identifier(c)) for c in table.columns for _ in forms
    )
    params: list[object] = [group_id, *(form for _ in table.columns for form in forms)]
    query = sql.SQL("SELECT {}::text, {} FROM {} WHERE group_id = %s AND ({})").format(
        sql.Identifier(table.key),
        sql.SQL(", ").join(sql.SQL("{}::text").format(sql.Identifier(c)) for c in table.columns),
        sql.Identifier(table.name),
        tests,
    )
    hits: list[TextHit] = []
    cur = await conn.execute(query, params)
    for row in await cur.fetchall():
        for column, value in zip(table.columns, row[1:], strict=True):
            if isinstance(value, str) and any(form in value.casefold() or form in value.lower() for form in forms):
                hits.append(TextHit(table.name, str(row[0]), column, value))
    return hits


async def text_occurrences(conn: AsyncConnection, group_id: str, needles: Collection[str]) -> list[TextHit]:
    forms = coarse_forms(needles)
    if not forms:
        return []
    hits: list[TextHit] = []
    for table in await scanned_tables(conn):
        hits += await _scan(conn, table, forms, group_id)
    return hits


async def episode_replies(conn: AsyncConnection, group_id: str, episode_ids: Collection[str]) -> list[str]:
    cur = await conn.execute(
        'SELECT key FROM model_replies WHERE group_id = %s AND episode_id = ANY(%s) ORDER BY key COLLATE "C"',
        (group_id, sorted(episode_ids)),
    )
    return [k for (k,) in await cur.fetchall()]


async def pending_erasure(conn: AsyncConnection, group_id: str) -> bool:
    """Whether an erasure of a forget in the group was held back and is still to finish."""
    cur = await conn.execute("SELECT 1 FROM store_settings WHERE key = %s", (PENDING_ERASURE + group_id,))
    return await cur.fetchone() is not None


async def _holders(conn: AsyncConnection, after: int) -> list[str]:
    cur = await conn.execute(_HOLDERS, {"x": str(after % 4294967296)})
    return sorted(str(row[0]) for row in await cur.fetchall())


async def erase_traces(conn: AsyncConnection, group_id: str, wait_s: float | None = None) -> Erasure:
    """VACUUM every group table (the connection is in autocommit), once no
    snapshot from before the purge is left; after ``wait_s`` (default
    :data:`VACUUM_WAIT_S`) of waiting, VACUUM anyway, record a pending
    erasure for the group and say what held it back."""
    deadline = time.monotonic() + (VACUUM_WAIT_S if wait_s is None else wait_s)
    cur = await conn.execute("SELECT pg_current_xact_id()::text")  # newer than the purge's
    row = await cur.fetchone()
    after = int(row[0]) if row else 0
    while (holders := await _holders(conn, after)) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    cur = await conn.execute(
        "SELECT DISTINCT c.table_name FROM information_schema.columns c JOIN information_schema.tables t"
        " ON t.table_schema = c.table_schema AND t.table_name = c.table_name WHERE c.table_schema = current_schema()"
        " AND t.table_type = 'BASE TABLE' AND c.column_name = 'group_id' ORDER BY 1"
    )
    tables = [name for (name,) in await cur.fetchall()]
    for name in tables:
        await conn.execute(sql.SQL("VACUUM {}").format(sql.Identifier(name)))
    if holders:
        await conn.execute(
            "INSERT INTO store_settings(key, value) VALUES (%s, %s)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (PENDING_ERASURE + group_id, datetime.now(UTC).isoformat()),
        )
        return Erasure(False, (
            f"PostgreSQL: VACUUM of {len(tables)} tables ran, but the dead rows may not be removed yet: "
            f"{', '.join(holders[:5])} may still see what the purge deleted"
        ))
    await conn.execute("DELETE FROM store_settings WHERE starts_with(key, %s)", (PENDING_ERASURE,))
    return Erasure(True, f"PostgreSQL: VACUUM of {len(tables)} tables, with no older snapshot left")
