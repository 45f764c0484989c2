"""One object per event loop, for things that bind to the loop that first
uses them (semaphores, SDK clients holding connection pools): a client shared
by threads that each run their own loop must not hand one loop's object to
another."""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["LoopLocal"]

T = TypeVar("T")


class LoopLocal(Generic[T]):
    """Lazily makes one ``T`` per running event loop; forgets it with the loop."""

    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self) -> T:
        """The running loop's object (call from a coroutine)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            value = self._by_loop.get(loop)
            if value is None:
                # an object that holds its loop keeps the weak key alive: drop closed loops by hand
                for old in [other for other in self._by_loop if other.is_closed()]:
                    del self._by_loop[old]
                value = self._factory()
                self._by_loop[loop] = value
            return value

    def __len__(self) -> int:
        with self._lock:
            return len(self._by_loop)

    def pop_current(self) -> T | None:
        """Forget and return the running loop's object, if it made one."""
        loop = asyncio.get_running_loop()
        with self._lock:
            return self._by_loop.pop(loop, None)
