"""The embedded SQLite store (the default backend): what it stores and reads.
Its threads (worker.py, readers.py), connection lifecycle (lifecycle.py) and
units of work (unit.py) live in sibling modules; which calls are pure reads
(answered by the readers) is said here, by ``_read`` against ``_run``."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Collection, Coroutine, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from ...erasure import ErasureReceipt
from ...model import AuditEvent, Community, Entity, Episode, Fact, FactChange, FactSource
from ...time import to_micros
from ..change_rows import ChangeWindow, StoredChange
from ..plan import Plan
from ..protocol import FactQuery
from ..records import (
    CandidateAsk,
    ContradictionRecord,
    EntityMatch,
    EpisodeProgress,
    FactRecord,
    HealthScan,
    Neighbourhood,
    SagaCount,
    SagaState,
)
from ..text_scan import Erasure, TextHit
from . import (
    community_reads,
    contradiction_reads,
    erasure_reads,
    group_text,
    health_reads,
    ingest_reads,
    overview_reads,
    purge,
    queue_rows,
    reads,
    saga_reads,
)
from .entity_cache import EntityCache
from .group_key import Snapshot, group_key
from .one_read import Bound, drive
from .readers import Memos
from .search_calls import SearchCalls
from .unit import UnitOfWork, _unit_of
from .vectors import VectorIndex
from .worker import Checkpointer as _Checkpointer  # noqa: F401  (re-exported: tests use the old names)
from .worker import Worker as _Worker  # noqa: F401
from .writes import apply_plan, write_plan

__all__ = ["SQLiteStore"]

T = TypeVar("T")


class SQLiteStore(SearchCalls, UnitOfWork):
    """A memory in one SQLite file (or in RAM with ``":memory:"``).

    WAL journal, foreign keys on, ``synchronous=NORMAL`` (a power cut may lose
    the last commits, never corrupt them; pass ``synchronous="FULL"`` to fsync
    each one). ``threaded=True`` runs every write (and every read inside a
    unit of work) on one private thread so an event loop is never blocked, and
    pure reads on ``readers`` threads of their own, each with its own
    connection: a read never waits behind a unit of work or another read.
    ``threaded=False`` runs calls inline, for an owner that runs its own
    private loop (the sync ``Memory`` does). A ``":memory:"`` store has no
    readers: another connection would open another, empty, database.
    """

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        threaded: bool = True,
        timeout: float = 10.0,
        synchronous: str = "NORMAL",
        readers: int = 4,
    ) -> None:
        if readers < 0:
            raise ValueError(f"readers must be 0 or more, not {readers}")
        if synchronous.upper() not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, not {synchronous!r}")
        self.path = str(path)
        self._timeout = timeout
        self._synchronous = synchronous.upper()
        self._threaded = threaded
        self._executor = None  # started by the first call, not here
        self._lock = threading.Lock()  # held while a call runs on the connection
        self._starting = threading.Lock()  # held while the worker thread starts
        self._conn = None
        self._checkpointer = None
        self._entity_cache = EntityCache()
        self._vectors = VectorIndex(self.path)  # saved beside a file-backed store (vector_files.py)
        self._vector_mutex = threading.Lock()  # around the two below (the index locks each group itself)
        self._vector_epoch = 0  # moved to empty the index (check())
        self._vector_keys: dict[str, tuple[int, int]] = {}  # the group keys the held tables are true at
        self._writer_version: int | None = None  # the writer's data_version when it last looked
        self._bound = Bound()  # the connection in_one_read answers this thread's reads on
        self._memos = Memos()  # the writer's connection's (each reader has its own)
        self._purged: list[str] = []  # groups forgotten by the plans just committed
        self._readers = readers
        self._pool = None
        self._closed = False
        self._gate = None
        self._unit_plans = None  # plans written by the open unit of work
        self._unit_token = None  # which unit of work the open transaction is

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

    @property
    def read_only(self) -> bool:
        """Never: a SQLite store is always its own writer."""
        return False

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

        return await self._run(read)  # on the writer: a cheap read, and the one its health is checked by

    async def revision(self, group_id: str) -> int:
        return await self._quick(self._revision, group_id)

    async def episode(self, group_id: str, episode_id: str) -> Episode | None:
        return await self._read(reads.episode, group_id, episode_id)

    async def entities_named(self, group_id: str, name_keys: Collection[str]) -> list[Entity]:
        return await self._read(self._entities_named, group_id, name_keys)

    def _entities_named(self, conn: sqlite3.Connection, group_id: str, name_keys: Collection[str]) -> list[Entity]:
        # The cache follows the writer's commits: a reader's snapshot reads the
        # rows (one indexed query); inside a unit that wrote, its uncommitted
        # entities are not cached (one that has only read may use the cache).
        if self._unit_plans or isinstance(conn, Snapshot):
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
        return await self._quick(
            reads.fact_candidates,
            group_id, subject_uuid, object_uuid, relation_key, sides, either_end, whole_pair, around, limit,
        )

    async def conflict_neighbourhood(
        self, group_id: str, seeds: Collection[str], depth: int = 2
    ) -> Neighbourhood:
        return await self._quick(reads.conflict_neighbourhood, group_id, seeds, depth)

    async def conflict_links(self, group_id: str, uuids: Collection[str]) -> dict[str, set[str]]:
        return await self._run(reads.conflict_links, group_id, uuids)

    async def facts_citing(self, group_id: str, episode_id: str) -> list[FactRecord]:
        return await self._run(reads.facts_citing, group_id, episode_id)

    async def mentioned_entities(self, group_id: str, episode_id: str) -> list[str]:
        return await self._run(reads.mentioned_entities, group_id, episode_id)

    async def entity_references(
        self, group_id: str, entity_uuids: Collection[str]
    ) -> dict[str, tuple[set[str], set[str]]]:
        return await self._run(reads.entity_references, group_id, entity_uuids)

    async def facts(self, group_id: str, query: FactQuery) -> list[Fact]:
        return await self._read(reads.facts, group_id, query)

    async def timeline(self, group_id: str, entity_key: str, relation_key: str | None) -> list[Fact]:
        return await self._read(reads.timeline, group_id, entity_key, relation_key)

    async def entities(
        self, group_id: str, *, name_key: str | None = None, label: str | None = None
    ) -> list[Entity]:
        return await self._read(reads.entities, group_id, name_key, label)

    async def contradictions(
        self, group_id: str, *, fact_uuids: Collection[str] | None = None, open_only: bool = True, at: datetime
    ) -> list[ContradictionRecord]:
        return await self._read(contradiction_reads.contradictions, group_id, fact_uuids, open_only, at)

    async def episode_statuses(self, group_id: str) -> dict[str, int]:
        return await self._read(overview_reads.episode_statuses, group_id)

    async def latest_episodes(self, group_id: str, limit: int) -> list[Episode]:
        return await self._read(overview_reads.latest_episodes, group_id, limit)

    async def overview_counts(self, group_id: str, at: datetime) -> tuple[int, int, int, int]:
        return await self._read(overview_reads.fact_counts, group_id, at)

    async def most_connected(self, group_id: str, at: datetime, limit: int) -> list[tuple[str, str, int]]:
        return await self._read(overview_reads.connected, group_id, at, limit)

    async def open_contradiction_count(self, group_id: str, at: datetime) -> int:
        return await self._read(contradiction_reads.open_contradiction_count, group_id, at)

    async def current_edges(self, group_id: str, at: datetime) -> list[tuple[str, str, str]]:
        return await self._read(community_reads.current_edges, group_id, at)

    async def communities(self, group_id: str, uuids: Collection[str] | None = None) -> list[Community]:
        return await self._read(community_reads.communities, group_id, uuids)

    async def summary_states(
        self, group_id: str, *, uuids: Collection[str] | None = None, stale_only: bool = True,
        after: str | None = None, limit: int = 500,
    ) -> list[tuple[Entity, int]]:
        return await self._read(reads.summary_states, group_id, uuids, stale_only, after, limit)

    async def episodes(self, group_id: str, status: str | None = None) -> list[Episode]:
        return await self._read(ingest_reads.episodes, group_id, status)

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
        return await self._quick(ingest_reads.episode_progress, group_id, episode_id)

    async def register_episode(self, plan: Plan, episode_id: str) -> EpisodeProgress | None:
        """Where the episode got to, or, when it is new, apply ``plan`` (which
        records it) and return None: one trip to the database."""

        def register(conn: sqlite3.Connection) -> EpisodeProgress | None:
            with self._vectors.holding((plan.group_id,)):  # no reader loads its vectors before they follow
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
                    self._committed(plan)
                    self._follow(conn, (plan.group_id,))
            self._drop_purged()
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
        return await self._quick(
            lambda conn: ingest_reads.context_episodes(
                conn, group_id, before=before, exclude=exclude, limit=limit, saga=saga, ids=ids
            )
        )

    async def entity_matches(
        self, group_id: str, names: Collection[str], limit: int = 10
    ) -> dict[str, list[EntityMatch]]:
        return await self._quick(ingest_reads.entity_matches, group_id, names, limit)

    async def entities_aliased(self, group_id: str, alias_keys: Collection[str]) -> list[Entity]:
        return await self._quick(ingest_reads.entities_aliased, group_id, alias_keys)

    async def entities_by_uuid(self, group_id: str, uuids: Collection[str]) -> list[Entity]:
        def read(conn: sqlite3.Connection) -> list[Entity]:
            return self._memos_of(conn).entities.read(
                conn, group_id, uuids, lambda keys: ingest_reads.entities_by_uuid(conn, group_id, keys)
            )

        return await self._read(read)

    async def fact_candidates_each(self, group_id: str, asks: Sequence[CandidateAsk]) -> list[list[FactRecord]]:
        return [
            await self.fact_candidates(
                group_id, a.subject_uuid, a.object_uuid, a.relation_key, sides=a.sides, either_end=a.either_end,
                whole_pair=a.whole_pair, around=a.around, limit=a.limit,
            )
            for a in asks
        ]

    async def entities_named_and_listed(
        self, group_id: str, name_keys: Collection[str], uuids: Collection[str]
    ) -> tuple[list[Entity], list[Entity]]:
        named = await self.entities_named(group_id, name_keys)
        return named, (await self.entities_by_uuid(group_id, uuids) if uuids else [])

    async def fact_sources(self, group_id: str, fact_uuid: str) -> list[FactSource]:
        return await self._read(ingest_reads.fact_sources, group_id, fact_uuid)

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

    async def group_settings(self, group_id: str) -> dict[str, Any]:
        return await self._run(ingest_reads.group_settings, group_id)

    async def setting(self, key: str) -> str | None:
        return await self._run(ingest_reads.setting, key)

    async def claim_setting(self, key: str, value: str) -> str:
        """Record ``value`` unless the key has one already; returns the value kept."""

        def claim(conn: sqlite3.Connection) -> str:
            conn.execute("INSERT OR IGNORE INTO store_settings(key, value) VALUES (?, ?)", (key, value))
            return ingest_reads.setting(conn, key) or value

        return await self._run(claim)

    async def history(self, group_id: str, fact_uuid: str) -> list[FactChange]:
        return await self._read(reads.history, group_id, fact_uuid)

    async def changes(self, group_id: str, window: ChangeWindow) -> list[StoredChange]:
        return await self._read(reads.changes, group_id, window)

    async def health_scan(self, group_id: str) -> HealthScan:
        return await self._read(health_reads.health_scan, group_id)

    async def audit_events(self, group_id: str) -> list[AuditEvent]:
        return await self._read(reads.audit_events, group_id)

    async def text_occurrences(self, group_id: str, needles: Collection[str]) -> list[TextHit]:
        return await self._run(purge.text_occurrences, group_id, needles)

    async def episode_replies(self, group_id: str, episode_ids: Collection[str]) -> list[str]:
        return await self._run(purge.episode_replies, group_id, episode_ids)

    async def data_subject_items(self, group_id: str, key: str) -> tuple[list[str], list[str]]:
        return await self._read(erasure_reads.data_subject_items, group_id, key)

    async def erasures(
        self, group_id: str, request_id: str | None = None, *, last_only: bool = False
    ) -> list[ErasureReceipt]:
        return await self._read(erasure_reads.erasures, group_id, request_id, last_only)

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
        with self._vectors.holding((plan.group_id,)):  # no reader loads its vectors before they follow the commit
            if plan.purge is not None:
                with purge.secure_delete(conn):
                    apply_plan(conn, plan, lambda c: self._revision(c, plan.group_id))
            else:
                apply_plan(conn, plan, lambda c: self._revision(c, plan.group_id))
            self._committed(plan)
            self._follow(conn, (plan.group_id,))
        self._drop_purged()

    def _commit(self, conn: sqlite3.Connection, unit: object) -> None:
        groups = {plan.group_id for plan in self._unit_plans or ()}
        with self._vectors.holding(groups):
            super()._commit(conn, unit)
            self._follow(conn, groups)
        self._drop_purged()

    def _shut(self, *, wait: bool = True) -> None:
        """Save the vector tables changed since they were read (beside the
        file), then close: the next process opens them without the rows."""
        if not self._closed and self._lock.acquire(timeout=self._timeout):
            try:
                self._vectors.save()  # each group's tables under its lock
            except Exception:  # noqa: BLE001  (best effort: a table not saved is repaired from the rows)
                pass
            finally:
                self._lock.release()
        super()._shut(wait=wait)

    def _committed(self, plan: Plan) -> None:
        """Keep what is held in memory in step with a plan just committed (on
        the writer, the group's vectors held). A purge (forget) also drops what
        search kept of the group, so no forgotten name stays in the process
        (the rest goes when the group's revision is next read): once the
        lock is released, as a reader may be waiting for it (_drop_purged)."""
        self._entity_cache.applied(plan)
        self._vectors.applied(plan)
        if plan.purge is not None:
            self._purged.append(plan.group_id)

    def _drop_purged(self) -> None:
        while self._purged:
            self._drop_memos(self._purged.pop())

    def _follow(self, conn: sqlite3.Connection, groups: Collection[str]) -> None:
        """After the writer's commit, the groups' vectors held: the held vectors
        are true at the groups' new keys, as they followed the plans. Unless
        another connection (another process) wrote meanwhile: the writer's
        ``data_version`` moves with others' commits only (the readers write
        nothing), and then the index is read again."""
        keys = {g: group_key(conn, g) for g in groups if g in self._vector_keys}
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        with self._vector_mutex:
            for g, key in keys.items():
                if key is None:
                    self._vector_keys.pop(g, None)
                else:
                    self._vector_keys[g] = key
            if version != self._writer_version:
                self._forget_vectors()
                self._writer_version = version

    def _forget_vectors(self) -> None:
        """(``_vector_mutex`` held.)"""
        self._vector_epoch += 1
        self._vector_keys.clear()
        self._vectors.check(self._vector_epoch)

    def _vector_table(self, conn: sqlite3.Connection, scope: str, group_id: str) -> Any:
        """The group's held vectors of ``scope``, true at this connection's
        snapshot (the group held, so the writer cannot commit to it between
        the key read here and the rows a new table reads). A key other than
        the one they were kept at means another connection wrote to the
        group: the index is read again."""
        key = group_key(conn, group_id)
        with self._vector_mutex:
            if self._vector_keys.get(group_id, key) != key:
                self._forget_vectors()
            if key is not None:
                self._vector_keys[group_id] = key
            self._vectors.check(self._vector_epoch)
        return self._vectors.table(conn, scope, group_id)

    def _memos_of(self, conn: sqlite3.Connection) -> Memos:
        """The memos of the connection a read runs on (each its own)."""
        return conn.memos if isinstance(conn, Snapshot) else self._memos

    async def _read(self, fn: Callable[..., T], *args: Any) -> T:
        """A pure read: on a reader's connection (a snapshot of its own, that
        waits for no unit of work); on the writer inside this task's unit of
        work (whose writes it must see) or where there are no readers."""
        bound = self._bound.conn
        if bound is not None:  # inside in_one_read, on its reader: answered here, on its snapshot
            return fn(bound, *args)
        unit = _unit_of.get()
        pool = None if unit is not None and unit[0] is self else self._reader_pool()
        if pool is None:
            return await self._run(fn, *args)
        return await pool.call(fn, *args)

    async def in_one_read(self, job: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """``job()``'s reads answered on one reader, in one read transaction
        (one hand-off and one snapshot for them all, :mod:`.one_read`); ``job``
        must await nothing but this store's reads. Inside a unit of work, or
        where there are no readers, it simply runs."""
        unit = _unit_of.get()
        pool = None if unit is not None and unit[0] is self else self._reader_pool()
        if pool is None:
            return await job()
        return await pool.call(drive, self._bound, job)

    def _drop_memos(self, group_id: str) -> None:
        self._memos.drop(group_id)
        if self._pool is not None:
            self._pool.drop(group_id)

    async def drop_memos(self, group_id: str) -> None:
        def drop(conn: sqlite3.Connection) -> None:
            self._drop_memos(group_id)
            group_text.forget(conn, group_id)  # a small group's words held on the connection

        await self._run(drop)

