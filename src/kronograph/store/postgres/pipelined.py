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

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress

from psycopg import AsyncConnection, Error
from psycopg.pq import ConnStatus, PipelineStatus, TransactionStatus

from ...errors import ConcurrentWriteError
from .. import fence
from .schema import LOCK_SPACE

__all__ = ["expect_revision", "expect_sql", "in_pipeline", "lock", "pipelined", "refusal", "refused_as"]

REFUSED = "KG001"  # the SQLSTATE of a failed check (schema v16's kronograph_expect)

_OPEN = (TransactionStatus.INTRANS, TransactionStatus.INERROR)


def in_pipeline(conn: AsyncConnection) -> bool:
    """Whether ``conn`` is in pipeline mode (a nested pipeline would sync)."""
    return bool(conn.pgconn.pipeline_status != PipelineStatus.OFF)


@asynccontextmanager
async def pipelined(
    conn: AsyncConnection, *, before: Callable[[AsyncConnection], Awaitable[None]] | None = None
) -> AsyncIterator[None]:
    """A transaction on an autocommit connection, its statements pipelined;
    committed when the block ends, rolled back when it raises. ``before``
    queues the statements of a transaction committed on its own just before
    (in the same trip; should it fail, so does this one)."""
    failed: Error | None = None  # an error the server sent back while statements were still going out
    try:
        try:
            async with conn.pipeline():
                try:
                    if before is not None:
                        await conn.execute("BEGIN")
                        await before(conn)
                        await conn.execute("COMMIT")
                    await conn.execute("BEGIN")
                    yield
                    await conn.execute("COMMIT")
                except Error as exc:  # raised once the pipeline is closed (closing it with one in flight warns)
                    failed = exc
        except Error:
            if failed is None:
                raise
        if failed is not None:
            raise failed
    except BaseException:
        pg = conn.pgconn
        if pg.status == ConnStatus.OK and pg.transaction_status in _OPEN:
            with suppress(Exception):  # the error raised says what failed; a broken connection is the pool's
                await conn.execute("ROLLBACK")
        raise


async def lock(conn: AsyncConnection, group_id: str) -> None:
    """Queue the group's write lock, held to the end of the transaction."""
    await conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (LOCK_SPACE, group_id))


def expect_sql(condition: str, what: str, detail: str) -> str:
    """A statement the server fails (``REFUSED``) unless ``condition`` holds;
    ``detail`` is SQL of a JSON array of what :func:`refusal` needs."""
    return f"SELECT kronograph_expect({condition}, '{what}', ({detail})::text)"


_REVISION = expect_sql(
    "COALESCE((SELECT revision FROM groups WHERE group_id = %s), 0) = %s", "revision", "jsonb_build_array(%s::text)"
)


async def expect_revision(conn: AsyncConnection, group_id: str, expected: int) -> None:
    """Queue the check that the group is still at ``expected``, a statement
    after the lock's (in READ COMMITTED a statement sees the commits made
    before it starts: the locking one could miss one made while it waited);
    nothing is waited for."""
    await conn.execute(_REVISION, (group_id, expected, group_id))


def refused_as(exc: BaseException, what: str) -> bool:
    """Whether ``exc`` is the failure of a check named ``what``."""
    return getattr(exc, "sqlstate", None) == REFUSED and exc.diag.message_primary == what  # type: ignore[attr-defined]


def refusal(exc: BaseException) -> Exception | None:
    """The error a failed check stands for: the group or a saga moved under
    the write, or the writer lost the episode's lease; None for any other."""
    if getattr(exc, "sqlstate", None) != REFUSED:
        return None
    diag = exc.diag  # type: ignore[attr-defined]
    what, facts = diag.message_primary, json.loads(diag.message_detail or "[]")
    if what == "revision":
        return ConcurrentWriteError(f"group {facts[0]!r} changed while this write was being prepared")
    if what == "saga":
        return ConcurrentWriteError(f"saga {facts[1]!r} of group {facts[0]!r} changed while it was being summarised")
    if what == "lease":
        group_id, uuid, status, holder = facts
        return fence.refusal(group_id, uuid, (status, holder)) or ConcurrentWriteError(
            f"episode {uuid!r} of group {group_id!r} changed while its state was being written"
        )
    return None
