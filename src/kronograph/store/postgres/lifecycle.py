"""The store's pool across event loops: psycopg's pools belong to the loop
that opened them, and a store outlives loops (a sync Memory's portal, a
test's asyncio.run), so a store used from a new loop opens a new pool and
retires the last one, and a close reaches whichever is open."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from ...errors import ClosedError
from .connection import Connection, Pool, connect

__all__ = ["LoopPool"]


class LoopPool:
    """The pool of the running event loop, opened on first use after
    ``prepare`` (the schema, on one connection of its own) has run. It is
    handed to :meth:`ready`, not kept: kept, it would tie the store into a
    cycle and put off its ``__del__`` to the cycle collector."""

    def __init__(
        self,
        url: str,
        sizes: tuple[int, int],
        *,
        timeout: float,
        prepare_statements: bool,
    ) -> None:
        self._url = url
        self._sizes = sizes
        self._timeout = timeout
        self._prepare_statements = prepare_statements
        self.pool: Pool | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._opening: asyncio.Lock | None = None
        self.closed = False

    async def ready(self, prepare: Callable[[Connection], Awaitable[None]]) -> Pool:
        """The pool of the running event loop (psycopg's pools belong to one
        loop; a store used from a new loop opens a new pool)."""
        if self.closed:
            raise ClosedError("this store is closed")
        loop = asyncio.get_running_loop()
        if self.pool is not None and self._loop is loop:
            return self.pool
        if self._opening is None or self._loop is not loop:
            old, self.pool = self.pool, None
            self._opening, self._loop = asyncio.Lock(), loop
            if old is not None:  # the last loop's pool: closed, not left with its connections open
                await old.retire()
        async with self._opening:
            if self.pool is None:
                async with connect(self._url) as conn:
                    await prepare(conn)
                pool = await Pool.open(
                    self._url, *self._sizes, timeout=self._timeout, prepare=self._prepare_statements
                )
                if self.closed:  # closed while it opened
                    await pool.close()
                    raise ClosedError("this store is closed")
                self.pool = pool
            return self.pool

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        pool, self.pool = self.pool, None
        if pool is not None:
            await pool.retire()

    def release(self) -> None:
        """Dropped without close(): its idle connections go now, not at exit."""
        if self.pool is not None and not self.closed:
            self.pool.release()
