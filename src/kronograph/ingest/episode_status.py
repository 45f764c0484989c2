"""Where an episode stands: its status writes, its admission (registered,
or found where it got to), and its ends other than complete: a duplicate,
held by another worker, taken over, retryable or quarantined.

A base class of :class:`~.pipeline.Pipeline`, so the pipeline module keeps to
the stages an episode goes through while this one keeps the bookkeeping of
its status and lease. What both halves use (the shared services, the chosen
model, the settings and the leases) is set up here.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import (
    ClosedError,
    ConcurrentWriteError,
    EmbeddingError,
    InvalidInputError,
    JudgeError,
    KronographError,
    LeaseLostError,
    ModelError,
    ModelOutputError,
    SchemaError,
    StoreError,
    TransientModelError,
)
from ..llm.client import ModelClient
from ..llm.protocol import Usage
from ..model import Episode, EpisodeKind, EpisodeResult, EpisodeStatus, ModelUsage, trusted
from ..redact import exception_text, traceback_text
from ..store.plan import EpisodeState, Plan
from ..store.protocol import Store
from .checkpoint import Checkpoint
from .episode_input import EpisodeInput
from .ownership import Leases
from .replies import replies

if TYPE_CHECKING:
    from ..services import Services
    from .pipeline import PipelineSettings

__all__ = ["EpisodeStatuses", "model_usage"]

_log = logging.getLogger("kronograph")

_RETRYABLE = (TransientModelError, ConcurrentWriteError, EmbeddingError, JudgeError)

# An episode admit may take up again: anything not complete.
_TAKEABLE = tuple(s.value for s in EpisodeStatus if s != EpisodeStatus.COMPLETE)


class EpisodeStatuses:
    """The status half of :class:`~.pipeline.Pipeline`."""

    def __init__(
        self, services: Services, model: ModelClient | None, settings: PipelineSettings, leases: Leases
    ) -> None:
        self.services = services
        self.store: Store = services.store
        self.model = model  # chosen already (see Services.model)
        self.settings = settings
        self.leases = leases

    def _now(self) -> datetime:
        return self.services.clock()

    def _episode_state(self, episode_id: str, status: EpisodeStatus, now: datetime, **fields: Any) -> EpisodeState:
        """A new state of an episode this memory holds: written only while it
        still does (else the store raises LeaseLostError, see ``taken_over``)."""
        return EpisodeState(episode_id, status.value, now, owner=self.leases.owner, **fields)

    def _state_plan(self, group_id: str, state: EpisodeState) -> Plan:
        """An episode's new state, with the model replies its stage was given
        (cached in the same transaction)."""
        plan = Plan(group_id=group_id, now=state.updated_at, expected_revision=None)
        plan.episode_states.append(state)
        plan.cached_replies.extend(replies.get(None) or ())
        plan.replies_episode = state.uuid
        return plan

    async def _state(self, group_id: str, state: EpisodeState) -> None:
        await self.store.apply(self._state_plan(group_id, state))

    def _extracts_now(self, inp: EpisodeInput) -> bool:
        return self.model is not None and inp.kind.value != "json"

    def _registration(self, inp: EpisodeInput, status: EpisodeStatus) -> Plan:
        """The plan that records an episode as received (or already extracting),
        with what resuming it needs."""
        now = self._now()
        plan = Plan(group_id=inp.group_id, now=now, expected_revision=None)
        raw = self.settings.store_raw_content
        plan.new_episodes.append(inp.episode(now, store_raw_content=raw))
        plan.episode_states.append(
            self._episode_state(inp.episode_id, status, now, pending=inp.pending(with_content=not raw),
                                lease=self.leases.lease())
        )
        return plan

    async def admit(self, inp: EpisodeInput, *, now: bool = False) -> tuple[EpisodeResult | None, Checkpoint]:
        """Register a new episode, or find where a known one got to: returns the
        result to give back at once (a duplicate), or the checkpoint to go on
        from. ``now``: extraction starts right away (one status write fewer).
        Either way the episode is leased to this memory from here on, or,
        when another worker's lease holds it, the result says so."""
        extracting = now and self._extracts_now(inp)
        registration = self._registration(inp, EpisodeStatus.EXTRACTING if extracting else EpisodeStatus.RECEIVED)
        progress = await self.store.register_episode(registration, inp.episode_id)
        if progress is None:  # it was new, and is registered now
            return None, Checkpoint(extracting=extracting)
        stored = progress.episode
        if stored.kind == EpisodeKind.FACT or stored.content_hash is None:
            raise InvalidInputError("episode_id", f"{inp.episode_id!r} is the id of facts added directly (add_fact)")
        if stored.content_hash != inp.content_hash:
            raise InvalidInputError(
                "episode_id", f"{inp.episode_id!r} was already used for an episode with other content"
            )
        if stored.status == EpisodeStatus.COMPLETE:
            return self.duplicate(inp, progress.result or {}), Checkpoint()
        claimed = await self.leases.claim(inp.group_id, stored.uuid, _TAKEABLE)
        if claimed is None:
            again = await self.store.episode_progress(inp.group_id, stored.uuid)
            if again is not None and again.episode.status == EpisodeStatus.COMPLETE:
                return self.duplicate(inp, again.result or {}), Checkpoint()
            return self.busy(inp, again.episode if again is not None else stored), Checkpoint()
        return None, Checkpoint.from_json(claimed.checkpoint)

    async def taken_over(self, inp: EpisodeInput, lost: LeaseLostError) -> EpisodeResult:
        """The answer of a worker whose lease lapsed and whose episode another
        worker took over (or finished) meanwhile: it wrote nothing about it,
        and answers as :meth:`busy` does (or :meth:`duplicate`, finished)."""
        progress = await self.store.episode_progress(inp.group_id, inp.episode_id)
        if progress is not None and progress.episode.status == EpisodeStatus.COMPLETE:
            return self.duplicate(inp, progress.result or {})
        if progress is not None:
            return self.busy(inp, progress.episode)
        return EpisodeResult(  # removed since, too
            episode_id=inp.episode_id, group_id=inp.group_id, status=EpisodeStatus(lost.status),
            error=f"another worker ({lost.holder or 'unknown'}) took this episode over",
        )

    def busy(self, inp: EpisodeInput, held: Episode) -> EpisodeResult:
        until = f" until {held.held_until.isoformat()}" if held.held_until is not None else ""
        return EpisodeResult(
            episode_id=inp.episode_id, group_id=inp.group_id, status=EpisodeStatus(held.status),
            error=f"another live worker ({held.held_by or 'unknown'}) holds this episode{until}",
        )

    def duplicate(self, inp: EpisodeInput, stored: Mapping[str, Any]) -> EpisodeResult:
        return EpisodeResult(
            episode_id=inp.episode_id, group_id=inp.group_id, status=EpisodeStatus.COMPLETE,
            duplicate=True, extractor=str(stored.get("extractor", "")),
        )
    # -- failures ----------------------------------------------------------------
    async def _failure(self, inp: EpisodeInput, exc: Exception, usage: Usage) -> EpisodeResult:
        """Retryable or quarantined, by what went wrong; a memory that cannot
        be used at all is not the episode's doing, and is raised."""
        if isinstance(exc, SchemaError | ClosedError):
            raise exc
        if isinstance(exc, LeaseLostError):  # before ConcurrentWriteError: nothing to retry, it is not ours
            return await self.taken_over(inp, exc)
        if isinstance(exc, _RETRYABLE + (StoreError,)):
            return await self.failed(inp, exc, True, usage)
        if isinstance(exc, ModelError):
            return await self.failed(inp, exc, not isinstance(exc, ModelOutputError), usage)
        if isinstance(exc, KronographError):
            _log.warning("episode %s quarantined: %s", inp.episode_id, exception_text(exc))
        else:  # unexpected: kept apart, and logged in full (redacted: a custom provider's words)
            _log.error("episode %s quarantined by an unexpected error:\n%s", inp.episode_id, traceback_text(exc))
        return await self.failed(inp, exc, False, usage)

    async def run_failed(self, inp: EpisodeInput, exc: Exception, usage: Usage) -> EpisodeResult:
        """Record an error met outside :meth:`run` (a batch's extraction), as
        :meth:`run` would have."""
        try:
            raise exc
        except Exception as raised:
            return await self._failure(inp, raised, usage)

    async def failed(self, inp: EpisodeInput, exc: Exception, retry: bool, usage: Usage) -> EpisodeResult:
        status = EpisodeStatus.RETRYABLE if retry else EpisodeStatus.QUARANTINED
        error = exception_text(exc)  # stored and answered: no key or private host a provider quoted
        state = self._episode_state(inp.episode_id, status, self._now(), error=error, lease=None)
        if not retry and not self.settings.store_raw_content:
            # Final: the text held for a resumption is not kept any longer.
            state = self._episode_state(inp.episode_id, status, state.updated_at, error=error,
                                        pending=inp.pending(with_content=False), lease=None)
        try:
            await self._state(inp.group_id, state)
        except LeaseLostError as lost:  # another worker has it now: its state and lease stay as they are
            return await self.taken_over(inp, lost)
        return EpisodeResult(
            episode_id=inp.episode_id, group_id=inp.group_id, status=status, error=error, usage=model_usage(usage)
        )


def model_usage(usage: Usage) -> ModelUsage:
    """What an episode's model calls cost, as its result reports it."""
    return trusted(ModelUsage, **usage.as_dict())
