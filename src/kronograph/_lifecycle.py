"""AsyncMemory's lifecycle: construction (its arguments checked; its store,
the services that ingestion, search and maintenance share, its leases and
ingestion made), opening on first use (with resuming what a crash left),
moving between event loops, closing, and the warning for a memory dropped
open.

A base class of :class:`~kronograph.memory.AsyncMemory`, so ``memory`` keeps
to the per-call reads and writes and ``_maintenance`` to the whole-group
work, while the plumbing they share (``_ready``, ``_group``, ``_lock``,
``_now``) lives here with the state it guards.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Self

from . import checks
from ._arguments import _id, _relation_types
from .embed.hashing import HashingEmbedder
from .embed.protocol import Embedder
from .errors import ClosedError, InvalidInputError, SchemaError
from .ingest.bulk import Ingestion
from .ingest.judge import Judge
from .ingest.ownership import LEASE_SECONDS, Leases
from .ingest.queue import QueueWorker
from .model import RelationType
from .redact import traceback_text
from .search.types import CrossEncoder
from .services import ModelArg, Models, Services
from .store import Store, open_store
from .time import Clock, as_utc, system_clock

__all__ = ["Lifecycle", "ModelArg"]

_log = logging.getLogger("kronograph")


class Lifecycle:
    """The lifecycle half of :class:`~kronograph.memory.AsyncMemory`; its
    parameters are documented there."""

    def __init__(
        self,
        store: str | Path | Store = ":memory:",
        *,
        clock: Clock | None = None,
        judge: Judge | None = None,
        relation_types: Mapping[str, RelationType | Mapping[str, Any]] | None = None,
        candidate_limit: int = 50,
        model: ModelArg = "auto",
        embedder: Embedder | None = None,
        store_raw_content: bool = True,
        context_episodes: int = 4,
        max_concurrency: int = 4,
        resume: bool = True,
        cross_encoder: CrossEncoder | None = None,
        lease_seconds: float = LEASE_SECONDS,
    ) -> None:
        self._relation_types = _relation_types(relation_types)
        if cross_encoder is not None and not isinstance(cross_encoder, CrossEncoder):
            raise InvalidInputError("cross_encoder", "must have a name and async score(query, passages)")
        self._cross_encoder = cross_encoder
        checks.count("candidate_limit", candidate_limit)
        checks.flag("store_raw_content", store_raw_content)
        checks.flag("resume", resume)
        if judge is not None and not callable(judge):
            raise InvalidInputError("judge", "must be callable: judge(new_fact, candidates) -> Verdict")
        try:
            self._store = store if isinstance(store, Store) else open_store(store, threaded=self._threaded)
        except (ValueError, TypeError) as exc:
            raise InvalidInputError("store", str(exc)) from None
        self._clock = clock or system_clock
        self._judge = judge
        self._candidate_limit = candidate_limit
        self._locks: dict[str, asyncio.Lock] = {}
        self._saga_locks: dict[tuple[str, str], asyncio.Lock] = {}
        self._opened = False
        self._closed = False
        checks.count("context_episodes", context_episodes, minimum=0)
        checks.count("max_concurrency", max_concurrency)
        self._leases = Leases(self._store, self._now, lease_seconds)
        if embedder is not None and not isinstance(embedder, Embedder):
            raise InvalidInputError("embedder", "must have name, dimension and async embed(texts)")
        # Built once, shared by ingestion, search and maintenance.
        self._services = Services(
            store=self._store, clock=self._now, models=Models(model, self._store, self._now),
            embedder=embedder or HashingEmbedder(),
        )
        self._ingestion = Ingestion(
            self._services,
            judge=judge,
            relation_types=self._relation_types,
            candidate_limit=candidate_limit,
            store_raw_content=store_raw_content,
            context_episodes=context_episodes,
            max_concurrency=max_concurrency,
            lock=self._lock,
            leases=self._leases,
        )
        self._resume_on_open = resume
        self._workers: set[QueueWorker] = set()  # woken when an episode is queued
        self._loop: asyncio.AbstractEventLoop | None = None  # the event loop of the last call (see _ready)
        self._built = True  # a memory whose constructor refused its arguments holds nothing to close

    _threaded = True  # the sync shell owns its loop and runs the store inline
    _warns_unclosed = True  # the sync shell warns for its core

    @property
    def store(self) -> Store:
        return self._store

    def _now(self) -> datetime:
        return as_utc(self._clock())

    async def _ready(self) -> Store:
        if self._closed:
            raise ClosedError("this memory is closed")
        self._enter_loop(asyncio.get_running_loop())
        if not self._opened:
            await self._store.open()
            await self._services.check_embedder()
            self._opened = True
            # A read replica cannot finish an episode: resuming there only fails its writes.
            if self._resume_on_open and not self._store.read_only:
                try:
                    await self._ingestion.resume(include_retryable=False)
                except (ClosedError, SchemaError):
                    raise
                except Exception as exc:  # the call that opened the memory is about something else
                    _log.error("kronograph: resuming unfinished episodes on opening failed:\n%s", traceback_text(exc))
        return self._store

    def _group(self, group_id: Any) -> str:
        return _id("group_id", group_id)  # type: ignore[return-value]

    def _lock(self, group_id: str) -> asyncio.Lock:
        return self._locks.setdefault(group_id, asyncio.Lock())

    def _enter_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """A memory moves to a new event loop (another ``asyncio.run``): the
        group locks of a loop that has stopped are dropped, since a task left
        on it holding one could never release it and every later call on the
        group would wait forever."""
        if loop is self._loop:
            return
        old, self._loop = self._loop, loop
        if old is not None and not old.is_running():
            self._locks.clear()
            self._saga_locks.clear()

    async def aclose(self) -> None:
        """Close the store (its thread, connection or pool) and the model
        client this memory made itself (from ``"auto"`` or settings; one
        passed in is left to its owner). A memory is closed once: ``async
        with`` does it; dropped open, it warns (``ResourceWarning``)."""
        if self._closed:
            return
        self._closed = True
        try:
            await self._leases.close()
            await self._services.models.aclose()
        finally:
            await self._store.close()

    def __del__(self) -> None:
        # The store releases its own thread, file or pool when it is collected
        # with the memory; this says that close() was forgotten.
        if self.__dict__.get("_built") and not self._closed and self._warns_unclosed:
            warnings.warn(
                f"unclosed {type(self).__name__} on {self._store!r}: use 'async with' or await aclose()",
                ResourceWarning, source=self, stacklevel=2,
            )

    async def __aenter__(self) -> Self:
        await self._ready()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
