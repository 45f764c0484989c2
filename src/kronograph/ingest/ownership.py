"""Who is working on an unfinished episode, so that nobody else takes it over.

A worker holds an episode by a lease: an owner (a random token unique to one
memory in one process, shown with its host and pid) and an expiry
(``lease_until``), written in the transaction that claims the episode. While
the memory works on its episodes, a heartbeat (one background task per
memory, stopped when it closes) moves their expiry on every third of the
lease's length; a finished or failed episode's lease is cleared with its
status. Anyone may claim an episode once its lease has expired by the
memory's clock, never before. So a live worker keeps its episodes however
long they take, and a dead one's become free one lease length after its
last heartbeat, whatever became of its pid or hostname (a pid reused after a
crash, containers sharing a hostname). Every state a worker writes about the
episode names it as the writer, and the store writes it only while the lease
is still its own or nobody's (see :mod:`kronograph.store.fence`): a worker
taken over after its lease lapsed writes nothing more about the episode.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import secrets
import socket
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from datetime import datetime, timedelta

from ..errors import InvalidInputError
from ..store.protocol import Queue
from ..store.records import EpisodeProgress
from ..time import Clock

__all__ = ["LEASE_SECONDS", "Leases", "new_owner"]

_log = logging.getLogger("kronograph")

LEASE_SECONDS = 60.0  # the default lease: how long a silent worker's episodes stay held


def new_owner() -> str:
    """A fresh owner id: host and pid to show who it is, a random token to be unique."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(6)}"


class Leases:
    """One memory's leases: claims them, renews those it is working on, lets
    them go. ``seconds`` is the lease's length; the heartbeat runs every third."""

    def __init__(self, store: Queue, clock: Clock, seconds: float = LEASE_SECONDS) -> None:
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds < math.inf:
            raise InvalidInputError("lease_seconds", "must be a finite number of seconds, more than 0")
        self.store = store
        self.owner = new_owner()
        self.seconds = float(seconds)
        self._clock = clock
        self._held: dict[str, set[str]] = {}  # group -> episodes in flight
        self._task: asyncio.Task[None] | None = None

    def until(self) -> datetime:
        """When a lease taken or renewed now runs out."""
        return self._clock() + timedelta(seconds=self.seconds)

    def lease(self) -> tuple[str, datetime]:
        """This memory's lease as an episode state carries it (``EpisodeState.lease``)."""
        return self.owner, self.until()

    async def claim(self, group_id: str, episode_id: str, statuses: Collection[str]) -> EpisodeProgress | None:
        """The episode, leased to this memory, if it is in one of ``statuses``
        and no lease holds it (a lapsed one does not); else None."""
        if episode_id in self._held.get(group_id, ()):
            return None  # this memory is on it already (another call)
        return await self.store.claim_episode(group_id, episode_id, statuses, self.owner, self.until(), self._clock())

    async def claim_queued(self, group_id: str) -> EpisodeProgress | None:
        """The group's next queued (or abandoned) episode, leased to this memory."""
        return await self.store.claim_queued(group_id, self.owner, self.until(), self._clock())

    def holds(self, progress: EpisodeProgress) -> bool:
        return progress.episode.held_by == self.owner

    @asynccontextmanager
    async def holding(self, group_id: str, episode_ids: Collection[str]) -> AsyncIterator[None]:
        """Keep these episodes' leases (claimed already) alive while in the block;
        if it is left by an exception, let them go at once (a retry need not
        wait a lease length)."""
        held = self._held.setdefault(group_id, set())
        mine = [e for e in episode_ids if e not in held]
        held.update(mine)
        self._start()
        try:
            yield
        except BaseException:
            await self.let_go(group_id, mine)
            raise
        finally:
            held.difference_update(mine)
            if not held:
                self._held.pop(group_id, None)

    async def let_go(self, group_id: str, episode_ids: list[str]) -> None:
        """End this memory's leases on these episodes now (best effort: else they lapse)."""
        if not episode_ids:
            return
        try:
            await asyncio.shield(self.store.extend_leases(group_id, episode_ids, self.owner, self._clock()))
        except BaseException:  # the store is gone or the task cancelled again: the lease lapses on its own
            _log.debug("kronograph: could not let go of leases in group %s", group_id, exc_info=True)

    async def beat(self) -> int:
        """Renew the leases of every episode this memory is working on; how many."""
        renewed = 0
        for group_id, ids in list(self._held.items()):
            if ids:
                renewed += await self.store.extend_leases(group_id, list(ids), self.owner, self.until())
        return renewed

    def _start(self) -> None:
        loop = asyncio.get_running_loop()
        if self._task is not None and not self._task.done() and self._task.get_loop() is loop:
            return
        self._task = loop.create_task(self._heartbeat(), name="kronograph-leases")

    async def _heartbeat(self) -> None:
        """Beat while anything is held; a later hold starts it again."""
        while self._held:
            await asyncio.sleep(self.seconds / 3)
            try:
                await self.beat()
            except asyncio.CancelledError:
                raise
            except Exception:  # the next beat tries again; the lease outlasts two misses
                _log.warning("kronograph: renewing episode leases failed", exc_info=True)

    async def close(self) -> None:
        """Stop the heartbeat (the memory is closing)."""
        task, self._task = self._task, None
        if task is None or task.done():
            return
        if task.get_loop() is not asyncio.get_running_loop():
            task.get_loop().call_soon_threadsafe(task.cancel)
            return
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
