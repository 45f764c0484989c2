"""Internal records the core reasons about and stores persist.

They carry what the public models leave out (folded keys, a fact's own stated
end, its per-source times), and are plain dataclasses so the pure resolution
code can copy them cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ..model import Entity, Episode, Fact, trusted

__all__ = [
    "CandidateAsk", "ContradictionRecord", "EntityMatch", "EpisodeProgress", "FactRecord", "HealthScan",
    "Neighbourhood", "SagaCount", "SagaState", "Source",
]


@dataclass(frozen=True, slots=True)
class Source:
    """One episode's statement of a fact: the times *it* gave."""

    episode_id: str
    valid_at: datetime
    stated_invalid_at: datetime | None
    added_at: datetime
    # What produced this statement; written with it, not read back for resolution.
    provenance: dict[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class CandidateAsk:
    """One fact's question to :meth:`~.protocol.ResolutionReads.fact_candidates`
    (its arguments after the group), for asking several at once."""

    subject_uuid: str
    object_uuid: str
    relation_key: str
    sides: tuple[str, ...]
    either_end: bool
    whole_pair: bool
    around: datetime
    limit: int


@dataclass(frozen=True, slots=True)
class FactRecord:
    uuid: str
    group_id: str
    source_uuid: str
    target_uuid: str
    subject: str
    object: str
    relation: str
    relation_key: str
    fact: str
    valid_at: datetime
    invalid_at: datetime | None
    stated_invalid_at: datetime | None
    created_at: datetime
    expired_at: datetime | None
    invalidated_by: str | None
    sources: tuple[Source, ...]
    attributes: dict[str, Any] = field(default_factory=dict)
    # This version of the fact: when the memory came to believe it, and why.
    recorded_at: datetime | None = None  # None: since created_at
    cause: str = "created"
    cause_episode: str | None = None
    # A moment, not a standing fact (see ``Fact.event``): fixed when written.
    event: bool = False
    # Its governance tier (kronograph.authority), None when filed without one.
    tier: str | None = None
    # Its qualifiers (kronograph.qualifiers): fixed when written, part of its slot.
    qualifiers: dict[str, str] = field(default_factory=dict)
    # Whose data it is (a customer id), written when the fact is created; not versioned.
    data_subject: str | None = None

    @classmethod
    def stated(
        cls,
        *,
        uuid: str,
        group_id: str,
        ends: tuple[str, str],
        names: tuple[str, str],
        relation: str,
        relation_key: str,
        fact: str,
        valid_at: datetime,
        stated_invalid_at: datetime | None,
        episode_id: str,
        now: datetime,
        provenance: dict[str, Any] | None = None,
        attributes: dict[str, Any] | None = None,
        event: bool = False,
        tier: str | None = None,
        qualifiers: dict[str, str] | None = None,
        data_subject: str | None = None,
    ) -> FactRecord:
        """A new fact as one episode states it: its first version, open until
        resolution links it to others."""
        return cls(
            uuid=uuid, group_id=group_id, source_uuid=ends[0], target_uuid=ends[1], subject=names[0],
            object=names[1], relation=relation, relation_key=relation_key, fact=fact, valid_at=valid_at,
            invalid_at=None, stated_invalid_at=stated_invalid_at, created_at=now, expired_at=None,
            invalidated_by=None, sources=(Source(episode_id, valid_at, stated_invalid_at, now, provenance),),
            attributes=attributes or {}, recorded_at=now, cause="created", cause_episode=episode_id, event=event,
            tier=tier, qualifiers=qualifiers or {}, data_subject=data_subject,
        )

    @property
    def version_at(self) -> datetime:
        return self.recorded_at or self.created_at

    @property
    def episodes(self) -> tuple[str, ...]:
        return tuple(s.episode_id for s in self.sources)

    def with_(self, **changes: Any) -> FactRecord:
        return replace(self, **changes)

    def interval_state(self) -> tuple[Any, ...]:
        """What a history row must be written for when it changes."""
        return (self.valid_at, self.invalid_at, self.expired_at, self.invalidated_by, self.episodes)

    def to_fact(self) -> Fact:
        return trusted(
            Fact,
            uuid=self.uuid,
            group_id=self.group_id,
            subject=self.subject,
            subject_uuid=self.source_uuid,
            relation=self.relation,
            object=self.object,
            object_uuid=self.target_uuid,
            fact=self.fact,
            valid_at=self.valid_at,
            invalid_at=self.invalid_at,
            created_at=self.created_at,
            expired_at=self.expired_at,
            invalidated_by=self.invalidated_by,
            episodes=self.episodes,
            attributes=dict(self.attributes),
            event=self.event,
            tier=self.tier,
            conflicting=(),
            qualifiers=dict(self.qualifiers),
            data_subject=self.data_subject,
        )


@dataclass(frozen=True, slots=True)
class ContradictionRecord:
    """A row of the group's contradictions: ``fact_uuid`` (the contradicting
    fact, or the filing episode's id for a candidate found by an episode's
    meaning) against ``target_uuid`` (the fact contradicted). ``kind`` is
    ``candidate`` (flagged when the contradicting input was written) or
    ``recorded`` (an explicit link filed with ``Memory.contradict``);
    ``note`` is the filer's reason for a recorded link. ``dismissed_at``:
    when someone settled it (None: open while both facts are current)."""

    group_id: str
    fact_uuid: str
    target_uuid: str
    kind: str  # "candidate" | "recorded" | "held"
    reason: str  # same_slot | same_time | similar_text | similar_meaning | recorded
    target_authority: float
    actor_weight: float
    score: float
    similarity: float | None
    note: str | None
    actor: str | None
    episode_id: str | None
    created_at: datetime
    dismissed_at: datetime | None = None


@dataclass(slots=True)
class Neighbourhood:
    """Facts linked by recorded contradictions around some seed facts.

    ``edges[u]`` is complete for every uuid in ``complete``; other records are
    loaded only as neighbours (their times are known, their own links are not).
    """

    records: dict[str, FactRecord] = field(default_factory=dict)
    edges: dict[str, set[str]] = field(default_factory=dict)
    complete: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class EntityMatch:
    """An existing entity a name may refer to: found by its ``name``, an
    ``alias``, an ``acronym`` or shared words (``text``), with its name vector."""

    entity: Entity
    how: str
    vector: Any = None  # numpy float32 array, or None when it has no embedding


@dataclass(frozen=True, slots=True)
class EpisodeProgress:
    """An episode with what its ingestion stored along the way."""

    episode: Episode
    pending: dict[str, Any] | None
    checkpoint: dict[str, Any] | None
    result: dict[str, Any] | None
    updated_at: datetime  # the last change of its status (or its receipt)


@dataclass(frozen=True, slots=True)
class HealthScan:
    """What ``reconcile`` asks of a store about one group, in one read: rows
    that break the graph's invariants or may need a person's eye."""

    # (uuid, name, reference_time): complete episodes of a kind other than
    # ``fact``, with content, that mention no entity.
    unmentioned_episodes: list[tuple[str, str, datetime]]
    # (fact_uuid, episode_id): fact_sources rows whose episode row is gone.
    dangling_sources: list[tuple[str, str]]
    # (a, a_name, b, b_name, score, episode_id): pairs ingestion recorded as maybe one entity.
    fragments: list[tuple[str, str, str, str, float, str | None]]
    # (uuid, name): entities no fact (expired ones included) touches and no episode mentions.
    orphan_entities: list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class SagaState:
    """A saga's stored summary row. ``cursor_at``/``cursor_uuid``: the key of
    the last episode included (None before any); ``state``: what the
    extractive summariser keeps to go on without re-reading (JSON-ready);
    ``stale``: removals of included episodes since it was built."""

    saga: str
    summary: str | None
    version: int
    cursor_at: datetime | None
    cursor_uuid: str | None
    covered_from: datetime | None
    covered_to: datetime | None
    episodes: int
    without_text: int
    method: str | None
    state: Any
    built_at: datetime | None
    stale: int


@dataclass(frozen=True, slots=True)
class SagaCount:
    """One saga of a group: its episodes, how many are past its cursor (all
    of them when it has no summary row), and its summary row's version (0:
    none), stale count and build time."""

    saga: str
    episodes: int
    after_cursor: int
    version: int = 0
    stale: int = 0
    built_at: datetime | None = None
