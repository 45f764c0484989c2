"""Connections, the pool and the advisory locks of the PostgreSQL store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from ...redact import redact_dsn
from .schema import LOCK_SPACE

__all__ = ["Connection", "Pool", "connect", "lock_group", "lock_schema", "redact"]

Connection = AsyncConnection


def redact(text: str) -> str:
    """The URL (or a message quoting it) without its password, for messages and logs."""
    return redact_dsn(text)


async def _configure(conn: AsyncConnection) -> None:
    """Every connection: vectors as numpy arrays, and filtered HNSW scans that
    keep going until they have found enough rows of the group asked for."""
    from pgvector.psycopg import register_vector_async

    await register_vector_async(conn)
    await conn.execute("SET hnsw.iterative_scan = 'relaxed_order'")


@asynccontextmanager
async def connect(url: str, *, vectors: bool = False) -> AsyncIterator[AsyncConnection]:
    """One connection outside the pool (schema changes), in autocommit."""
    conn = await AsyncConnection.connect(url, autocommit=True)
    try:
        if vectors:
            await _configure(conn)
        yield conn
    finally:
        await conn.close()


class Pool:
    """An async connection pool of autocommit connections, configured for vectors."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    @classmethod
    async def open(cls, url: str, min_size: int, max_size: int, *, timeout: float, prepare: bool = True) -> Pool:
        """``prepare=False`` never prepares statements (psycopg prepares one
        after its fifth run), for poolers that cannot keep them."""
        pool = AsyncConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            timeout=timeout,
            kwargs={"autocommit": True} if prepare else {"autocommit": True, "prepare_threshold": None},
            configure=_configure,
            open=False,
        )
        await pool.open(wait=True, timeout=timeout)
        return cls(pool)

    def connection(self):  # type: ignore[no-untyped-def]
        return self._pool.connection()

    async def close(self) -> None:
        await self._pool.close()


async def lock_group(conn: AsyncConnection, group_id: str) -> int:
    """Take the group's write lock for the rest of the transaction; returns
    the group's revision as this writer sees it."""
    # Two statements: in READ COMMITTED a statement reads the snapshot taken
    # when it starts, so a revision read by the locking statement itself could
    # predate a commit made while it waited for the lock.
    await conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (LOCK_SPACE, group_id))
    cur = await conn.execute("SELECT revision FROM groups WHERE group_id = %s", (group_id,))
    row = await cur.fetchone()
    return int(row[0]) if row else 0


async def lock_schema(conn: AsyncConnection) -> None:
    """The lock schema changes take (migrations, new vector indexes)."""
    await conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (LOCK_SPACE,))
