"""Units of work on the SQLite store: several plans in one transaction, with
reads in between that see them. Why its own module: the gate that keeps other
tasks' calls out of an open unit, and the rollback of a unit abandoned by a
dead event loop, are the subtle part of the store's concurrency."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Self, TypeVar

from ...errors import ClosedError, KronographError, StoreError
from ..plan import Plan
from .lifecycle import StoreLifecycle

__all__ = ["UnitOfWork"]

T = TypeVar("T")

# Set while a task runs a unit of work on a store (the store, the unit): its
# calls go straight in, everyone else's wait at the gate until the unit
# commits or rolls back.
_unit_of: ContextVar[tuple[object, object] | None] = ContextVar("kronograph_sqlite_unit", default=None)


class UnitOfWork(StoreLifecycle):
    """The gate every store call passes, and the units of work it guards."""

    _gate: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None
    _unit_plans: list[Plan] | None
    _unit_token: object | None

    if TYPE_CHECKING:  # provided by SQLiteStore: the store's one write

        def _apply(self, conn: sqlite3.Connection, plan: Plan) -> None: ...

        def _committed(self, plan: Plan) -> None: ...

    def _gate_lock(self) -> asyncio.Lock:
        """The lock that keeps calls out of another task's unit of work. One per
        event loop: a store is used from one loop at a time. A unit left open
        by a loop that has stopped (closed with the task pending) can never
        finish: it is rolled back, after whatever the worker is still doing."""
        loop = asyncio.get_running_loop()
        if self._gate is None or self._gate[0] is not loop:
            old, self._gate = self._gate, (loop, asyncio.Lock())
            if old is not None and not old[0].is_running():
                self._abandon(None)
        return self._gate[1]

    def _open_unit(self) -> object | None:
        """The caller's unit of work on this store, if it is in one. Inside a
        unit every other call waits at the gate, so the unit's short local
        calls run inline: no thread hop per read and plan."""
        if self._closed:
            raise ClosedError("this store is closed")
        unit = _unit_of.get()
        return unit[1] if unit is not None and unit[0] is self else None

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        if (unit := self._open_unit()) is not None:
            return self._call(self._in_unit, unit, fn, *args)
        async with self._gate_lock():
            return await self._exec(fn, *args)

    async def _quick(self, fn: Callable[..., T], *args: Any) -> T:
        """A short read of the writer's connection (indexed, a few rows: what
        an episode's ingestion reads): run in the caller's thread when the
        store's thread is idle, which blocks the event loop for that read
        (well under a millisecond) instead of two thread hops, the larger
        cost; queued as any call otherwise. Never a write: a write may wait
        for another process's lock."""
        if (unit := self._open_unit()) is not None:
            return self._call(self._in_unit, unit, fn, *args)
        async with self._gate_lock():
            if self._threaded:
                done, result = self._here(fn, *args)
                if done:
                    return result  # type: ignore[return-value]
            return await self._exec(fn, *args)

    @asynccontextmanager
    async def unit(self, group_id: str, *, after: Plan | None = None) -> AsyncIterator[Self]:
        """One transaction for several plans, with reads in between that see
        the plans already written: what one episode's facts need. Yields this
        store; its calls from within the unit join the transaction, other
        tasks' calls wait until it ends. Nothing in it may wait on a network;
        its calls run on the caller's thread (they are short and local).
        ``after`` is a plan committed on its own just before the unit begins
        (an episode's checkpoint, say), in the same trip to the database."""
        unit = _unit_of.get()
        if unit is not None and unit[0] is self:
            raise StoreError("units of work do not nest")
        if self._closed:
            raise ClosedError("this store is closed")
        async with self._gate_lock():
            mine = object()
            token = _unit_of.set((self, mine))
            try:
                try:
                    await self._exec(self._begin, after, mine)  # may wait for another process's write
                except BaseException:
                    self._abandon(mine)  # cancelled while the worker may still be beginning it
                    raise
                try:
                    yield self
                except BaseException:
                    self._call(self._rollback, mine)
                    raise
                self._call(self._commit, mine)  # the write lock is held: nothing to wait for
            finally:
                _unit_of.reset(token)

    def _begin(self, conn: sqlite3.Connection, after: Plan | None, unit: object) -> None:
        if after is not None:
            self._apply(conn, after)
        conn.execute("BEGIN IMMEDIATE")
        self._unit_plans, self._unit_token = [], unit

    def _in_unit(self, conn: sqlite3.Connection, unit: object, fn: Callable[..., T], *args: Any) -> T:
        if self._unit_token is not unit:  # its transaction is gone: nothing of it may commit alone
            raise StoreError("this unit of work was abandoned and rolled back")
        return fn(conn, *args)

    def _rollback(self, conn: sqlite3.Connection, unit: object | None) -> None:
        """Roll back ``unit``'s transaction (``None``: whichever unit is open),
        if it is still the open one: a unit abandoned on a dead event loop must
        not undo a later unit's work."""
        if self._unit_token is None or (unit is not None and self._unit_token is not unit):
            return
        self._unit_plans = self._unit_token = None
        if conn.in_transaction:
            conn.execute("ROLLBACK")

    def _abandon(self, unit: object | None) -> None:
        """Roll ``unit`` back once the worker is done beginning it (it runs
        calls in order), or now when there is no worker."""
        if self._executor is not None and self._executor.is_alive():
            try:
                self._executor.post(self._call, self._rollback, unit)
                return
            except KronographError:
                pass
        if self._conn is None:
            return
        try:
            self._call(self._rollback, unit)
        except KronographError:
            pass  # closed: the connection went with the store

    def _commit(self, conn: sqlite3.Connection, unit: object) -> None:
        if self._unit_token is not unit:
            raise StoreError("this unit of work was abandoned and rolled back")
        try:
            conn.execute("COMMIT")
        except BaseException:
            self._rollback(conn, unit)
            raise
        self._unit_token = None
        plans, self._unit_plans = self._unit_plans, None
        for plan in plans or ():
            self._committed(plan)
