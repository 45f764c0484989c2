"""The search half of the SQLite store's calls, apart from the rest: each
is a pure read (answered by a reader connection) of search_reads' or
name_reads' queries, or of the held vectors."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ...model import Entity, Episode, Fact
from ..protocol import FactQuery
from . import name_reads, search_reads

if TYPE_CHECKING:
    from .readers import Memos
    from .vector_table import VectorTable
    from .vectors import VectorIndex

__all__ = ["SearchCalls"]

T = TypeVar("T")


class SearchCalls:
    """Mixed into SQLiteStore, whose ``_read`` (a reader's connection, or
    the writer's inside a unit of work) every search goes through."""

    if TYPE_CHECKING:  # provided by SQLiteStore
        _vectors: VectorIndex

        async def _read(self, fn: Callable[..., T], *args: Any) -> T: ...

        def _memos_of(self, conn: sqlite3.Connection) -> Memos: ...

        def _vector_table(self, conn: sqlite3.Connection, scope: str, group_id: str) -> VectorTable: ...

        async def facts(self, group_id: str, query: FactQuery) -> list[Fact]: ...

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
        return await self._read(
            lambda conn: search_reads.text_search(
                conn, scope, group_id, query, limit, episodes_before, episodes_known_at,
                self._memos_of(conn).query_words,
            )
        )

    async def search_vectors(
        self, group_id: str, scope: str, vector: np.ndarray, limit: int
    ) -> list[tuple[str, float]]:
        def search(conn: sqlite3.Connection) -> list[tuple[str, float]]:
            with self._vectors.holding((group_id,)):
                found: list[tuple[str, float]] = self._vector_table(conn, scope, group_id).top(vector, limit)
                return found

        return await self._read(search)

    async def nearest_current_facts(
        self, group_id: str, vectors: Sequence[np.ndarray | None], limit: int, at: datetime
    ) -> list[tuple[Fact, float, int]]:
        # In process, no round trips to save: each vector's nearest (read past
        # the retired and expired ones), then those current at the moment.
        best: dict[str, tuple[float, int]] = {}
        for i, vector in enumerate(vectors):
            if vector is None or limit < 1:
                continue
            for uuid, similarity in await self.search_vectors(group_id, "facts", vector, limit * 8):
                if similarity > best.get(uuid, (-2.0, 0))[0]:
                    best[uuid] = (similarity, i)
        if not best:
            return []
        facts = await self.facts(group_id, FactQuery(as_of=at, uuids=tuple(best), event=False))
        found = [(f, *best[f.uuid]) for f in facts]
        return sorted(found, key=lambda x: (-x[1], x[0].uuid))

    async def item_vectors(self, group_id: str, scope: str, uuids: Collection[str]) -> dict[str, np.ndarray]:
        def read(conn: sqlite3.Connection) -> dict[str, np.ndarray]:
            with self._vectors.holding((group_id,)):
                found: dict[str, np.ndarray] = self._vector_table(conn, scope, group_id).rows(list(uuids))
                return found

        return await self._read(read)

    async def neighbours(
        self, group_id: str, entity_uuids: Collection[str], at: datetime | None = None
    ) -> dict[str, set[str]]:
        return await self._read(search_reads.neighbours, group_id, entity_uuids, at)

    async def reachable(
        self, group_id: str, seeds: Collection[str], depth: int, at: datetime | None = None
    ) -> dict[str, int]:
        return await self._read(search_reads.reachable, group_id, seeds, depth, at)

    async def touching_facts(
        self, group_id: str, entity_uuids: Collection[str], limit: int, at: datetime | None = None
    ) -> list[tuple[str, str, str]]:
        return await self._read(search_reads.touching_facts, group_id, entity_uuids, limit, at)

    async def search_current_facts(
        self, group_id: str, query: str, limit: int, at: datetime, *, include_events: bool = False
    ) -> tuple[list[tuple[str, float]], int, bool]:
        return await self._read(
            lambda conn: search_reads.current_facts_search(
                conn, group_id, query, limit, at, self._memos_of(conn).query_words, include_events
            )
        )

    async def entities_known_by(self, group_id: str, uuids: Collection[str], at: datetime) -> set[str]:
        return await self._read(search_reads.entities_known_by, group_id, uuids, at)

    async def mention_counts(self, group_id: str, scope: str, uuids: Collection[str]) -> dict[str, int]:
        return await self._read(search_reads.mention_counts, scope, group_id, uuids)

    async def entities_named_in(
        self, group_id: str, keys: Collection[str], words: Collection[str], prefixes: Collection[str], limit: int
    ) -> list[Entity]:
        return await self._read(
            lambda conn: self._memos_of(conn).names.entities_named_in(conn, group_id, keys, words, prefixes, limit)
        )

    async def mentions_among(
        self, group_id: str, entity_uuids: Collection[str], episode_ids: Collection[str]
    ) -> dict[str, set[str]]:
        return await self._read(name_reads.mentions_among, group_id, entity_uuids, episode_ids)

    async def episodes_by_uuid(self, group_id: str, uuids: Collection[str]) -> list[Episode]:
        return await self._read(search_reads.episodes_by_uuid, group_id, uuids)

    async def episode_neighbours(self, group_id: str, uuids: Collection[str]) -> dict[str, tuple[str, ...]]:
        return await self._read(search_reads.episode_neighbours, group_id, uuids)
