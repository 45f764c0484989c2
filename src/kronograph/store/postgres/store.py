"""The PostgreSQL store: the same memory on a server, for several processes
and machines.

psycopg 3 with an async connection pool. Reads run in autocommit; every
plan is one transaction. Writers to one group take a transaction-scoped
advisory lock keyed by the group, so two processes ingesting into one group
take turns slot by slot, while other groups proceed in parallel; the group's
``revision`` (a counter every plan moves, in the same transaction) refuses a
plan prepared from reads another writer has since changed.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

from ...erasure import ErasureReceipt
from ...errors import StoreError
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
from ..sql import episode_queries
from ..text_scan import Erasure, TextHit
from . import (
    community_reads,
    contradiction_reads,
    erasure_reads,
    health_reads,
    ingest_reads,
    overview_reads,
    purge,
    reads,
    saga_reads,
    upkeep,
)
from .columns import DIALECT as D
from .connection import Connection, Pool, redact
from .lifecycle import LoopPool
from .pipelined import expect_revision, expect_sql, lock, pipelined, refused_as
from .queue_calls import QueueCalls
from .schema import migrate
from .seam import is_database_error, store_error, translating
from .search_calls import SearchCalls
from .writes import move_revision, write_plan

__all__ = ["PostgresStore"]

T = TypeVar("T")
_log = logging.getLogger("kronograph")



@dataclass
class _Unit:
    """The unit of work the current task has open: its store, connection and
    group, and the revision moves its plans still owe (the first plan moves
    it, creating the group's row; the others' moves go as one statement,
    before the commit or before a read of the revision)."""

    store: PostgresStore
    conn: Connection
    group_id: str
    plans: int = 0
    owed: int = 0

    async def settle(self) -> None:
        if self.owed:
            await move_revision(self.conn, self.group_id, self.owed)
            self.owed = 0


_unit_of: ContextVar[_Unit | None] = ContextVar("kronograph_pg_unit", default=None)


class PostgresStore(QueueCalls, SearchCalls):
    """A memory in a PostgreSQL database with the pgvector extension.

    ``url`` is a libpq URL (``postgresql://user:password@host:5432/db``).
    ``min_size`` / ``max_size`` bound the connection pool; ``timeout`` is how
    long a call waits for a free connection. ``prepared_statements=False``
    suits a pooler that cannot keep them (PgBouncer before 1.21 in
    transaction mode). The schema is created (or migrated) on open, which
    needs the ``vector`` extension to exist or the right to create it; on a
    read replica it is only checked. A store belongs to one event loop at a
    time (psycopg's pools do).
    """

    def __init__(
        self,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 30.0,
        prepared_statements: bool = True,
    ) -> None:
        if not url.startswith(("postgresql://", "postgres://")):
            raise ValueError(f"not a postgresql:// URL: {redact(url)!r}")
        if min_size < 0 or max_size < max(1, min_size):
            raise ValueError("the pool needs max_size >= 1 and 0 <= min_size <= max_size")
        self.url = url
        self._pools = LoopPool(
            url, (min_size, max_size), timeout=timeout, prepare_statements=prepared_statements
        )
        self._indexed: set[int] = set()  # vector dimensions with an HNSW index
        self._commits = 0  # transactions this store committed: see _committed
        self._replica = False  # a hot standby: reads only

    @classmethod
    def from_url(cls, url: str, **options: Any) -> PostgresStore:
        return cls(url, **options)

    def __repr__(self) -> str:
        return f"PostgresStore({redact(self.url)!r})"

    @property
    def read_only(self) -> bool:
        """Whether the server opened is a hot standby (reads only)."""
        return self._replica

    @property
    def _pool(self) -> Pool | None:
        """The pool of the loop that used the store last, if open."""
        return self._pools.pool

    # -- plumbing --------------------------------------------------------------
    async def _prepare(self, conn: Connection) -> None:
        """Before a pool opens: the schema, and what the server already has."""
        await migrate(conn)
        self._indexed = await upkeep.indexed_dimensions(conn)
        self._replica = await _in_recovery(conn)

    async def _ready_pool(self) -> Pool:
        return await self._pools.ready(self._prepare)

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Connection]:
        unit = _unit_of.get()
        if unit is not None and unit.store is self:
            yield unit.conn
            return
        pool = await self._ready_pool()
        async with pool.connection() as conn:
            yield conn

    async def _run(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        with self._translating():
            async with self._connection() as conn:
                return await fn(conn, *args)

    @contextmanager
    def _translating(self) -> Iterator[None]:
        with translating(self.url):
            yield

    @asynccontextmanager
    async def unit(self, group_id: str, *, after: Plan | None = None) -> AsyncIterator[PostgresStore]:
        """One transaction for several plans, with reads in between that see
        the plans already written. It holds the group's advisory lock from
        start to end: another writer to the group, in this process or any
        other, waits for it. ``after`` is committed on its own just before."""
        unit = _unit_of.get()
        if unit is not None and unit.store is self:
            raise StoreError("units of work do not nest")
        with self._translating():
            pool = await self._ready_pool()  # opening may fail: a StoreError, as for every other call
            if after is not None:
                await self._index_vectors(after)
            # Pipelined (see .pipelined): ``after``'s transaction, BEGIN and
            # the lock go with the unit's first read, its plans with the read
            # after them, and the last plan with COMMIT: one round trip per
            # read, and one more. A writer's connection: reads keep the rest of the pool.
            before = None if after is None else partial(_write_checked, plan=after)
            async with pool.writer() as conn, pipelined(conn, before=before):
                await lock(conn, group_id)
                state = _Unit(self, conn, group_id)
                token = _unit_of.set(state)
                try:
                    yield self
                    await state.settle()
                finally:
                    _unit_of.reset(token)
        if after is not None:
            await self._committed()
        await self._committed()

    async def open(self) -> None:
        try:
            await self._ready_pool()
        except Exception as exc:
            if is_database_error(exc):
                raise StoreError(redact(f"cannot open PostgreSQL database {self.url}: {exc}")) from exc
            raise

    async def close(self) -> None:
        await self._pools.close()

    def __del__(self) -> None:
        # Dropped without close(): its idle connections go now, not at exit.
        # (The memory that owned it warns.)
        pools = getattr(self, "_pools", None)
        if pools is not None:
            pools.release()

    def _error(self, exc: Exception) -> StoreError:
        return store_error(self.url, exc)

    # -- reads -----------------------------------------------------------------
    async def _settled(self) -> None:
        """Inside a unit, the revision moves its plans owe, before a read of
        the groups table sees them."""
        unit = _unit_of.get()
        if unit is not None and unit.store is self:
            await unit.settle()

    async def groups(self) -> list[str]:
        await self._settled()

        async def read(conn: Connection) -> list[str]:
            cur = await conn.execute('SELECT group_id FROM groups ORDER BY group_id COLLATE "C"')
            return [g for (g,) in await cur.fetchall()]

        return await self._run(read)

    async def revision(self, group_id: str) -> int:
        await self._settled()
        return await self._run(reads.revision, group_id)

    async def episode(self, group_id: str, episode_id: str) -> Episode | None:
        return await self._run(reads.episode, group_id, episode_id)

    async def entities_named(self, group_id: str, name_keys: Collection[str]) -> list[Entity]:
        return await self._run(reads.entities_named, group_id, name_keys)

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

    async def fact_candidates_each(self, group_id: str, asks: Sequence[CandidateAsk]) -> list[list[FactRecord]]:
        return await self._run(reads.fact_candidates_each, group_id, asks)

    async def conflict_neighbourhood(
        self, group_id: str, seeds: Collection[str], depth: int = 2
    ) -> Neighbourhood:
        return await self._run(reads.conflict_neighbourhood, group_id, seeds, depth)

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
        return await self._run(reads.facts, group_id, query)

    async def timeline(self, group_id: str, entity_key: str, relation_key: str | None) -> list[Fact]:
        return await self._run(reads.timeline, group_id, entity_key, relation_key)

    async def entities(
        self, group_id: str, *, name_key: str | None = None, label: str | None = None
    ) -> list[Entity]:
        return await self._run(reads.entities, group_id, name_key, label)

    async def contradictions(
        self, group_id: str, *, fact_uuids: Collection[str] | None = None, open_only: bool = True, at: datetime
    ) -> list[ContradictionRecord]:
        return await self._run(contradiction_reads.contradictions, group_id, fact_uuids, open_only, at)

    async def episode_statuses(self, group_id: str) -> dict[str, int]:
        return await self._run(overview_reads.episode_statuses, group_id)

    async def latest_episodes(self, group_id: str, limit: int) -> list[Episode]:
        return await self._run(overview_reads.latest_episodes, group_id, limit)

    async def overview_counts(self, group_id: str, at: datetime) -> tuple[int, int, int, int]:
        return await self._run(overview_reads.fact_counts, group_id, at)

    async def most_connected(self, group_id: str, at: datetime, limit: int) -> list[tuple[str, str, int]]:
        return await self._run(overview_reads.connected, group_id, at, limit)

    async def open_contradiction_count(self, group_id: str, at: datetime) -> int:
        return await self._run(contradiction_reads.open_contradiction_count, group_id, at)

    async def current_edges(self, group_id: str, at: datetime) -> list[tuple[str, str, str]]:
        return await self._run(community_reads.current_edges, group_id, at)

    async def communities(self, group_id: str, uuids: Collection[str] | None = None) -> list[Community]:
        return await self._run(community_reads.communities, group_id, uuids)

    async def summary_states(
        self, group_id: str, *, uuids: Collection[str] | None = None, stale_only: bool = True,
        after: str | None = None, limit: int = 500,
    ) -> list[tuple[Entity, int]]:
        return await self._run(reads.summary_states, group_id, uuids, stale_only, after, limit)

    async def history(self, group_id: str, fact_uuid: str) -> list[FactChange]:
        return await self._run(reads.history, group_id, fact_uuid)

    async def changes(self, group_id: str, window: ChangeWindow) -> list[StoredChange]:
        return await self._run(reads.changes, group_id, window)

    async def health_scan(self, group_id: str) -> HealthScan:
        return await self._run(health_reads.health_scan, group_id)

    async def audit_events(self, group_id: str) -> list[AuditEvent]:
        return await self._run(reads.audit_events, group_id)

    async def text_occurrences(self, group_id: str, needles: Collection[str]) -> list[TextHit]:
        return await self._run(purge.text_occurrences, group_id, needles)

    async def episode_replies(self, group_id: str, episode_ids: Collection[str]) -> list[str]:
        return await self._run(purge.episode_replies, group_id, episode_ids)

    async def data_subject_items(self, group_id: str, key: str) -> tuple[list[str], list[str]]:
        return await self._run(erasure_reads.data_subject_items, group_id, key)

    async def erasures(
        self, group_id: str, request_id: str | None = None, *, last_only: bool = False
    ) -> list[ErasureReceipt]:
        return await self._run(erasure_reads.erasures, group_id, request_id, last_only)

    async def erase_traces(self, group_id: str) -> Erasure:
        if self._replica:  # a standby replays the primary's VACUUM
            return Erasure(False, "PostgreSQL: a read replica erases nothing; the primary's VACUUM reaches it")
        return await self._run(purge.erase_traces, group_id)

    async def pending_erasure(self, group_id: str) -> bool:
        return await self._run(purge.pending_erasure, group_id)

    async def drop_memos(self, group_id: str) -> None:
        return None  # PostgreSQL search keeps nothing in the process

    # -- reads for ingestion ---------------------------------------------------
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
        records it) and return None; under the group's lock, so two workers
        registering one episode cannot both find it new."""

        unit = _unit_of.get()
        if unit is not None and unit.store is self:  # its lock and index build would wait on the unit itself
            raise StoreError("an episode is registered before its unit of work, not inside one")

        async def register(conn: Connection) -> EpisodeProgress | None:
            # One round trip: the read, and the plan behind the server's check
            # that the episode is new (see .pipelined); a known one fails the
            # check, and its progress is the read's answer.
            await self._index_vectors(plan)
            g = plan.group_id
            try:
                async with pipelined(conn):
                    await lock(conn, g)
                    cur = await conn.execute(*episode_queries.episode_progress(D, g, episode_id))  # type: ignore[arg-type]
                    await conn.execute(_NEW_EPISODE, (g, episode_id, g))
                    await write_plan(conn, plan)
            except Exception as exc:
                row = await cur.fetchone() if refused_as(exc, "new") else None
                if row is None:
                    raise
                return episode_queries.progress(D, row)
            return None

        found = await self._run(register)
        if found is None:
            await self._committed()
        return found

    def _outside_unit(self) -> None:
        unit = _unit_of.get()
        if unit is not None and unit.store is self:  # the group's lock would wait on the unit itself
            raise StoreError("an episode is claimed outside a unit of work")

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
        return await self._run(ingest_reads.context_episodes, group_id, before, exclude, limit, saga, ids)

    async def entity_matches(
        self, group_id: str, names: Collection[str], limit: int = 10
    ) -> dict[str, list[EntityMatch]]:
        return await self._run(ingest_reads.entity_matches, group_id, names, limit)

    async def entities_aliased(self, group_id: str, alias_keys: Collection[str]) -> list[Entity]:
        return await self._run(ingest_reads.entities_aliased, group_id, alias_keys)

    async def entities_by_uuid(self, group_id: str, uuids: Collection[str]) -> list[Entity]:
        return await self._run(ingest_reads.entities_by_uuid, group_id, uuids)

    async def entities_named_and_listed(
        self, group_id: str, name_keys: Collection[str], uuids: Collection[str]
    ) -> tuple[list[Entity], list[Entity]]:
        return await self._run(ingest_reads.entities_named_and_listed, group_id, name_keys, uuids)

    async def fact_sources(self, group_id: str, fact_uuid: str) -> list[FactSource]:
        return await self._run(ingest_reads.fact_sources, group_id, fact_uuid)

    # -- the group's reply cache, and store-wide settings -------------------------
    async def cached_reply(self, group_id: str, key: str) -> str | None:
        return await self._run(ingest_reads.cached_reply, group_id, key)

    async def cached_reply_keys(self, group_id: str) -> set[str]:
        return await self._run(ingest_reads.cached_reply_keys, group_id)

    async def cache_reply(self, group_id: str, key: str, model: str, reply: str, at: datetime) -> None:
        async def put(conn: Connection) -> None:
            await conn.execute(
                "INSERT INTO model_replies(group_id, key, model, reply, created_at) VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT (group_id, key) DO UPDATE SET model = excluded.model, reply = excluded.reply,"
                " created_at = excluded.created_at",
                (group_id, key, model, reply, to_micros(at)),
            )

        await self._run(put)

    async def group_settings(self, group_id: str) -> dict[str, Any]:
        return await self._run(ingest_reads.group_settings, group_id)

    async def setting(self, key: str) -> str | None:
        return await self._run(ingest_reads.setting, key)

    async def claim_setting(self, key: str, value: str) -> str:
        """Record ``value`` unless the key has one already; returns the value kept."""

        async def claim(conn: Connection) -> str:
            found = await ingest_reads.setting(conn, key)
            if found is not None:  # read first: a read replica can answer this, not write it
                return found
            await conn.execute(
                "INSERT INTO store_settings(key, value) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING", (key, value)
            )
            return await ingest_reads.setting(conn, key) or value

        kept = await self._run(claim)
        if key == "embedder":  # every vector stored has its dimension: index it now, before any write
            dimension = upkeep.dimension(kept)
            if dimension is not None and _unit_of.get() is None:
                with self._translating():  # on a connection of its own: none from the pool is needed
                    await self._index_dimensions({dimension})
        return kept

    # -- the one write ---------------------------------------------------------
    async def apply(self, plan: Plan) -> None:
        unit = _unit_of.get()
        if unit is not None and unit.store is self:  # inside a unit: its reads already saw the latest state
            if unit.group_id != plan.group_id:  # it holds its own group's lock, not this one's
                raise StoreError(
                    f"a unit of work of group {unit.group_id!r} cannot apply a plan of {plan.group_id!r}"
                )
            with self._translating():
                await write_plan(unit.conn, plan, bump=unit.plans == 0)
            unit.owed += 1 if unit.plans else 0
            unit.plans += 1
            return

        async def apply(conn: Connection) -> None:
            await self._index_vectors(plan)
            # One round trip (see .pipelined): BEGIN, the lock, the server's
            # check of the revision, the plan's writes and COMMIT.
            async with pipelined(conn):
                await _write_checked(conn, plan)

        await self._run(apply)
        await self._committed()

    async def _committed(self) -> None:
        """Count a commit; at a few sizes, refresh the planner's statistics.
        A young table has none until autovacuum's first pass (a minute or
        more after it fills), and without them PostgreSQL plans nested loops
        over whole tables: a lookup of 1 ms takes 40. Growth seen by one
        process is the trigger; autovacuum takes over from there."""
        self._commits += 1
        if self._commits in upkeep.ANALYZE_AT:
            try:
                await self._run(upkeep.analyze)
            except StoreError as exc:  # the write is committed: it must not be reported as failed
                _log.warning("kronograph: refreshing PostgreSQL's statistics failed (autovacuum will): %s", exc)

    async def _index_vectors(self, plan: Plan) -> None:
        """Give a new vector dimension its HNSW indexes before the first write
        of it (a memory does so when it claims its embedder, on opening)."""
        await self._index_dimensions(upkeep.plan_dimensions(plan))

    async def _index_dimensions(self, dims: set[int]) -> None:
        """Build what these dimensions lack (see upkeep.build_vector_indexes)."""
        dims = dims - self._indexed
        if self._replica or not upkeep.needs_indexes(dims):
            self._indexed |= dims  # nothing to build (or none can be, on a replica)
            return
        await upkeep.build_vector_indexes(self.url, dims)
        self._indexed |= dims


_NEW_EPISODE = expect_sql(
    "NOT EXISTS (SELECT 1 FROM episodes WHERE group_id = %s AND uuid = %s)", "new", "jsonb_build_array(%s::text)"
)


async def _write_checked(conn: Connection, plan: Plan) -> None:
    """Queue a plan's lock, its revision check and its writes, in a
    transaction of the caller's (see .pipelined)."""
    await lock(conn, plan.group_id)
    if plan.expected_revision is not None:
        await expect_revision(conn, plan.group_id, plan.expected_revision)
    await write_plan(conn, plan)


async def _in_recovery(conn: Connection) -> bool:
    cur = await conn.execute("SELECT pg_is_in_recovery()")
    row = await cur.fetchone()
    return bool(row and row[0])
