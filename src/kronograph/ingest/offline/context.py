"""What one episode has said so far, shared by the sentences read in it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from ..schema import ExtractedEntity, ExtractedFact
from .dates import TimeMention, time_words
from .patterns import phrase

if TYPE_CHECKING:
    from .thread import Thread

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
    # a tie whose names come next ("we adopted a dog! her name's Biscuit"): its subjects, relation and dates
    pending: tuple[list[Subject], str, dict[str, TimeMention]] | None = None
    # what an earlier sentence asked to do without ("ideas without shellfish?"): what a bare "i'm allergic" is to
    avoided: str | None = None
    about_other: bool = False  # the last sentence spoke of someone else ("he's ...") and not of the speaker
    people: set[str] = field(default_factory=set)  # place-like names a kin word called people ("my son Austin")
    message: str = ""  # the whole message: where a shortened name's longer form is looked for
    thread: Thread | None = None  # what the conversation said before this message (see thread.py)

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

    def add_fact(
        self,
        subject: Subject,
        rel: str,
        obj: tuple[str, str | None],
        bounds: tuple[TimeMention | None, TimeMention | None],
        text: str,
        past: bool = False,
        cap: float = 0.9,
    ) -> int:
        """One fact, unless it links a name to itself or was said already; 1 when added. ``text`` is the sentence
        its dates were read in."""
        name, label = obj
        key = (subject.name.casefold(), rel, name.casefold())
        if name.casefold() == subject.name.casefold() or key in self.facts:
            return 0
        self.mention(name, label)
        known = self.label(name) is not None
        valid, invalid = bounds
        used = [t for t in (valid, invalid) if t is not None]
        self.facts[key] = ExtractedFact(
            subject=subject.name,
            relation=rel,
            object=name,
            fact=f"{subject.name} {phrase(rel, past)} {name}",
            valid_at=valid.when.isoformat() if valid else None,
            invalid_at=invalid.when.isoformat() if invalid else None,
            time_expression=time_words(text, used),
            confidence=round(min(subject.confidence, cap, 0.9 if known else 0.8), 2),
        )
        return 1


@dataclass(slots=True)
class Subject:
    name: str
    confidence: float
