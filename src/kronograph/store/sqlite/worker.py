"""The SQLite store's threads: one worker that runs every call in order (a
connection is used by one thread at a time), and a checkpointer that copies
the write-ahead log back off the write path. Kept apart from the store so the
store reads as what it stores, not how it schedules."""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ...errors import ClosedError, KronographError, StoreError

__all__ = ["Checkpointer", "Worker"]

T = TypeVar("T")


class Checkpointer(threading.Thread):
    """Copies the write-ahead log back into the database, off the write path."""

    def __init__(self, path: str, timeout: float, interval: float = 0.2) -> None:
        super().__init__(name="kronograph-checkpoint", daemon=True)
        self._path, self._timeout, self._interval = path, timeout, interval
        self._stopped = threading.Event()

    def run(self) -> None:
        conn = sqlite3.connect(self._path, timeout=self._timeout, isolation_level=None, check_same_thread=False)
        try:
            while not self._stopped.wait(self._interval):
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                except sqlite3.Error:
                    pass  # tried again next round; the writer's own checkpoint is the backstop
        finally:
            conn.close()

    def stop(self, *, wait: bool = True) -> None:
        self._stopped.set()
        if wait:
            self.join()


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class Worker(threading.Thread):
    """The store's one thread: runs calls in order and hands each result back
    to the caller's event loop (a plainer, quicker trip than an executor's).

    It outlives its callers' loops: a result whose loop has closed meanwhile
    (``asyncio.run`` returned, a server shut down) is dropped, and the thread
    goes on with the next call. Once stopped, or should it ever die, a call
    fails at once instead of waiting for an answer that cannot come."""

    def __init__(self) -> None:
        super().__init__(name="kronograph-sqlite", daemon=True)
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._accepting = True
        self._stopped = False  # by stop(), as against dying
        self._door = threading.Lock()  # nothing is queued after the stop sentinel
        self._pending = 0  # calls queued or running (see idle)

    def run(self) -> None:
        serving: list[Any] = [None]  # the call in hand: answered below should the thread die on it
        try:
            while self._serve(serving):
                pass
        finally:
            with self._door:
                self._accepting = False
            self._refuse(serving[0])
            while True:  # and the calls queued behind it, so that none waits forever
                try:
                    self._refuse(self._queue.get_nowait())
                except queue.Empty:
                    break

    def _serve(self, serving: list[Any]) -> bool:
        """Run one queued call; False at the stop sentinel. (Its own frame: the
        thread keeps no reference to a call, or to its store, once answered.)"""
        serving[0] = item = self._queue.get()
        if item is None:
            return False
        loop, future, fn, args = item
        try:
            result, error = fn(*args), None
        except BaseException as exc:  # handed to the caller, raised there
            result, error = None, exc
        with self._door:
            self._pending -= 1
        if loop is not None:  # None: posted work, nobody waits for it
            try:
                loop.call_soon_threadsafe(_settle, future, result, error)
            except RuntimeError:
                pass  # the caller's event loop is closed: nobody is left to answer
        serving[0] = None
        return True

    def _refuse(self, item: Any) -> None:
        if item is not None and item[0] is not None:
            try:
                item[0].call_soon_threadsafe(_settle, item[1], None, self._refusal())
            except RuntimeError:
                pass

    def _refusal(self) -> KronographError:
        if self._stopped:
            return ClosedError("this store is closed")
        return StoreError("the SQLite store's worker thread has died: close the memory and open it again")

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._put((loop, future, fn, args))
        return await future

    def post(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn`` after the calls already queued, waiting for nothing."""
        self._put((None, None, fn, args))

    def _put(self, item: Any) -> None:
        with self._door:
            if not self._accepting or not self.is_alive():
                raise self._refusal()
            self._pending += 1
            self._queue.put(item)

    def idle(self) -> bool:
        """Whether no call is queued or running: then one made on another
        thread, holding the connection's lock, comes after every call made
        before it, as if it had been queued."""
        return self._accepting and self._pending == 0

    def stop(self, *, wait: bool = True) -> None:
        with self._door:
            self._stopped = True
            if self._accepting:
                self._accepting = False
                self._queue.put(None)
        if wait and self is not threading.current_thread():
            self.join()
