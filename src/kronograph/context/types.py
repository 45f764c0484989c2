"""What ``context`` returns and what a template receives."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..model import Entity, Episode, Fact
from ..search.types import Hit

__all__ = ["Context", "ContextParts"]


@dataclass(frozen=True, slots=True)
class ContextParts:
    """The parts of a block, rendered, in block order: what the default layout
    and a caller's ``template`` are both made of. ``facts`` are sentences with
    their validity and cited episodes, ``entities`` ``"Name: summary"`` lines,
    ``episodes`` dated excerpts with their speaker and id; ``user`` the
    group's user entity (or None) and ``user_line`` its ``"Name: summary"``."""

    user: Entity | None
    facts: list[str]
    entities: list[str]
    episodes: list[str]
    as_of: datetime | None
    known_at: datetime | None
    query: str
    user_line: str | None = None

    def fields(self) -> dict[str, Any]:
        """The parts as a format string's named fields: ``user`` is the user's
        line (or ``""``), each list is also joined by newlines
        (``facts_text``...), each time is ISO text (or ``""``)."""
        return {
            "user": self.user_line or "",
            "facts": self.facts,
            "entities": self.entities,
            "episodes": self.episodes,
            "facts_text": "\n".join(self.facts),
            "entities_text": "\n".join(self.entities),
            "episodes_text": "\n".join(self.episodes),
            "as_of": self.as_of.isoformat() if self.as_of else "",
            "known_at": self.known_at.isoformat() if self.known_at else "",
            "query": self.query,
        }


@dataclass(frozen=True, slots=True)
class Context:
    """A prompt-ready memory block. ``text`` is never more than
    ``max_tokens`` as ``counter`` counts it (``tokens`` is its size);
    ``facts``, ``entities`` and ``episodes`` are what went into it, with
    their search scores; ``user`` the group's user when it is in the block;
    ``left_out`` what ranked but did not fit (or was not worth its tokens);
    ``parts`` the rendered parts the text was laid out from."""

    text: str
    facts: list[Hit[Fact]]
    entities: list[Hit[Entity]]
    episodes: list[Hit[Episode]]
    user: Entity | None
    tokens: int
    max_tokens: int
    counter: str
    left_out: list[Hit[Any]]
    query: str
    as_of: datetime | None
    known_at: datetime | None
    parts: ContextParts | None = field(default=None, repr=False)

    def __str__(self) -> str:
        return self.text
