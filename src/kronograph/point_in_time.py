"""Point-in-time views: ``AsyncMemory.at(T)``, the memory as it stood at T.

Every read of a view is as of T on both axes: what held in the world at T
(valid time) as the memory believed it at T (record time), so a backtest
sees nothing learned later. A fact is read in the version recorded by T
(one corrected in May reads, at a March T, as it was believed in March),
citing only the episodes received by T; entities and episodes the memory
received after T are left out, and so are episodes dated after T. What is
rewritten in place, with no history (an entity's summary, aliases, labels
and attributes; communities), is left out of a view entirely: see
:func:`kronograph.lookahead.timeless`. :meth:`PointInTime.lookahead` says,
for any result (a view's or the plain memory's), which items lie after T.
See ``docs/point-in-time.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ._arguments import TimeLike, _text, _time
from .context import Context, ContextParts, TokenCounter
from .errors import InvalidInputError
from .lookahead import LookaheadReport, check_lookahead, known_sources, timeless
from .message import Message
from .model import Entity, Episode, Fact, fold_relation, normalise_name
from .search.engine import SCOPES
from .search.recipes import Recipe
from .search.types import SearchFilters, SearchResults
from .store import FactQuery

if TYPE_CHECKING:
    from .memory import AsyncMemory

__all__ = ["PointInTime", "moment_of"]

_TICK = timedelta(microseconds=1)


def moment_of(field: str, value: Any) -> datetime:
    """A view's moment: a datetime (naive: UTC) or an ISO 8601 text, required."""
    if value is None:
        raise InvalidInputError(field, "a point in time is required")
    when = _time(field, value)
    assert when is not None
    return when


class PointInTime:
    """A read-only view of a memory at one moment (``AsyncMemory.at``): its
    reads take the memory's filters, never a moment of their own."""

    def __init__(self, memory: AsyncMemory, moment: TimeLike) -> None:
        self._memory = memory
        self._moment = moment_of("moment", moment)

    @property
    def moment(self) -> datetime:
        """The moment of the view, aware UTC."""
        return self._moment

    def __repr__(self) -> str:
        return f"PointInTime({self._moment.isoformat()})"

    async def facts(
        self,
        group_id: str,
        *,
        subject: str | None = None,
        relation: str | None = None,
        object: str | None = None,
        entity: str | None = None,
        include_events: bool = False,
        limit: int | None = None,
        qualifiers: Mapping[str, str] | None = None,
    ) -> list[Fact]:
        """Facts valid at the moment as believed then (``facts(as_of=T,
        known_at=T)``), each citing the episodes received by then. Names
        match as they were known then (a name, or an earlier name a fact
        was recorded under); events only with ``include_events``;
        ``qualifiers``: only that slot's (kronograph.qualifiers)."""
        found = await self._memory.facts(
            group_id, subject=subject, relation=relation, object=object, entity=entity, as_of=self._moment,
            known_at=self._moment, include_events=include_events, limit=limit, qualifiers=qualifiers,
        )
        return await self._sourced(group_id, found)

    async def events(
        self,
        group_id: str,
        *,
        subject: str | None = None,
        relation: str | None = None,
        object: str | None = None,
        entity: str | None = None,
        since: TimeLike | None = None,
        limit: int | None = None,
    ) -> list[Fact]:
        """Events (moments such as LEFT) that had happened by the moment, at
        or after ``since``, as believed then."""
        start = _time("since", since)
        if start is not None and start > self._moment:
            return []
        found = await self._memory.events(
            group_id, subject=subject, relation=relation, object=object, entity=entity, since=start,
            until=self._moment + _TICK, known_at=self._moment, limit=limit,
        )
        return await self._sourced(group_id, found)

    async def timeline(self, group_id: str, entity: str, relation: str | None = None) -> list[Fact]:
        """Every interval, as believed at the moment, of the facts touching
        ``entity`` that had begun by then (events included), by ``valid_at``."""
        g = self._memory._group(group_id)
        key = normalise_name(_text("entity", entity))
        rel = fold_relation(_text("relation", relation)) if relation is not None else None
        store = await self._memory._ready()
        found = await store.facts(g, FactQuery(
            as_of=self._moment, known_at=self._moment, entity_key=key, relation_key=rel, include_retired=True,
            until=self._moment + _TICK,
        ))
        return await self._sourced(g, found)

    async def entities(self, group_id: str, *, name: str | None = None) -> list[Entity]:
        """The entities the memory had by the moment, oldest first, shown
        without summary, aliases, labels or attributes (no history: they
        may hold what was learned later); ``name`` matches names only."""
        found = await self._memory.entities(group_id, name=name)
        key = normalise_name(_text("name", name)) if name is not None else None
        return [
            timeless(e) for e in found
            if e.created_at <= self._moment and (key is None or normalise_name(e.name) == key)
        ]

    async def episodes(self, group_id: str, *, status: str | None = None) -> list[Episode]:
        """The episodes received by the moment and dated by it, by reference
        time (``status`` as it stands now)."""
        found = await self._memory.episodes(group_id, status=status)
        return [p for p in found if p.created_at <= self._moment and p.reference_time <= self._moment]

    async def search(
        self,
        group_ids: str | Iterable[str],
        query: str,
        *,
        scopes: Iterable[str] = SCOPES,
        recipe: str | Recipe = "hybrid",
        limit: int = 10,
        include_events: bool = False,
        center_entity: str | Iterable[str] | None = None,
        filters: SearchFilters | None = None,
        query_vector: Sequence[float] | None = None,
    ) -> SearchResults:
        """``search`` as of the moment on both axes: only facts, entities and
        episodes known then are ranked or returned; no communities (they
        have no history); entities shown without what has no history, and
        neither named by an alias nor found by full text through a summary;
        ``left_out`` not counted (it would count facts learned later).
        ``filters.labels`` is refused: labels have no history."""
        if filters is not None and filters.labels:
            raise InvalidInputError("filters.labels", "labels have no history: a view cannot filter by them")
        return await self._memory._search(
            group_ids, query, scopes=scopes, recipe=recipe, limit=limit, as_of=self._moment, known_at=self._moment,
            include_retired=False, include_events=include_events, center_entity=center_entity, filters=filters,
            query_vector=query_vector, point_in_time=True,
        )

    async def context(
        self,
        group_id: str,
        query: str | None = None,
        *,
        messages: Iterable[Message | Mapping[str, Any]] | None = None,
        max_tokens: int = 1000,
        scopes: Iterable[str] = ("facts", "entities", "episodes"),
        template: str | Callable[[ContextParts], str] | None = None,
        token_counter: TokenCounter | Callable[[str], int] | None = None,
    ) -> Context:
        """``context`` as of the moment on both axes: its search as
        :meth:`search` reads, entity summaries made from the facts of the
        moment (never the stored ones), no contradictions (they are open
        now, not then)."""
        return await self._memory._context_block(
            group_id, query, messages=messages, as_of=self._moment, known_at=self._moment, max_tokens=max_tokens,
            scopes=scopes, template=template, token_counter=token_counter, point_in_time=True,
        )

    async def lookahead(self, result: Any) -> LookaheadReport:
        """What of ``result`` (facts, entities, episodes, search results, a
        context block or its hits, a timeline: this view's or the plain
        memory's) was learned, or only held, after the moment; ``clean``
        when nothing. A backtest asserts ``(await view.lookahead(r)).clean``."""
        return await check_lookahead(await self._memory._ready(), result, self._moment)

    async def _sourced(self, group_id: str, facts: list[Fact]) -> list[Fact]:
        return await known_sources(await self._memory._ready(), group_id, facts, self._moment)
