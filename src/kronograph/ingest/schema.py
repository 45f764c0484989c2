"""What an extractor returns for one episode: the contract between every
extractor (a model, the offline rules, the JSON mapping) and resolution.

A model fills these models through structured output, so field order and
descriptions matter: ``reasoning`` comes first and is required, which makes a
model think before it lists anything; descriptions are the model's
instructions.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "CommunitySummaryAnswer",
    "CommunitySummaryText",
    "DedupeAnswer",
    "EntityMatch",
    "EntitySummaryText",
    "ExtractedEntity",
    "ExtractedFact",
    "Extraction",
    "FactVerdict",
    "JudgeAnswer",
    "Provenance",
    "SagaAnswer",
    "SummaryAnswer",
]


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore")  # a model's extra keys are dropped, not fatal


class ExtractedEntity(_Out):
    name: str = Field(description="The entity's most complete name as written in the episode.")
    labels: list[str] = Field(
        default_factory=list,
        description="Its types, e.g. Person, Organization, Location, or one of the custom entity types given.",
    )
    attributes: dict[str, Any] = Field(
        default_factory=dict, description="Values of the attributes its custom entity type defines, if any."
    )
    summary: str | None = Field(default=None, description="One short sentence about it, from this episode only.")


class ExtractedFact(_Out):
    subject: str = Field(description="Name of the entity the fact is about (one of the entities listed).")
    relation: str = Field(description="The relation in SCREAMING_SNAKE_CASE, e.g. WORKS_AT, LIVES_IN.")
    object: str = Field(description="Name of the other entity (one of the entities listed).")
    fact: str = Field(description="The fact as one self-contained sentence.")
    valid_at: str | None = Field(
        default=None,
        description="ISO 8601 time the fact became true, resolved against the reference time; "
        "null when the text gives no time (the reference time then applies).",
    )
    invalid_at: str | None = Field(
        default=None, description="ISO 8601 time the fact stopped being true, when the text says so; else null."
    )
    time_expression: str | None = Field(
        default=None, description="The words in the text that gave the time (e.g. 'last March', 'since 2019')."
    )
    attributes: dict[str, Any] = Field(
        default_factory=dict, description="Values of the attributes its custom fact type defines, if any."
    )
    qualifiers: dict[str, Any] = Field(
        default_factory=dict,
        description="For a relation listed with qualifiers: which slot the value fills, by the keys listed "
        "for it only (e.g. {\"period\": \"2024-Q2\"}); else empty.",
    )
    confidence: float | None = Field(default=None, ge=0, le=1, description="How sure you are, 0 to 1.")

    @field_validator("qualifiers", mode="before")
    @classmethod
    def _any_mapping(cls, value: Any) -> Any:
        return value if isinstance(value, dict) else {}  # null or a stray list: none, not a failed episode


class Extraction(_Out):
    reasoning: str = Field(
        description="Think first: who and what the episode mentions, which relations it states, and when."
    )
    entities: list[ExtractedEntity] = Field(default_factory=list)
    facts: list[ExtractedFact] = Field(default_factory=list)


class EntitySummaryText(_Out):
    id: str = Field(description="The entity's id as given (S1, S2, ...).")
    summary: str = Field(
        description="One or two plain sentences about the entity as it is now, from its listed facts only."
    )


class SummaryAnswer(_Out):
    reasoning: str = Field(description="Think first: for each entity, which of its facts matter most.")
    summaries: list[EntitySummaryText] = Field(default_factory=list)


class SagaAnswer(_Out):
    """A saga's running summary, brought up to date with the episodes shown."""

    summary: str = Field(description="The updated running summary: the summary so far with the new episodes folded in.")


class CommunitySummaryText(_Out):
    id: str = Field(description="The community's id as given (C1, C2, ...).")
    summary: str = Field(
        description="Two or three plain sentences on what ties the community's members together, from its facts only."
    )


class CommunitySummaryAnswer(_Out):
    reasoning: str = Field(description="Think first: for each community, what its members have in common.")
    summaries: list[CommunitySummaryText] = Field(default_factory=list)


class Provenance(BaseModel):
    """What produced an entity or a fact, stored with it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    extractor: str  # "model", "offline", "json", "direct"
    model: str | None = None
    prompt_version: str | None = None
    ontology_version: str | None = None


class FactVerdict(_Out):
    new_fact: str = Field(description="The id of the new fact (N1, N2...).")
    contradicts: list[str] = Field(
        default_factory=list,
        description="Ids of existing facts (E1, E2...) that cannot hold at the same time as the new fact.",
    )
    duplicate_of: str | None = Field(
        default=None, description="Id of an existing fact that states the same thing, else null."
    )


class JudgeAnswer(_Out):
    reasoning: str = Field(description="Think first: for each new fact, what it changes and what it restates.")
    verdicts: list[FactVerdict] = Field(default_factory=list)


class EntityMatch(_Out):
    mention: str = Field(description="The id of the mention (M1, M2...).")
    entity: str | None = Field(
        default=None, description="Id of the existing entity (K1, K2...) it is the same as, or null for a new one."
    )


class DedupeAnswer(_Out):
    reasoning: str = Field(description="Think first: what each mention refers to, given the context.")
    matches: list[EntityMatch] = Field(default_factory=list)
