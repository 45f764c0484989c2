"""The SQLite store's readers: a few threads, each with a connection of its
own, that answer pure reads beside the one writer. In WAL mode a reader
never waits for the writer: each call is one read transaction, so it sees
one snapshot, the commits made before it began and none of an open unit of
work. Kept apart from the writer's thread (worker.py) because readers share
one queue (the next free reader takes the next read), keep their own
memos, and never write the database.
"""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ...errors import ClosedError, KronographError, StoreError
from . import group_text
from .group_key import Snapshot
from .held_entities import HeldEntities
from .name_reads import NameMatches
from .search_reads import QueryWords
from .worker import _settle

__all__ = ["Memos", "ReaderPool", "Snapshot"]

T = TypeVar("T")


class Memos:
    """What one connection's reads keep between calls: the full-text rows,
    name matches and entities by uuid, each under the group revision its
    own snapshot read them at (so they never contradict it). One set per
    connection: a reader's are used by its thread alone, ``lock`` held
    while it reads, so that :meth:`drop` waits for a read in flight."""

    __slots__ = ("entities", "forgotten", "lock", "names", "query_words")

    def __init__(self) -> None:
        self.query_words = QueryWords()
        self.names = NameMatches()
        self.entities = HeldEntities()
        self.forgotten: set[str] = set()  # a reader's: groups its connection's own full-text index must drop
        self.lock = threading.Lock()

    def drop(self, group_id: str) -> None:
        """Forget what is kept of the group (a forgotten name must not stay in the process)."""
        with self.lock:
            self.names.drop(group_id)
            self.entities.drop(group_id)
            self.query_words.drop(group_id)


def _end(conn: Snapshot) -> None:
    """End a read's transaction. Committed, even after an error: it wrote to
    the database nothing but the temporary tables full-text ranking sets up
    once per connection (a rollback would drop them)."""
    if conn.in_transaction:
        try:
            conn.execute("COMMIT")
        except sqlite3.Error:
            conn.execute("ROLLBACK")


class _Reader(threading.Thread):
    def __init__(self, pool: ReaderPool, index: int) -> None:
        super().__init__(name=f"kronograph-sqlite-reader-{index}", daemon=True)
        self._pool = pool
        self.memos = Memos()
        self.conn: Snapshot | None = None

    def run(self) -> None:
        try:
            while self._next():
                pass
        finally:
            conn, self.conn = self.conn, None
            if conn is not None:
                conn.close()

    def _next(self) -> bool:
        """Answer the next queued read; False at the stop sentinel. (Its own
        frame: the thread keeps no reference to a call, or to its store,
        once answered; a dropped store is then collected.)"""
        item = self._pool.jobs.get()
        if item is None:
            return False
        self._serve(*item)
        return True

    def _serve(self, loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], fn: Callable[..., Any],
               args: tuple[Any, ...]) -> None:
        try:
            result, error = self._read(fn, args), None
        except BaseException as exc:  # handed to the caller, raised there
            result, error = None, exc
        try:
            loop.call_soon_threadsafe(_settle, future, result, error)
        except RuntimeError:
            pass  # the caller's event loop is closed: nobody is left to answer

    def _read(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        with self.memos.lock:
            try:
                if self.conn is None:
                    self.conn = self._pool.connect()
                    self.conn.memos = self.memos
                conn = self.conn
                while self.memos.forgotten:  # a forgotten group's words leave this connection too
                    group_text.forget(conn, self.memos.forgotten.pop())
                conn.execute("BEGIN")  # deferred: the snapshot is taken by the call's first read
                try:
                    return fn(conn, *args)
                finally:
                    _end(conn)
            except KronographError:
                raise
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite error on {self._pool.path!r}: {exc}") from exc


class ReaderPool:
    """``size`` reader threads on one queue, started on the first read;
    their connections open on their first call and close with them."""

    def __init__(self, path: str, size: int, connect: Callable[[], Snapshot]) -> None:
        self.path = path
        self.connect = connect
        self.jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._readers = [_Reader(self, i) for i in range(size)]
        self._door = threading.Lock()  # nothing is queued after the stop sentinels
        self._accepting = True
        for reader in self._readers:
            reader.start()

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._door:
            if not self._accepting:
                raise ClosedError("this store is closed")
            if not any(r.is_alive() for r in self._readers):
                raise StoreError("the SQLite store's reader threads have died: close the memory and open it again")
            self.jobs.put((loop, future, fn, args))
        return await future

    def drop(self, group_id: str) -> None:
        """Forget the group in every reader's memos, after the read each has in hand."""
        for reader in self._readers:
            reader.memos.drop(group_id)
            reader.memos.forgotten.add(group_id)  # its own index emptied on its thread, before its next read

    def stop(self, *, wait: bool = True) -> None:
        """Stop taking reads; the readers finish those queued, then close their connections."""
        with self._door:
            if self._accepting:
                self._accepting = False
                for _ in self._readers:
                    self.jobs.put(None)
        if wait:
            for reader in self._readers:
                if reader is not threading.current_thread():
                    reader.join()

    def alive(self) -> int:
        return sum(r.is_alive() for r in self._readers)
