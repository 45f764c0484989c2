"""``Memory``: the blocking shell of :class:`~kronograph.memory.AsyncMemory`.

It drives a private event loop in the caller's thread (see ``_portal``) and
its store runs inline; every method mirrors ``AsyncMemory``'s, parameter for
parameter."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from ._arguments import TimeLike
from ._context import CONTEXT_SCOPES
from ._portal import Portal
from .context import Context, ContextParts, TokenCounter
from .embed.protocol import Embedder
from .errors import ClosedError
from .ingest.bulk import EpisodeItem
from .ingest.episode_input import DEFAULT_ASSISTANT
from .ingest.json_map import JsonMapping
from .ingest.judge import Judge, refuse_writes_from_a_judge
from .ingest.ontology import TypesArg
from .ingest.ownership import LEASE_SECONDS
from .maintain.communities import BATCH as _COMMUNITY_BATCH
from .maintain.communities import MAX_MODEL_CALLS as _COMMUNITY_CALLS
from .maintain.reconcile import ReconcileReport
from .maintain.repair import MergeResult, SplitResult
from .maintain.sagas import MAX_CALLS
from .memory import AsyncMemory, ModelArg
from .message import Message
from .model import (
    AddFactResult,
    AuditEvent,
    Community,
    CommunityBuild,
    CommunityUpdate,
    Entity,
    EntitySummary,
    Episode,
    EpisodeResult,
    Fact,
    FactChange,
    FactSource,
    ForgetReport,
    GroupExport,
    GroupSettings,
    PossibleContradiction,
    QueueStats,
    RelationType,
    RemovalResult,
    SagaInfo,
    SagaSummary,
)
from .search.engine import SCOPES
from .search.recipes import Recipe
from .search.types import CrossEncoder, SearchFilters, SearchResults
from .store import Store
from .time import Clock

__all__ = ["Memory"]


class _SyncCore(AsyncMemory):
    _threaded = False
    _warns_unclosed = False  # its Memory does


class Memory:
    """The same memory with a blocking API; every method mirrors ``AsyncMemory``."""

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
        self._core = _SyncCore(
            store, clock=clock, judge=judge, relation_types=relation_types, candidate_limit=candidate_limit,
            model=model, embedder=embedder, store_raw_content=store_raw_content,
            context_episodes=context_episodes, max_concurrency=max_concurrency, resume=resume,
            cross_encoder=cross_encoder, lease_seconds=lease_seconds,
        )
        self._portal = Portal()

    @property
    def store(self) -> Store:
        return self._core.store

    def close(self) -> None:
        """Close the store and the private event loop; ``with`` does it.
        Dropped open, a memory warns (``ResourceWarning``)."""
        if self._core._closed:
            return
        try:
            self._portal.call(self._core.aclose())
        finally:
            self._portal.close()

    def __del__(self) -> None:
        core, portal = self.__dict__.get("_core"), self.__dict__.get("_portal")
        if core is None or portal is None or core._closed:
            return  # never built, or closed
        warnings.warn(
            f"unclosed Memory on {core.store!r}: use 'with Memory(...)' or call close()",
            ResourceWarning, source=self, stacklevel=2,
        )
        portal.abandon()  # the store releases its file when it is collected with the core

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _call(self, coro: Any) -> Any:
        if self._core._closed:
            coro.close()
            raise ClosedError("this memory is closed")
        return self._portal.call(coro)

    def add_fact(
        self,
        group_id: str,
        subject: str,
        relation: str,
        object: str,
        *,
        fact: str | None = None,
        valid_at: TimeLike | None = None,
        invalid_at: TimeLike | None = None,
        episode_id: str | None = None,
        subject_labels: Iterable[str] = (),
        object_labels: Iterable[str] = (),
        actor: str | None = None,
        on_behalf_of: str | None = None,
    ) -> AddFactResult:
        refuse_writes_from_a_judge()  # here too: the judge's thread is the caller
        return self._call(
            self._core.add_fact(
                group_id, subject, relation, object, fact=fact, valid_at=valid_at, invalid_at=invalid_at,
                episode_id=episode_id, subject_labels=subject_labels, object_labels=object_labels, actor=actor,
                on_behalf_of=on_behalf_of,
            )
        )

    def add_episode(
        self,
        group_id: str,
        content: Any,
        *,
        kind: str = "message",
        reference_time: TimeLike | None = None,
        name: str | None = None,
        source_description: str | None = None,
        episode_id: str | None = None,
        saga: str | None = None,
        previous_episode_ids: Iterable[str] | None = None,
        entity_types: TypesArg = None,
        fact_types: TypesArg = None,
        excluded_entity_types: Iterable[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        json_mapping: JsonMapping | Mapping[str, Any] | None = None,
        actor: str | None = None,
        on_behalf_of: str | None = None,
        speaker: str | None = None,
        role: str | None = None,
    ) -> EpisodeResult:
        refuse_writes_from_a_judge()
        return self._call(
            self._core.add_episode(
                group_id, content, kind=kind, reference_time=reference_time, name=name,
                source_description=source_description, episode_id=episode_id, saga=saga,
                previous_episode_ids=previous_episode_ids, entity_types=entity_types, fact_types=fact_types,
                excluded_entity_types=excluded_entity_types, metadata=metadata, json_mapping=json_mapping,
                actor=actor, on_behalf_of=on_behalf_of, speaker=speaker, role=role,
            )
        )

    def enqueue_episode(
        self,
        group_id: str,
        content: Any,
        *,
        kind: str = "message",
        reference_time: TimeLike | None = None,
        name: str | None = None,
        source_description: str | None = None,
        episode_id: str | None = None,
        saga: str | None = None,
        previous_episode_ids: Iterable[str] | None = None,
        entity_types: TypesArg = None,
        fact_types: TypesArg = None,
        excluded_entity_types: Iterable[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        json_mapping: JsonMapping | Mapping[str, Any] | None = None,
        actor: str | None = None,
        on_behalf_of: str | None = None,
        speaker: str | None = None,
        role: str | None = None,
    ) -> Episode:
        refuse_writes_from_a_judge()
        return self._call(self._core.enqueue_episode(
            group_id, content, kind=kind, reference_time=reference_time, name=name,
            source_description=source_description, episode_id=episode_id, saga=saga,
            previous_episode_ids=previous_episode_ids, entity_types=entity_types, fact_types=fact_types,
            excluded_entity_types=excluded_entity_types, metadata=metadata, json_mapping=json_mapping, actor=actor,
            on_behalf_of=on_behalf_of, speaker=speaker, role=role,
        ))

    def process_queue(self, *, concurrency: int = 4, wait: bool = False, poll: float = 0.5) -> int:
        refuse_writes_from_a_judge()
        return self._call(self._core.process_queue(concurrency=concurrency, wait=wait, poll=poll))

    def episode(self, group_id: str, episode_id: str) -> Episode:
        return self._call(self._core.episode(group_id, episode_id))

    def fact(self, group_id: str, fact_uuid: str) -> Fact | None:
        return self._call(self._core.fact(group_id, fact_uuid))

    def entity(self, group_id: str, entity_uuid: str) -> Entity:
        return self._call(self._core.entity(group_id, entity_uuid))

    def queue_stats(self) -> QueueStats:
        return self._call(self._core.queue_stats())

    def held_episodes(self) -> list[Episode]:
        return self._call(self._core.held_episodes())

    def add_episodes(
        self, group_id: str, episodes: Iterable[Mapping[str, Any] | EpisodeItem]
    ) -> list[EpisodeResult]:
        refuse_writes_from_a_judge()
        return self._call(self._core.add_episodes(group_id, episodes))

    def add_messages(
        self,
        group_id: str,
        messages: Iterable[Message | Mapping[str, Any]],
        *,
        thread: str | None = None,
        user_name: str | None = None,
        assistant_name: str = DEFAULT_ASSISTANT,
        actor: str | None = None,
    ) -> list[EpisodeResult]:
        """Ingest a conversation, one episode a message, in order: see
        :meth:`AsyncMemory.add_messages <kronograph.AsyncMemory.add_messages>`."""
        refuse_writes_from_a_judge()
        return self._call(self._core.add_messages(
            group_id, messages, thread=thread, user_name=user_name, assistant_name=assistant_name, actor=actor,
        ))

    def enqueue_messages(
        self,
        group_id: str,
        messages: Iterable[Message | Mapping[str, Any]],
        *,
        thread: str | None = None,
        user_name: str | None = None,
        assistant_name: str = DEFAULT_ASSISTANT,
        actor: str | None = None,
    ) -> list[Episode]:
        """Accept a conversation into the durable queue, one episode a message, in
        order: see :meth:`AsyncMemory.enqueue_messages <kronograph.AsyncMemory.enqueue_messages>`."""
        refuse_writes_from_a_judge()
        return self._call(self._core.enqueue_messages(
            group_id, messages, thread=thread, user_name=user_name, assistant_name=assistant_name, actor=actor,
        ))

    def settings(self, group_id: str) -> GroupSettings:
        """The group's settings (its user's name, ...), as kept in the store."""
        return self._call(self._core.settings(group_id))

    def configure(self, group_id: str, *, user_name: str | None = None) -> GroupSettings:
        """Change the group's settings: see :meth:`AsyncMemory.configure <kronograph.AsyncMemory.configure>`."""
        refuse_writes_from_a_judge()
        return self._call(self._core.configure(group_id, user_name=user_name))

    def user(self, group_id: str) -> Entity | None:
        """The group's user entity, with its summary; None when there is none yet."""
        return self._call(self._core.user(group_id))

    def check_episodes(self, group_id: str, episodes: Iterable[Mapping[str, Any] | EpisodeItem]) -> None:
        return self._call(self._core.check_episodes(group_id, episodes))

    def resume(self, *, include_retryable: bool = True) -> list[EpisodeResult]:
        refuse_writes_from_a_judge()
        return self._call(self._core.resume(include_retryable=include_retryable))

    def remove_episode(
        self, group_id: str, episode_id: str, *, actor: str | None = None, on_behalf_of: str | None = None
    ) -> RemovalResult:
        refuse_writes_from_a_judge()
        return self._call(self._core.remove_episode(group_id, episode_id, actor=actor, on_behalf_of=on_behalf_of))

    def remove_fact(
        self, group_id: str, fact_uuid: str, *, actor: str | None = None, on_behalf_of: str | None = None
    ) -> RemovalResult:
        refuse_writes_from_a_judge()
        return self._call(self._core.remove_fact(group_id, fact_uuid, actor=actor, on_behalf_of=on_behalf_of))

    def groups(self) -> list[str]:
        return self._call(self._core.groups())

    def merge_entities(
        self, group_id: str, keep: str, merge: str | Iterable[str], *, actor: str | None = None,
        on_behalf_of: str | None = None,
    ) -> MergeResult:
        """Merge one or more entities into ``keep`` in one transaction: see
        :meth:`AsyncMemory.merge_entities <kronograph.AsyncMemory.merge_entities>`."""
        refuse_writes_from_a_judge()
        return self._call(self._core.merge_entities(group_id, keep, merge, actor=actor, on_behalf_of=on_behalf_of))

    def split_entity(
        self, group_id: str, merge_id: str, *, actor: str | None = None, on_behalf_of: str | None = None
    ) -> SplitResult:
        """Undo a merge by its ``merge_id``, in one transaction: see
        :meth:`AsyncMemory.split_entity <kronograph.AsyncMemory.split_entity>` (and what it cannot undo)."""
        refuse_writes_from_a_judge()
        return self._call(self._core.split_entity(group_id, merge_id, actor=actor, on_behalf_of=on_behalf_of))

    def forget(
        self, group_id: str, *, entity: str | None = None, episode_id: str | None = None, dry_run: bool = False,
        actor: str | None = None, on_behalf_of: str | None = None,
    ) -> ForgetReport:
        refuse_writes_from_a_judge()
        return self._call(self._core.forget(group_id, entity=entity, episode_id=episode_id, dry_run=dry_run,
                                            actor=actor, on_behalf_of=on_behalf_of))

    def facts(
        self,
        group_id: str,
        *,
        subject: str | None = None,
        relation: str | None = None,
        object: str | None = None,
        entity: str | None = None,
        as_of: TimeLike | None = None,
        known_at: TimeLike | None = None,
        include_retired: bool = False,
        include_expired: bool = False,
        include_events: bool = False,
        limit: int | None = None,
    ) -> list[Fact]:
        return self._call(
            self._core.facts(
                group_id, subject=subject, relation=relation, object=object, entity=entity, as_of=as_of,
                known_at=known_at, include_retired=include_retired, include_expired=include_expired,
                include_events=include_events, limit=limit,
            )
        )

    def events(
        self,
        group_id: str,
        *,
        subject: str | None = None,
        relation: str | None = None,
        object: str | None = None,
        entity: str | None = None,
        since: TimeLike | None = None,
        until: TimeLike | None = None,
        known_at: TimeLike | None = None,
        include_expired: bool = False,
        limit: int | None = None,
    ) -> list[Fact]:
        return self._call(
            self._core.events(
                group_id, subject=subject, relation=relation, object=object, entity=entity, since=since, until=until,
                known_at=known_at, include_expired=include_expired, limit=limit,
            )
        )

    def timeline(self, group_id: str, entity: str, relation: str | None = None) -> list[Fact]:
        return self._call(self._core.timeline(group_id, entity, relation))

    def search(
        self,
        group_ids: str | Iterable[str],
        query: str,
        *,
        scopes: Iterable[str] = SCOPES,
        recipe: str | Recipe = "hybrid",
        limit: int = 10,
        as_of: TimeLike | None = None,
        known_at: TimeLike | None = None,
        include_retired: bool = False,
        include_events: bool = False,
        center_entity: str | Iterable[str] | None = None,
        filters: SearchFilters | None = None,
        query_vector: Sequence[float] | None = None,
    ) -> SearchResults:
        return self._call(
            self._core.search(
                group_ids, query, scopes=scopes, recipe=recipe, limit=limit, as_of=as_of, known_at=known_at,
                include_retired=include_retired, include_events=include_events, center_entity=center_entity,
                filters=filters, query_vector=query_vector,
            )
        )

    def context(
        self,
        group_id: str,
        query: str | None = None,
        *,
        messages: Iterable[Message | Mapping[str, Any]] | None = None,
        as_of: TimeLike | None = None,
        known_at: TimeLike | None = None,
        max_tokens: int = 1000,
        scopes: Iterable[str] = CONTEXT_SCOPES,
        template: str | Callable[[ContextParts], str] | None = None,
        token_counter: TokenCounter | Callable[[str], int] | None = None,
    ) -> Context:
        """A prompt-ready memory block for ``query`` or the last ``messages``,
        within ``max_tokens``: see :meth:`AsyncMemory.context <kronograph.AsyncMemory.context>`."""
        return self._call(self._core.context(
            group_id, query, messages=messages, as_of=as_of, known_at=known_at, max_tokens=max_tokens,
            scopes=scopes, template=template, token_counter=token_counter,
        ))

    def conflicts(self, group_id: str, fact_uuid: str) -> list[Fact]:
        return self._call(self._core.conflicts(group_id, fact_uuid))

    def entities(self, group_id: str, *, name: str | None = None, label: str | None = None) -> list[Entity]:
        return self._call(self._core.entities(group_id, name=name, label=label))

    def summarize_entities(
        self, group_id: str, names_or_uuids: str | Iterable[str] | None = None, *, refresh_stale_only: bool = True
    ) -> list[EntitySummary]:
        refuse_writes_from_a_judge()
        return self._call(
            self._core.summarize_entities(group_id, names_or_uuids, refresh_stale_only=refresh_stale_only)
        )

    def summarize_saga(self, group_id: str, saga: str, *, max_calls: int = MAX_CALLS) -> SagaSummary:
        refuse_writes_from_a_judge()
        return self._call(self._core.summarize_saga(group_id, saga, max_calls=max_calls))

    def saga_summary(self, group_id: str, saga: str) -> SagaSummary:
        return self._call(self._core.saga_summary(group_id, saga))

    def sagas(self, group_id: str) -> list[SagaInfo]:
        return self._call(self._core.sagas(group_id))

    def build_communities(
        self,
        group_id: str,
        *,
        resolution: float = 1.0,
        batch_size: int = _COMMUNITY_BATCH,
        max_model_calls: int = _COMMUNITY_CALLS,
    ) -> CommunityBuild:
        refuse_writes_from_a_judge()
        return self._call(
            self._core.build_communities(
                group_id, resolution=resolution, batch_size=batch_size, max_model_calls=max_model_calls
            )
        )

    def update_communities(self, group_id: str) -> CommunityUpdate:
        refuse_writes_from_a_judge()
        return self._call(self._core.update_communities(group_id))

    def communities(self, group_id: str) -> list[Community]:
        return self._call(self._core.communities(group_id))

    def episodes(self, group_id: str, *, status: str | None = None) -> list[Episode]:
        return self._call(self._core.episodes(group_id, status=status))

    def fact_sources(self, group_id: str, fact_uuid: str) -> list[FactSource]:
        return self._call(self._core.fact_sources(group_id, fact_uuid))

    def history(self, group_id: str, fact_uuid: str) -> list[FactChange]:
        return self._call(self._core.history(group_id, fact_uuid))

    def audit_events(self, group_id: str) -> list[AuditEvent]:
        return self._call(self._core.audit_events(group_id))

    def export(self, group_id: str) -> GroupExport:
        return self._call(self._core.export(group_id))

    def audit(self, group_id: str, mode: str = "conflicts") -> list[PossibleContradiction]:
        return self._call(self._core.audit(group_id, mode))

    def reconcile(
        self, group_id: str, repair: bool = False, *, actor: str | None = None, on_behalf_of: str | None = None
    ) -> ReconcileReport:
        if repair:
            refuse_writes_from_a_judge()
        return self._call(self._core.reconcile(group_id, repair, actor=actor, on_behalf_of=on_behalf_of))
