"""Opening, calling into and closing the SQLite store's connections: the
writer's (on its worker thread) and the readers' (readers.py), the plumbing
every store call goes through, apart from what the store stores. Why a base
class: the connections, their threads and the checkpointer live and die
together, and close() and a dropped store must release them all."""

from __future__ import annotations

import contextlib
import functools
import sqlite3
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..._files import create_private
from ...errors import ClosedError, KronographError, StoreError
from . import purge
from .group_key import Snapshot
from .readers import ReaderPool
from .schema import migrate
from .worker import Checkpointer, Worker

__all__ = ["StoreLifecycle"]

T = TypeVar("T")


def _open_reader(path: str, timeout: float) -> Snapshot:
    """A reader's connection (on its own thread): the schema is the
    writer's to migrate, which opened first; a smaller page cache each
    (the operating system caches the file for all of them). A plain
    function: the readers hold no reference to their store, which a
    dropped store's __del__ needs."""
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False, factory=Snapshot)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        conn.execute("PRAGMA cache_size = -16384")
        purge.register_functions(conn)
    except BaseException:
        conn.close()
        raise
    return conn


class StoreLifecycle:
    """The connection's life: opened by the first call, on the worker thread
    when the store is threaded; closed once, after the calls already queued."""

    path: str
    _timeout: float
    _synchronous: str
    _threaded: bool
    _executor: Worker | None
    _lock: threading.Lock
    _starting: threading.Lock
    _conn: sqlite3.Connection | None
    _checkpointer: Checkpointer | None
    _closed: bool
    _readers: int
    _pool: ReaderPool | None

    if TYPE_CHECKING:  # the unit of work's, which this class's subclass is

        async def _run(self, fn: Callable[..., T], *args: Any) -> T: ...

    def _connect(self) -> sqlite3.Connection:
        if self.path not in (":memory:", ""):
            with contextlib.suppress(OSError):  # e.g. no such directory: sqlite3 says so below
                create_private(self.path)  # a new database (and so its -wal and -shm) is the owner's only
        conn = sqlite3.connect(
            self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False
        )
        try:
            self._configure(conn)
        except BaseException:
            conn.close()  # a database that cannot be opened leaves no file handle behind
            raise
        return conn

    def _configure(self, conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA busy_timeout = {int(self._timeout * 1000)}")
        if self.path != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(f"PRAGMA synchronous = {self._synchronous}")
        # A 64 MiB page cache (the default is 2 MiB) and a WAL checkpointed every
        # ~40 MB instead of ~4 MB: far fewer cache misses and fsyncs per write.
        conn.execute("PRAGMA cache_size = -65536")
        conn.execute("PRAGMA journal_size_limit = 67108864")
        if self.path != ":memory:":
            # Checkpoints (copying the WAL back, with two fsyncs) run on a thread
            # of their own; the writer's own checkpoint at 20,000 pages is a backstop.
            conn.execute("PRAGMA wal_autocheckpoint = 20000")
        purge.register_functions(conn)
        migrate(conn)
        if self.path != ":memory:" and self._checkpointer is None:
            self._checkpointer = Checkpointer(self.path, self._timeout)
            self._checkpointer.start()

    def _reader_pool(self) -> ReaderPool | None:
        """The readers, started by the first read after the writer's
        connection is open; None where reads stay on the writer: a
        ``":memory:"`` database (another connection would open another,
        empty, database), a store run inline (``threaded=False``), or
        ``readers=0``."""
        if self._pool is not None:
            return self._pool
        if not self._readers or not self._threaded or self.path in (":memory:", "") or self._conn is None:
            return None
        with self._starting:
            if self._closed:
                raise ClosedError("this store is closed")
            if self._pool is None:
                opener = functools.partial(_open_reader, self.path, self._timeout)
                self._pool = ReaderPool(self.path, self._readers, opener)
            return self._pool

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        with self._lock:
            return self._holding(fn, *args)

    def _holding(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn`` on the connection, the caller holding ``_lock``."""
        if self._closed:
            raise ClosedError("this store is closed")
        if self._conn is None:
            try:
                self._conn = self._connect()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot open SQLite database {self.path!r}: {exc}") from exc
        try:
            return fn(self._conn, *args)
        except KronographError:
            raise
        except sqlite3.Error as exc:
            raise StoreError(f"SQLite error on {self.path!r}: {exc}") from exc

    def _worker(self) -> Worker:
        """The store's thread, started by its first call (a store made and
        dropped, or refused by a caller's checks, never starts one)."""
        with self._starting:
            if self._closed:
                raise ClosedError("this store is closed")
            if self._executor is None:
                self._executor = Worker()
                self._executor.start()
            return self._executor

    async def _exec(self, fn: Callable[..., T], *args: Any) -> T:
        if not self._threaded:
            return self._call(fn, *args)
        return await self._worker().call(self._call, fn, *args)

    def _here(self, fn: Callable[..., T], *args: Any) -> tuple[bool, T | None]:
        """Run ``fn`` on the caller's thread when the store's thread has no
        call queued or running (and the connection is open): ``(True,
        result)``; else ``(False, None)``, and it is to be queued."""
        worker = self._executor
        if worker is None or self._conn is None or not worker.idle():
            return False, None
        if not self._lock.acquire(blocking=False):
            return False, None
        try:
            if not worker.idle():  # queued meanwhile: it goes first
                return False, None
            return True, self._holding(fn, *args)
        finally:
            self._lock.release()

    async def open(self) -> None:
        await self._run(lambda conn: None)

    async def close(self) -> None:
        if self._closed:
            return
        with self._starting:
            pool, self._readers = self._pool, 0  # no reader starts from now on
        if pool is not None:
            pool.stop()  # after the reads in hand: each reader closes its connection
        worker = self._executor
        if worker is None or not worker.is_alive():
            self._shut()
            return
        try:
            await worker.call(self._shut)  # after the calls already queued
        except KronographError:  # the worker stopped meanwhile
            self._shut()
        finally:
            worker.stop()

    def _shut(self, *, wait: bool = True) -> None:
        with self._lock:
            self._closed = True
            if self._checkpointer is not None:
                self._checkpointer.stop(wait=wait)
            if self._conn is not None:
                try:  # refresh the planner's statistics where they are stale
                    self._conn.execute("PRAGMA optimize")
                except sqlite3.Error:
                    pass
                self._conn.close()
                self._conn = None

    def __del__(self) -> None:
        # Dropped without close(): release the thread, the checkpointer and the
        # file now rather than at exit. (The memory that owned it warns.)
        if getattr(self, "_closed", True):
            return
        if self._pool is not None:
            self._pool.stop(wait=False)
        if self._executor is not None:
            self._executor.stop(wait=False)
        if self._lock.acquire(blocking=False):  # never taken while a call runs: a store in use is not garbage
            self._lock.release()
            self._shut(wait=False)
