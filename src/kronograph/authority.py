"""Authority of a possible contradiction: what it contradicts, and who says so.

A contradiction is scored on two axes: the *tier* of the fact contradicted
(a standing rule weighs 1.0, a reference item nothing) and the *weight* of
the actor who filed the contradicting input (a person more than an
unverified source). The score is their product, so a low-trust contradictor
never inflates a high-authority target. It measures governance risk — how
much it matters that this filing disagrees with that fact — not how wrong
either is in the world.

Each group keeps its own :class:`ContradictionPolicy` (in its settings,
written with ``Memory.set_contradiction_policy``); the defaults are below.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "ACTOR_KIND_WEIGHTS", "TIERS", "TIER_WEIGHTS", "ActorKind", "ContradictionPolicy", "Tier", "actor_weight",
    "POLICY_SETTING", "tier_text",
]

Tier = Literal["standing", "decision", "finding", "goal", "option", "issue", "assumption", "reference", "transient"]
TIERS: tuple[Tier, ...] = (
    "standing", "decision", "finding", "goal", "option", "issue", "assumption", "reference", "transient",
)
TIER_WEIGHTS: Mapping[Tier, float] = {
    "standing": 1.0, "decision": 0.8, "finding": 0.6, "goal": 0.4, "option": 0.3, "issue": 0.2,
    "assumption": 0.1, "reference": 0.0, "transient": 0.0,
}

ActorKind = Literal["human", "service", "agent", "unverified"]
ACTOR_KIND_WEIGHTS: Mapping[ActorKind, float] = {"human": 1.0, "service": 0.8, "agent": 0.5, "unverified": 0.2}

POLICY_SETTING = "contradiction_policy"  # its name among the group's settings

Weight = float


class ContradictionPolicy(BaseModel):
    """How a group weighs contradictions.

    ``tier_weights``: each tier's authority (a tier missing here keeps its
    default). An actor's weight is, in order: ``actor_weights[actor]``, else
    the weight of ``actor_kinds[actor]``, else the weight of
    ``unknown_actor``; a call that names no actor (the application itself)
    weighs ``caller_weight``. The service files an API key's calls as
    ``key:<key id>``, so keys are mapped like any actor. ``candidates`` caps the
    possible contradictions one write reports; ``min_similarity`` is how
    close (cosine, with the memory's embedder) a fact must be to the filing
    to be a candidate by meaning. ``owned_tiers``: facts of these tiers belong
    to whoever filed them; another actor retracting or replacing one by hand
    must give a reason."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tier_weights: dict[Tier, Weight] = Field(default_factory=lambda: dict(TIER_WEIGHTS))
    actor_weights: dict[str, Weight] = Field(default_factory=dict)
    actor_kinds: dict[str, ActorKind] = Field(default_factory=dict)
    kind_weights: dict[ActorKind, Weight] = Field(default_factory=lambda: dict(ACTOR_KIND_WEIGHTS))
    unknown_actor: ActorKind = "agent"
    caller_weight: Weight = Field(default=1.0, ge=0.0, le=1.0, allow_inf_nan=False)
    candidates: int = Field(default=5, ge=0, le=50)
    # The built-in hashing embedder scores words in common: a paraphrase with
    # few shared words is near 0.2, unrelated text near 0.1. A dense model's
    # cosines run higher: raise it with one (0.5 is a usual start).
    min_similarity: float = Field(default=0.2, ge=0.0, le=1.0, allow_inf_nan=False)
    owned_tiers: tuple[Tier, ...] = ("standing", "decision")

    @field_validator("tier_weights", "actor_weights", "kind_weights")
    @classmethod
    def _weights(cls, value: dict[str, float]) -> dict[str, float]:
        for key, weight in value.items():
            if not isinstance(weight, int | float) or not 0.0 <= float(weight) <= 1.0:
                raise ValueError(f"the weight of {key!r} must be a number from 0 to 1, not {weight!r}")
        return value

    @field_validator("actor_weights", "actor_kinds")
    @classmethod
    def _actors(cls, value: dict[str, Any]) -> dict[str, Any]:
        if len(value) > 10_000:
            raise ValueError("at most 10,000 actors")
        for key in value:
            if not 0 < len(key) <= 200:
                raise ValueError("an actor is 1 to 200 characters")
            if any(ord(c) < 32 or 0xD800 <= ord(c) <= 0xDFFF for c in key):
                raise ValueError(f"actor {key[:40]!r} holds a control character or a lone surrogate")
        return value

    def tier_weight(self, tier: str | None, default: float) -> float:
        """The authority of a fact of ``tier``; ``default`` (its relation's) when it has none."""
        if tier is None:
            return default
        for weights in (self.tier_weights, TIER_WEIGHTS):
            for name, weight in weights.items():
                if name == tier:
                    return float(weight)
        return default

    def owned(self, tier: str | None) -> bool:
        return tier is not None and tier in self.owned_tiers


def tier_text(field: str, value: object) -> str | None:
    """A tier as given: None, or one of :data:`TIERS`."""
    from .errors import InvalidInputError

    if value is None:
        return None
    if not isinstance(value, str) or value not in TIERS:
        raise InvalidInputError(field, f"must be one of {list(TIERS)}, not {value!r}"[:300])
    return value


def actor_weight(policy: ContradictionPolicy, actor: str | None) -> float:
    """The intrinsic weight of what ``actor`` files."""
    if actor is None:
        return policy.caller_weight
    if actor in policy.actor_weights:
        return float(policy.actor_weights[actor])
    kind = policy.actor_kinds.get(actor, policy.unknown_actor)
    return float({**ACTOR_KIND_WEIGHTS, **policy.kind_weights}[kind])
