"""What a search returns and how it is asked for: hits, results, filters.

Search never calls a model: the memory embeds the query and hands down a
vector; a cross-encoder, when one is configured, is injected as a protocol.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from .. import checks
from ..errors import InvalidInputError
from ..qualifiers import wanted
from ..time import parse_time

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
    methods that found it (``"bm25"``, ``"cosine"``, ``"bfs"``; ``"names"``: a
    fact of an entity the query names, or that entity; ``"context"``: an
    episode next to a match)."""

    item: T
    score: float
    methods: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SearchResults:
    """Ranked hits per scope. ``left_out`` counts the facts that matched the
    query but not the temporal mode (retired, expired, not valid then, or
    events not asked for)."""

    facts: list[Hit[Any]] = field(default_factory=list)
    entities: list[Hit[Any]] = field(default_factory=list)
    episodes: list[Hit[Any]] = field(default_factory=list)
    communities: list[Hit[Any]] = field(default_factory=list)
    left_out: int = 0


@dataclass(frozen=True, slots=True)
class DateRange:
    """A closed range on one time field; either end may be open (None).
    Ends may be datetimes or ISO 8601 strings; naive ones are read as UTC."""

    start: datetime | None = None
    end: datetime | None = None

    def __post_init__(self) -> None:
        for name in ("start", "end"):
            value = getattr(self, name)
            if value is not None:
                try:
                    object.__setattr__(self, name, parse_time(value))
                except (TypeError, ValueError) as exc:
                    raise InvalidInputError(f"DateRange.{name}", f"not a datetime or ISO 8601 time: {value!r}") from exc

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
    ``episode_kinds`` and ``sagas``: episodes of those kinds / sagas;
    ``qualifiers``: facts carrying every one of these pairs
    (``{"period": "2024-Q2"}``; kept as sorted pairs: :mod:`kronograph.qualifiers`).
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
    qualifiers: Any = ()  # a mapping of key to value (or pairs); kept as sorted pairs

    def __post_init__(self) -> None:
        pairs = self.qualifiers
        if not isinstance(pairs, Mapping):
            try:
                pairs = dict(pairs)
            except (TypeError, ValueError):
                raise InvalidInputError("filters.qualifiers", "expected a mapping of key to value") from None
        object.__setattr__(self, "qualifiers", wanted("filters.qualifiers", pairs))
        for name in ("labels", "relations", "episode_kinds", "sagas"):
            value = getattr(self, name)
            if isinstance(value, str):
                raise InvalidInputError(f"filters.{name}", f"expected a list of names, got the single string {value!r}")
            names = tuple(value)
            for v in names:
                checks.text(f"filters.{name}", v)
            object.__setattr__(self, name, tuple(v.casefold() for v in names) if name == "episode_kinds" else names)
        for name in ("valid_at", "invalid_at", "created_at", "expired_at", "reference_time"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, DateRange):
                raise InvalidInputError(f"filters.{name}", f"expected a DateRange, not {type(value).__name__}")


@runtime_checkable
class CrossEncoder(Protocol):
    """Scores (query, passage) pairs jointly; higher is more relevant."""

    name: str

    async def score(self, query: str, passages: Sequence[str]) -> list[float]: ...
