"""The store protocol: what the core asks of a backend, in domain terms.

A store answers queries and applies plans. It decides nothing and never calls
a model; every method is scoped by ``group_id``. All methods are async so a
server backend can use native async I/O; the embedded SQLite backend runs its
work on a private thread (or inline, when the caller owns the event loop).

The protocol is split by role, and :class:`Store` is the union of the roles:
:class:`Units` (plans and units of work, the one way to write),
:class:`ResolutionReads` (ingestion), :class:`SearchReads` (search),
:class:`CallerReads` (listings, histories, sagas), :class:`Queue` (progress,
queue, leases), :class:`Replies` (reply cache, settings) and
:class:`Maintenance` (health, forgetting); the three kinds of reads share
:class:`Lookups`. A consumer is annotated with the narrowest role it uses.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..erasure import ErasureReceipt
from ..model import AuditEvent, Community, Entity, Episode, Fact, FactChange, FactSource
from .change_rows import ChangeWindow, StoredChange
from .plan import Plan
from .records import (
    CandidateAsk,
    ContradictionRecord,
    EntityMatch,
    EpisodeProgress,
    FactRecord,
    HealthScan,
    Neighbourhood,
    SagaCount,
    SagaState,
)
from .text_scan import Erasure, TextHit

__all__ = [
    "CallerReads",
    "FactQuery",
    "Lookups",
    "Maintenance",
    "Queue",
    "Replies",
    "ResolutionReads",
    "SearchReads",
    "Store",
    "Units",
]


@dataclass(frozen=True, slots=True)
class FactQuery:
    """A temporal fact query. Names are normalised keys, relations folded keys.

    Transaction time: what was believed at ``known_at``, or what is believed
    now. Valid time: facts valid at ``as_of``, or every interval with
    ``include_retired``. Expired records only with ``include_expired``.
    """

    as_of: datetime
    subject_key: str | None = None
    object_key: str | None = None
    entity_key: str | None = None
    relation_key: str | None = None
    known_at: datetime | None = None
    include_retired: bool = False
    include_expired: bool = False
    limit: int | None = None
    uuids: tuple[str, ...] | None = None  # only these facts (search narrows its candidates so)
    event: bool | None = None
    since: datetime | None = None
    until: datetime | None = None
    # Only facts carrying every one of these (key, value) pairs (kronograph.qualifiers), sorted by key.
    qualifiers: tuple[tuple[str, str], ...] = ()


class Lookups(Protocol):
    """Reads by key that every role makes."""

    async def episode(self, group_id: str, episode_id: str) -> Episode | None: ...

    async def episodes_by_uuid(self, group_id: str, uuids: Collection[str]) -> list[Episode]: ...

    async def entities_by_uuid(self, group_id: str, uuids: Collection[str]) -> list[Entity]: ...

    async def entities_named(self, group_id: str, name_keys: Collection[str]) -> list[Entity]:
        """Entities whose normalised name is one of ``name_keys``."""

    async def facts(self, group_id: str, query: FactQuery) -> list[Fact]: ...

    async def communities(self, group_id: str, uuids: Collection[str] | None = None) -> list[Community]:
        """The group's communities (only ``uuids``, when given) with their
        members, most central first; largest first, then by name and uuid."""

    async def group_settings(self, group_id: str) -> dict[str, Any]:
        """The group's settings by name (JSON values); written by plans (``Plan.settings``)."""


class Units(Protocol):
    """Plans and units of work: the one way anything is written."""

    @property
    def read_only(self) -> bool:
        """Whether the store only reads (a PostgreSQL hot standby): nothing is
        applied, so no summary is rebuilt and no episode resumed."""

    async def open(self) -> None:
        """Create or migrate the schema; idempotent."""

    async def close(self) -> None: ...

    async def revision(self, group_id: str) -> int:
        """A number that changes whenever a plan is applied to the group (it may
        also change for writes elsewhere: a plan refused needlessly is redone)."""

    async def apply(self, plan: Plan) -> None:
        """Apply every change of ``plan`` in one transaction, or none of them.

        Raises ConcurrentWriteError if the group's revision is no longer
        ``plan.expected_revision``.
        """

    def unit(self, group_id: str, *, after: Plan | None = None) -> AbstractAsyncContextManager[Store]:
        """A unit of work: plans applied through the yielded store commit
        together at the end, or not at all, and reads made through it see
        them. ``after`` is committed on its own just before it begins.
        Nothing inside may wait on a network call."""


class ResolutionReads(Lookups, Protocol):
    """What resolving an episode's entities and facts reads (``ingest/``)."""

    async def entities_named_and_listed(
        self, group_id: str, name_keys: Collection[str], uuids: Collection[str]
    ) -> tuple[list[Entity], list[Entity]]:
        """:meth:`entities_named` and :meth:`entities_by_uuid` (none when
        ``uuids`` is empty) read together: one round trip to a server."""

    async def fact_candidates(
        self,
        group_id: str,
        subject_uuid: str,
        object_uuid: str,
        relation_key: str,
        *,
        sides: Collection[str] = ("subject", "object"),
        either_end: bool = True,
        whole_pair: bool = True,
        around: datetime,
        limit: int = 50,
    ) -> list[FactRecord]:
        """Facts (expired records too) between the two entities (either direction, any
        relation; with ``whole_pair=False`` only subject to object with the same
        relation), and, for each
        of ``sides``, facts with the folded relation ``relation_key`` that have
        the subject as subject (``"subject"``) or the object as object
        (``"object"``), or touch that entity at either end (``either_end``):
        the ``limit`` nearest in valid time before ``around`` and the ``limit``
        nearest after it."""

    async def fact_candidates_each(self, group_id: str, asks: Sequence[CandidateAsk]) -> list[list[FactRecord]]:
        """:meth:`fact_candidates` of each ask, in order, read together: one
        round trip to a server."""

    async def entities_aliased(self, group_id: str, alias_keys: Collection[str]) -> list[Entity]:
        """Entities that bear one of these normalised names as an alias, key by
        key in the order given, each key's by creation: what
        :meth:`entity_matches` finds ``"alias"`` without its fuzzier reads."""

    async def conflict_neighbourhood(
        self, group_id: str, seeds: Collection[str], depth: int = 2
    ) -> Neighbourhood:
        """Seed facts and the facts linked to them by contradiction edges, ``depth``
        links out; edges are complete for facts fewer than ``depth`` links out."""

    async def conflict_links(self, group_id: str, uuids: Collection[str]) -> dict[str, set[str]]:
        """Each of these facts' links by recorded contradiction, either
        direction (an empty set when none): the edges of
        :meth:`conflict_neighbourhood` one link out, without reading records."""

    async def facts_citing(self, group_id: str, episode_id: str) -> list[FactRecord]: ...

    async def mentioned_entities(self, group_id: str, episode_id: str) -> list[str]: ...

    async def entity_references(
        self, group_id: str, entity_uuids: Collection[str]
    ) -> dict[str, tuple[set[str], set[str]]]:
        """For each entity: the uuids of facts that touch it and the ids of
        episodes that mention it."""

    async def entity_matches(
        self, group_id: str, names: Collection[str], limit: int = 10
    ) -> dict[str, list[EntityMatch]]:
        """By normalised name: entities of that name; or, when there are none,
        of that alias or acronym, and up to ``limit`` sharing a word with it;
        each with its name vector."""

    async def context_episodes(
        self,
        group_id: str,
        *,
        before: datetime,
        exclude: str,
        limit: int,
        saga: str | None = None,
        ids: Collection[str] | None = None,
    ) -> list[Episode]:
        """Episodes shown to extraction as context: ``ids``, or the ``limit``
        latest with content before ``before`` (in ``saga`` if given), oldest first."""


class SearchReads(Lookups, Protocol):
    """What search reads (``search/``): ranked candidates, vectors, the graph around them."""

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
        """Uuids of ``scope`` (facts, entities, episodes, communities) ranked by full-text
        relevance, best first (higher score is better). Episodes: complete ones,
        none referenced after ``episodes_before`` or received after
        ``episodes_known_at``. (Facts under one moment: :meth:`search_current_facts`.)"""

    async def search_vectors(
        self, group_id: str, scope: str, vector: np.ndarray, limit: int
    ) -> list[tuple[str, float]]:
        """Uuids of ``scope`` ranked by cosine similarity to a unit ``vector``."""

    async def item_vectors(self, group_id: str, scope: str, uuids: Collection[str]) -> dict[str, np.ndarray]:
        """The stored vectors of these items (those that have one)."""

    async def nearest_current_facts(
        self, group_id: str, vectors: Sequence[np.ndarray | None], limit: int, at: datetime
    ) -> list[tuple[Fact, float, int]]:
        """(fact, cosine similarity, index of the vector) of each vector's
        ``limit`` nearest facts that carry a tier, believed and valid at
        ``at`` (events left out), best first, each fact once: a write's
        contradiction check, in one round trip (or one hop to a reader)."""

    async def neighbours(
        self, group_id: str, entity_uuids: Collection[str], at: datetime | None = None
    ) -> dict[str, set[str]]:
        """Each entity's neighbours through unexpired facts (valid at ``at``), either direction."""

    async def reachable(
        self, group_id: str, seeds: Collection[str], depth: int, at: datetime | None = None
    ) -> dict[str, int]:
        """Every entity within ``depth`` hops of the seeds through unexpired facts
        (valid at ``at``), either direction, with its fewest hops (0 for a seed):
        a breadth-first walk in one query, not one per level."""

    async def touching_facts(
        self, group_id: str, entity_uuids: Collection[str], limit: int, at: datetime | None = None
    ) -> list[tuple[str, str, str]]:
        """(uuid, source, target) of unexpired facts (valid at ``at``) touching these entities."""

    async def search_current_facts(
        self, group_id: str, query: str, limit: int, at: datetime, *, include_events: bool = False
    ) -> tuple[list[tuple[str, float]], int, bool]:
        """Facts valid and unexpired at ``at`` among the ``4 * limit`` best
        full-text matches (at most ``limit``, best first), how many of those
        matches the moment hides (events too, unless ``include_events``), and
        whether more matches may exist."""

    async def entities_known_by(self, group_id: str, uuids: Collection[str], at: datetime) -> set[str]:
        """Those entities a fact valid by ``at`` touches or an episode referenced by ``at`` mentions."""

    async def mention_counts(self, group_id: str, scope: str, uuids: Collection[str]) -> dict[str, int]:
        """Mentions of entities, source episodes of facts, entities of episodes."""

    async def entities_named_in(
        self, group_id: str, keys: Collection[str], words: Collection[str], prefixes: Collection[str], limit: int
    ) -> list[Entity]:
        """The entities a query may name, in one bounded read: those whose name
        key, alias key or initials is one of ``keys`` first, then those whose
        name holds one of ``words``, then those with a name word starting with
        one of ``prefixes``; at most ``limit`` (``kronograph.search.names``
        decides which the query really names)."""

    async def mentions_among(
        self, group_id: str, entity_uuids: Collection[str], episode_ids: Collection[str]
    ) -> dict[str, set[str]]:
        """Of these episodes, those that mention one of these entities, with the ones each mentions."""

    async def episode_neighbours(self, group_id: str, uuids: Collection[str]) -> dict[str, tuple[str, ...]]:
        """The complete episodes just before and after each one in its group."""


class CallerReads(Lookups, Protocol):
    """Reads for callers and for maintenance: listings, histories, sagas, the current graph."""

    async def groups(self) -> list[str]:
        """Store-wide: every group that was ever written to, by name (byte order)."""

    async def timeline(self, group_id: str, entity_key: str, relation_key: str | None) -> list[Fact]:
        """Unexpired facts touching an entity of that name, by ``valid_at``."""

    async def entities(
        self, group_id: str, *, name_key: str | None = None, label: str | None = None
    ) -> list[Entity]: ...

    async def summary_states(
        self, group_id: str, *, uuids: Collection[str] | None = None, stale_only: bool = True,
        after: str | None = None, limit: int = 500,
    ) -> list[tuple[Entity, int]]:
        """Entities (``uuids``, or the whole group; with ``stale_only`` only
        those whose summary is stale) with their summary's stale count, by
        uuid (byte order) after ``after``, at most ``limit``."""

    async def episodes(self, group_id: str, status: str | None = None) -> list[Episode]: ...

    async def fact_sources(self, group_id: str, fact_uuid: str) -> list[FactSource]: ...

    async def history(self, group_id: str, fact_uuid: str) -> list[FactChange]: ...

    async def changes(self, group_id: str, window: ChangeWindow) -> list[StoredChange]:
        """Every version of the group's facts recorded in the window (current
        ones, superseded ones, deletion markers; each with the version it
        superseded) and its entity merges and splits, by their key."""

    async def audit_events(self, group_id: str) -> list[AuditEvent]: ...

    async def saga_state(self, group_id: str, saga: str) -> SagaState | None:
        """The saga's stored summary row, if it has one."""

    async def saga_bound(self, group_id: str, saga: str) -> tuple[datetime, str] | None:
        """The greatest ``(created_at, uuid)`` of the saga's episodes (uuids
        compared byte by byte); None when it has none."""

    async def saga_episodes(
        self, group_id: str, saga: str, *, after: tuple[datetime, str] | None, upto: tuple[datetime, str],
        limit: int,
    ) -> list[Episode]:
        """The saga's episodes (any status) with a key ``(created_at, uuid)``
        past ``after`` and at most ``upto``, in key order, at most ``limit``."""

    async def saga_lags(self, group_id: str) -> list[SagaCount]:
        """Every saga of the group (with episodes, or with a summary row), by
        name, with its episodes and how many are past its summary's cursor."""

    async def current_edges(self, group_id: str, at: datetime) -> list[tuple[str, str, str]]:
        """(uuid, source, target) of every fact valid at ``at`` and unexpired:
        the group's current graph, in one query (communities cluster it)."""

    async def contradictions(
        self, group_id: str, *, fact_uuids: Collection[str] | None = None, open_only: bool = True, at: datetime
    ) -> list[ContradictionRecord]:
        """The group's contradiction rows with one of ``fact_uuids`` on either
        side (every row when None). ``open_only``: those not dismissed, whose
        target fact is current at ``at`` (unexpired, not ended by then) and
        whose contradicting side is a current fact or, not a fact, an episode
        that still exists. By score (highest first), then created_at,
        fact_uuid, target_uuid (byte order) and kind."""

    async def episode_statuses(self, group_id: str) -> dict[str, int]:
        """How many of the group's episodes are in each status (one query)."""

    async def latest_episodes(self, group_id: str, limit: int) -> list[Episode]:
        """The group's ``limit`` episodes received last, newest first."""

    async def overview_counts(self, group_id: str, at: datetime) -> tuple[int, int, int, int]:
        """The group's unexpired facts holding at ``at`` (events apart), those
        ended by then, its events and its entities, in one query (``overview``)."""

    async def most_connected(self, group_id: str, at: datetime, limit: int) -> list[tuple[str, str, int]]:
        """(uuid, name, facts) of the ``limit`` entities at an end of the most
        facts holding at ``at`` (events apart), then by name and uuid, byte order."""

    async def open_contradiction_count(self, group_id: str, at: datetime) -> int:
        """How many of the group's rows :meth:`contradictions` would list
        open at ``at`` with a score above 0 (one query, for drift reports)."""


class Queue(Protocol):
    """Episodes' progress, the ingestion queue and leases (store-wide reads; see ``ingest/queue.py``)."""

    async def episode_progress(self, group_id: str, episode_id: str) -> EpisodeProgress | None:
        """The episode with its pending work, checkpoint and result."""

    async def register_episode(self, plan: Plan, episode_id: str) -> EpisodeProgress | None:
        """Where the episode got to; or, when it is new, apply ``plan`` (which
        records it) and return None."""

    async def unfinished_episodes(self, statuses: Collection[str]) -> list[tuple[str, str, str, datetime]]:
        """Store-wide: (group_id, episode id, status, last update) in those statuses."""

    async def queued_groups(self, limit: int = 100) -> list[str]:
        """Store-wide: groups with ``queued`` episodes, the longest waiting first."""

    async def claim_queued(
        self, group_id: str, owner: str, until: datetime, now: datetime
    ) -> EpisodeProgress | None:
        """Take the group's next episode in one transaction, leased to
        ``owner`` until ``until``: its oldest episode in progress (received
        to committing) whose lease has lapsed by ``now``; else, unless one is
        in progress, its oldest queued episode (arrival order), marked
        ``received``. None while a live lease holds one of the group's
        episodes or nothing waits. Never the same one twice."""

    async def claim_episode(
        self, group_id: str, episode_id: str, statuses: Collection[str], owner: str, until: datetime, now: datetime
    ) -> EpisodeProgress | None:
        """Lease the episode to ``owner`` until ``until``, in one transaction,
        if it is in one of ``statuses`` and no lease holds it past ``now``
        (never before): the episode as claimed, else None."""

    async def extend_leases(self, group_id: str, episode_ids: Collection[str], owner: str, until: datetime) -> int:
        """Move to ``until`` the leases ``owner`` still holds on these
        episodes (a heartbeat, or a release with ``until`` = now); how many."""

    async def held_episodes(self, now: datetime) -> list[Episode]:
        """Store-wide: unfinished episodes whose lease runs past ``now``, with
        who holds them and until when, the soonest free first."""

    async def episode_counts(self) -> dict[str, int]:
        """Store-wide: how many episodes are in each status."""


class Replies(Protocol):
    """The group's model reply cache and the store-wide settings."""

    async def cached_reply(self, group_id: str, key: str) -> str | None:
        """The group's cached reply for that key; another group's is never read."""

    async def cached_reply_keys(self, group_id: str) -> set[str]:
        """Every key the group's reply cache holds (so a miss needs no query)."""

    async def cache_reply(self, group_id: str, key: str, model: str, reply: str, at: datetime) -> None: ...

    async def setting(self, key: str) -> str | None: ...

    async def claim_setting(self, key: str, value: str) -> str:
        """Record ``value`` unless the key has one; returns the value kept."""


class Maintenance(Protocol):
    """Health checks and forgetting: finding text, erasing its traces."""

    async def health_scan(self, group_id: str) -> HealthScan:
        """What ``reconcile`` checks in the group: complete non-``fact`` episodes
        with content that mention no entity, fact sources whose episode is gone,
        recorded entity fragments (with both names), and entities no fact
        (expired ones included) touches and no episode mentions."""

    async def text_occurrences(self, group_id: str, needles: Collection[str]) -> list[TextHit]:
        """Every text column of the group's rows (every table with a ``group_id``,
        every text or JSON column the schema has, see ``text_scan.text_tables``;
        rows of no group too) that contains a word of one of the needles,
        case-insensitively (JSON as its text); whole words are the caller's test."""

    async def episode_replies(self, group_id: str, episode_ids: Collection[str]) -> list[str]:
        """Keys of the cached model replies given while processing those episodes."""

    async def data_subject_items(self, group_id: str, key: str) -> tuple[list[str], list[str]]:
        """The uuids of the group's episodes and of its facts filed under a data subject's key."""

    async def erasures(
        self, group_id: str, request_id: str | None = None, *, last_only: bool = False
    ) -> list[ErasureReceipt]:
        """The group's erasure log, oldest first: every entry, those of one
        request id, or (``last_only``) its latest entry only."""

    async def erase_traces(self, group_id: str) -> Erasure:
        """After a purge in the group: make deleted content unrecoverable from
        the store's files where the backend can (merged indexes, a checkpointed
        and truncated log, vacuum; store-wide), waiting a bounded time for
        readers of older snapshots; ``complete`` False says what held it back,
        and records a pending erasure for the group that the next call finishes."""

    async def pending_erasure(self, group_id: str) -> bool:
        """Whether an erasure after a purge in the group was held back by a
        reader and is still to finish (only that group's: tenants are separate)."""

    async def drop_memos(self, group_id: str) -> None:
        """Drop whatever the store keeps in memory of the group's rows and of
        the words searched in it (after a forget: no forgotten name stays in
        the process). Only speed is at stake; nothing stored changes."""


@runtime_checkable
class Store(Units, ResolutionReads, SearchReads, CallerReads, Queue, Replies, Maintenance, Protocol):
    """The whole store: every role. A consumer takes the narrowest role it uses."""
