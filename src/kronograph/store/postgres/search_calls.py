"""The search half of the PostgreSQL store's calls, apart from the rest:
each hands one of search_reads' queries to the store's connection seam."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ...model import Entity, Episode, Fact
from . import name_reads, nearest_facts, search_reads

__all__ = ["SearchCalls"]

T = TypeVar("T")


class SearchCalls:
    """Mixed into PostgresStore, whose ``_run`` (translated errors, the
    unit of work's connection) every search goes through."""

    if TYPE_CHECKING:  # provided by PostgresStore

        async def _run(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T: ...

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
        self, group_id: str, query: str, limit: int, at: datetime, *, include_events: bool = False
    ) -> tuple[list[tuple[str, float]], int, bool]:
        return await self._run(search_reads.current_facts_search, group_id, query, limit, at, include_events)

    async def search_vectors(
        self, group_id: str, scope: str, vector: np.ndarray, limit: int
    ) -> list[tuple[str, float]]:
        return await self._run(search_reads.vector_search, scope, group_id, vector, limit)

    async def item_vectors(self, group_id: str, scope: str, uuids: Collection[str]) -> dict[str, np.ndarray]:
        return await self._run(search_reads.item_vectors, scope, group_id, uuids)

    async def nearest_current_facts(
        self, group_id: str, vectors: Sequence[np.ndarray | None], limit: int, at: datetime
    ) -> list[tuple[Fact, float, int]]:
        return await self._run(nearest_facts.nearest_current_facts, group_id, vectors, limit, at)

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

    async def entities_named_in(
        self, group_id: str, keys: Collection[str], words: Collection[str], prefixes: Collection[str], limit: int
    ) -> list[Entity]:
        return await self._run(name_reads.entities_named_in, group_id, keys, words, prefixes, limit)

    async def mentions_among(
        self, group_id: str, entity_uuids: Collection[str], episode_ids: Collection[str]
    ) -> dict[str, set[str]]:
        return await self._run(name_reads.mentions_among, group_id, entity_uuids, episode_ids)

    async def episodes_by_uuid(self, group_id: str, uuids: Collection[str]) -> list[Episode]:
        return await self._run(search_reads.episodes_by_uuid, group_id, uuids)

    async def episode_neighbours(self, group_id: str, uuids: Collection[str]) -> dict[str, tuple[str, ...]]:
        return await self._run(search_reads.episode_neighbours, group_id, uuids)
