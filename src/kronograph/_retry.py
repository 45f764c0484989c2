"""Retrying a unit of work when another process wrote the group meanwhile."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from .errors import ConcurrentWriteError
from .metrics import record_redo

T = TypeVar("T")

ATTEMPTS = 20


async def retry_on_conflict(
    work: Callable[[], Awaitable[T]], attempts: int = ATTEMPTS, *, kind: str = "write",
    hold: asyncio.Lock | None = None,
) -> T:
    """Run ``work`` again (reads, decisions and all) while the store refuses its
    plan as stale; back off a little, with jitter, between tries. ``hold``
    (the group's write lock) is held for each try, never through a backoff."""
    for attempt in range(attempts):
        try:
            if hold is None:
                return await work()
            async with hold:
                return await work()
        except ConcurrentWriteError:
            if attempt == attempts - 1:
                raise
            record_redo(kind)
            await asyncio.sleep(random.uniform(0, 0.002 * (attempt + 1)))
    raise AssertionError("unreachable")
