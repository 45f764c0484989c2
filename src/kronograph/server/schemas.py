"""The service's request bodies and the envelopes of its answers.

Items inside the envelopes are the library's own models (``Fact``,
``Entity``, ``Episode``...), dumped as JSON, so the OpenAPI schema describes
exactly what the Python API returns.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, field_validator

from ..authority import Tier
from ..checks import ID_MAX, NAME_MAX, identifier_problem, json_problem
from ..erasure import ErasureChain, ErasureReceipt
from ..lookahead import LookaheadReport
from ..maintain.reconcile import ReconcileReport
from ..model import (
    AuditEvent,
    Change,
    Community,
    Contradiction,
    Entity,
    Episode,
    EpisodeResult,
    Fact,
    FactChange,
    FactSource,
    PossibleContradiction,
    SagaInfo,
)
from ..time import read_time
from .limits import MESSAGES_MAX

__all__ = [
    "Accepted", "AuditEventList", "ChangeList", "CommunityHit", "CommunityList", "ContradictIn", "ContradictionList",
    "Contradictions", "DismissIn", "Dismissed", "EntityDetail", "TierIn",
    "EntityHit", "EntityList", "EpisodeHit", "EpisodeIn", "EpisodeList", "FactDetail", "FactHit", "FactIn",
    "FactList", "ForgetIn", "GroupList", "Health", "MergeIn", "MessagesAccepted", "MessagesDone", "MessagesIn",
    "SettingsIn", "ReconcileIn", "SplitIn", "ReconcileReport", "SagaList", "SearchIn", "SearchOut", "Count",
    "Identifier", "Label", "Time",
]

Name = Field(min_length=1, max_length=1000)
_ON_BEHALF = ("Whom the key acts for (a user, an agent): recorded as on_behalf_of. The write's actor is always "
              "the calling key.")
_SUBJECT = "Whose data it is (a customer id): forget with data_subject erases everything filed under it."
_TIER = ("The governance tier of the facts it states: standing, decision, finding, goal, option, issue, "
         "assumption, reference or transient (default: each relation's). See docs/contradictions.md.")
_REASON = ("Why: required to retract, replace or re-tier another actor's standing rule or decision "
           "(recorded with the override).")


def _identifier(value: str, max_length: int = ID_MAX) -> str:
    problem = identifier_problem(value, max_length)
    if problem is not None:
        raise ValueError(problem)
    return value


def _label(value: str) -> str:
    return _identifier(value, NAME_MAX)


def _time(value: Any) -> datetime:
    """An ISO 8601 string only: not a number, not a numeric string (no Unix
    times), and one with a UTC equivalent within the calendar."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise ValueError(f"expected an ISO 8601 time as a string, got {type(value).__name__}")
    try:
        return read_time(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not an ISO 8601 time ({exc})") from None


def _whole(value: Any) -> int:
    """A whole number: an int, or in a query string its digits (not ``1.0``, ``1e3`` or ``true``)."""
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected a whole number, got {value!r}")
    return value


Count = Annotated[int, BeforeValidator(_whole)]
"""A whole number in a query string."""
Identifier = Annotated[str, AfterValidator(_identifier)]
"""A group, episode, saga or actor id: the library's rule (:mod:`kronograph.checks`)."""
Label = Annotated[str, AfterValidator(_label)]
"""A relation name or label: an identifier of up to 1,000 characters."""
Time = Annotated[datetime, BeforeValidator(_time)]
"""An ISO 8601 time (naive read as UTC), as the library reads it."""


class _In(BaseModel):
    """Strict: no bool taken as a number, no float truncated to an int, no
    number taken as a time; every string, key and nested string storable."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @field_validator("*")
    @classmethod
    def _storable(cls, value: Any) -> Any:
        if isinstance(value, datetime):  # a Time, checked as such
            return value
        problem = json_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value


class EpisodeIn(_In):
    """``add_episode``'s fields. ``content`` is text, or for ``kind: json`` a
    JSON object, an array of objects, or the text of one."""

    kind: Literal["message", "text", "json"] = "message"  # first: content is checked against it
    content: str | dict[str, Any] | list[Any]
    reference_time: Time | None = None
    name: str | None = Field(default=None, max_length=1000)
    source_description: str | None = Field(default=None, max_length=1000)
    episode_id: Identifier | None = Field(default=None, min_length=1, max_length=200)
    saga: Identifier | None = Field(default=None, min_length=1, max_length=200)
    previous_episode_ids: list[Identifier] | None = None
    excluded_entity_types: list[Label] | None = None
    metadata: dict[str, Any] | None = None
    json_mapping: dict[str, Any] | None = None
    actor: Identifier | None = Field(
        default=None, max_length=200, description=_ON_BEHALF
    )
    speaker: Identifier | None = Field(
        default=None, max_length=200, description='Who said it: "I" and "my" in it are them.'
    )
    role: Identifier | None = Field(
        default=None, max_length=64, description="Its speaker's role: user, assistant, system, tool or another word."
    )
    tier: Tier | None = Field(default=None, description=_TIER)
    data_subject: Identifier | None = Field(default=None, min_length=1, max_length=200, description=_SUBJECT)

    @field_validator("content")
    @classmethod
    def _content_of_its_kind(cls, value: Any, info: ValidationInfo) -> Any:
        kind = info.data.get("kind")
        if kind in ("message", "text") and not isinstance(value, str):
            raise ValueError(f"a {kind} episode's content is a string; JSON values go in a json episode")
        if kind == "json" and isinstance(value, str):  # JSON text: its strings are checked as JSON's are
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError) as exc:
                raise ValueError(f"not valid JSON: {exc}") from None
            problem = json_problem(parsed)
            if problem is not None:
                raise ValueError(problem)
        return value


class Accepted(BaseModel):
    """An episode accepted into the durable queue."""

    episode_id: str
    status: str


_MESSAGE = ("A message: {role, content, name?, created_at?, id?, metadata?}: role user, assistant, system, tool or "
            "another word; name: who said it (default: the group's user for role user, assistant_name for role "
            "assistant); created_at: ISO 8601, when it was sent (the episode's reference time); id: its episode id "
            "(idempotent).")


class MessagesIn(_In):
    """``add_messages``'s fields. Each message is checked as the library
    checks it: a bad one is refused naming it (``messages[3].role``), and
    nothing is stored."""

    messages: list[dict[str, Any]] = Field(min_length=1, max_length=MESSAGES_MAX, description=_MESSAGE)
    thread: Identifier | None = Field(
        default=None, min_length=1, max_length=ID_MAX,
        description="The conversation (a saga): its earlier messages are the extraction's context.",
    )
    user_name: str | None = Field(
        default=None, min_length=1, max_length=ID_MAX,
        description="The person behind role user, kept in the group's settings (later calls may omit it).",
    )
    assistant_name: str = Field(default="Assistant", min_length=1, max_length=ID_MAX,
                                description="Who speaks for role assistant.")


class MessagesDone(BaseModel):
    """What ingesting each message did, in the order given."""

    results: list[EpisodeResult]


class MessagesAccepted(BaseModel):
    """The messages accepted into the durable queue, in the order given."""

    accepted: list[Accepted]


class SettingsIn(_In):
    """Settings to change; those left out stay as they are."""

    user_name: str | None = Field(default=None, min_length=1, max_length=ID_MAX,
                                  description="The person behind role user (a new name renames the user entity).")


class FactIn(_In):
    """``add_fact``'s fields."""

    subject: str = Name
    relation: Label = Name
    object: str = Name
    fact: str | None = Field(default=None, max_length=10_000)
    valid_at: Time | None = None
    invalid_at: Time | None = None
    episode_id: Identifier | None = Field(default=None, min_length=1, max_length=200)
    subject_labels: list[Label] = Field(default_factory=list)
    object_labels: list[Label] = Field(default_factory=list)
    actor: Identifier | None = Field(default=None, max_length=200, description=_ON_BEHALF)
    tier: Tier | None = Field(default=None, description="The fact's governance tier (default: its relation's).")
    data_subject: Identifier | None = Field(default=None, min_length=1, max_length=200, description=_SUBJECT)
    replaces: Identifier | None = Field(
        default=None, min_length=1, max_length=200, description="The uuid of a fact this one corrects (retired by it).")
    reason: str | None = Field(default=None, min_length=1, max_length=1000, description=_REASON)
    qualifiers: dict[str, str] | None = Field(default=None, max_length=8, description=(
        "The slot it fills, by keys its relation declares (e.g. {\"period\": \"2024-Q2\"}): facts of"
        " other qualifiers never replace it."))


class ContradictIn(_In):
    """``contradict``'s fields: the fact the path names disagrees with ``contradicted_uuid``."""

    contradicted_uuid: Identifier = Field(min_length=1, max_length=200, description="The fact it disagrees with.")
    note: str | None = Field(default=None, min_length=1, max_length=1000, description="Why, in words.")
    actor: Identifier | None = Field(default=None, max_length=200, description=_ON_BEHALF)


class DismissIn(_In):
    """``dismiss_contradiction``'s fields: the open contradictions of ``fact_uuid`` against ``contradicted_uuid``."""

    fact_uuid: Identifier = Field(min_length=1, max_length=200)
    contradicted_uuid: Identifier = Field(min_length=1, max_length=200)
    reason: str = Field(min_length=1, max_length=1000, description="Why it is settled (required, recorded).")


class TierIn(_In):
    """``set_tier``'s fields: the tier (null: none) and, for another actor's owned fact, a reason."""

    tier: Tier | None
    reason: str | None = Field(default=None, min_length=1, max_length=1000, description=_REASON)


class SearchIn(_In):
    query: str = Field(min_length=1, max_length=10_000)
    scopes: list[Literal["facts", "entities", "episodes", "communities"]] | None = None
    recipe: str = "hybrid"
    limit: int = Field(default=10, ge=1, le=200)
    as_of: Time | None = None
    known_at: Time | None = None
    at: Time | None = Field(default=None, description="as_of and known_at both, nothing learned later")
    include_retired: bool = False
    include_events: bool = False
    center_entity: str | list[str] | None = None
    qualifiers: dict[str, str] | None = Field(default=None, max_length=8, description=(
        "Only facts carrying every one of these qualifiers (e.g. {\"period\": \"2024-Q2\"})."))


class ForgetIn(_In):
    """Exactly one of ``entity`` (a name or uuid), ``episode_id`` and
    ``data_subject``; ``request_id`` and ``reason`` go on the erasure receipt
    (refused if they name what goes)."""

    entity: str | None = Field(default=None, min_length=1, max_length=1000)
    episode_id: Identifier | None = Field(default=None, min_length=1, max_length=200)
    data_subject: Identifier | None = Field(default=None, min_length=1, max_length=200, description=_SUBJECT)
    dry_run: bool = False
    actor: Identifier | None = Field(default=None, max_length=200, description=_ON_BEHALF)
    request_id: Identifier | None = Field(
        default=None, min_length=1, max_length=200, description="The erasure request's reference, on the receipt.")
    reason: str | None = Field(default=None, min_length=1, max_length=1000, description="Why, on the receipt.")


class MergeIn(_In):
    """``merge_entities``' fields: entities by uuid, or by a name only one entity of the group bears."""

    keep: str = Name
    merge: list[Annotated[str, Name]] = Field(min_length=1, max_length=100)
    actor: Identifier | None = Field(default=None, max_length=200, description=_ON_BEHALF)


class SplitIn(_In):
    """``split_entity``'s fields: the ``merge_id`` a merge answered."""

    merge_id: Identifier = Field(min_length=1, max_length=200)
    actor: Identifier | None = Field(default=None, max_length=200, description=_ON_BEHALF)


class ReconcileIn(_In):
    repair: bool = False
    actor: Identifier | None = Field(default=None, max_length=200, description=_ON_BEHALF)


class Health(BaseModel):
    status: Literal["ok"]
    version: str


class GroupList(BaseModel):
    groups: list[str]


class EpisodeList(BaseModel):
    episodes: list[Episode]


class FactList(BaseModel):
    facts: list[Fact]
    lookahead: LookaheadReport | None = None  # read with ``at``: what lies after it (clean)


class ChangeList(BaseModel):
    """Changes, oldest first; ``next``: the cursor to pass as ``after`` for the
    rest when the page is full (null: there is no more in the window)."""

    changes: list[Change]
    next: str | None = None


class FactDetail(BaseModel):
    """A fact record (null when only its history is left), its sources and history."""

    fact: Fact | None
    sources: list[FactSource]
    history: list[FactChange]


class EntityList(BaseModel):
    entities: list[Entity]
    lookahead: LookaheadReport | None = None  # read with ``at``: what lies after it (clean)


class EntityDetail(BaseModel):
    """An entity and every interval of every fact touching it, by ``valid_at``."""

    entity: Entity
    facts: list[Fact]


class CommunityList(BaseModel):
    communities: list[Community]


class SagaList(BaseModel):
    sagas: list[SagaInfo]


class ContradictionList(BaseModel):
    possible_contradictions: list[PossibleContradiction]


class Contradictions(BaseModel):
    """The group's contradictions, highest score first; ``open``: how many are
    open (both sides stand, nobody dismissed them), whatever was asked."""

    contradictions: list[Contradiction]
    open: int


class Dismissed(BaseModel):
    dismissed: int


class AuditEventList(BaseModel):
    events: list[AuditEvent]


class ErasureList(BaseModel):
    """The group's erasure log, oldest first, and whether its hash chain verifies (the whole log's)."""

    receipts: list[ErasureReceipt]
    chain: ErasureChain


class FactHit(BaseModel):
    item: Fact
    score: float
    methods: list[str]


class EntityHit(BaseModel):
    item: Entity
    score: float
    methods: list[str]


class EpisodeHit(BaseModel):
    item: Episode
    score: float
    methods: list[str]


class CommunityHit(BaseModel):
    item: Community
    score: float
    methods: list[str]


class SearchOut(BaseModel):
    facts: list[FactHit] = Field(default_factory=list)
    entities: list[EntityHit] = Field(default_factory=list)
    episodes: list[EpisodeHit] = Field(default_factory=list)
    communities: list[CommunityHit] = Field(default_factory=list)
    left_out: int = 0
    lookahead: LookaheadReport | None = None  # read with ``at``: what lies after it (clean)
