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
from ...time import to_micros
from ..protocol import FactQuery
from . import name_reads, reads, search_reads

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
        # One hop to a reader (a write's check waits on it): the group's
        # current facts that carry a tier, few next to its others, compared
        # with each vector exactly.
        def read(conn: sqlite3.Connection) -> list[tuple[Fact, float, int]]:
            micros = to_micros(at)
            tiered = [row[0] for row in conn.execute(
                "SELECT uuid FROM facts WHERE group_id = ? AND tier IS NOT NULL AND expired_at IS NULL"
                " AND valid_at <= ? AND (invalid_at IS NULL OR invalid_at > ?) AND NOT event",
                (group_id, micros, micros),
            )]
            if not tiered or limit < 1:
                return []
            with self._vectors.holding((group_id,)):
                stored = self._vector_table(conn, "facts", group_id).rows(tiered)
            if not stored:
                return []
            uuids = sorted(stored)
            matrix = np.stack([stored[u] for u in uuids]).astype(np.float32)
            norms = np.linalg.norm(matrix, axis=1)
            norms[norms == 0] = 1.0
            best: dict[str, tuple[float, int]] = {}
            for i, vector in enumerate(vectors):
                if vector is None or vector.shape != matrix.shape[1:]:
                    continue
                scores = matrix @ vector / norms / max(float(np.linalg.norm(vector)), 1e-12)
                for j in np.argsort(-scores, kind="stable")[:limit]:
                    if scores[j] > best.get(uuids[j], (-2.0, 0))[0]:
                        best[uuids[j]] = (float(scores[j]), i)
            current = reads.facts(conn, group_id, FactQuery(as_of=at, uuids=tuple(best), event=False))
            return sorted(((f, *best[f.uuid]) for f in current), key=lambda x: (-x[1], x[0].uuid))

        return await self._read(read)

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
