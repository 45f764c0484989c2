"""What a search returns and how it is asked for: hits, results, filters.

Search never calls a model: the memory embeds the query and hands down a
vector; a cross-encoder, when one is configured, is injected as a protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

__all__ = [
    "CrossEncoder",
    "DateRange",
    "Hit",
    "SearchFilters",
    "SearchResults",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Hit(Generic[T]):
    """One ranked result: the Fact, Entity, Episode or Community, its score
    (higher is better; comparable within one result list only) and the
    methods that found it (``"bm25"``, ``"cosine"``, ``"bfs"``)."""

    item: T
    score: float
    methods: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SearchResults:
    """Ranked hits per scope. ``left_out`` counts the facts that matched the
    query but not the temporal mode (retired, expired, or not valid then)."""

    facts: list[Hit[Any]] = field(default_factory=list)
    entities: list[Hit[Any]] = field(default_factory=list)
    episodes: list[Hit[Any]] = field(default_factory=list)
    communities: list[Hit[Any]] = field(default_factory=list)
    left_out: int = 0


@dataclass(frozen=True, slots=True)
class DateRange:
    """A closed range on one time field; either end may be open (None)."""

    start: datetime | None = None
    end: datetime | None = None

    def contains(self, moment: datetime | None) -> bool:
        if moment is None:
            return False
        return (self.start is None or moment >= self.start) and (self.end is None or moment <= self.end)


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Narrow what any method may return.

    ``labels``: entities with one of these labels (facts: either end has one);
    ``relations``: facts whose folded relation is one of these;
    ``valid_at`` / ``invalid_at`` / ``created_at`` / ``expired_at``: date
    ranges on the facts' time fields; ``reference_time``: on episodes;
    ``episode_kinds`` and ``sagas``: episodes of those kinds / sagas.
    """

    labels: tuple[str, ...] = ()
    relations: tuple[str, ...] = ()
    valid_at: DateRange | None = None
    invalid_at: DateRange | None = None
    created_at: DateRange | None = None
    expired_at: DateRange | None = None
    reference_time: DateRange | None = None
    episode_kinds: tuple[str, ...] = ()
    sagas: tuple[str, ...] = ()


@runtime_checkable
class CrossEncoder(Protocol):
    """Scores (query, passage) pairs jointly; higher is more relevant."""

    name: str

    async def score(self, query: str, passages: Sequence[str]) -> list[float]: ...
