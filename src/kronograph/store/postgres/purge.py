"""What ``forget`` asks of PostgreSQL: where text occurs, and erasing its traces.

The port of ``..sqlite.purge``. A deleted row is unreachable by any query at
once; its bytes stay in the table's pages as a dead tuple until VACUUM
reclaims them, which :func:`erase_traces` runs on the tables a purge touches.
(VACUUM marks the space free; the bytes are overwritten when it is reused.
Backups and WAL archives are the operator's to expire.)
"""

from __future__ import annotations

from collections.abc import Collection

from psycopg import AsyncConnection, sql

from ..text_scan import TEXT_TABLES, TextHit, TextTable, needle_forms

__all__ = ["PURGED_TABLES", "episode_replies", "erase_traces", "text_occurrences"]

PURGED_TABLES = tuple(t.name for t in TEXT_TABLES) + ("mentions", "fact_conflicts")


async def _scan(conn: AsyncConnection, table: TextTable, forms: list[str], group_id: str) -> list[TextHit]:
    tests = sql.SQL(" OR ").join(
        sql.SQL("strpos(lower({}::text), %s) > 0").format(sql.Identifier(c)) for c in table.columns for _ in forms
    )
    params: list[object] = [group_id, *(form for _ in table.columns for form in forms)]
    where = sql.SQL("group_id = %s AND ({})").format(tests)
    query = sql.SQL("SELECT {}::text, {} FROM {} WHERE {}").format(
        sql.Identifier(table.key),
        sql.SQL(", ").join(sql.SQL("{}::text").format(sql.Identifier(c)) for c in table.columns),
        sql.Identifier(table.name),
        where,
    )
    hits: list[TextHit] = []
    cur = await conn.execute(query, params)
    for row in await cur.fetchall():
        for column, value in zip(table.columns, row[1:], strict=True):
            if isinstance(value, str) and any(form in value.casefold() or form in value.lower() for form in forms):
                hits.append(TextHit(table.name, str(row[0]), column, value))
    return hits


async def text_occurrences(conn: AsyncConnection, group_id: str, needles: Collection[str]) -> list[TextHit]:
    forms = sorted({form for needle in needles for form in needle_forms(needle) if form})
    if not forms:
        return []
    hits: list[TextHit] = []
    for table in TEXT_TABLES:
        hits += await _scan(conn, table, forms, group_id)
    return hits


async def episode_replies(conn: AsyncConnection, group_id: str, episode_ids: Collection[str]) -> list[str]:
    cur = await conn.execute(
        'SELECT key FROM model_replies WHERE group_id = %s AND episode_id = ANY(%s) ORDER BY key COLLATE "C"',
        (group_id, sorted(episode_ids)),
    )
    return [k for (k,) in await cur.fetchall()]


async def erase_traces(conn: AsyncConnection) -> None:
    """VACUUM the tables a purge deletes from (the connection is in autocommit)."""
    for name in PURGED_TABLES:
        await conn.execute(sql.SQL("VACUUM {}").format(sql.Identifier(name)))
