"""Retrying transient model and embedding failures: exponential backoff with
full jitter (so that many clients hit by one rate limit do not return in
step), honouring the server's ``Retry-After`` when it sends one."""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from ..errors import TransientModelError

__all__ = ["Backoff", "retry_after_seconds"]

T = TypeVar("T")
log = logging.getLogger("kronograph")


@dataclass(frozen=True, slots=True)
class Backoff:
    """How to retry: ``max_attempts`` tries in all, the n-th wait drawn
    uniformly from ``[0, min(max_delay, base_delay * 2**n)]`` unless the server
    asked for a wait (capped at ``max_delay``)."""

    max_attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 30.0
    sleep: Callable[[float], Awaitable[object]] = field(default=asyncio.sleep)
    rng: Callable[[], float] = field(default=random.random)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed try number ``attempt`` (0-based)."""
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_delay)
        return self.rng() * min(self.max_delay, self.base_delay * (2**attempt))

    async def run(self, call: Callable[[], Awaitable[T]], *, what: str = "model call") -> T:
        """Await ``call()`` until it does not raise
        :class:`~kronograph.errors.TransientModelError`; after ``max_attempts``
        tries the last such error propagates."""
        attempts = max(1, self.max_attempts)
        for attempt in range(attempts):
            try:
                return await call()
            except TransientModelError as exc:
                if attempt == attempts - 1:
                    raise
                wait = self.delay(attempt, exc.retry_after)
                log.debug("kronograph: %s failed (%s), retry %d/%d in %.2fs", what, exc, attempt + 1,
                          attempts - 1, wait)
                await self.sleep(wait)
        raise AssertionError("unreachable")


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The server's requested wait from ``retry-after-ms`` or ``retry-after``
    (seconds or an HTTP date); ``None`` when absent or unreadable."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
