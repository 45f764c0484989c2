"""Facts of an owned tier belong to who filed them.

A standing rule or a decision (the policy's ``owned_tiers``) is retracted
(``remove_fact``) or corrected by hand (``add_fact(..., replaces=...)``) by
another actor only with a reason, and the reason is recorded with the
override. The owner is the actor of the episode that first stated the fact
(None: the application itself, with no actor named). Ordinary supersession
through ingestion is no override: it is what the memory is for, and goes on
as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..errors import InvalidInputError, NotFoundError
from ..ingest.contradiction_check import contradiction_policy
from ..store.protocol import FactQuery

__all__ = ["REASON_MAX", "Override", "check_override", "fact_owner", "reason_text"]

REASON_MAX = 1000  # characters: a reason is a sentence or two, not a document


def reason_text(field: str, value: Any) -> str | None:
    """A reason as given: None, or text of 1 to REASON_MAX characters."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInputError(field, f"expected text, got {type(value).__name__}")
    text = value.strip()
    if not text:
        raise InvalidInputError(field, "is empty")
    if len(text) > REASON_MAX:
        raise InvalidInputError(field, f"is {len(text)} characters; at most {REASON_MAX}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInputError(field, "is not valid Unicode (a lone surrogate)") from None
    if any(ord(c) < 32 and c not in "\n\t" for c in text) or "\x7f" in text:
        raise InvalidInputError(field, "contains control characters")
    return text


@dataclass(frozen=True, slots=True)
class Override:
    """Another actor's retraction or correction of an owned fact, with its reason."""

    fact_uuid: str
    tier: str
    owner: str | None
    actor: str | None
    reason: str

    def detail(self) -> dict[str, Any]:
        return {"fact": self.fact_uuid, "tier": self.tier, "owner": self.owner, "reason": self.reason}


async def fact_owner(store: Any, group_id: str, fact_uuid: str) -> str | None:
    """Who filed the fact: the actor of the episode that first stated it."""
    sources = await store.fact_sources(group_id, fact_uuid)
    if not sources:
        return None
    first = min(sources, key=lambda s: (s.added_at, s.episode_id))
    episode = await store.episode(group_id, first.episode_id)
    return episode.actor if episode is not None else None


async def check_override(
    store: Any, group_id: str, fact_uuid: str, *, actor: str | None, reason: str | None, at: datetime,
) -> Override | None:
    """The override ``actor`` makes by retracting or replacing the fact, or
    None when it is none (the fact's tier is not owned, or the actor owns
    it); InvalidInputError("reason") when it is one and no reason is given."""
    found = await store.facts(group_id, FactQuery(as_of=at, uuids=(fact_uuid,), include_retired=True))
    if not found:
        raise NotFoundError(f"no current fact {fact_uuid!r} in group {group_id!r}")
    fact = found[0]
    policy = contradiction_policy(await store.group_settings(group_id))
    if fact.tier is None or not policy.owned(fact.tier):
        return None
    owner = await fact_owner(store, group_id, fact_uuid)
    if owner == actor:
        return None
    if reason is None:
        raise InvalidInputError(
            "reason",
            f"fact {fact_uuid!r} is a {fact.tier} filed by {owner or 'the application'}: another actor"
            f" ({actor or 'the application'}) retracting or replacing it must give a reason",
        )
    return Override(fact_uuid, fact.tier, owner, actor, reason)
