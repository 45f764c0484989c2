"""The SQLite store's answers, read from the migration's own snapshot.

The same read functions :class:`~kronograph.store.SQLiteStore` calls, on the
read-only connection the copy was read through (each on a worker thread, one
at a time), so the answers are those of exactly the data copied.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Collection
from typing import Any, TypeVar

import numpy as np

from ..model import AuditEvent, Community, Entity, Fact, FactChange, FactSource
from ..store.protocol import FactQuery
from ..store.records import EpisodeProgress
from ..store.sqlite import community_reads, ingest_reads, reads, search_reads
from ..store.sqlite.vectors import VectorIndex

__all__ = ["SnapshotReads"]

T = TypeVar("T")


class SnapshotReads:
    """The reads a verification asks, with the store's names and answers."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._vectors = VectorIndex()
        self._words = search_reads.QueryWords()

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, self._conn, *args)

    async def facts(self, group_id: str, query: FactQuery) -> list[Fact]:
        return await self._run(reads.facts, group_id, query)

    async def timeline(self, group_id: str, entity_key: str, relation_key: str | None) -> list[Fact]:
        return await self._run(reads.timeline, group_id, entity_key, relation_key)

    async def entities(self, group_id: str, *, name_key: str | None = None, label: str | None = None) -> list[Entity]:
        return await self._run(reads.entities, group_id, name_key, label)

    async def communities(self, group_id: str, uuids: Collection[str] | None = None) -> list[Community]:
        return await self._run(community_reads.communities, group_id, uuids)

    async def history(self, group_id: str, fact_uuid: str) -> list[FactChange]:
        return await self._run(reads.history, group_id, fact_uuid)

    async def audit_events(self, group_id: str) -> list[AuditEvent]:
        return await self._run(reads.audit_events, group_id)

    async def episode_progress(self, group_id: str, episode_id: str) -> EpisodeProgress | None:
        return await self._run(ingest_reads.episode_progress, group_id, episode_id)

    async def fact_sources(self, group_id: str, fact_uuid: str) -> list[FactSource]:
        return await self._run(ingest_reads.fact_sources, group_id, fact_uuid)

    async def setting(self, key: str) -> str | None:
        return await self._run(ingest_reads.setting, key)

    async def cached_reply(self, group_id: str, key: str) -> str | None:
        return await self._run(ingest_reads.cached_reply, group_id, key)

    async def search_text(self, group_id: str, scope: str, query: str, limit: int) -> list[tuple[str, float]]:
        return await self._run(search_reads.text_search, scope, group_id, query, limit, None, None, self._words)

    async def search_vectors(
        self, group_id: str, scope: str, vector: np.ndarray, limit: int
    ) -> list[tuple[str, float]]:
        def search(conn: sqlite3.Connection) -> list[tuple[str, float]]:
            return self._vectors.table(conn, scope, group_id).top(vector, limit)

        return await self._run(search)
