"""The PostgreSQL side of a migration: every table copied in one transaction.

The target's schema comes from :class:`~kronograph.store.postgres.PostgresStore`
(opening one creates or migrates it). Then, in one transaction: the tables
are locked and checked empty, each is filled with a binary ``COPY ... FROM
STDIN`` in foreign-key order and in arrival order, the identity sequences
are moved past the copied ids, and the HNSW indexes of the vectors'
dimensions are built over the loaded rows. Any failure rolls it all back.

Binary COPY, because vectors are most of a memory's bytes: a float32 blob
becomes pgvector's binary form with one byte-order swap, where the text
form would print and parse every number. JSON text goes to jsonb as it is
(binary jsonb is a version byte and the text), never parsed on this side.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from psycopg import AsyncConnection, pq
from psycopg.adapt import Dumper
from psycopg.postgres import types as postgres_types

from ..store.postgres.schema import vector_index_statements
from .errors import MigrationError
from .source import SQLITE_ONLY_COLUMNS, SqliteSource

__all__ = ["BATCH", "TABLES", "Progress", "copy_tables", "plan_tables"]

# Every table of a memory, parents before children, each with the order its
# rows are read in (arrival order where the table keeps one).
TABLES: tuple[tuple[str, str], ...] = (
    ("groups", "group_id"),
    ("episodes", "id"),
    ("entities", "id"),
    ("entity_aliases", "group_id, alias_key, entity_uuid"),
    ("entity_fragments", "a, b"),
    ("facts", "id"),
    ("fact_sources", "fact_uuid, episode_id"),
    ("fact_conflicts", "a, b"),
    ("fact_history", "seq"),
    ("retracted_facts", "fact_uuid"),
    ("mentions", "group_id, episode_id, entity_uuid"),
    ("audit_events", "seq"),
    ("saga_summaries", "group_id, saga"),
    ("communities", "id"),
    ("community_members", "community_uuid, entity_uuid"),
    ("model_replies", "group_id, key"),
    ("group_settings", "group_id, name"),
    ("contradictions", "group_id, fact_uuid, target_uuid, kind"),
    ("erasure_log", "group_id, seq"),
    ("store_settings", "key"),
)
# PostgreSQL columns SQLite has no counterpart of, and what they start at (none
# since SQLite keeps a revision per group too).
FIXED: dict[tuple[str, str], Any] = {}
BATCH = 5_000

# (step, done, total): called as each step starts and as it moves.
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class TablePlan:
    """What to read from one SQLite table and how to write it."""

    name: str
    order: str
    target: list[str]  # PostgreSQL columns written, in COPY order
    types: list[str]  # their types, for binary COPY
    source: list[str]  # the SQLite columns read (fixed columns excluded)
    convert: list[Callable[[Any], Any]]  # per source column
    identity: list[str]  # identity columns whose sequence must pass the copied ids


class _JsonText(Dumper):
    """SQLite's JSON text to a jsonb column in binary COPY, unparsed."""

    format = pq.Format.BINARY
    oid = postgres_types["jsonb"].oid

    def dump(self, obj: Any) -> bytes:
        return b"\x01" + str(obj).encode()


def _same(value: Any) -> Any:
    return value


def _text(value: Any) -> Any:
    """SQLite may keep a number in a TEXT column; PostgreSQL's text wants a string."""
    return value if value is None or isinstance(value, str) else str(value)


def _flag(value: Any) -> bool | None:
    """SQLite keeps a flag (a fact's ``event``) as 0 or 1; PostgreSQL's is a boolean."""
    return None if value is None else bool(value)


def _vector(blob: bytes | None) -> np.ndarray | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32)


async def plan_tables(conn: AsyncConnection, source: SqliteSource) -> list[TablePlan]:
    """Match every PostgreSQL column with its SQLite one; refuse a schema
    mismatch (a column on one side only would be lost or left empty)."""
    cur = await conn.execute(
        "SELECT table_name, column_name, udt_name, is_identity FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND is_generated = 'NEVER' ORDER BY table_name, ordinal_position"
    )
    found: dict[str, list[tuple[str, str, str]]] = {}
    for table, column, udt, is_identity in await cur.fetchall():
        found.setdefault(table, []).append((column, udt, is_identity))
    missing = [t for t, _ in TABLES if t not in found]
    if missing:
        raise MigrationError(f"--to: the target has no table {', '.join(missing)}: its schema is not kronograph's")
    plans = []
    for table, order in TABLES:
        have = source.columns(table)
        target: list[str] = []
        types: list[str] = []
        read: list[str] = []
        convert: list[Callable[[Any], Any]] = []
        identity: list[str] = []
        for column, udt, is_identity in found[table]:
            target.append(column)
            types.append(udt)
            if (table, column) in FIXED:
                continue
            if column not in have:
                raise MigrationError(f"the source's table {table} has no column {column}: schemas differ")
            read.append(column)
            convert.append({"vector": _vector, "text": _text, "bool": _flag}.get(udt, _same))
            if is_identity == "YES":
                identity.append(column)
        extra = [c for c in have if c not in target and (table, c) not in SQLITE_ONLY_COLUMNS]
        if extra:
            raise MigrationError(f"the target's table {table} has no column {', '.join(extra)}: schemas differ")
        plans.append(TablePlan(table, order, target, types, read, convert, identity))
    return plans


async def _refuse_unless_empty(conn: AsyncConnection, source: SqliteSource) -> None:
    """The target must hold no memory: copied ids and arrival order could
    not be kept beside data of its own, and vectors of another embedder would
    not be comparable. Settings equal to the source's are allowed (opening a
    memory records its embedder) and replaced by the source's."""
    held: dict[str, int] = {}
    for table, _ in TABLES:
        cur = await conn.execute(f"SELECT COUNT(*) FROM {table}")  # type: ignore[arg-type]
        row = await cur.fetchone()
        if row and row[0]:
            held[table] = int(row[0])
    if "store_settings" in held:
        cur = await conn.execute("SELECT key, value FROM store_settings ORDER BY key")
        mine = dict(source.conn.execute("SELECT key, value FROM store_settings").fetchall())
        theirs: dict[str, str] = dict(await cur.fetchall())
        differ = sorted(k for k, v in theirs.items() if mine.get(k) != v)
        if differ:
            raise MigrationError(
                f"--to: the target's store settings differ from the source's ({', '.join(differ)}): "
                "copy into a new, empty database"
            )
        del held["store_settings"]
        await conn.execute("DELETE FROM store_settings")
    if not held:
        return
    cur = await conn.execute(
        "SELECT group_id FROM groups WHERE group_id = ANY(%s) ORDER BY group_id", (source.groups(),)
    )
    shared = [g for (g,) in await cur.fetchall()]
    what = ", ".join(f"{table}: {n:,}" for table, n in held.items())
    if shared:
        raise MigrationError(
            f"--to: the target already holds group{'s' if len(shared) > 1 else ''} "
            f"{', '.join(map(repr, shared[:10]))}{' …' if len(shared) > 10 else ''} of the source "
            f"(rows: {what}); kronograph migrate copies into an empty database only"
        )
    raise MigrationError(
        f"--to: the target is not empty (rows: {what}); kronograph migrate copies into an empty database only"
    )


async def _copy_table(
    conn: AsyncConnection, source: SqliteSource, plan: TablePlan, total: int, progress: Progress
) -> None:
    fixed = [FIXED.get((plan.name, c)) for c in plan.target]
    slots = [i for i, c in enumerate(plan.target) if (plan.name, c) not in FIXED]
    progress(plan.name, 0, total)
    done = 0
    sql = f"COPY {plan.name} ({', '.join(plan.target)}) FROM STDIN (FORMAT BINARY)"
    batches = source.rows(plan.name, plan.source, plan.order, BATCH)
    async with conn.cursor() as cur, cur.copy(sql) as copy:  # type: ignore[arg-type]
        copy.set_types(plan.types)
        while batch := await asyncio.to_thread(next, batches, None):
            for row in batch:
                out = list(fixed)
                for slot, convert, value in zip(slots, plan.convert, row, strict=True):
                    out[slot] = convert(value)
                await copy.write_row(out)
            done += len(batch)
            progress(plan.name, done, total)


async def copy_tables(
    conn: AsyncConnection, source: SqliteSource, counts: dict[str, int], progress: Progress
) -> None:
    """Copy every table, in ``conn``'s open transaction."""
    plans = await plan_tables(conn, source)
    conn.adapters.register_dumper(None, _JsonText)  # by oid: what set_types finds for jsonb
    await conn.execute("SET LOCAL lock_timeout = '30s'")
    names = ", ".join(t for t, _ in TABLES)
    try:
        await conn.execute(f"LOCK TABLE {names} IN SHARE ROW EXCLUSIVE MODE")  # type: ignore[arg-type]
    except Exception as exc:
        raise MigrationError(f"--to: the target's tables are in use (locked by another session): {exc}") from None
    await conn.execute("SET LOCAL lock_timeout = 0")
    await conn.execute("SET LOCAL statement_timeout = 0")
    await _refuse_unless_empty(conn, source)
    for plan in plans:
        try:
            await _copy_table(conn, source, plan, counts[plan.name], progress)
        except MigrationError:
            raise
        except Exception as exc:
            raise MigrationError(f"copying table {plan.name} failed, nothing was written: {exc}") from exc
        for column in plan.identity:
            await conn.execute(
                f"SELECT setval(pg_get_serial_sequence(%s, %s), m) FROM (SELECT MAX({column}) AS m"  # type: ignore[arg-type]
                f" FROM {plan.name}) t WHERE m IS NOT NULL",
                (plan.name, column),
            )
    dims = sorted(source.vector_dimensions())
    progress("vector indexes", 0, len(dims))
    for i, dim in enumerate(dims, 1):
        for statement in vector_index_statements(dim):
            await conn.execute(statement)  # type: ignore[arg-type]
        progress("vector indexes", i, len(dims))
