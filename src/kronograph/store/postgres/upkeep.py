"""The planner's aids a store keeps current besides its plans: statistics
refreshed as young tables grow, and an HNSW index per vector dimension
built before the first vector of it is written."""

from __future__ import annotations

import json
from collections.abc import Collection

from ..plan import Plan
from .connection import Connection, connect, lock_schema
from .schema import GROUP_TABLES, VECTOR_TABLES, vector_index_statements

__all__ = [
    "ANALYZE_AT", "analyze", "build_vector_indexes", "dimension", "indexed_dimensions", "needs_indexes",
    "plan_dimensions",
]

# Commits after which a store refreshes the statistics (see PostgresStore._committed).
ANALYZE_AT = frozenset({100, 1_000, 10_000, 100_000})


async def analyze(conn: Connection) -> None:
    # Not worth a wait: a table busy with a VACUUM, an index build or a LOCK is left to autovacuum.
    async with conn.transaction():
        await conn.execute("SET LOCAL lock_timeout = '1s'")
        await conn.execute("ANALYZE " + ", ".join(GROUP_TABLES))  # type: ignore[arg-type]


def dimension(embedder: str) -> int | None:
    """The dimension an embedder record names (JSON with a ``dimension``)."""
    try:
        value = json.loads(embedder).get("dimension")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and value > 0 else None


def plan_dimensions(plan: Plan) -> set[int]:
    """The dimensions of the vectors a plan writes (float32: 4 bytes each)."""
    return {
        len(v) // 4
        for vectors in (
            plan.fact_embeddings, plan.entity_embeddings, plan.episode_embeddings, plan.community_embeddings
        )
        for v in vectors.values()
    }


async def indexed_dimensions(conn: Connection) -> set[int]:
    """The dimensions every vector table has its HNSW index of: one a later
    migration added a vector table to (communities) is indexed again, which
    builds only the missing index (``IF NOT EXISTS``)."""
    cur = await conn.execute(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
        " AND indexname ~ '^[a-z]+_embedding_[0-9]+$'"  # kronograph's names only, not a DBA's own index
    )
    tables: dict[int, set[str]] = {}
    for (name,) in await cur.fetchall():
        table, _, dim = name.rpartition("_embedding_")
        tables.setdefault(int(dim), set()).add(table)
    return {dim for dim, found in tables.items() if found >= set(VECTOR_TABLES)}


def needs_indexes(dims: Collection[int]) -> bool:
    """Whether any of these dimensions has an index to build (HNSW caps them)."""
    return any(vector_index_statements(dim) for dim in dims)


async def build_vector_indexes(url: str, dims: Collection[int]) -> None:
    """One short transaction per index, under the schema lock: building an
    index locks its table against writers, and a transaction that locked
    two tables could deadlock with a writer that wants them in the other
    order. Never called inside a unit of work (it would wait on itself)."""
    async with connect(url) as conn:
        for dim in sorted(dims):
            for statement in vector_index_statements(dim):
                async with conn.transaction():
                    await lock_schema(conn)
                    await conn.execute(statement)  # type: ignore[arg-type]
