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

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any, TypeVar

import numpy as np

from ...errors import ClosedError, ConcurrentWriteError, StoreError
from ...model import AuditEvent, Community, Entity, Episode, Fact, FactChange, FactSource
from ...time import to_micros
from ..plan import Plan
from ..protocol import FactQuery
from ..records import EntityMatch, EpisodeProgress, FactRecord, HealthScan, Neighbourhood, SagaCount, SagaState
from ..text_scan import Erasure, TextHit
from . import community_reads, health_reads, ingest_reads, purge, queue_rows, reads, saga_reads, search_reads
from .connection import Connection, Pool, connect, lock_group, lock_schema, redact
from .schema import GROUP_TABLES, VECTOR_TABLES, migrate, vector_index_statements
from .writes import write_plan

__all__ = ["PostgresStore"]

T = TypeVar("T")
_log = logging.getLogger("kronograph")

# The connection of the unit of work the current task has open, by store.
_unit_of: ContextVar[tuple[PostgresStore, Connection, str] | None] = ContextVar("kronograph_pg_unit", default=None)


class PostgresStore:
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
        self._sizes = (min_size, max_size)
        self._prepare = prepared_statements
        self._timeout = timeout
        self._pool: Pool | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._opening: asyncio.Lock | None = None
        self._closed = False
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

    # -- plumbing --------------------------------------------------------------
    async def _ready_pool(self) -> Pool:
        """The pool of the running event loop (psycopg's pools belong to one
        loop; a store used from a new loop opens a new pool)."""
        if self._closed:
            raise ClosedError("this store is closed")
        loop = asyncio.get_running_loop()
        if self._pool is not None and self._loop is loop:
            return self._pool
        if self._opening is None or self._loop is not loop:
            old, self._pool = self._pool, None
            self._opening, self._loop = asyncio.Lock(), loop
            if old is not None:  # the last loop's pool: closed, not left with its connections open
                await old.retire()
        async with self._opening:
            if self._pool is None:
                async with connect(self.url) as conn:
                    await migrate(conn)
                    self._indexed = await _indexed_dimensions(conn)
                    self._replica = await _in_recovery(conn)
                pool = await Pool.open(self.url, *self._sizes, timeout=self._timeout, prepare=self._prepare)
                if self._closed:  # closed while it opened
                    await pool.close()
                    raise ClosedError("this store is closed")
                self._pool = pool
            return self._pool

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Connection]:
        unit = _unit_of.get()
        if unit is not None and unit[0] is self:
            yield unit[1]
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
        """psycopg's and the pool's errors as StoreError, naming the server."""
        try:
            yield
        except Exception as exc:
            if _is_database_error(exc):
                raise self._error(exc) from exc
            raise

    @asynccontextmanager
    async def unit(self, group_id: str, *, after: Plan | None = None) -> AsyncIterator[PostgresStore]:
        """One transaction for several plans, with reads in between that see
        the plans already written. It holds the group's advisory lock from
        start to end: another writer to the group, in this process or any
        other, waits for it. ``after`` is committed on its own just before."""
        unit = _unit_of.get()
        if unit is not None and unit[0] is self:
            raise StoreError("units of work do not nest")
        if after is not None:
            await self.apply(after)
        with self._translating():
            pool = await self._ready_pool()  # opening may fail: a StoreError, as for every other call
            async with pool.connection() as conn, conn.transaction():
                await lock_group(conn, group_id)
                token = _unit_of.set((self, conn, group_id))
                try:
                    yield self
                finally:
                    _unit_of.reset(token)
        await self._committed()

    async def open(self) -> None:
        try:
            await self._ready_pool()
        except Exception as exc:
            if _is_database_error(exc):
                raise StoreError(redact(f"cannot open PostgreSQL database {self.url}: {exc}")) from exc
            raise

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.retire()

    def __del__(self) -> None:
        # Dropped without close(): its idle connections go now, not at exit.
        # (The memory that owned it warns.)
        pool = getattr(self, "_pool", None)
        if pool is not None and not getattr(self, "_closed", True):
            pool.release()

    def _error(self, exc: Exception) -> StoreError:
        return StoreError(redact(f"PostgreSQL error on {self.url}: {exc}"))

    # -- reads -----------------------------------------------------------------
    async def groups(self) -> list[str]:
        async def read(conn: Connection) -> list[str]:
            cur = await conn.execute('SELECT group_id FROM groups ORDER BY group_id COLLATE "C"')
            return [g for (g,) in await cur.fetchall()]

        return await self._run(read)

    async def revision(self, group_id: str) -> int:
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
        if self._replica:  # a standby replays the primary's VACUUM
            return Erasure(False, "PostgreSQL: a read replica erases nothing; the primary's VACUUM reaches it")
        return await self._run(purge.erase_traces, group_id)

    async def pending_erasure(self, group_id: str) -> bool:
        return await self._run(purge.pending_erasure, group_id)

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
        if unit is not None and unit[0] is self:  # its lock and index build would wait on the unit itself
            raise StoreError("an episode is registered before its unit of work, not inside one")

        async def register(conn: Connection) -> EpisodeProgress | None:
            await self._index_vectors(plan)
            async with conn.pipeline(), conn.transaction():
                await lock_group(conn, plan.group_id)
                found = await ingest_reads.episode_progress(conn, plan.group_id, episode_id)
                if found is None:
                    await write_plan(conn, plan)
                return found

        found = await self._run(register)
        if found is None:
            await self._committed()
        return found

    async def queued_groups(self, limit: int = 100) -> list[str]:
        return await self._run(queue_rows.queued_groups, limit)

    def _outside_unit(self) -> None:
        unit = _unit_of.get()
        if unit is not None and unit[0] is self:  # the group's lock would wait on the unit itself
            raise StoreError("an episode is claimed outside a unit of work")

    async def claim_queued(
        self, group_id: str, owner: str, until: datetime, now: datetime
    ) -> EpisodeProgress | None:
        self._outside_unit()
        return await self._run(queue_rows.claim_queued, group_id, owner, until, now)

    async def claim_episode(
        self, group_id: str, episode_id: str, statuses: Collection[str], owner: str, until: datetime, now: datetime
    ) -> EpisodeProgress | None:
        self._outside_unit()
        return await self._run(queue_rows.claim_episode, group_id, episode_id, statuses, owner, until, now)

    async def extend_leases(self, group_id: str, episode_ids: Collection[str], owner: str, until: datetime) -> int:
        return await self._run(queue_rows.extend_leases, group_id, episode_ids, owner, until)

    async def held_episodes(self, now: datetime) -> list[Episode]:
        return await self._run(queue_rows.held_episodes, now)

    async def episode_counts(self) -> dict[str, int]:
        return await self._run(queue_rows.episode_counts)

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
            search_reads.text_search, scope, group_id, query, limit, episodes_before, episodes_known_at
        )

    async def search_current_facts(
        self, group_id: str, query: str, limit: int, at: datetime
    ) -> tuple[list[tuple[str, float]], int, bool]:
        return await self._run(search_reads.current_facts_search, group_id, query, limit, at)

    async def search_vectors(
        self, group_id: str, scope: str, vector: np.ndarray, limit: int
    ) -> list[tuple[str, float]]:
        return await self._run(search_reads.vector_search, scope, group_id, vector, limit)

    async def item_vectors(self, group_id: str, scope: str, uuids: Collection[str]) -> dict[str, np.ndarray]:
        return await self._run(search_reads.item_vectors, scope, group_id, uuids)

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

    async def entities_known_by(self, group_id: str, uuids: Collection[str], at: datetime) -> set[str]:
        return await self._run(search_reads.entities_known_by, group_id, uuids, at)

    async def mention_counts(self, group_id: str, scope: str, uuids: Collection[str]) -> dict[str, int]:
        return await self._run(search_reads.mention_counts, scope, group_id, uuids)

    async def episodes_by_uuid(self, group_id: str, uuids: Collection[str]) -> list[Episode]:
        return await self._run(search_reads.episodes_by_uuid, group_id, uuids)

    async def episode_neighbours(self, group_id: str, uuids: Collection[str]) -> dict[str, tuple[str, ...]]:
        return await self._run(search_reads.episode_neighbours, group_id, uuids)

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
            dimension = _dimension(kept)
            if dimension is not None and _unit_of.get() is None:
                with self._translating():  # on a connection of its own: none from the pool is needed
                    await self._index_dimensions({dimension})
        return kept

    # -- the one write ---------------------------------------------------------
    async def apply(self, plan: Plan) -> None:
        unit = _unit_of.get()
        if unit is not None and unit[0] is self:  # inside a unit: its reads already saw the latest state
            if unit[2] != plan.group_id:  # it holds its own group's lock, not this one's
                raise StoreError(f"a unit of work of group {unit[2]!r} cannot apply a plan of {plan.group_id!r}")
            await self._run(write_plan, plan)
            return

        async def apply(conn: Connection) -> None:
            await self._index_vectors(plan)
            # Pipelined: BEGIN, the lock and the revision read go in one round
            # trip, the plan's writes and COMMIT in a second.
            async with conn.pipeline(), conn.transaction():
                current = await lock_group(conn, plan.group_id)
                if plan.expected_revision is not None and current != plan.expected_revision:
                    raise ConcurrentWriteError(
                        f"group {plan.group_id!r} changed while this write was being prepared"
                    )
                await write_plan(conn, plan)

        await self._run(apply)
        await self._committed()

    async def _committed(self) -> None:
        """Count a commit; at a few sizes, refresh the planner's statistics.
        A young table has none until autovacuum's first pass (a minute or
        more after it fills), and without them PostgreSQL plans nested loops
        over whole tables: a lookup of 1 ms takes 40. Growth seen by one
        process is the trigger; autovacuum takes over from there."""
        self._commits += 1
        if self._commits in _ANALYZE_AT:
            try:
                await self._run(_analyze)
            except StoreError as exc:  # the write is committed: it must not be reported as failed
                _log.warning("kronograph: refreshing PostgreSQL's statistics failed (autovacuum will): %s", exc)

    async def _index_vectors(self, plan: Plan) -> None:
        """Give a new vector dimension its HNSW indexes before the first write
        of it (a memory does so when it claims its embedder, on opening)."""
        dims = {
            len(v) // 4
            for vectors in (
                plan.fact_embeddings, plan.entity_embeddings, plan.episode_embeddings, plan.community_embeddings
            )
            for v in vectors.values()
        }
        await self._index_dimensions(dims)

    async def _index_dimensions(self, dims: set[int]) -> None:
        """One short transaction per index, under the schema lock: building an
        index locks its table against writers, and a transaction that locked
        two tables could deadlock with a writer that wants them in the other
        order. Never called inside a unit of work (it would wait on itself)."""
        dims = dims - self._indexed
        if self._replica or not any(vector_index_statements(dim) for dim in dims):
            self._indexed |= dims  # nothing to build (or none can be, on a replica)
            return
        async with connect(self.url) as conn:
            for dim in sorted(dims):
                for statement in vector_index_statements(dim):
                    async with conn.transaction():
                        await lock_schema(conn)
                        await conn.execute(statement)  # type: ignore[arg-type]
        self._indexed |= dims


# Commits after which a store refreshes the statistics (see _committed).
_ANALYZE_AT = frozenset({100, 1_000, 10_000, 100_000})


async def _analyze(conn: Connection) -> None:
    # Not worth a wait: a table busy with a VACUUM, an index build or a LOCK is left to autovacuum.
    async with conn.transaction():
        await conn.execute("SET LOCAL lock_timeout = '1s'")
        await conn.execute("ANALYZE " + ", ".join(GROUP_TABLES))  # type: ignore[arg-type]


async def _in_recovery(conn: Connection) -> bool:
    cur = await conn.execute("SELECT pg_is_in_recovery()")
    row = await cur.fetchone()
    return bool(row and row[0])


def _dimension(embedder: str) -> int | None:
    """The dimension an embedder record names (JSON with a ``dimension``)."""
    try:
        value = json.loads(embedder).get("dimension")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and value > 0 else None


async def _indexed_dimensions(conn: Connection) -> set[int]:
    """The dimensions every vector table has its HNSW index of: one a later
    migration added a vector table to (communities) is indexed again, which
    builds only the missing index (``IF NOT EXISTS``)."""
    cur = await conn.execute(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
        " AND indexname ~ '^[a-z]+_embedding_[0-9]+$'"  # kronograph's names only, not a DBA's own index
    )
    tables: dict[int, set[str]] = {}
    for (name,) in await cur.fetchall():
        table, _, dim = name.rpartition("_embedding_")
        tables.setdefault(int(dim), set()).add(table)
    return {dim for dim, found in tables.items() if found >= set(VECTOR_TABLES)}


def _is_database_error(exc: BaseException) -> bool:
    import psycopg
    import psycopg_pool

    return isinstance(exc, psycopg.Error | psycopg_pool.PoolTimeout)


