"""The data model: what a memory stores and returns.

Every datetime field is timezone-aware UTC; a naive value is read as UTC.
It imports only the leaf modules it is built from (the shared base, tiers,
communities, erasure receipts, time helpers), never the rest of the library.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from ._base import UtcDatetime, _Model, trusted
from .authority import Tier
from .community import Community, CommunityAttachment, CommunityBuild, CommunityUpdate
from .erasure import ErasureReceipt
from .time import as_utc

__all__ = [
    "AddFactResult", "AuditEvent", "Cardinality", "Change", "Community", "CommunityAttachment", "CommunityBuild",
    "CommunityUpdate", "Contradiction", "ContradictionReason", "Entity", "EntitySummary", "Episode",
    "EpisodeKind", "EpisodeResult", "EpisodeStatus", "Fact", "FactChange", "FactSource",
    "ForgetReport", "GroupExport", "GroupSettings", "Mention", "ModelUsage", "PossibleContradiction",
    "QueueStats", "RelationType", "RemovalResult", "SagaInfo", "SagaSummary", "SameTimePolicy", "UtcDatetime",
    "Verdict", "acronym", "fold_relation", "normalise_name", "trusted",
]

_SPACE = re.compile(r"\s+")
_RELATION_NOISE = re.compile(r"[\s_\-]+")


@lru_cache(maxsize=65_536)
def normalise_name(name: str) -> str:
    """The key two entity names are compared by: case folded, white space runs folded."""
    return _SPACE.sub(" ", name).strip().casefold()


_WORD = re.compile(r"[^\W\d_][\w'&.-]*", re.UNICODE)


@lru_cache(maxsize=65_536)
def acronym(name: str) -> str | None:
    """The initials of a name of two or more words (``NYC`` for ``New York
    City``), lower-cased; ``None`` for a single word."""
    words = _WORD.findall(name)
    if len(words) < 2:
        return None
    return "".join(w[0] for w in words).casefold()


@lru_cache(maxsize=4_096)
def fold_relation(relation: str) -> str:
    """The key relations are compared by: ``MIGRATED_OFF``, ``migrated-off`` and
    ``Migrated Off`` all fold to ``migratedoff``."""
    return _RELATION_NOISE.sub("", relation).casefold()


QUALIFIER_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
QUALIFIER_KEY_MAX = 40  # characters
MAX_QUALIFIERS = 8  # keys a relation declares, pairs a fact carries


def qualifier_key_problem(key: Any) -> str | None:
    """What is wrong with a qualifier key (kronograph.qualifiers), or None."""
    if not isinstance(key, str):
        return f"a qualifier key must be a string, not {type(key).__name__}"
    if not key:
        return "a qualifier key must not be empty"
    if len(key) > QUALIFIER_KEY_MAX:
        return f"qualifier key {key[:QUALIFIER_KEY_MAX]!r}... is longer than {QUALIFIER_KEY_MAX} characters"
    if not QUALIFIER_KEY.fullmatch(key):
        return f"qualifier key {key!r} must be a letter or '_' followed by letters, digits or '_'"
    return None


def qualifier_keys(keys: Any) -> tuple[str, ...]:
    """A relation's declared keys, checked and folded to lower case; a key
    given twice is refused (ValueError, for pydantic)."""
    out: list[str] = []
    for key in keys:
        problem = qualifier_key_problem(key)
        if problem is not None:
            raise ValueError(problem)
        if key.casefold() in out:
            raise ValueError(f"qualifier key {key!r} is declared twice")
        out.append(key.casefold())
    if len(out) > MAX_QUALIFIERS:
        raise ValueError(f"at most {MAX_QUALIFIERS} qualifier keys")
    return tuple(out)




class Cardinality(StrEnum):
    """How many objects a subject may have at once, and the other way round."""

    MANY_TO_ONE = "many_to_one"  # a subject has one object at a time (LIVES_IN)
    ONE_TO_MANY = "one_to_many"  # an object has one subject at a time (CEO_OF a company)
    ONE_TO_ONE = "one_to_one"
    MANY_TO_MANY = "many_to_many"  # no structural rule: only the judge decides


SameTimePolicy = Literal["correct", "hold"]
"""What a relation does with two values of one slot at the same valid time."""


class RelationType(_Model):
    """A declared relation. A cardinality other than many-to-many makes
    contradiction detection deterministic for that relation: no judge needed.
    ``event=True``: its facts are moments (``LEFT``), not standing facts;
    ``False``: states; ``None``: as :mod:`kronograph.event_relations` says."""

    cardinality: Cardinality = Cardinality.MANY_TO_MANY
    description: str | None = None
    event: bool | None = Field(default=None, strict=True)
    # Relations a fact of this one ends between the same two entities
    # (``LEFT`` ends ``WORKS_AT``): deterministic too, no judge needed.
    ends: tuple[str, ...] = ()
    # How much a fact of this relation is to be trusted when a newer fact may
    # disagree with it, in [0, 1]: reported with each possible contradiction
    # of such a fact (a declared type can raise or lower it).
    authority: float = Field(default=0.5, ge=0.0, le=1.0, strict=True, allow_inf_nan=False)
    # The tier its facts are filed at unless the filing names one
    # (:mod:`kronograph.authority`): then the tier's weight is the authority.
    tier: Tier | None = None
    # Two values of one slot at the same valid time (:mod:`kronograph.same_time`):
    # "correct" (the later learned expires the other) or "hold" (both stand, flagged).
    same_time: SameTimePolicy = "correct"

    @model_validator(mode="after")
    def _hold_needs_a_slot(self) -> RelationType:
        if self.same_time == "hold" and self.cardinality == Cardinality.MANY_TO_MANY:
            raise ValueError("same_time='hold' needs a cardinality other than many_to_many (it holds a slot)")
        return self

    # Qualifier keys its facts may carry (``("period",)``): cardinality then
    # applies per subject, relation and qualifiers (see kronograph.qualifiers).
    qualifiers: tuple[str, ...] = ()

    @field_validator("qualifiers", mode="before")
    @classmethod
    def _qualifier_keys(cls, value: Any) -> tuple[str, ...]:
        if isinstance(value, str):
            raise ValueError("expected a list of qualifier keys, not a string")
        return qualifier_keys(value or ())

    @property
    def ends_keys(self) -> frozenset[str]:
        return frozenset(fold_relation(r) for r in self.ends)

    @property
    def one_object_per_subject(self) -> bool:
        return self.cardinality in (Cardinality.MANY_TO_ONE, Cardinality.ONE_TO_ONE)

    @property
    def one_subject_per_object(self) -> bool:
        return self.cardinality in (Cardinality.ONE_TO_MANY, Cardinality.ONE_TO_ONE)


class Verdict(_Model):
    """A contradiction judge's answer about one new fact.

    ``contradicts`` lists uuids of candidate facts the new fact replaces;
    ``duplicate_of`` names a candidate that states the same thing. Uuids of facts
    the judge was not shown are ignored.
    """

    contradicts: list[str] = Field(default_factory=list)
    duplicate_of: str | None = None


class EpisodeKind(StrEnum):
    MESSAGE = "message"
    TEXT = "text"
    JSON = "json"
    FACT = "fact"  # the source of facts added directly with add_fact


class EpisodeStatus(StrEnum):
    """Where an episode is in the pipeline. ``complete`` and ``quarantined`` are
    final; ``retryable`` waits for :meth:`resume`; ``queued`` is accepted by
    ``enqueue_episode`` and waits for the queue's worker; the others mean work
    in progress, or work a crash interrupted (resumed when the memory is opened)."""

    QUEUED = "queued"
    RECEIVED = "received"
    EXTRACTING = "extracting"
    RESOLVING = "resolving"
    COMMITTING = "committing"
    COMPLETE = "complete"
    RETRYABLE = "retryable"
    QUARANTINED = "quarantined"


class Episode(_Model):
    """One unit of input. ``uuid`` is the caller's episode id when one was given;
    ``created_at`` is when it was received; ``error`` says why it is retryable
    or quarantined."""

    uuid: str
    group_id: str
    name: str
    kind: EpisodeKind
    content: str | None = None
    content_hash: str | None = None
    source_description: str | None = None
    reference_time: UtcDatetime
    created_at: UtcDatetime
    saga: str | None = None
    status: str = "complete"
    metadata: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    # Who filed it (a user, an agent, an API key id); None when not given.
    actor: str | None = None
    # Whom the actor filed it for, as the actor said (a service's caller's own
    # words: never in place of ``actor``); None when not given.
    on_behalf_of: str | None = None
    # The worker holding an unfinished episode (host:pid:token) and until
    # when: nobody else takes it over before then; None once it is done.
    held_by: str | None = None
    held_until: UtcDatetime | None = None
    speaker: str | None = None  # who said it: whom "I" and "my" mean
    role: str | None = None  # a message's role: "user", "assistant", "system", "tool"...
    data_subject: str | None = None  # whose data it is (a customer id): forget(data_subject=...) erases it
    # What it said that gave no fact, once complete: "nothing understood in: ..."
    # or "no fact in (question): ..." (quoted only when its content is kept).
    notes: list[str] = Field(default_factory=list)


class Entity(_Model):
    uuid: str
    group_id: str
    name: str
    labels: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    summary: str | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    created_at: UtcDatetime
    # What produced it: extractor, model, prompt and ontology versions, episode.
    provenance: dict[str, Any] = Field(default_factory=dict)
    # True when a fact touching it was created, retired, changed or removed
    # since its summary was built (``summarize_entities`` or reconcile rebuild it).
    summary_stale: bool = False
    summary_built_at: UtcDatetime | None = None  # None: never built from its facts


class EntitySummary(_Model):
    """A summary ``summarize_entities`` (or reconcile) built: ``None`` when the
    entity has no current fact; ``method`` is ``"extractive"`` or ``"model"``."""

    uuid: str
    name: str
    summary: str | None = None
    method: str
    facts: int  # current facts it was built from
    built_at: UtcDatetime


class SagaSummary(_Model):
    """A saga's running summary and its two watermarks.

    ``cursor`` is the ingestion-time watermark: the ``(created_at, uuid)`` of
    the last episode included (episodes are included in that order, none
    past it is left out). ``covered_from``/``covered_to`` is the event-time
    coverage: the reference times of the included episodes that had text.
    ``version`` moves with every change to the stored row (a summary written,
    a removal marking it stale). ``added`` and ``model_calls`` are this run's;
    ``complete`` says whether the run reached the bound it fixed on starting;
    ``error`` is the model failure that stopped it early, if any."""

    group_id: str
    saga: str
    summary: str | None = None
    version: int = 0
    cursor: tuple[UtcDatetime, str] | None = None
    covered_from: UtcDatetime | None = None
    covered_to: UtcDatetime | None = None
    episodes: int = 0  # included in all, with text or without
    without_text: int = 0  # included whose text was not kept (store_raw_content=False)
    added: int = 0
    model_calls: int = 0
    method: str | None = None  # "extractive" or "model"
    built_at: UtcDatetime | None = None
    stale: bool = False  # it drew on an episode since removed: the next run rebuilds it
    complete: bool = True
    error: str | None = None


class GroupSettings(_Model):
    """A group's settings in its store: ``user_name`` (of role ``user``), and ``values`` by name."""

    group_id: str
    user_name: str | None = None
    values: dict[str, Any] = Field(default_factory=dict)


class SagaInfo(_Model):
    """A saga of a group: its episodes, how many are past its summary's cursor
    (``lag``), and its summary's state (``version`` 0: never summarised)."""

    saga: str
    episodes: int
    lag: int
    version: int = 0
    stale: bool = False
    built_at: UtcDatetime | None = None


class Fact(_Model):
    """A relation between two entities, with its two times.

    ``valid_at``/``invalid_at``: when it held in the world (business time).
    ``created_at``/``expired_at``: when this record was believed (transaction time).
    ``event``: a moment (``Sam LEFT Northwind`` on ``valid_at``), not a standing
    fact, left out of what is true unless asked for (see :class:`RelationType`).
    ``conflicting``: the uuids of the facts it is held in conflict with (two
    values of one slot at the same valid time, kept side by side by a relation
    declared ``same_time="hold"``), set by ``facts()`` and ``conflicts()``
    while the other still stands (see :mod:`kronograph.same_time`); empty elsewhere.
    """

    uuid: str
    group_id: str
    subject: str
    subject_uuid: str
    relation: str
    object: str
    object_uuid: str
    fact: str
    valid_at: UtcDatetime
    invalid_at: UtcDatetime | None = None
    created_at: UtcDatetime
    expired_at: UtcDatetime | None = None
    invalidated_by: str | None = None
    episodes: tuple[str, ...] = ()
    attributes: dict[str, Any] = Field(default_factory=dict)
    event: bool = False
    tier: Tier | None = None
    # The facts it is held in conflict with (the same slot and valid time, another
    # value, a relation declared ``same_time="hold"``), as the read sees them.
    conflicting: tuple[str, ...] = ()
    # Its qualifiers (``{"period": "2024-Q2"}``): which slot of its relation it fills.
    qualifiers: dict[str, str] = Field(default_factory=dict)
    data_subject: str | None = None  # whose data it is: its episode's, or add_fact's data_subject

    @property
    def triple(self) -> str:
        return f"{self.subject} {self.relation} {self.object}"

    def is_valid_at(self, moment: datetime) -> bool:
        """True when the fact held in the world at ``moment`` (an event: when
        it had happened by then, and its stated end, if any, had not passed)."""
        moment = as_utc(moment)
        return self.valid_at <= moment and (self.invalid_at is None or moment < self.invalid_at)


class FactChange(_Model):
    """One row of a fact's append-only history: its state from ``recorded_at`` on."""

    fact_uuid: str
    recorded_at: UtcDatetime
    cause: str
    episode_id: str | None = None
    status: Literal["live", "expired", "deleted"]
    valid_at: UtcDatetime
    invalid_at: UtcDatetime | None = None
    invalidated_by: str | None = None
    episodes: tuple[str, ...] = ()
    tier: Tier | None = None  # its governance tier in that version


class Change(_Model):
    """A change the memory recorded at ``recorded_at`` (transaction time), as
    ``AsyncMemory.changes`` reads it: ``kind`` (see ``docs/temporal-model.md``),
    ``fact`` as it stood right after (a removed one: its last state; None for
    entity merges and splits), the history's ``cause``, the ``episode_id``
    behind it, ``detail`` (what moved: before/after; the entities of a merge
    or split) and ``cursor``, to read on after it (``changes(after=...)``)."""

    kind: Literal["learned", "retired", "restored", "removed", "changed", "merged", "split"]
    recorded_at: UtcDatetime
    fact: Fact | None = None
    episode_id: str | None = None
    cause: str
    detail: dict[str, Any] = Field(default_factory=dict)
    cursor: str


class FactSource(_Model):
    """One episode's statement of a fact: the times it gave, and what produced
    the statement (extractor, model, prompt and ontology versions, the raw time
    expression, the reference time and zone it was resolved against, and the
    extractor's confidence)."""

    episode_id: str
    valid_at: UtcDatetime
    invalid_at: UtcDatetime | None = None
    added_at: UtcDatetime
    provenance: dict[str, Any] = Field(default_factory=dict)


class Mention(_Model):
    group_id: str
    episode_id: str
    entity_uuid: str


class AuditEvent(_Model):
    group_id: str
    kind: str
    recorded_at: UtcDatetime
    episode_id: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)
    # Who caused it (the actor of the episode or call); None when not given.
    actor: str | None = None
    # Whom the actor acted for, as it said; None when not given.
    on_behalf_of: str | None = None


# Why a PossibleContradiction is flagged (``recorded``: an explicit link, Memory.contradict).
ContradictionReason = Literal["same_slot", "same_time", "similar_text", "similar_meaning", "recorded"]


class PossibleContradiction(_Model):
    """A standing fact a newly admitted fact may disagree with but did not
    retire: a candidate, never a verdict. ``fact`` is the new fact's uuid
    (or the episode's, for a candidate found by an episode's meaning),
    ``contradicts`` the standing fact; ``reason`` is ``same_slot`` (same
    subject and relation, another object: or the object side, for a relation
    declared one subject per object), ``same_time`` (the same slot and the
    same valid time, held side by side: a relation declared
    ``same_time="hold"``; always listed and recorded), ``similar_text`` (fact texts alike on
    the same two entities) or ``similar_meaning`` (close by embedding:
    topical closeness, which agreeing facts share too; ``similarity`` is the
    cosine). ``authority`` is the standing fact's (its tier's weight, else
    its relation's), ``actor_weight`` that of who filed the new input, and
    ``score`` their product: governance risk, not how wrong either fact is
    (:mod:`kronograph.authority`)."""

    fact: str
    contradicts: Fact
    reason: ContradictionReason
    authority: float
    actor_weight: float = 1.0
    score: float = 0.0
    similarity: float | None = None


class Contradiction(_Model):
    """A row of the group's contradictions (``Memory.contradictions``):
    ``fact`` (the contradicting fact's uuid, or the filing episode's id for
    a candidate found by an episode's meaning) against ``contradicts`` (the
    fact contradicted, as it stands). ``kind`` is ``candidate`` (flagged when
    the input was written), ``recorded`` (filed on purpose with
    ``Memory.contradict``, with the filer's ``note``) or ``held`` (two
    values of one slot at the same valid time, both kept: reason ``same_time``). ``score`` is
    ``authority`` x ``actor_weight``: governance risk, not severity. Open
    while both sides stand and nobody dismissed it (``dismissed_at``)."""

    fact: str
    contradicts: Fact
    kind: Literal["candidate", "recorded", "held"]
    reason: ContradictionReason
    authority: float
    actor_weight: float
    score: float
    similarity: float | None = None
    note: str | None = None
    actor: str | None = None
    episode_id: str | None = None
    created_at: UtcDatetime
    dismissed_at: UtcDatetime | None = None


class AddFactResult(_Model):
    """What one ``add_fact`` did.

    ``fact`` is the fact written, or the existing fact it was merged into
    (``merged=True``). ``retired`` are facts it closed or expired; ``changed``
    are other facts whose interval moved. ``refused`` lists uuids the judge named
    that the structural guard made ineligible: they were left alone.
    """

    fact: Fact
    merged: bool
    episode_id: str
    retired: list[Fact] = Field(default_factory=list)
    changed: list[Fact] = Field(default_factory=list)
    refused: list[str] = Field(default_factory=list)
    possible_contradictions: list[PossibleContradiction] = Field(default_factory=list)


class GroupExport(_Model):
    """Everything a group holds, as the reads return it: episodes (with
    their text, where kept), entities (with summaries), every fact interval
    and expired record, communities, saga summaries, audit log, settings,
    erasure receipts. A subject access request, an inspection, a backup of what was derived;
    to move a memory elsewhere, ``kronograph migrate`` or the file itself."""

    group_id: str
    exported_at: UtcDatetime
    episodes: list[Episode] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    communities: list[Community] = Field(default_factory=list)
    sagas: list[SagaSummary] = Field(default_factory=list)
    audit_events: list[AuditEvent] = Field(default_factory=list)
    contradictions: list[Contradiction] = Field(default_factory=list)
    settings: GroupSettings | None = None
    erasures: list[ErasureReceipt] = Field(default_factory=list)  # the erasure log: counts, never erased text

    def records(self) -> list[tuple[str, BaseModel]]:
        """Every item with its kind (``episode``, ``entity``, ``fact``,
        ``community``, ``saga``, ``audit_event``, ``contradiction``,
        ``settings``, ``erasure``), in that order."""
        kinds: tuple[tuple[str, list[Any]], ...] = (
            ("episode", self.episodes), ("entity", self.entities), ("fact", self.facts),
            ("community", self.communities), ("saga", self.sagas), ("audit_event", self.audit_events),
            ("contradiction", self.contradictions),
            ("settings", [self.settings] if self.settings is not None else []),
            ("erasure", self.erasures),
        )
        return [(kind, item) for kind, items in kinds for item in items]


class RemovalResult(_Model):
    """What ``remove_episode`` (``episode_id``) or ``remove_fact``
    (``fact_uuid``) did."""

    episode_id: str | None = None
    fact_uuid: str | None = None
    deleted_facts: list[str] = Field(default_factory=list)
    changed: list[Fact] = Field(default_factory=list)
    deleted_entities: list[str] = Field(default_factory=list)


class ForgetReport(_Model):
    """What ``forget`` erased, by id, and whether the check afterwards found
    any trace left (``leftovers`` says where; ``verified`` is True when none).
    ``needles``: the names searched for (an episode's forget has none)."""

    group_id: str
    entity: str | None = None
    episode_id: str | None = None
    data_subject: str | None = None
    dry_run: bool = False
    needles: list[str] = Field(default_factory=list)
    episodes: list[str] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    changed_facts: list[str] = Field(default_factory=list)
    summaries_rebuilt: list[str] = Field(default_factory=list)
    sagas_rebuilt: list[str] = Field(default_factory=list)
    communities_rebuilt: list[str] = Field(default_factory=list)
    communities_deleted: list[str] = Field(default_factory=list)  # left with fewer than two members
    audit_events_redacted: int = 0
    cached_replies_dropped: int = 0
    verified: bool = False
    leftovers: list[str] = Field(default_factory=list)
    # The erasure log's entry written with the purge (None on a dry run); its
    # verification entry follows it in ``AsyncMemory.erasures``.
    receipt: ErasureReceipt | None = None


class ModelUsage(_Model):
    """Model calls and tokens some work cost, in all and by purpose (extract,
    dedupe, judge). Answers served from the response cache count as ``cached``."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_chars: int = 0
    by_purpose: dict[str, dict[str, int]] = Field(default_factory=dict)


class EpisodeResult(_Model):
    """What one ``add_episode`` did.

    ``status`` is ``complete``, or ``retryable`` / ``quarantined`` with the
    ``error``; nothing of a failed episode is in the graph. ``duplicate`` means
    the episode id was already ingested: nothing was done again. ``created``
    are new facts, ``merged`` existing facts the episode restated, ``retired``
    facts it closed or expired, ``changed`` other facts whose interval moved.
    """

    episode_id: str
    group_id: str
    status: EpisodeStatus
    error: str | None = None
    duplicate: bool = False
    extractor: str = ""
    entities: list[Entity] = Field(default_factory=list)
    created: list[Fact] = Field(default_factory=list)
    merged: list[Fact] = Field(default_factory=list)
    retired: list[Fact] = Field(default_factory=list)
    changed: list[Fact] = Field(default_factory=list)
    refused: list[str] = Field(default_factory=list)
    possible_contradictions: list[PossibleContradiction] = Field(default_factory=list)
    usage: ModelUsage = Field(default_factory=ModelUsage)
    # Sentences that gave no fact ("nothing understood in: ...", "no fact in
    # (question): ..."), bounded; the one whole-episode note when nothing was.
    notes: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == EpisodeStatus.COMPLETE

    @property
    def understood_nothing(self) -> bool:
        """Complete, new, and not one fact taken from it."""
        return (
            self.ok and not self.duplicate and bool(self.notes)
            and not (self.created or self.merged or self.retired or self.changed or self.refused)
        )

    def raise_for_status(self) -> EpisodeResult:
        """Raise :class:`~kronograph.errors.EpisodeFailedError` unless complete."""
        if not self.ok:
            from .errors import EpisodeFailedError  # errors imports nothing of ours either

            raise EpisodeFailedError(self.episode_id, str(self.status), self.error or "")
        return self


class QueueStats(_Model):
    """Store-wide episode counts for the ingestion queue: ``queued`` (waiting),
    ``processing`` (received to committing), ``complete`` and ``failed``
    (retryable or quarantined, each with its error on the episode)."""

    queued: int = 0
    processing: int = 0
    complete: int = 0
    failed: int = 0
    by_status: dict[str, int] = Field(default_factory=dict)

    @classmethod
    def of(cls, counts: dict[str, int]) -> QueueStats:
        processing = ("received", "extracting", "resolving", "committing")
        return cls(
            queued=counts.get("queued", 0), processing=sum(counts.get(s, 0) for s in processing),
            complete=counts.get("complete", 0), failed=counts.get("retryable", 0) + counts.get("quarantined", 0),
            by_status=dict(sorted(counts.items())),
        )
