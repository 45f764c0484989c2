"""Retrying a unit of work when another process wrote the group meanwhile."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from .errors import ConcurrentWriteError

T = TypeVar("T")

ATTEMPTS = 20


async def retry_on_conflict(work: Callable[[], Awaitable[T]], attempts: int = ATTEMPTS) -> T:
    """Run ``work`` again (reads, decisions and all) while the store refuses its
    plan as stale; back off a little, with jitter, between tries."""
    for attempt in range(attempts):
        try:
            return await work()
        except ConcurrentWriteError:
            if attempt == attempts - 1:
                raise
            await asyncio.sleep(random.uniform(0, 0.002 * (attempt + 1)))
    raise AssertionError("unreachable")
