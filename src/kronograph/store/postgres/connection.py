"""Connections, the pool and the advisory locks of the PostgreSQL store."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypeAlias

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from ...redact import redact_dsn
from .schema import LOCK_SPACE

__all__ = ["Connection", "Pool", "connect", "lock_group", "lock_schema", "redact"]

# Declared an alias: mypy reads psycopg as Any, and in an import cycle a bare
# assignment of it may be read as a variable, which is then no type.
Connection: TypeAlias = AsyncConnection


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


def writer_share(max_size: int) -> int:
    """How many of the pool's connections units of work may hold at once:
    half (at least one), so that reads always find a connection while
    writers hold theirs for a transaction (or wait in one for a group's
    lock)."""
    return max(1, max_size // 2)


class Pool:
    """An async connection pool of autocommit connections, configured for
    vectors. It belongs to the event loop that opened it (psycopg's tasks run
    there): :meth:`retire` closes it from anywhere, that loop alive or not.
    Reads take any free connection; units of work (:meth:`writer`) hold at
    most :func:`writer_share` of them, so reads never queue behind writers."""

    def __init__(self, pool: AsyncConnectionPool, loop: asyncio.AbstractEventLoop) -> None:
        self._pool = pool
        self.loop = loop
        self._lent: set[AsyncConnection] = set()  # checked out now (see discard)
        self._writers = asyncio.Semaphore(writer_share(pool.max_size))

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
        try:
            await pool.open(wait=True, timeout=timeout)
        except BaseException:
            await pool.close()  # a pool that failed to open stops retrying its connections
            raise
        return cls(pool, asyncio.get_running_loop())

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[AsyncConnection]:
        async with self._pool.connection() as conn:
            self._lent.add(conn)
            try:
                yield conn
            finally:
                self._lent.discard(conn)

    @asynccontextmanager
    async def writer(self) -> AsyncIterator[AsyncConnection]:
        """A connection for a unit of work: one of the writers' share."""
        async with self._writers, self.connection() as conn:
            yield conn

    async def close(self) -> None:
        await self._pool.close()

    async def retire(self) -> None:
        """Close the pool from whichever loop runs now (on its own, it waits
        for the close; on another, see :meth:`release`)."""
        if self.loop is asyncio.get_running_loop():
            await self.close()
        else:
            self.release()

    def release(self) -> None:
        """Close the pool without waiting: handed to its loop while that still
        runs; on a loop that is stopped or closed (whose tasks can no longer
        run), its idle connections are closed here and now."""
        if self.loop.is_running():
            closing = self.close()
            try:
                asyncio.run_coroutine_threadsafe(closing, self.loop)
                return
            except RuntimeError:  # it closed meanwhile
                closing.close()
        self.discard()

    def discard(self) -> None:
        """Close every connection now, without an event loop: for a pool whose
        loop has stopped (its own ``close()`` needs that loop). Those checked
        out too: a task parked on that loop inside a transaction would
        otherwise hold the group's advisory lock until it is collected."""
        idle = list(getattr(self._pool, "_pool", ()))  # psycopg_pool's idle connections
        for conn in [*idle, *self._lent]:
            conn.pgconn.finish()
        self._lent.clear()


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
