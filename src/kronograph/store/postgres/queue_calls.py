"""The work queue's calls of the PostgreSQL store, apart from the rest:
claims and leases of queued episodes, each one of queue_rows' statements."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from ...model import Episode
from ..records import EpisodeProgress
from . import queue_rows

__all__ = ["QueueCalls"]

T = TypeVar("T")


class QueueCalls:
    """Mixed into PostgresStore, whose ``_run`` every call goes through and
    whose ``_outside_unit`` refuses a claim inside a unit of work (the
    group's lock would wait on the unit itself)."""

    if TYPE_CHECKING:  # provided by PostgresStore

        async def _run(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T: ...

        def _outside_unit(self) -> None: ...

    async def queued_groups(self, limit: int = 100) -> list[str]:
        return await self._run(queue_rows.queued_groups, limit)

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
