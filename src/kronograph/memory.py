"""The public API's core: ``AsyncMemory``'s per-call reads and writes. Its
maintenance and governance methods (summaries, sagas, communities, reconcile,
audit, forget, export) are in its base class :mod:`kronograph._maintenance`,
its construction, opening and closing in :mod:`kronograph._lifecycle`. ``Memory``, its blocking
shell with the same methods and parameters, is in :mod:`kronograph.sync`; a
test keeps them in step."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from . import checks
from ._arguments import TimeLike, _id, _labels, _text, _time, search_arguments
from ._changes import Changes
from ._context import Contexts
from ._contradictions import Contradictions
from ._conversation import Conversations
from ._lifecycle import Lifecycle
from ._lifecycle import ModelArg as ModelArg  # re-exported: its home before the lifecycle moved out
from ._maintenance import Maintenance
from ._overview import Overviews
from ._repair import Repair
from .authority import tier_text
from .errors import InvalidInputError, NotFoundError
from .ingest.bulk import EpisodeItem
from .ingest.direct import FactInput, Resolver
from .ingest.direct import add_fact as _add_fact
from .ingest.episode_input import actor_text, data_subject_text
from .ingest.group_user import group_settings
from .ingest.json_map import JsonMapping
from .ingest.judge import refuse_writes_from_a_judge
from .ingest.ontology import TypesArg
from .ingest.queue import QueueWorker
from .maintain.overrides import check_override, reason_text
from .maintain.removal import remove_episode as _remove_episode
from .maintain.removal import remove_fact as _remove_fact
from .metrics import record_facts, record_search, span
from .model import (
    AddFactResult,
    AuditEvent,
    Entity,
    Episode,
    EpisodeResult,
    EpisodeStatus,
    Fact,
    FactChange,
    FactSource,
    QueueStats,
    RemovalResult,
    fold_relation,
    normalise_name,
)
from .point_in_time import PointInTime
from .qualifiers import describe as describe_qualifiers
from .qualifiers import qualifiers as check_qualifiers
from .qualifiers import wanted as wanted_qualifiers
from .same_time import held_partners, mark_conflicting
from .search.engine import SCOPES, SearchRequest, run_search
from .search.question import analyse
from .search.recipes import Recipe
from .search.types import SearchFilters, SearchResults
from .store import FactQuery

__all__ = ["AsyncMemory"]


class AsyncMemory(Overviews, Contexts, Conversations, Changes, Contradictions, Repair, Maintenance, Lifecycle):
    """A temporal knowledge-graph memory (async API).

    ``store`` is a file path, ``":memory:"``, a ``sqlite:///`` URL or a store
    object. ``clock`` returns the current time (tests and replays pass their
    own); ``judge`` decides contradictions a declared cardinality does not;
    ``relation_types`` declares cardinalities, endings and events by relation
    name (:class:`~kronograph.model.RelationType`).
    ``candidate_limit`` caps, per endpoint and per side of the new fact's
    valid time, how many same-relation facts are considered (the nearest in
    time), which bounds the work and what a judge is shown on busy entities.

    Ingestion: ``model`` is a provider, a :class:`~kronograph.llm.ModelClient`,
    :class:`~kronograph.llm.ModelSettings`, ``"auto"`` (the default: explicit
    environment keys, else a local Ollama, else none; see ``docs/models.md``)
    or ``None`` for the offline extractor. ``embedder`` defaults to the
    built-in offline one. ``store_raw_content=False`` keeps episodes' text out
    of the store once they complete. ``context_episodes`` is how many earlier
    episodes extraction sees. ``max_concurrency`` bounds bulk extraction.
    ``resume`` resumes, on opening, episodes a crash left unfinished.
    ``lease_seconds``: an episode this memory works on is leased to it, and
    the lease renewed every third of this while it works; another worker may
    take it over only once that long has passed without a renewal (see
    :mod:`kronograph.ingest.ownership`).
    """

    # -- writing ---------------------------------------------------------------
    async def add_fact(
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
        tier: str | None = None,
        replaces: str | None = None,
        reason: str | None = None,
        qualifiers: Mapping[str, str] | None = None,
        data_subject: str | None = None,
    ) -> AddFactResult:
        """Add one fact; returns what was written, merged, retired and changed,
        and the possible contradictions it raised (candidates, scored: see
        :mod:`kronograph.authority`). ``actor``: who files it; ``on_behalf_of``:
        for whom, as the actor says (a service files its caller's key as
        ``actor``). ``tier``: its governance tier (``"standing"``,
        ``"decision"``, ...), else its relation's default. ``replaces``: the
        uuid of a fact this one corrects, retired by it; a fact of an owned
        tier (standing, decision) filed by another actor is replaced only
        with a ``reason``, recorded with the override. ``qualifiers``
        (``{"period": "2024-Q2"}``): the slot it fills, of keys its relation
        declares (``RelationType(qualifiers=...)``); facts of other
        qualifiers never replace it (:mod:`kronograph.qualifiers`). ``data_subject``: whose
        data it is (a customer id), kept on the fact and its source episode."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        subject_name = _text("subject", subject)
        relation_name = _id("relation", relation, max_length=checks.NAME_MAX)
        object_name = _text("object", object)
        declared = self._relation_types.get(fold_relation(relation_name))
        slot = check_qualifiers("qualifiers", qualifiers, declared.qualifiers if declared else (), relation_name)
        generated = f"{subject_name} {relation_name} {object_name}{describe_qualifiers(slot)}"
        data = FactInput(
            group_id=g,
            subject=subject_name,
            relation=relation_name,
            object=object_name,
            fact=_text("fact", fact, optional=True) or generated,
            valid_at=_time("valid_at", valid_at),
            invalid_at=_time("invalid_at", invalid_at),
            episode_id=_id("episode_id", episode_id, optional=True),
            subject_labels=_labels("subject_labels", subject_labels),
            object_labels=_labels("object_labels", object_labels),
            actor=actor_text("actor", actor),
            on_behalf_of=actor_text("on_behalf_of", on_behalf_of),
            tier=tier_text("tier", tier),
            replaces=_id("replaces", replaces, optional=True),
            qualifiers=slot,
            data_subject=data_subject_text("data_subject", data_subject),
        )
        why = reason_text("reason", reason)
        store = await self._ready()
        if data.replaces is not None:
            override = await check_override(store, g, data.replaces, actor=data.actor, reason=why, at=self._now())
            data = replace(data, reason=why, override=override.detail() if override else None)
        vector = await self._services.embed_one(data.fact, (g,))  # before the group is held: it may wait on a network
        settings = Resolver(
            clock=self._now,
            judge=self._judge,
            relation_type=declared,
            candidate_limit=self._candidate_limit,
            embedding=vector,
            authority=self._authority,
            lock=self._lock(g),  # held from its reads to its commit, not while the judge thinks
            policies=self._services.policies,
        )
        with span("add_fact", group_id=g):
            result = await _add_fact(store, data, settings)
        record_facts({"created": 0 if result.merged else 1, "merged": int(result.merged),
                      "retired": len(result.retired), "changed": len(result.changed)})
        return result

    def _authority(self, relation_key: str) -> float:
        """A relation's authority: as declared, else the default (0.5)."""
        declared = self._relation_types.get(relation_key)
        return declared.authority if declared is not None else 0.5

    async def add_episode(
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
        tier: str | None = None,
        data_subject: str | None = None,
    ) -> EpisodeResult:
        """Ingest one episode (``kind`` ``"message"``, ``"text"`` or ``"json"``):
        extract, resolve and commit it in one transaction. Idempotent by
        ``episode_id``. Bad arguments raise InvalidInputError; a model or store
        failure ends the episode ``retryable`` or ``quarantined`` (see the
        result's ``status`` and ``raise_for_status()``), with nothing of it written.
        ``speaker`` is who said it ("I" and "my" mean them) and ``role`` its
        role as in :meth:`add_messages` (role ``user`` with no speaker: the
        group's user). ``tier`` (``"standing"``, ``"decision"``, ...: see
        :mod:`kronograph.authority`) is the tier of the facts it states, else
        each relation's default; the result lists the possible
        contradictions it raised, scored by the tier of what they contradict
        and the weight of ``actor``. ``data_subject``: whose data it is (a
        customer id), inherited by the facts it states; ``forget(group_id,
        data_subject=...)`` erases everything filed under it."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        item = EpisodeItem(
            content=content, kind=kind, reference_time=reference_time, name=name,
            source_description=source_description, episode_id=episode_id, saga=saga,
            previous_episode_ids=previous_episode_ids, entity_types=entity_types, fact_types=fact_types,
            excluded_entity_types=excluded_entity_types, metadata=metadata, json_mapping=json_mapping,
            actor=actor, on_behalf_of=on_behalf_of, speaker=speaker, role=role, tier=tier,
            data_subject=data_subject,
        )
        user_name = await self._user_name(g, speaker is not None or role is not None)
        return await self._ingestion.add_episode(g, item, user_name=user_name)

    async def _user_name(self, group_id: str, wanted: bool = True) -> str | None:
        """The group's user name (opening the store), when an episode has a speaker or a role."""
        store = await self._ready()
        return group_settings(group_id, await store.group_settings(group_id)).user_name if wanted else None

    async def enqueue_episode(
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
        tier: str | None = None,
        data_subject: str | None = None,
    ) -> Episode:
        """Accept an episode for later ingestion: validated as ``add_episode``
        validates, and recorded ``queued`` in one transaction, so it survives
        a crash from the moment this returns. :meth:`process_queue` ingests
        it (each group in the order accepted); :meth:`episode` tells how it
        went. Idempotent by ``episode_id``: the same content again returns
        the episode as it stands; other content under the id is refused."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        item = EpisodeItem(
            content=content, kind=kind, reference_time=reference_time, name=name,
            source_description=source_description, episode_id=episode_id, saga=saga,
            previous_episode_ids=previous_episode_ids, entity_types=entity_types, fact_types=fact_types,
            excluded_entity_types=excluded_entity_types, metadata=metadata, json_mapping=json_mapping,
            actor=actor, on_behalf_of=on_behalf_of, speaker=speaker, role=role, tier=tier,
            data_subject=data_subject,
        )
        user_name = await self._user_name(g, speaker is not None or role is not None)
        episode = await self._ingestion.enqueue(g, item, user_name=user_name)
        for worker in self._workers:
            worker.wake()
        return episode

    async def process_queue(self, *, concurrency: int = 4, wait: bool = False, poll: float = 0.5) -> int:
        """Ingest queued episodes (interrupted ones first): each group's in the
        order accepted, ``concurrency`` groups at once. Returns how many were
        ingested once none is left; with ``wait``, keeps waiting for more
        (looking every ``poll`` seconds for other processes' episodes) until
        cancelled, and then lets the episodes in flight finish. A service runs
        this as its worker; see :mod:`kronograph.ingest.queue`."""
        refuse_writes_from_a_judge()
        checks.count("concurrency", concurrency)
        checks.number("poll", poll, positive=True)
        checks.flag("wait", wait)
        await self._ready()
        worker = QueueWorker(self._ingestion, concurrency=concurrency, poll=poll)
        self._workers.add(worker)
        try:
            return await worker.run(wait=wait)
        finally:
            self._workers.discard(worker)

    async def episode(self, group_id: str, episode_id: str) -> Episode:
        """One episode with its status (``queued``, in progress, ``complete``,
        ``retryable`` or ``quarantined``) and error; NotFoundError if the group has none of that id."""
        g = self._group(group_id)
        eid = _id("episode_id", episode_id)
        found = await (await self._ready()).episode(g, eid)
        if found is None:
            raise NotFoundError(f"no episode {eid!r} in group {g!r}")
        return found

    async def fact(self, group_id: str, fact_uuid: str) -> Fact | None:
        """One fact record by uuid, retired or expired as it may be; None when
        there is none (never was, or removed: its history may still tell)."""
        g = self._group(group_id)
        uuid = _id("fact_uuid", fact_uuid)
        now = self._now()
        query = FactQuery(as_of=now, include_retired=True, include_expired=True, uuids=(uuid,))
        store = await self._ready()
        found = await mark_conflicting(store, g, await store.facts(g, query), at=now, known_at=None)
        return found[0] if found else None

    async def entity(self, group_id: str, entity_uuid: str) -> Entity:
        """One entity by uuid; NotFoundError if the group has none of that uuid."""
        g = self._group(group_id)
        uuid = _id("entity_uuid", entity_uuid)
        found = await (await self._ready()).entities_by_uuid(g, [uuid])
        if not found:
            raise NotFoundError(f"no entity {uuid!r} in group {g!r}")
        return found[0]

    async def queue_stats(self) -> QueueStats:
        """Store-wide: episodes queued, in progress, complete and failed
        (retryable or quarantined; each keeps its error)."""
        return QueueStats.of(await (await self._ready()).episode_counts())

    async def held_episodes(self) -> list[Episode]:
        """Store-wide: unfinished episodes a worker's live lease holds (this
        memory's or another process's), each with ``held_by`` (host:pid:token)
        and ``held_until``; nobody else takes one up before then."""
        return await (await self._ready()).held_episodes(self._now())

    async def add_episodes(
        self, group_id: str, episodes: Iterable[Mapping[str, Any] | EpisodeItem]
    ) -> list[EpisodeResult]:
        """Ingest many episodes of a group: extracted concurrently, resolved and
        committed one by one in the order given, so the graph is the one
        ``add_episode`` builds from the same list one at a time. Each item is a dict (or an
        :class:`EpisodeItem`) with ``add_episode``'s keyword fields and
        ``content`` (``speaker`` and ``role`` included); all are validated
        before anything is stored. Results come back in the order given."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        return await self._ingestion.add_episodes(g, episodes, user_name=await self._user_name(g))

    async def check_episodes(self, group_id: str, episodes: Iterable[Mapping[str, Any] | EpisodeItem]) -> None:
        """Validate episodes as ``add_episodes`` would, storing nothing: raises
        InvalidInputError naming the item and field (``episodes[3].content``)."""
        self._ingestion.check(self._group(group_id), episodes)

    async def resume(self, *, include_retryable: bool = True) -> list[EpisodeResult]:
        """Finish episodes a crash left unfinished and, with ``include_retryable``,
        retry those that failed for a reason worth retrying."""
        refuse_writes_from_a_judge()
        checks.flag("include_retryable", include_retryable)
        await self._ready()
        return await self._ingestion.resume(include_retryable=include_retryable)

    async def remove_episode(
        self, group_id: str, episode_id: str, *, actor: str | None = None, on_behalf_of: str | None = None
    ) -> RemovalResult:
        """Retract an episode: see :mod:`kronograph.maintain.removal`. ``actor``
        (and ``on_behalf_of``) go on its audit event."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        eid = _id("episode_id", episode_id)
        who = actor_text("actor", actor), actor_text("on_behalf_of", on_behalf_of)
        store = await self._ready()
        return await _remove_episode(store, g, eid, clock=self._now, actor=who[0], on_behalf_of=who[1],
                                     hold=self._lock(g))

    async def remove_fact(
        self, group_id: str, fact_uuid: str, *, actor: str | None = None, on_behalf_of: str | None = None,
        reason: str | None = None,
    ) -> RemovalResult:
        """Retract one fact, whatever its sources: it leaves the current graph
        (its history keeps what was believed, for ``known_at``), the facts only
        it had closed get their interval back, entities left with nothing go.
        See :mod:`kronograph.maintain.removal`; ``forget`` erases instead.
        ``actor`` (and ``on_behalf_of``) and ``reason`` go on its audit event;
        a fact of an owned tier (standing, decision) filed by another actor is
        retracted only with a ``reason`` (:mod:`kronograph.maintain.overrides`)."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        uuid = _id("fact_uuid", fact_uuid)
        who = actor_text("actor", actor), actor_text("on_behalf_of", on_behalf_of)
        why = reason_text("reason", reason)
        store = await self._ready()
        override = await check_override(store, g, uuid, actor=who[0], reason=why, at=self._now())
        return await _remove_fact(store, g, uuid, clock=self._now, actor=who[0], on_behalf_of=who[1],
                                  hold=self._lock(g), reason=why, override=override.detail() if override else None)

    async def groups(self) -> list[str]:
        """Every group of the store, by name. (A service shows each key only
        its own: see ``kronograph.server``.)"""
        return await (await self._ready()).groups()

    # -- reading ---------------------------------------------------------------
    def at(self, moment: TimeLike) -> PointInTime:
        """A read-only view of this memory at ``moment`` (naive: UTC): its
        facts, search, context, timeline, entities, episodes and events are
        what held then as the memory knew it then, on both axes, with
        nothing learned later; ``lookahead`` checks any result for what was.
        See :mod:`kronograph.point_in_time` and ``docs/point-in-time.md``."""
        return PointInTime(self, moment)

    async def facts(
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
        qualifiers: Mapping[str, str] | None = None,
    ) -> list[Fact]:
        """Facts valid now (default), valid at ``as_of``, as believed at
        ``known_at`` (valid at ``as_of``, which defaults to ``known_at``), or every
        interval (``include_retired``). Names match case-insensitively, relations
        by folded key; ``entity`` matches either end. Events (``Fact.event``:
        moments such as ``Sam LEFT Northwind``) are not standing facts: left
        out unless ``include_events`` (then those that had happened by then);
        :meth:`events` reads them by time. ``qualifiers``: only facts
        carrying every one of these pairs (``{"period": "2024-Q2"}``). A fact
        held in conflict with another (``RelationType(same_time="hold")``)
        names it in ``conflicting``."""
        checks.flag("include_events", include_events)
        g, query = self._fact_query(
            group_id, subject=subject, relation=relation, object=object, entity=entity, as_of=as_of,
            known_at=known_at, include_retired=include_retired, include_expired=include_expired, limit=limit,
        )
        asked = wanted_qualifiers("qualifiers", qualifiers)
        query = replace(query, event=None if include_events else False, qualifiers=asked)
        store = await self._ready()
        found = await store.facts(g, query)
        return await mark_conflicting(store, g, found, at=self._now(), known_at=query.known_at)

    async def events(
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
        """The group's events (``Fact.event``: moments such as ``Sam LEFT
        Northwind``, ``Sam MET Maya``), by when they happened: those at or
        after ``since`` and before ``until``, as believed now or at
        ``known_at``. Names and relations match as in :meth:`facts`."""
        start, end = _time("since", since), _time("until", until)
        if start is not None and end is not None and end <= start:
            raise InvalidInputError("until", f"{end.isoformat()} is not after since {start.isoformat()}")
        g, query = self._fact_query(
            group_id, subject=subject, relation=relation, object=object, entity=entity, as_of=None,
            known_at=known_at, include_retired=True, include_expired=include_expired, limit=limit,
        )
        return await (await self._ready()).facts(g, replace(query, event=True, since=start, until=end))

    def _fact_query(
        self, group_id: str, *, subject: str | None, relation: str | None, object: str | None,
        entity: str | None, as_of: TimeLike | None, known_at: TimeLike | None, include_retired: bool,
        include_expired: bool, limit: int | None,
    ) -> tuple[str, FactQuery]:
        """The group and the query of :meth:`facts` and :meth:`events`, checked."""
        g = self._group(group_id)
        when = _time("as_of", as_of)
        believed = _time("known_at", known_at)
        checks.flag("include_retired", include_retired)
        checks.flag("include_expired", include_expired)
        if include_retired and when is not None:
            raise InvalidInputError("as_of", "cannot be combined with include_retired (which returns every interval)")
        checks.count("limit", limit, optional=True)
        return g, FactQuery(
            as_of=when or believed or self._now(),
            subject_key=self._name_key("subject", subject),
            object_key=self._name_key("object", object),
            entity_key=self._name_key("entity", entity),
            relation_key=fold_relation(_text("relation", relation)) if relation is not None else None,  # type: ignore[arg-type]
            known_at=believed,
            include_retired=include_retired,
            include_expired=include_expired,
            limit=limit,
        )

    @staticmethod
    def _name_key(field: str, value: str | None) -> str | None:
        return None if value is None else normalise_name(_text(field, value) or "")

    async def timeline(self, group_id: str, entity: str, relation: str | None = None) -> list[Fact]:
        """Every interval of the facts touching ``entity``, by ``valid_at``
        (``conflicting`` marked as by :meth:`facts`)."""
        g = self._group(group_id)
        key = normalise_name(_text("entity", entity))
        rel = fold_relation(_text("relation", relation) or "") if relation is not None else None
        store = await self._ready()
        return await mark_conflicting(store, g, await store.timeline(g, key, rel), at=self._now(), known_at=None)

    async def search(
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
        """Ranked facts, entities, episodes and communities for ``query``, with
        no model in the way: current facts by default; ``as_of``, ``known_at``
        and ``include_retired`` as in :meth:`facts`, and events only with
        ``include_events`` (episodes under ``as_of``
        are those referenced by then; communities, which describe the graph
        of their last build, only without ``as_of`` and ``known_at``). ``recipe`` names the methods and the
        reranker (see ``docs/search.md``); ``center_entity`` (names or uuids)
        feeds graph search and the node-distance reranker. ``query_vector``
        skips embedding the query. Never returns anything of a group not asked for."""
        return await self._search(
            group_ids, query, scopes=scopes, recipe=recipe, limit=limit, as_of=as_of, known_at=known_at,
            include_retired=include_retired, include_events=include_events, center_entity=center_entity,
            filters=filters, query_vector=query_vector,
        )

    async def _search(
        self, group_ids: str | Iterable[str], query: str, *, scopes: Iterable[str], recipe: str | Recipe, limit: int,
        as_of: TimeLike | None, known_at: TimeLike | None, include_retired: bool, include_events: bool,
        center_entity: str | Iterable[str] | None, filters: SearchFilters | None,
        query_vector: Sequence[float] | None, point_in_time: bool = False,
    ) -> SearchResults:
        """:meth:`search`; ``point_in_time``: as a view of :meth:`at` reads (see ``SearchRequest``)."""
        checks.flag("include_events", include_events)
        args = search_arguments(
            group_ids, query, scopes=scopes, recipe=recipe, limit=limit, as_of=as_of, known_at=known_at,
            include_retired=include_retired, center_entity=center_entity, filters=filters,
        )
        text, chosen = args.query, args.recipe
        question = analyse(text)  # once: the words that may match, the names, the kind of answer
        store = await self._ready()
        if query_vector is not None:
            try:
                vector = np.asarray(query_vector, dtype=np.float32)
            except (TypeError, ValueError):
                raise InvalidInputError("query_vector", "expected a list of numbers") from None
            if vector.shape != (self._services.embedder.dimension,):
                raise InvalidInputError(
                    "query_vector", f"expected {self._services.embedder.dimension} numbers, got shape {vector.shape}"
                )
            if not np.isfinite(vector).all():
                raise InvalidInputError("query_vector", "must hold finite numbers only (no NaN or infinity)")
        elif "cosine" in chosen.methods or chosen.reranker == "mmr":
            embedded = question.terms if self._services.lexical else text  # its vectors are words: not "who", "is"
            vector = np.frombuffer(await self._services.embed_one(embedded, args.groups), dtype=np.float32)
        else:
            vector = None
        request = SearchRequest(
            group_ids=args.groups, query=text, vector=vector, scopes=args.scopes, recipe=chosen, limit=args.limit,
            now=self._now(), as_of=args.as_of, known_at=args.known_at, include_retired=include_retired,
            include_events=include_events,
            centers=args.centers, filters=args.filters, cross_encoder=self._cross_encoder,
            cosine_weight=self._services.fusion_weight, question=question, point_in_time=point_in_time,
        )
        started = time.perf_counter()
        with span("search", scopes=",".join(args.scopes), recipe=chosen.name):
            found = await run_search(store, request)
        record_search("all", "all", time.perf_counter() - started)
        return found

    async def conflicts(self, group_id: str, fact_uuid: str) -> list[Fact]:
        """The whole slot of a fact: it and every fact linked to it by recorded
        contradictions, directly or through others, and the facts it is held
        in conflict with (``RelationType(same_time="hold")``) with theirs, by
        valid time, each with its interval, source episodes and ``conflicting``
        marker; NotFoundError if the group has no fact of that uuid."""
        g = self._group(group_id)
        uuid = _id("fact_uuid", fact_uuid)
        store = await self._ready()
        now = self._now()
        hood = await store.conflict_neighbourhood(g, [uuid, *sorted(await held_partners(store, g, uuid, now))],
                                                  depth=64)
        if uuid not in hood.records:
            raise NotFoundError(f"no fact {uuid!r} in group {g!r}")
        records = sorted(hood.records.values(), key=lambda r: (r.valid_at, r.created_at, r.uuid))
        return await mark_conflicting(store, g, [r.to_fact() for r in records], at=now, known_at=None)

    async def entities(self, group_id: str, *, name: str | None = None, label: str | None = None) -> list[Entity]:
        """A group's entities, oldest first: all of them, or those ``name``
        (or an alias, case-insensitively) names, and those with ``label``."""
        g = self._group(group_id)
        return await (await self._ready()).entities(
            g, name_key=self._name_key("name", name), label=_text("label", label, optional=True)
        )

    async def episodes(self, group_id: str, *, status: str | None = None) -> list[Episode]:
        """A group's episodes by reference time, with their status and error;
        ``status`` keeps one status (``"complete"``, ``"quarantined"``...)."""
        g = self._group(group_id)
        if status is not None and (not isinstance(status, str) or status not in {s.value for s in EpisodeStatus}):
            raise InvalidInputError("status", f"must be one of {[s.value for s in EpisodeStatus]}, not {status!r}")
        return await (await self._ready()).episodes(g, status)

    async def fact_sources(self, group_id: str, fact_uuid: str) -> list[FactSource]:
        """Each episode's statement of a fact: its times and what produced it."""
        g = self._group(group_id)
        return await (await self._ready()).fact_sources(g, _id("fact_uuid", fact_uuid) or "")

    async def history(self, group_id: str, fact_uuid: str) -> list[FactChange]:
        """Every recorded state of one fact, oldest first, with its cause."""
        g = self._group(group_id)
        return await (await self._ready()).history(g, _id("fact_uuid", fact_uuid) or "")

    async def audit_events(self, group_id: str) -> list[AuditEvent]:
        """The group's audit trail, oldest first: each removal, merge, split,
        forget, settings change, repair and refused verdict, with who caused it."""
        return await (await self._ready()).audit_events(self._group(group_id))
