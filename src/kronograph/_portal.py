"""Driving the async core from blocking code, for the sync ``Memory`` shell.

The memory owns a private event loop, made by its first call. A call runs it
right in the calling thread (no thread hop: the cheapest path, and the common
one). When another thread is already driving the loop, the work is handed to
it instead, so concurrent callers share one loop, and a plain judge running on
a worker thread may itself read through the sync memory. A caller that has an
event loop of its own running (a notebook) gets a short-lived helper thread.
Once closed, a call fails at once (``ClosedError``) instead of waiting on a
loop that will never run again.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from .errors import ClosedError

T = TypeVar("T")


class Portal:
    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None  # made by the first call
        self._closed = False
        self._lock = threading.Lock()  # held by whichever thread drives the loop
        self._making = threading.Lock()

    def _ready_loop(self) -> asyncio.AbstractEventLoop:
        with self._making:
            if self._closed:
                raise ClosedError("this memory is closed")
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
            return self._loop

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            loop = self._ready_loop()
        except ClosedError:
            coro.close()
            raise
        if asyncio._get_running_loop() is loop:
            coro.close()
            raise RuntimeError(
                "a sync Memory was called from inside its own event loop (from an async judge?);"
                " use AsyncMemory there"
            )
        if self._lock.acquire(blocking=False):
            try:
                return self._drive(loop, coro)  # type: ignore[no-any-return]
            finally:
                self._lock.release()
        try:
            future = asyncio.run_coroutine_threadsafe(coro, loop)
        except RuntimeError:  # closed between the check and now
            coro.close()
            raise ClosedError("this memory is closed") from None
        return self._join(loop, future)

    def _drive(self, loop: asyncio.AbstractEventLoop, coro: Any) -> Any:
        if loop.is_closed():
            coro.close()
            raise ClosedError("this memory is closed")
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return loop.run_until_complete(coro)
        # This thread already runs another loop: drive ours from a helper thread.
        box: list[Any] = []

        def run() -> None:
            try:
                box.append((True, loop.run_until_complete(coro)))
            except BaseException as exc:  # handed back to the caller below
                box.append((False, exc))

        helper = threading.Thread(target=run, name="kronograph-memory")
        helper.start()
        helper.join()
        ok, value = box[0]
        if not ok:
            raise value
        return value

    def _join(self, loop: asyncio.AbstractEventLoop, future: concurrent.futures.Future[T]) -> T:
        """Wait for work handed to the driving thread; if that thread stops
        driving before the work is done, drive the loop from here."""
        while True:
            try:
                return future.result(timeout=0.05)
            except concurrent.futures.TimeoutError:
                if self._lock.acquire(blocking=False):
                    try:
                        return self._drive(loop, asyncio.wrap_future(future, loop=loop))  # type: ignore[no-any-return]
                    finally:
                        self._lock.release()

    def close(self) -> None:
        with self._lock:
            with self._making:
                self._closed = True
                loop = self._loop
            if loop is None or loop.is_closed():
                return
            self._drive(loop, loop.shutdown_default_executor())
            loop.close()

    def abandon(self) -> None:
        """Close the loop without running it (the memory was dropped unclosed)."""
        with self._making:
            self._closed = True
            loop = self._loop
        if loop is not None and not loop.is_closed() and not loop.is_running():
            _cancel_pending(loop)
            loop.close()


def _cancel_pending(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what still waits on a dropped memory's loop (a lease heartbeat)
    and let it end, briefly, as ``asyncio.run`` does: a pending task that is
    collected prints "Task was destroyed but it is pending!" at exit."""
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    if not pending:
        return
    for task in pending:
        task.cancel()
    waiting = asyncio.wait(pending, timeout=1.0)
    try:
        loop.run_until_complete(waiting)
    except Exception:  # noqa: BLE001  (a finaliser must not raise; the loop closes anyway)
        waiting.close()  # refused before it started (another loop runs on this thread): no "never awaited" warning
