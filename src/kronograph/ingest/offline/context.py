"""What one episode has said so far, shared by the sentences read in it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..schema import ExtractedEntity, ExtractedFact

__all__ = ["Context", "Subject"]


@dataclass(slots=True)
class Context:
    """What one episode has said so far: its speaker, its entities, its facts."""

    speaker: str | None
    reference: datetime | None = None  # the episode's reference time: a start after it is a plan, not a fact
    entities: dict[str, ExtractedEntity] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # keys in mention order, for pronouns
    facts: dict[tuple[str, str, str], ExtractedFact] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    not_understood: int = 0
    unread: list[str] = field(default_factory=list)  # notes on the sentences that gave no fact
    addressee: str | None = None  # whom "you" means: the assistant, in a user's message

    def mention(self, name: str, label: str | None) -> None:
        key = name.casefold()
        entity = self.entities.get(key)
        if entity is None:
            self.entities[key] = ExtractedEntity(name=name, labels=[label] if label else [])
        elif label and not entity.labels:
            entity.labels.append(label)
        if key in self.order:
            self.order.remove(key)
        self.order.append(key)

    def label(self, name: str) -> str | None:
        entity = self.entities.get(name.casefold())
        return entity.labels[0] if entity and entity.labels else None


@dataclass(slots=True)
class Subject:
    name: str
    confidence: float
