"""Ingestion as the memory runs it: one episode, many, and resumption.

Within a group, episodes resolve and commit one at a time, in the order they
came in (each takes a ticket on arrival, see :mod:`.turns`), a batch in the
order given; groups run in parallel. Extraction needs no turn: it depends
only on the episode and its context (the earlier episodes by reference time),
so episodes of a group extract concurrently, and only their resolution and
commit wait for their turn; the group's write lock is taken for the commit
alone (see :mod:`.pipeline`). A batch registers all its episodes up front,
which makes each one's context the same as for one-by-one ingestion, so a
batch builds exactly the graph that ``add_episode`` called on the same list
one by one builds.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..errors import InvalidInputError, NotFoundError
from ..llm.protocol import Usage
from ..metrics import record_episode, span
from ..model import Episode, EpisodeKind, EpisodeResult, EpisodeStatus, RelationType
from ..store.plan import EpisodeState, Plan
from .checkpoint import Checkpoint
from .episode_input import EpisodeInput, episode_input
from .judge import Judge
from .ownership import Leases
from .pipeline import Pipeline, PipelineSettings
from .turns import Ticket, Turns

if TYPE_CHECKING:
    from ..services import Services

__all__ = ["EpisodeItem", "Ingestion"]

_log = logging.getLogger("kronograph")

_UNFINISHED = (
    EpisodeStatus.RECEIVED.value,
    EpisodeStatus.EXTRACTING.value,
    EpisodeStatus.RESOLVING.value,
    EpisodeStatus.COMMITTING.value,
)


@dataclass(frozen=True, slots=True)
class EpisodeItem:
    """One episode of a batch: ``add_episode``'s arguments."""

    content: Any
    kind: str = "message"
    reference_time: datetime | str | None = None
    name: str | None = None
    source_description: str | None = None
    episode_id: str | None = None
    saga: str | None = None
    previous_episode_ids: Iterable[str] | None = None
    entity_types: Any = None
    fact_types: Any = None
    excluded_entity_types: Iterable[str] | None = None
    metadata: Mapping[str, Any] | None = None
    json_mapping: Any = None
    actor: str | None = None
    on_behalf_of: str | None = None
    speaker: str | None = None  # whom "I" and "my" mean (default: from role and the group's user name)
    role: str | None = None  # "user", "assistant", "system", "tool" or another word
    addressee: str | None = None  # whom "you" means (default: from role)
    tier: str | None = None  # the tier of the facts it states (kronograph.authority)
    data_subject: str | None = None  # whose data it is (a customer id): forget(data_subject=...) erases it

    @classmethod
    def of(cls, value: Any, where: str) -> EpisodeItem:
        if isinstance(value, EpisodeItem):
            return value
        if isinstance(value, BaseModel):
            value = value.model_dump()
        if not isinstance(value, Mapping):
            raise InvalidInputError(where, f"expected a dict with add_episode's fields, got {type(value).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(value) - known)
        if unknown:
            raise InvalidInputError(where, f"unknown field(s) {unknown}; expected some of {sorted(known)}")
        if "content" not in value:
            raise InvalidInputError(f"{where}.content", "is required")
        return cls(**value)


class Ingestion:
    """Episodes in: one, a batch, the queue's, and resumption, with the
    memory's shared :class:`~kronograph.services.Services` (store, clock,
    model, embedder) and its ingestion settings."""

    def __init__(
        self,
        services: Services,
        *,
        judge: Judge | None,
        relation_types: Mapping[str, RelationType],
        candidate_limit: int,
        store_raw_content: bool,
        context_episodes: int,
        max_concurrency: int,
        lock: Callable[[str], asyncio.Lock],
        leases: Leases,
    ) -> None:
        self.services = services
        self.store = services.store
        self._clock = services.clock
        self._latest: dict[str, datetime] = {}  # latest reference time ingested per group (late-episode metric)
        self._lock = lock
        self.leases = leases
        self._turns = Turns()
        self._in_flight: dict[tuple[str, str], asyncio.Future[None]] = {}  # episodes being added, by (group, id)
        self._max_concurrency = max_concurrency
        self._settings = PipelineSettings(
            judge=judge, relation_types=relation_types, candidate_limit=candidate_limit,
            store_raw_content=store_raw_content, context_episodes=context_episodes,
        )

    async def _pipeline(self) -> Pipeline:
        model = await self.services.model()  # chosen on first use; no await after: callers keep their order
        return Pipeline(self.services, model, self._settings, self.leases, self._lock)

    def _input(self, group_id: str, item: EpisodeItem, where: str, user_name: str | None = None) -> EpisodeInput:
        try:
            return episode_input(
                group_id, item.content, kind=item.kind, reference_time=item.reference_time, name=item.name,
                source_description=item.source_description, episode_id=item.episode_id, saga=item.saga,
                previous_episode_ids=item.previous_episode_ids, entity_types=item.entity_types,
                fact_types=item.fact_types, excluded_entity_types=item.excluded_entity_types,
                metadata=item.metadata, json_mapping=item.json_mapping, now=self._clock(),
                actor=item.actor, on_behalf_of=item.on_behalf_of, speaker=item.speaker, role=item.role,
                addressee=item.addressee, user_name=user_name, tier=item.tier,
                data_subject=item.data_subject,
            )
        except InvalidInputError as exc:
            if not where:
                raise
            raise InvalidInputError(f"{where}.{exc.field}", str(exc).split(": ", 1)[-1]) from None

    # -- one -------------------------------------------------------------------------
    async def add_episode(self, group_id: str, item: EpisodeItem, *, user_name: str | None = None) -> EpisodeResult:
        inp = self._input(group_id, item, "", user_name)
        async with self._turns.take(group_id) as turn:
            pipeline = await self._pipeline()
            key = (group_id, inp.episode_id)
            while key in self._in_flight:  # the same episode already on its way: its result decides
                await asyncio.shield(self._in_flight[key])
            with self._taking(key):
                done, checkpoint = await pipeline.admit(inp, now=True)
                if done is not None:
                    return done
                return await self._run(pipeline, inp, checkpoint, turn=turn)

    @contextmanager
    def _taking(self, key: tuple[str, str]) -> Iterator[None]:
        """Mark an episode as on its way in this memory (no await between a
        caller's look at ``_in_flight`` and this): no other path takes it."""
        self._in_flight[key] = asyncio.get_running_loop().create_future()
        try:
            yield
        finally:
            self._in_flight.pop(key).set_result(None)

    async def _run(
        self, pipeline: Pipeline, inp: EpisodeInput, checkpoint: Checkpoint, usage: Usage | None = None,
        *, turn: Ticket | None = None,
    ) -> EpisodeResult:
        latest = self._latest.get(inp.group_id)
        started = time.perf_counter()
        async with self.leases.holding(inp.group_id, [inp.episode_id]):
            with span("add_episode", group_id=inp.group_id):
                result = await pipeline.run(inp, checkpoint, usage, turn=turn.wait if turn is not None else None)
        late = latest is not None and inp.reference_time < latest
        record_episode(result, time.perf_counter() - started, late=late)
        if result.ok and (latest is None or inp.reference_time > latest):
            self._latest[inp.group_id] = inp.reference_time
        return result

    # -- many ------------------------------------------------------------------------
    def check(
        self, group_id: str, episodes: Iterable[Mapping[str, Any] | EpisodeItem], *,
        user_name: str | None = None, label: str = "episodes",
    ) -> list[EpisodeInput]:
        """Every item validated, or InvalidInputError naming the first bad one
        (``label[i].field``)."""
        if isinstance(episodes, Mapping | str | bytes):
            raise InvalidInputError(label, f"expected a list of {label}")
        items = [EpisodeItem.of(e, f"{label}[{i}]") for i, e in enumerate(episodes)]
        inputs = [self._input(group_id, item, f"{label}[{i}]", user_name) for i, item in enumerate(items)]
        seen: dict[str, str] = {}
        for i, inp in enumerate(inputs):
            if seen.setdefault(inp.episode_id, inp.content_hash) != inp.content_hash:
                raise InvalidInputError(f"{label}[{i}].{_id_field(label)}", "repeats an id with other content")
        return inputs

    async def add_episodes(
        self, group_id: str, episodes: Iterable[Mapping[str, Any] | EpisodeItem], *,
        user_name: str | None = None, label: str = "episodes",
    ) -> list[EpisodeResult]:
        inputs = self.check(group_id, episodes, user_name=user_name, label=label)
        results: list[EpisodeResult | None] = [None] * len(inputs)
        async with self._turns.take(group_id) as turn:
            pipeline = await self._pipeline()
            # Nothing is stored before every id is known to be free or the same episode.
            for i, inp in enumerate(inputs):
                stored = await self.store.episode(group_id, inp.episode_id)
                if stored is not None and (stored.kind == "fact" or stored.content_hash != inp.content_hash):
                    raise InvalidInputError(
                        f"{label}[{i}].{_id_field(label)}",
                        f"{inp.episode_id!r} was already used for an episode with other content",
                    )
            checkpoints: dict[int, Checkpoint] = {}
            first: dict[str, int] = {}
            # The order given: one-by-one ingestion of the same list builds the same graph.
            try:
                for i, inp in enumerate(inputs):  # register everything first: extraction context is then as one by one
                    if inp.episode_id in first:
                        continue  # the same episode twice in the batch: the second gets the first's result
                    first[inp.episode_id] = i
                    done, checkpoint = await pipeline.admit(inp)
                    if done is not None:
                        results[i] = done
                    else:
                        checkpoints[i] = checkpoint
            except BaseException:  # those admitted so far are free again at once, not a lease length later
                await self.leases.let_go(group_id, [inputs[i].episode_id for i in checkpoints])
                raise
            # Every admitted episode is leased to this memory: held (the heartbeat
            # renews them) until its turn comes and it completes or fails.
            async with self.leases.holding(group_id, [inputs[i].episode_id for i in checkpoints]):
                await self._batch(pipeline, inputs, checkpoints, results, first, turn)
        return [r for r in results if r is not None]

    async def _batch(
        self, pipeline: Pipeline, inputs: list[EpisodeInput], checkpoints: dict[int, Checkpoint],
        results: list[EpisodeResult | None], first: dict[str, int], turn: Ticket,
    ) -> None:
        """A registered batch: extracted concurrently, then, in the group's
        turn, resolved and committed one by one in order."""
        gate = asyncio.Semaphore(self._max_concurrency)
        usages = {i: Usage() for i in checkpoints}
        errors: dict[int, Exception] = {}

        async def extract_one(i: int) -> None:
            async with gate:
                try:
                    checkpoints[i] = await pipeline.extract_stage(inputs[i], checkpoints[i], usages[i])
                except Exception as exc:  # recorded in order below, not paid for again
                    errors[i] = exc

        await asyncio.gather(*(extract_one(i) for i in checkpoints))
        await turn.wait()  # the group's earlier episodes are in: this batch's resolve against them
        for i, inp in enumerate(inputs):
            if results[i] is not None:
                continue
            if i not in checkpoints:  # a repeated id within the batch
                earlier = results[first[inp.episode_id]]
                assert earlier is not None
                results[i] = earlier.model_copy(update={"duplicate": earlier.ok})
            elif i in errors:
                results[i] = await pipeline.run_failed(inp, errors[i], usages[i])
            else:
                results[i] = await self._run(pipeline, inp, checkpoints[i], usages[i])

    # -- the queue (see queue.py) ---------------------------------------------------------
    async def enqueue(self, group_id: str, item: EpisodeItem, *, user_name: str | None = None) -> Episode:
        """Record an episode as ``queued``, with what ingesting it needs, in one
        transaction; the same id and content again is the stored episode as it
        now stands (idempotent), another content under the id is refused."""
        inp = self._input(group_id, item, "", user_name)
        await self._pipeline()  # the model is chosen now: a bad configuration fails the request, not the worker
        now = self._clock()
        raw = self._settings.store_raw_content
        plan = Plan(group_id=group_id, now=now, expected_revision=None)
        plan.new_episodes.append(inp.episode(now, store_raw_content=raw))  # without it, the text waits in pending
        pending = inp.pending(with_content=not raw)
        plan.episode_states.append(EpisodeState(inp.episode_id, EpisodeStatus.QUEUED.value, now, pending=pending))
        progress = await self.store.register_episode(plan, inp.episode_id)
        if progress is None:
            stored = await self.store.episode(group_id, inp.episode_id)
            if stored is None:  # removed (forgotten) as soon as it was queued
                raise NotFoundError(f"episode {inp.episode_id!r} of group {group_id!r} was removed as it was queued")
            # As this call recorded it: a worker polling meanwhile may have taken it already.
            return stored.model_copy(update={"status": EpisodeStatus.QUEUED.value, "error": None})
        stored = progress.episode
        if stored.kind == EpisodeKind.FACT or stored.content_hash is None:
            raise InvalidInputError("episode_id", f"{inp.episode_id!r} is the id of facts added directly (add_fact)")
        if stored.content_hash != inp.content_hash:
            raise InvalidInputError(
                "episode_id", f"{inp.episode_id!r} was already used for an episode with other content"
            )
        return stored

    async def run_queued(self, group_id: str, *, attempts: int = 3, backoff: float = 1.0) -> EpisodeResult | None:
        """Claim the head of the group's queue and ingest it in its turn; a
        failure worth retrying is retried (``attempts`` in all, waiting
        ``backoff`` seconds more each time, holding neither the group's lock
        nor its turn) before the next episode of the group is taken. None
        when there was nothing to take."""
        async with self._turns.take(group_id) as turn:
            pipeline = await self._pipeline()
            progress = await self.leases.claim_queued(group_id)
            if progress is None:
                return None
            try:
                inp = EpisodeInput.resumed(progress.episode, progress.pending or {})
            except InvalidInputError as exc:
                return await pipeline.failed(_stub(progress.episode), exc, False, Usage())
            with self._taking((group_id, inp.episode_id)):
                result = await self._run(pipeline, inp, Checkpoint.from_json(progress.checkpoint), turn=turn)
        for attempt in range(1, attempts):
            if result.status != EpisodeStatus.RETRYABLE:
                break
            await asyncio.sleep(backoff * attempt)  # holding neither the group's lock nor its turn
            async with self._turns.take(group_id) as turn:
                if (group_id, inp.episode_id) in self._in_flight:
                    break  # another path of this memory took it up
                again = await self.leases.claim(group_id, inp.episode_id, [EpisodeStatus.RETRYABLE.value])
                if again is None:
                    break  # removed, finished or taken up by another worker meanwhile
                with self._taking((group_id, inp.episode_id)):
                    result = await self._run(pipeline, inp, Checkpoint.from_json(again.checkpoint), turn=turn)
        return result

    # -- resumption --------------------------------------------------------------------
    async def resume(self, *, include_retryable: bool) -> list[EpisodeResult]:
        statuses = list(_UNFINISHED) + ([EpisodeStatus.RETRYABLE.value] if include_retryable else [])
        rows = await self.store.unfinished_episodes(statuses)
        if not rows:
            return []
        pipeline = await self._pipeline()
        results = []
        for group_id, episode_id, _status, _updated in rows:
            async with self._turns.take(group_id) as turn:
                if (group_id, episode_id) in self._in_flight:
                    continue  # this memory is on it already
                progress = await self.leases.claim(group_id, episode_id, statuses)
                if progress is None:
                    continue  # finished meanwhile, or a live worker's lease holds it
                pending = progress.pending or {}
                try:
                    inp = EpisodeInput.resumed(progress.episode, pending)
                except InvalidInputError as exc:
                    results.append(await pipeline.failed(_stub(progress.episode), exc, False, Usage()))
                    continue
                _log.info("kronograph: resuming episode %s of group %s (%s)", episode_id, group_id, _status)
                with self._taking((group_id, episode_id)):
                    results.append(await self._run(pipeline, inp, Checkpoint.from_json(progress.checkpoint), turn=turn))
        return results


def _id_field(label: str) -> str:
    """The name of an item's id: a message's ``id``, an episode's ``episode_id``."""
    return "id" if label == "messages" else "episode_id"


def _stub(episode: Any) -> EpisodeInput:
    """Just enough of an input to record why an episode cannot be resumed."""
    from .ontology import Ontology

    return EpisodeInput(
        group_id=episode.group_id, episode_id=episode.uuid, content="", kind=episode.kind,
        reference_time=episode.reference_time, time_zone="UTC", utc_offset=0, name=episode.name,
        source_description=None, saga=None, previous_episode_ids=None, ontology=Ontology(),
        metadata={}, json_mapping=None, content_hash=episode.content_hash or "",
        actor=episode.actor, on_behalf_of=episode.on_behalf_of, speaker=episode.speaker, role=episode.role,
    )
