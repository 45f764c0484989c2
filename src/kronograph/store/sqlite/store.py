"""The embedded SQLite store (the default backend)."""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ..._files import create_private
from ...errors import ClosedError, KronographError, StoreError
from ...model import AuditEvent, Community, Entity, Episode, Fact, FactChange, FactSource
from ...time import to_micros
from ..plan import Plan
from ..protocol import FactQuery
from ..records import EntityMatch, EpisodeProgress, FactRecord, HealthScan, Neighbourhood, SagaCount, SagaState
from ..text_scan import Erasure, TextHit
from . import community_reads, health_reads, ingest_reads, purge, queue_rows, reads, saga_reads, search_reads
from .entity_cache import EntityCache
from .schema import migrate
from .vectors import VectorIndex
from .writes import apply_plan, write_plan

__all__ = ["SQLiteStore"]

T = TypeVar("T")

# Set while a task runs a unit of work on a store (the store, the unit): its
# calls go straight in, everyone else's wait at the gate until the unit
# commits or rolls back.
_unit_of: ContextVar[tuple[object, object] | None] = ContextVar("kronograph_sqlite_unit", default=None)


class _Checkpointer(threading.Thread):
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


class _Worker(threading.Thread):
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
            self._queue.put(item)

    def stop(self, *, wait: bool = True) -> None:
        with self._door:
            self._stopped = True
            if self._accepting:
                self._accepting = False
                self._queue.put(None)
        if wait and self is not threading.current_thread():
            self.join()


class SQLiteStore:
    """A memory in one SQLite file (or in RAM with ``":memory:"``).

    WAL journal, foreign keys on, ``synchronous=NORMAL`` (a power cut may lose
    the last commits, never corrupt them; pass ``synchronous="FULL"`` to fsync
    each one). ``threaded=True`` runs every call on one private thread so an
    event loop is never blocked; ``threaded=False`` runs calls inline, for an
    owner that runs its own private loop (the sync ``Memory`` does).
    """

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        threaded: bool = True,
        timeout: float = 10.0,
        synchronous: str = "NORMAL",
    ) -> None:
        if synchronous.upper() not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, not {synchronous!r}")
        self.path = str(path)
        self._timeout = timeout
        self._synchronous = synchronous.upper()
        self._threaded = threaded
        self._executor: _Worker | None = None  # started by the first call, not here
        self._lock = threading.Lock()  # held while a call runs on the connection
        self._starting = threading.Lock()  # held while the worker thread starts
        self._conn: sqlite3.Connection | None = None
        self._checkpointer: _Checkpointer | None = None
        self._entity_cache = EntityCache()
        self._vectors = VectorIndex()
        self._query_words = search_reads.QueryWords()
        self._closed = False
        self._gate: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None
        self._unit_plans: list[Plan] | None = None  # plans written by the open unit of work
        self._unit_token: object | None = None  # which unit of work the open transaction is

    @classmethod
    def from_url(cls, url: str, **options: Any) -> SQLiteStore:
        """``sqlite:///relative.db``, ``sqlite:////absolute.db`` or ``sqlite://:memory:``."""
        if not url.startswith("sqlite://"):
            raise ValueError(f"not a sqlite URL: {url!r}")
        rest = url[len("sqlite://") :]
        if rest in ("", "/", ":memory:", "/:memory:"):
            return cls(":memory:", **options)
        if not rest.startswith("/"):
            raise ValueError(f"a sqlite URL needs three slashes before the path: {url!r}")
        return cls(rest[1:], **options)

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"

    # -- plumbing --------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self.path not in (":memory:", ""):
            with contextlib.suppress(OSError):  # e.g. no such directory: sqlite3 says so below
                create_private(self.path)  # a new database (and so its -wal and -shm) is the owner's only
        conn = sqlite3.connect(
            self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False
        )
        try:
            self._configure(conn)
        except BaseException:
            conn.close()  # a database that cannot be opened leaves no file handle behind
            raise
        return conn

    def _configure(self, conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA busy_timeout = {int(self._timeout * 1000)}")
        if self.path != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(f"PRAGMA synchronous = {self._synchronous}")
        # A 64 MiB page cache (the default is 2 MiB) and a WAL checkpointed every
        # ~40 MB instead of ~4 MB: far fewer cache misses and fsyncs per write.
        conn.execute("PRAGMA cache_size = -65536")
        conn.execute("PRAGMA journal_size_limit = 67108864")
        if self.path != ":memory:":
            # Checkpoints (copying the WAL back, with two fsyncs) run on a thread
            # of their own; the writer's own checkpoint at 20,000 pages is a backstop.
            conn.execute("PRAGMA wal_autocheckpoint = 20000")
        purge.register_functions(conn)
        migrate(conn)
        if self.path != ":memory:" and self._checkpointer is None:
            self._checkpointer = _Checkpointer(self.path, self._timeout)
            self._checkpointer.start()

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        with self._lock:
            if self._closed:
                raise ClosedError("this store is closed")
            if self._conn is None:
                try:
                    self._conn = self._connect()
                except sqlite3.Error as exc:
                    raise StoreError(f"cannot open SQLite database {self.path!r}: {exc}") from exc
            try:
                return fn(self._conn, *args)
            except KronographError:
                raise
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite error on {self.path!r}: {exc}") from exc

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

    def _worker(self) -> _Worker:
        """The store's thread, started by its first call (a store made and
        dropped, or refused by a caller's checks, never starts one)."""
        with self._starting:
            if self._closed:
                raise ClosedError("this store is closed")
            if self._executor is None:
                self._executor = _Worker()
                self._executor.start()
            return self._executor

    async def _exec(self, fn: Callable[..., T], *args: Any) -> T:
        if not self._threaded:
            return self._call(fn, *args)
        return await self._worker().call(self._call, fn, *args)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        if self._closed:
            raise ClosedError("this store is closed")
        unit = _unit_of.get()
        if unit is not None and unit[0] is self:
            # Inside a unit of work every other call waits at the gate, so its
            # short local calls run inline: no thread hop per read and plan.
            return self._call(self._in_unit, unit[1], fn, *args)
        async with self._gate_lock():
            return await self._exec(fn, *args)

    @asynccontextmanager
    async def unit(self, group_id: str, *, after: Plan | None = None) -> AsyncIterator[SQLiteStore]:
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
            self._entity_cache.applied(plan)
            self._vectors.applied(plan)

    async def open(self) -> None:
        await self._run(lambda conn: None)

    async def close(self) -> None:
        if self._closed:
            return
        worker = self._executor
        if worker is None or not worker.is_alive():
            self._shut()
            return
        try:
            await worker.call(self._shut)  # after the calls already queued
        except KronographError:  # the worker stopped meanwhile
            self._shut()
        finally:
            worker.stop()

    def _shut(self, *, wait: bool = True) -> None:
        with self._lock:
            self._closed = True
            if self._checkpointer is not None:
                self._checkpointer.stop(wait=wait)
            if self._conn is not None:
                try:  # refresh the planner's statistics where they are stale
                    self._conn.execute("PRAGMA optimize")
                except sqlite3.Error:
                    pass
                self._conn.close()
                self._conn = None

    def __del__(self) -> None:
        # Dropped without close(): release the thread, the checkpointer and the
        # file now rather than at exit. (The memory that owned it warns.)
        if getattr(self, "_closed", True):
            return
        if self._executor is not None:
            self._executor.stop(wait=False)
        if self._lock.acquire(blocking=False):  # never taken while a call runs: a store in use is not garbage
            self._lock.release()
            self._shut(wait=False)

    # -- reads -----------------------------------------------------------------
    def _revision(self, conn: sqlite3.Connection, group_id: str) -> int:
        """The group's own counter, moved by every plan committed to it (by
        any connection, in the plan's transaction): a write to another group
        never makes a plan of this one stale. (``data_version`` still guards
        the caches, which any commit may invalidate.)"""
        return reads.revision(conn, group_id)

    async def groups(self) -> list[str]:
        def read(conn: sqlite3.Connection) -> list[str]:
            return [g for (g,) in conn.execute("SELECT group_id FROM groups ORDER BY group_id")]

        return await self._run(read)

    async def revision(self, group_id: str) -> int:
        return await self._run(self._revision, group_id)

    async def episode(self, group_id: str, episode_id: str) -> Episode | None:
        return await self._run(reads.episode, group_id, episode_id)

    async def entities_named(self, group_id: str, name_keys: Collection[str]) -> list[Entity]:
        return await self._run(self._entities_named, group_id, name_keys)

    def _entities_named(self, conn: sqlite3.Connection, group_id: str, name_keys: Collection[str]) -> list[Entity]:
        if self._unit_plans is not None:  # inside a unit: uncommitted entities are not cached
            return reads.entities_named(conn, group_id, name_keys)
        self._entity_cache.check(int(conn.execute("PRAGMA data_version").fetchone()[0]))
        found, missing = self._entity_cache.lookup(group_id, name_keys)
        if missing:
            loaded = reads.entities_named(conn, group_id, missing)
            self._entity_cache.fill(group_id, missing, loaded)
            found.extend(loaded)
        return found

    async def fact_candidates(
        self,
        group_id: str,
        subject_uuid: str,
        object_uuid: str,
        relation_key: str,
        *,
        sides: Collection[str] = ("subject", "object"),
        either_end: bool = True,
        whole_pair: bool = True,
        around: datetime,
        limit: int = 50,
    ) -> list[FactRecord]:
        return await self._run(
            reads.fact_candidates,
            group_id, subject_uuid, object_uuid, relation_key, sides, either_end, whole_pair, around, limit,
        )

    async def conflict_neighbourhood(
        self, group_id: str, seeds: Collection[str], depth: int = 2
    ) -> Neighbourhood:
        return await self._run(reads.conflict_neighbourhood, group_id, seeds, depth)

    async def facts_citing(self, group_id: str, episode_id: str) -> list[FactRecord]:
        return await self._run(reads.facts_citing, group_id, episode_id)

    async def mentioned_entities(self, group_id: str, episode_id: str) -> list[str]:
        return await self._run(reads.mentioned_entities, group_id, episode_id)

    async def entity_references(
        self, group_id: str, entity_uuids: Collection[str]
    ) -> dict[str, tuple[set[str], set[str]]]:
        return await self._run(reads.entity_references, group_id, entity_uuids)

    async def facts(self, group_id: str, query: FactQuery) -> list[Fact]:
        return await self._run(reads.facts, group_id, query)

    async def timeline(self, group_id: str, entity_key: str, relation_key: str | None) -> list[Fact]:
        return await self._run(reads.timeline, group_id, entity_key, relation_key)

    async def entities(
        self, group_id: str, *, name_key: str | None = None, label: str | None = None
    ) -> list[Entity]:
        return await self._run(reads.entities, group_id, name_key, label)

    async def current_edges(self, group_id: str, at: datetime) -> list[tuple[str, str, str]]:
        return await self._run(community_reads.current_edges, group_id, at)

    async def communities(self, group_id: str, uuids: Collection[str] | None = None) -> list[Community]:
        return await self._run(community_reads.communities, group_id, uuids)

    async def summary_states(
        self, group_id: str, *, uuids: Collection[str] | None = None, stale_only: bool = True,
        after: str | None = None, limit: int = 500,
    ) -> list[tuple[Entity, int]]:
        return await self._run(reads.summary_states, group_id, uuids, stale_only, after, limit)

    async def episodes(self, group_id: str, status: str | None = None) -> list[Episode]:
        return await self._run(ingest_reads.episodes, group_id, status)

    async def saga_state(self, group_id: str, saga: str) -> SagaState | None:
        return await self._run(saga_reads.saga_state, group_id, saga)

    async def saga_bound(self, group_id: str, saga: str) -> tuple[datetime, str] | None:
        return await self._run(saga_reads.saga_bound, group_id, saga)

    async def saga_episodes(
        self, group_id: str, saga: str, *, after: tuple[datetime, str] | None, upto: tuple[datetime, str],
        limit: int,
    ) -> list[Episode]:
        return await self._run(saga_reads.saga_episodes, group_id, saga, after, upto, limit)

    async def saga_lags(self, group_id: str) -> list[SagaCount]:
        return await self._run(saga_reads.saga_lags, group_id)

    async def episode_progress(self, group_id: str, episode_id: str) -> EpisodeProgress | None:
        return await self._run(ingest_reads.episode_progress, group_id, episode_id)

    async def register_episode(self, plan: Plan, episode_id: str) -> EpisodeProgress | None:
        """Where the episode got to, or, when it is new, apply ``plan`` (which
        records it) and return None: one trip to the database."""

        def register(conn: sqlite3.Connection) -> EpisodeProgress | None:
            conn.execute("BEGIN IMMEDIATE")  # read and write as one: no other writer between them
            try:
                found = ingest_reads.episode_progress(conn, plan.group_id, episode_id)
                if found is None:
                    write_plan(conn, plan)
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            if found is None:
                self._entity_cache.applied(plan)
                self._vectors.applied(plan)
            return found

        return await self._run(register)

    async def queued_groups(self, limit: int = 100) -> list[str]:
        return await self._run(queue_rows.queued_groups, limit)

    async def claim_queued(
        self, group_id: str, owner: str, until: datetime, now: datetime
    ) -> EpisodeProgress | None:
        return await self._run(queue_rows.claim_queued, group_id, owner, until, now)

    async def claim_episode(
        self, group_id: str, episode_id: str, statuses: Collection[str], owner: str, until: datetime, now: datetime
    ) -> EpisodeProgress | None:
        return await self._run(queue_rows.claim_episode, group_id, episode_id, statuses, owner, until, now)

    async def extend_leases(self, group_id: str, episode_ids: Collection[str], owner: str, until: datetime) -> int:
        return await self._run(queue_rows.extend_leases, group_id, episode_ids, owner, until)

    async def held_episodes(self, now: datetime) -> list[Episode]:
        return await self._run(queue_rows.held_episodes, now)

    async def episode_counts(self) -> dict[str, int]:
        return await self._run(queue_rows.episode_counts)

    async def cached_reply_keys(self, group_id: str) -> set[str]:
        return await self._run(ingest_reads.cached_reply_keys, group_id)

    async def unfinished_episodes(self, statuses: Collection[str]) -> list[tuple[str, str, str, datetime]]:
        return await self._run(ingest_reads.unfinished_episodes, statuses)

    async def context_episodes(
        self,
        group_id: str,
        *,
        before: datetime,
        exclude: str,
        limit: int,
        saga: str | None = None,
        ids: Collection[str] | None = None,
    ) -> list[Episode]:
        return await self._run(
            lambda conn: ingest_reads.context_episodes(
                conn, group_id, before=before, exclude=exclude, limit=limit, saga=saga, ids=ids
            )
        )

    async def entity_matches(
        self, group_id: str, names: Collection[str], limit: int = 10
    ) -> dict[str, list[EntityMatch]]:
        return await self._run(ingest_reads.entity_matches, group_id, names, limit)

    async def entities_by_uuid(self, group_id: str, uuids: Collection[str]) -> list[Entity]:
        return await self._run(ingest_reads.entities_by_uuid, group_id, uuids)

    async def fact_sources(self, group_id: str, fact_uuid: str) -> list[FactSource]:
        return await self._run(ingest_reads.fact_sources, group_id, fact_uuid)

    # -- search ------------------------------------------------------------------
    async def search_text(
        self,
        group_id: str,
        scope: str,
        query: str,
        limit: int,
        *,
        episodes_before: datetime | None = None,
        episodes_known_at: datetime | None = None,
    ) -> list[tuple[str, float]]:
        return await self._run(
            search_reads.text_search, scope, group_id, query, limit, episodes_before, episodes_known_at,
            self._query_words,
        )

    async def search_vectors(
        self, group_id: str, scope: str, vector: np.ndarray, limit: int
    ) -> list[tuple[str, float]]:
        def search(conn: sqlite3.Connection) -> list[tuple[str, float]]:
            self._vectors.check(int(conn.execute("PRAGMA data_version").fetchone()[0]))
            return self._vectors.table(conn, scope, group_id).top(vector, limit)

        return await self._run(search)

    async def item_vectors(self, group_id: str, scope: str, uuids: Collection[str]) -> dict[str, np.ndarray]:
        def read(conn: sqlite3.Connection) -> dict[str, np.ndarray]:
            self._vectors.check(int(conn.execute("PRAGMA data_version").fetchone()[0]))
            return self._vectors.table(conn, scope, group_id).rows(list(uuids))

        return await self._run(read)

    async def neighbours(
        self, group_id: str, entity_uuids: Collection[str], at: datetime | None = None
    ) -> dict[str, set[str]]:
        return await self._run(search_reads.neighbours, group_id, entity_uuids, at)

    async def reachable(
        self, group_id: str, seeds: Collection[str], depth: int, at: datetime | None = None
    ) -> dict[str, int]:
        return await self._run(search_reads.reachable, group_id, seeds, depth, at)

    async def touching_facts(
        self, group_id: str, entity_uuids: Collection[str], limit: int, at: datetime | None = None
    ) -> list[tuple[str, str, str]]:
        return await self._run(search_reads.touching_facts, group_id, entity_uuids, limit, at)

    async def search_current_facts(
        self, group_id: str, query: str, limit: int, at: datetime
    ) -> tuple[list[tuple[str, float]], int, bool]:
        return await self._run(search_reads.current_facts_search, group_id, query, limit, at, self._query_words)

    async def entities_known_by(self, group_id: str, uuids: Collection[str], at: datetime) -> set[str]:
        return await self._run(search_reads.entities_known_by, group_id, uuids, at)

    async def mention_counts(self, group_id: str, scope: str, uuids: Collection[str]) -> dict[str, int]:
        return await self._run(search_reads.mention_counts, scope, group_id, uuids)

    async def episodes_by_uuid(self, group_id: str, uuids: Collection[str]) -> list[Episode]:
        return await self._run(search_reads.episodes_by_uuid, group_id, uuids)

    async def episode_neighbours(self, group_id: str, uuids: Collection[str]) -> dict[str, tuple[str, ...]]:
        return await self._run(search_reads.episode_neighbours, group_id, uuids)

    # -- store-wide small writes (outside plans: they decide nothing) ---------
    async def cached_reply(self, group_id: str, key: str) -> str | None:
        return await self._run(ingest_reads.cached_reply, group_id, key)

    async def cache_reply(self, group_id: str, key: str, model: str, reply: str, at: datetime) -> None:
        def put(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT OR REPLACE INTO model_replies(group_id, key, model, reply, created_at) VALUES (?,?,?,?,?)",
                (group_id, key, model, reply, to_micros(at)),
            )

        await self._run(put)

    async def setting(self, key: str) -> str | None:
        return await self._run(ingest_reads.setting, key)

    async def claim_setting(self, key: str, value: str) -> str:
        """Record ``value`` unless the key has one already; returns the value kept."""

        def claim(conn: sqlite3.Connection) -> str:
            conn.execute("INSERT OR IGNORE INTO store_settings(key, value) VALUES (?, ?)", (key, value))
            return ingest_reads.setting(conn, key) or value

        return await self._run(claim)

    async def history(self, group_id: str, fact_uuid: str) -> list[FactChange]:
        return await self._run(reads.history, group_id, fact_uuid)

    async def health_scan(self, group_id: str) -> HealthScan:
        return await self._run(health_reads.health_scan, group_id)

    async def audit_events(self, group_id: str) -> list[AuditEvent]:
        return await self._run(reads.audit_events, group_id)

    async def text_occurrences(self, group_id: str, needles: Collection[str]) -> list[TextHit]:
        return await self._run(purge.text_occurrences, group_id, needles)

    async def episode_replies(self, group_id: str, episode_ids: Collection[str]) -> list[str]:
        return await self._run(purge.episode_replies, group_id, episode_ids)

    async def erase_traces(self, group_id: str) -> Erasure:
        return await self._run(purge.erase_traces, group_id)

    async def pending_erasure(self, group_id: str) -> bool:
        return await self._run(purge.pending_erasure, group_id)

    # -- the one write ---------------------------------------------------------
    async def apply(self, plan: Plan) -> None:
        await self._run(self._apply, plan)

    def _apply(self, conn: sqlite3.Connection, plan: Plan) -> None:
        if self._unit_plans is not None:  # inside a unit: its reads already saw the latest state
            write_plan(conn, plan)
            self._unit_plans.append(plan)
            return
        if plan.purge is not None:
            with purge.secure_delete(conn):
                apply_plan(conn, plan, lambda c: self._revision(c, plan.group_id))
        else:
            apply_plan(conn, plan, lambda c: self._revision(c, plan.group_id))
        self._entity_cache.applied(plan)
        self._vectors.applied(plan)


