"""Driving the async core from blocking code, for the sync ``Memory`` shell.

The memory owns a private event loop. A call runs it right in the calling
thread (no thread hop: the cheapest path, and the common one). When another
thread is already driving the loop, the work is handed to it instead, so
concurrent callers share one loop, and a plain judge running on a worker
thread may itself read through the sync memory. A caller that has an event loop of
its own running (a notebook) gets a short-lived helper thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class Portal:
    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._lock = threading.Lock()  # held by whichever thread drives the loop

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        if asyncio._get_running_loop() is self._loop:
            coro.close()
            raise RuntimeError(
                "a sync Memory was called from inside its own event loop (from an async judge?);"
                " use AsyncMemory there"
            )
        if self._lock.acquire(blocking=False):
            try:
                return self._drive(coro)
            finally:
                self._lock.release()
        return self._join(asyncio.run_coroutine_threadsafe(coro, self._loop))

    def _drive(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._loop.run_until_complete(coro)
        # This thread already runs another loop: drive ours from a helper thread.
        box: list[Any] = []

        def run() -> None:
            try:
                box.append((True, self._loop.run_until_complete(coro)))
            except BaseException as exc:  # handed back to the caller below
                box.append((False, exc))

        helper = threading.Thread(target=run, name="kronograph-memory")
        helper.start()
        helper.join()
        ok, value = box[0]
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]

    def _join(self, future: concurrent.futures.Future[T]) -> T:
        """Wait for work handed to the driving thread; if that thread stops
        driving before the work is done, drive the loop from here."""
        while True:
            try:
                return future.result(timeout=0.05)
            except concurrent.futures.TimeoutError:
                if self._lock.acquire(blocking=False):
                    try:
                        return self._drive(asyncio.wrap_future(future, loop=self._loop))  # type: ignore[arg-type]
                    finally:
                        self._lock.release()

    def close(self) -> None:
        with self._lock:
            if self._loop.is_closed():
                return
            self._drive(self._loop.shutdown_default_executor())
            self._loop.close()
