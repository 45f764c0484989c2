"""The durable ingestion queue's worker.

``enqueue_episode`` records an episode as ``queued`` in the store, in one
transaction, and returns at once: the episode is durable before the caller
hears back. The worker takes each group's queued episodes in arrival order,
one at a time (the store's ``claim_queued`` takes a group's head only when
none of its episodes is in progress, so the order holds across processes
too), and runs up to ``concurrency`` groups at once.

A restart loses nothing and repeats nothing: an episode a crash interrupted
is still ``received`` (or further) with its checkpoint, and is resumed, by
the same machinery as any interrupted episode, before the queue moves on;
its commit is one transaction that first checks the episode is not already
complete. Each episode taken is leased to this memory (see
:mod:`kronograph.ingest.ownership`): a group whose episode a live worker
holds waits; one a dead worker held is taken over by the group's next claim
once the lease has run out. Failures stay on the episode (``retryable`` or
``quarantined``, with the error) and are counted by
:meth:`AsyncMemory.queue_stats`.
"""

from __future__ import annotations

import asyncio
import logging
import time

from ..redact import traceback_text
from .bulk import Ingestion

__all__ = ["QueueWorker"]

_log = logging.getLogger("kronograph")


class QueueWorker:
    """Ingests queued episodes: each group in order, ``concurrency`` groups at
    once. ``poll`` is how often the store is looked at for episodes queued by
    another process (this process's own wake the worker at once);
    ``resume_every`` how often interrupted episodes are looked for."""

    def __init__(
        self,
        ingestion: Ingestion,
        *,
        concurrency: int = 4,
        poll: float = 0.5,
        resume_every: float = 30.0,
        attempts: int = 3,
        backoff: float = 1.0,
    ) -> None:
        self._ingestion = ingestion
        self._concurrency = concurrency
        self._poll = poll
        self._resume_every = resume_every
        self._attempts = attempts
        self._backoff = backoff
        self._wake = asyncio.Event()
        self._stopping = False

    def wake(self) -> None:
        """Something was queued: look now rather than at the next poll."""
        self._wake.set()

    async def _resume(self) -> None:
        """Finish interrupted episodes first: the queue of their group waits on them."""
        try:
            await self._ingestion.resume(include_retryable=False)
        except Exception as exc:  # the queue goes on; the episode keeps its state for the next try
            _log.error("kronograph: resuming interrupted episodes failed:\n%s", traceback_text(exc))

    async def _drain_group(self, group_id: str) -> int:
        done = 0
        while not self._stopping:
            result = await self._ingestion.run_queued(group_id, attempts=self._attempts, backoff=self._backoff)
            if result is None:
                break
            done += 1
            if not result.ok:
                _log.warning("kronograph: queued episode %s of group %s ended %s: %s",
                             result.episode_id, group_id, result.status, result.error)
        return done

    async def run(self, *, wait: bool) -> int:
        """Ingest queued episodes until none is left (or, with ``wait``, until
        cancelled); returns how many were ingested. Cancelled, it lets the
        episodes in flight finish (each is one transaction either way)."""
        tasks: dict[str, asyncio.Task[int]] = {}
        stuck: set[str] = set()  # groups whose head another worker holds: looked at again at the next poll
        done = 0
        await self._resume()
        resumed_at = time.monotonic()
        try:
            while True:
                self._wake.clear()
                if wait and time.monotonic() - resumed_at > self._resume_every:
                    await self._resume()
                    resumed_at = time.monotonic()
                groups = await self._ingestion.store.queued_groups(limit=self._concurrency * 4 + len(stuck))
                for g in groups:
                    if g not in tasks and g not in stuck and len(tasks) < self._concurrency:
                        tasks[g] = asyncio.create_task(self._drain_group(g), name=f"kronograph-queue-{g}")
                if not tasks:
                    if not wait:
                        return done
                    try:
                        await asyncio.wait_for(self._wake.wait(), self._poll)
                    except TimeoutError:
                        pass
                    stuck.clear()
                    continue
                waker = asyncio.create_task(self._wake.wait())
                finished, _ = await asyncio.wait(
                    [*tasks.values(), waker], timeout=self._poll, return_when=asyncio.FIRST_COMPLETED
                )
                waker.cancel()
                if not finished or waker in finished:
                    stuck.clear()
                for g, task in list(tasks.items()):
                    if task.done():
                        del tasks[g]
                        n = task.result()  # a store error ends the worker: raised to its owner
                        done += n
                        if n == 0:
                            stuck.add(g)
        except asyncio.CancelledError:
            self._stopping = True
            if tasks:
                await asyncio.wait(tasks.values(), timeout=30.0)
            raise
        finally:
            self._stopping = True
            for task in tasks.values():
                task.cancel()
