"""The schema distributed on Citus: opening a database with the ``citus``
extension distributes every group table by ``group_id``, co-located with
``groups``, so that a group's rows live on one shard and its queries are
routed to one worker; store-wide tables become reference tables (a copy on
every node). ``schema_migrations`` stays a local table of the coordinator.

Citus refuses a foreign key between a distributed table and one not yet
distributed, so the keys that touch a table still to distribute are dropped,
the tables distributed, and the keys added back as they were (as composite
keys on ``group_id`` they hold between co-located tables). The keys' names
and definitions are read from the catalog, not written down here: whatever
tables later migrations add are distributed the same way on the next open.
"""

from __future__ import annotations

from collections.abc import Sequence

from psycopg import AsyncConnection, sql

__all__ = ["distribute", "has_citus"]

DISTRIBUTION_COLUMN = "group_id"
COLOCATE_WITH = "groups"


async def has_citus(conn: AsyncConnection) -> bool:
    """Whether the database has the ``citus`` extension."""
    cur = await conn.execute("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')")
    row = await cur.fetchone()
    return bool(row and row[0])


async def _pending(conn: AsyncConnection, tables: Sequence[str]) -> dict[str, str | None]:
    """Each of ``tables`` that exists, with its Citus partition method
    (``h``: distributed by hash, ``n``: reference; None: a local table, ``-``:
    a local table whose primary key lacks ``group_id``, which Citus cannot
    distribute by it: the reply cache of a schema before version 8, keyed by
    prompt alone, stays local until the migration that keys it by group)."""
    cur = await conn.execute(
        "SELECT t.name, coalesce(p.partmethod::text, CASE WHEN EXISTS ("
        "  SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
        "  WHERE i.indrelid = c.oid AND i.indisprimary AND a.attname = %s) THEN NULL ELSE '-' END)"
        " FROM unnest(%s::text[]) AS t(name)"
        " JOIN pg_class c ON c.oid = to_regclass(t.name)"
        " LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid",
        (DISTRIBUTION_COLUMN, list(tables)),
    )
    return {str(name): (str(method) if method is not None else None) for name, method in await cur.fetchall()}


_Key = tuple[str, str, str, str]  # table, name, definition, referenced table


async def _foreign_keys(conn: AsyncConnection, tables: Sequence[str]) -> list[_Key]:
    """The foreign keys from or to any of ``tables``."""
    cur = await conn.execute(
        "SELECT src.relname, k.conname, pg_get_constraintdef(k.oid), dst.relname FROM pg_constraint k"
        " JOIN pg_class src ON src.oid = k.conrelid JOIN pg_class dst ON dst.oid = k.confrelid"
        " WHERE k.contype = 'f' AND (k.conrelid = ANY(%(t)s::regclass[]) OR k.confrelid = ANY(%(t)s::regclass[]))"
        " ORDER BY src.relname, k.conname",
        {"t": list(tables)},
    )
    return [(str(t), str(n), str(d), str(r)) for t, n, d, r in await cur.fetchall()]


async def distribute(
    conn: AsyncConnection, group_tables: Sequence[str], reference_tables: Sequence[str], lock: tuple[int, int]
) -> bool:
    """Distribute whichever of the tables are still local (once they all
    are: two catalog queries, and one without Citus). ``conn`` is in autocommit mode; the work is
    one transaction under the schema's advisory ``lock``, so that two
    processes opening the database at once do not both distribute. Returns
    whether anything was distributed."""
    if not await has_citus(conn):
        return False
    if not _local(await _pending(conn, [*group_tables, *reference_tables]), group_tables, reference_tables):
        return False
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", lock)
        # One connection per worker for the whole transaction: Citus refuses DDL after
        # parallel work on a distributed table in the same transaction otherwise.
        await conn.execute("SET LOCAL citus.multi_shard_modify_mode TO 'sequential'")
        # The erasure log's append-only trigger (it only refuses: it writes nothing elsewhere)
        # goes to the shards with the table; Citus distributes a table with triggers only so.
        await conn.execute("SET LOCAL citus.enable_unsafe_triggers TO on")
        methods = await _pending(conn, [*group_tables, *reference_tables])
        local = _local(methods, group_tables, reference_tables)
        if not local:  # another process did it while we waited for the lock
            return False
        keys = [key for key in await _foreign_keys(conn, list(methods)) if _touches(key, local)]
        for table, name, _, _ in keys:
            await conn.execute(sql.SQL("ALTER TABLE {} DROP CONSTRAINT {}").format(
                sql.Identifier(table), sql.Identifier(name)))
        for table in local:
            if table in reference_tables:
                await conn.execute("SELECT create_reference_table(%s)", (table,))
            elif table == COLOCATE_WITH:
                await conn.execute("SELECT create_distributed_table(%s, %s)", (table, DISTRIBUTION_COLUMN))
            else:
                await conn.execute("SELECT create_distributed_table(%s, %s, colocate_with => %s)",
                                   (table, DISTRIBUTION_COLUMN, COLOCATE_WITH))
            # Rows the table held were copied to its shards; the coordinator's own copy goes.
            await conn.execute("SELECT truncate_local_data_after_distributing_table(%s)", (table,))
        for table, name, definition, _ in keys:
            await conn.execute(sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} {}").format(
                sql.Identifier(table), sql.Identifier(name), sql.SQL(definition)))  # type: ignore[arg-type]
    return True


def _local(methods: dict[str, str | None], group_tables: Sequence[str], reference_tables: Sequence[str]) -> list[str]:
    """The tables still to distribute, ``groups`` first (the others are co-located with it)."""
    wanted = [t for t in group_tables if t in methods and methods[t] is None]
    wanted += [t for t in reference_tables if t in methods and methods[t] != "n"]
    return sorted(wanted, key=lambda t: t != COLOCATE_WITH)


def _touches(key: _Key, local: list[str]) -> bool:
    """Whether a foreign key involves a table still to distribute (Citus refuses it then)."""
    table, _, _, referenced = key
    return table in local or referenced in local
