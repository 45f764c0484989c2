"""The service's request bodies and the envelopes of its answers.

Items inside the envelopes are the library's own models (``Fact``,
``Entity``, ``Episode``...), dumped as JSON, so the OpenAPI schema describes
exactly what the Python API returns.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..maintain.reconcile import ReconcileReport
from ..model import (
    AuditEvent,
    Community,
    Entity,
    Episode,
    Fact,
    FactChange,
    FactSource,
    PossibleContradiction,
    SagaInfo,
)

__all__ = [
    "Accepted", "AuditEventList", "CommunityHit", "CommunityList", "ContradictionList", "EntityDetail",
    "EntityHit", "EntityList", "EpisodeHit", "EpisodeIn", "EpisodeList", "FactDetail", "FactHit", "FactIn",
    "FactList", "ForgetIn", "GroupList", "Health", "ReconcileIn", "ReconcileReport", "SagaList", "SearchIn",
    "SearchOut",
]

Name = Field(min_length=1, max_length=1000)
_ON_BEHALF = ("Whom the key acts for (a user, an agent): recorded as on_behalf_of. The write's actor is always "
              "the calling key.")


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EpisodeIn(_In):
    """``add_episode``'s fields. ``content`` is text, or a JSON value for ``kind: json``."""

    content: str | dict[str, Any] | list[Any]
    kind: Literal["message", "text", "json"] = "message"
    reference_time: datetime | None = None
    name: str | None = Field(default=None, max_length=1000)
    source_description: str | None = Field(default=None, max_length=1000)
    episode_id: str | None = Field(default=None, min_length=1, max_length=200)
    saga: str | None = Field(default=None, min_length=1, max_length=200)
    previous_episode_ids: list[str] | None = None
    excluded_entity_types: list[str] | None = None
    metadata: dict[str, Any] | None = None
    json_mapping: dict[str, Any] | None = None
    actor: str | None = Field(default=None, max_length=200, description=_ON_BEHALF)


class Accepted(BaseModel):
    """An episode accepted into the durable queue."""

    episode_id: str
    status: str


class FactIn(_In):
    """``add_fact``'s fields."""

    subject: str = Name
    relation: str = Name
    object: str = Name
    fact: str | None = Field(default=None, max_length=10_000)
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    episode_id: str | None = Field(default=None, min_length=1, max_length=200)
    subject_labels: list[str] = Field(default_factory=list)
    object_labels: list[str] = Field(default_factory=list)
    actor: str | None = Field(default=None, max_length=200, description=_ON_BEHALF)


class SearchIn(_In):
    query: str = Field(min_length=1, max_length=10_000)
    scopes: list[Literal["facts", "entities", "episodes", "communities"]] | None = None
    recipe: str = "hybrid"
    limit: int = Field(default=10, ge=1, le=200)
    as_of: datetime | None = None
    known_at: datetime | None = None
    include_retired: bool = False
    center_entity: str | list[str] | None = None


class ForgetIn(_In):
    """Exactly one of ``entity`` (a name or uuid) and ``episode_id``."""

    entity: str | None = Field(default=None, min_length=1, max_length=1000)
    episode_id: str | None = Field(default=None, min_length=1, max_length=200)
    dry_run: bool = False
    actor: str | None = Field(default=None, max_length=200, description=_ON_BEHALF)


class ReconcileIn(_In):
    repair: bool = False
    actor: str | None = Field(default=None, max_length=200, description=_ON_BEHALF)


class Health(BaseModel):
    status: Literal["ok"]
    version: str


class GroupList(BaseModel):
    groups: list[str]


class EpisodeList(BaseModel):
    episodes: list[Episode]


class FactList(BaseModel):
    facts: list[Fact]


class FactDetail(BaseModel):
    """A fact record (null when only its history is left), its sources and history."""

    fact: Fact | None
    sources: list[FactSource]
    history: list[FactChange]


class EntityList(BaseModel):
    entities: list[Entity]


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


class AuditEventList(BaseModel):
    events: list[AuditEvent]


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
