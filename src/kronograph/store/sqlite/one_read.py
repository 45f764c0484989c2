"""Many reads in one: a search asks the store a dozen or more questions, and
each, answered on a reader thread, cost a hand-off to that thread and back,
and a read transaction of its own (about 2 ms of CPU per search on the
service's load, and a snapshot per question). :func:`drive` runs the whole
coroutine on one reader, inside one read transaction: every read it makes is
answered there and then on that connection (:class:`Bound`), so it sees one
snapshot from its first read to its last.

The coroutine must await nothing but the store's reads: anything that
suspends it (a model call, a sleep) cannot be waited for on a reader thread,
and is refused (the caller runs such work the ordinary way).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["Bound", "drive"]

T = TypeVar("T")


class Bound(threading.local):
    """The connection the reads of this thread are answered on while a
    coroutine is driven (None otherwise): per thread, so another thread's
    reads (the event loop's, another reader's) never land on it."""

    conn: sqlite3.Connection | None = None


def drive(conn: sqlite3.Connection, bound: Bound, job: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``job()`` to its end on this thread, its reads on ``conn``."""
    bound.conn = conn
    coro = job()
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    finally:
        bound.conn = None
    coro.close()
    raise RuntimeError("a job run in one read awaited something other than the store's reads")
