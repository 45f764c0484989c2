"""One transaction in one pipeline: ``BEGIN``, the group's lock, the writes
and ``COMMIT`` sent together, so that a write which needs no answer midway
costs one round trip to the server, and a unit of work one per read.

psycopg's ``conn.transaction()`` inside a pipeline nests two more pipelines,
each ending in a Sync the client waits for, and a pipeline nested in another
(``executemany``'s, a plan's) syncs again when it ends: a plan applied that
way took six round trips. Here ``BEGIN`` and ``COMMIT`` are plain statements
of the one pipeline, statements are queued without waiting, and the client
waits only where it reads an answer (a fetch sends everything queued before
it, in the same trip) and at the end. An error in a queued statement
surfaces at the next fetch or at the end, and fails the whole transaction,
as it did before.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

from psycopg import AsyncConnection
from psycopg.pq import ConnStatus, PipelineStatus, TransactionStatus

from .schema import LOCK_SPACE

__all__ = ["in_pipeline", "lock", "pipelined", "revision_now"]

_OPEN = (TransactionStatus.INTRANS, TransactionStatus.INERROR)


def in_pipeline(conn: AsyncConnection) -> bool:
    """Whether ``conn`` is in pipeline mode (a nested pipeline would sync)."""
    return bool(conn.pgconn.pipeline_status != PipelineStatus.OFF)


@asynccontextmanager
async def pipelined(conn: AsyncConnection) -> AsyncIterator[None]:
    """A transaction on an autocommit connection, its statements pipelined;
    committed when the block ends, rolled back when it raises."""
    try:
        async with conn.pipeline():
            await conn.execute("BEGIN")
            yield
            await conn.execute("COMMIT")
    except BaseException:
        pg = conn.pgconn
        if pg.status == ConnStatus.OK and pg.transaction_status in _OPEN:
            with suppress(Exception):  # the error raised says what failed; a broken connection is the pool's
                await conn.execute("ROLLBACK")
        raise


async def lock(conn: AsyncConnection, group_id: str) -> None:
    """Queue the group's write lock, held to the end of the transaction."""
    await conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (LOCK_SPACE, group_id))


async def revision_now(conn: AsyncConnection, group_id: str) -> int:
    """The group's revision, read after the lock (a statement of its own: in
    READ COMMITTED a statement sees the commits made before it starts, so the
    locking statement could not see one made while it waited)."""
    cur = await conn.execute("SELECT revision FROM groups WHERE group_id = %s", (group_id,))
    row = await cur.fetchone()
    return int(row[0]) if row else 0
