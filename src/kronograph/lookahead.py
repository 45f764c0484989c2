"""Lookahead: what of a read's result was learned, or only held, after a
moment. A backtest at T must see only what was true and known at T; this
module says, for any result (facts, entities, episodes, search hits, a
context block, a timeline), which items break that, so a test can assert
it never happens. :meth:`kronograph.point_in_time.PointInTime.lookahead`
runs it with the store at hand (a fact's version is checked against the
one believed at T); see ``docs/point-in-time.md``.

It also holds the rule of what of an entity has a history (:func:`timeless`):
its uuid, name and creation time do; its summary, aliases, labels and
attributes are rewritten in place and do not."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from .model import Community, Entity, Episode, Fact, UtcDatetime, trusted
from .search.types import Hit, SearchResults

if TYPE_CHECKING:
    from .store import Store
    from .store.protocol import Lookups

__all__ = ["LookaheadItem", "LookaheadReport", "check_lookahead", "items_of", "known_sources", "timeless"]

# Why an item is flagged. ``learned_after``: recorded (a fact, an entity) or
# received (an episode) after the moment; ``valid_after``: a fact that only
# holds from after it; ``referenced_after``: an episode dated after it;
# ``changed_after``: a fact shown in a version recorded after it (its end or
# retirement learned later), or not believed at all then; ``no_history``:
# something rewritten in place (an entity's summary, aliases or labels, a
# community) that cannot be shown to have been known then.
Reason = Literal["learned_after", "valid_after", "referenced_after", "changed_after", "no_history"]
Kind = Literal["fact", "entity", "episode", "community", "fact_source", "entity_summary", "entity_aliases",
               "entity_labels"]


class LookaheadItem(BaseModel):
    """One item of a result that was not known, or not true, at the moment:
    its ``kind``, ``uuid`` (an episode's id), ``reason`` and ``at``, when it
    was learned or began to hold (None where the store keeps no time)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Kind
    uuid: str
    reason: Reason
    at: UtcDatetime | None = None


class LookaheadReport(BaseModel):
    """What of a result lies after ``moment``: ``clean`` when nothing does."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    moment: UtcDatetime
    clean: bool = True
    items: list[LookaheadItem] = []


def timeless(entity: Entity) -> Entity:
    """An entity as a point-in-time view shows it: uuid, group, name,
    creation time and provenance, which are fixed when it is created; no
    summary, aliases, labels or attributes, which are rewritten in place
    with no history, so may hold what was learned later."""
    values = dict(entity.__dict__)
    values.update(labels=(), aliases=(), summary=None, attributes={}, summary_stale=False, summary_built_at=None)
    return trusted(Entity, **values)


def items_of(result: Any) -> Iterator[Any]:
    """The facts, entities, episodes and communities in a result: a model,
    a search hit, search results, a context block, or a list of them."""
    from .context.types import Context  # the context package reads search, which reads this module

    if isinstance(result, Fact | Entity | Episode | Community):
        yield result
    elif isinstance(result, Hit):
        yield from items_of(result.item)
    elif isinstance(result, SearchResults):
        for hits in (result.facts, result.entities, result.episodes, result.communities):
            yield from items_of(hits)
    elif isinstance(result, Context):
        for part in (result.facts, result.entities, result.episodes):
            yield from items_of(part)
        if result.user is not None:
            yield result.user
    elif isinstance(result, list | tuple):
        for item in result:
            yield from items_of(item)
    elif result is not None:
        raise TypeError(f"cannot check {type(result).__name__} for lookahead")


@dataclass
class _Found:
    items: list[LookaheadItem] = field(default_factory=list)
    seen: set[tuple[str, str, str]] = field(default_factory=set)

    def add(self, kind: Kind, uuid: str, reason: Reason, at: datetime | None) -> None:
        if (kind, uuid, reason) not in self.seen:
            self.seen.add((kind, uuid, reason))
            self.items.append(LookaheadItem(kind=kind, uuid=uuid, reason=reason, at=at))


def _plain(found: _Found, items: Iterable[Any], moment: datetime) -> list[Fact]:
    """Flag what an item's own times show; return the facts whose version
    must be checked against the store."""
    check: list[Fact] = []
    for item in items:
        if isinstance(item, Fact):
            if item.created_at > moment:
                found.add("fact", item.uuid, "learned_after", item.created_at)
            elif item.valid_at > moment:
                found.add("fact", item.uuid, "valid_after", item.valid_at)
            elif item.expired_at is not None and item.expired_at > moment:
                found.add("fact", item.uuid, "changed_after", item.expired_at)
            else:
                check.append(item)
        elif isinstance(item, Entity):
            if item.created_at > moment:
                found.add("entity", item.uuid, "learned_after", item.created_at)
            if item.summary is not None:
                found.add("entity_summary", item.uuid, "no_history", item.summary_built_at)
            if item.aliases:
                found.add("entity_aliases", item.uuid, "no_history", None)
            if item.labels:
                found.add("entity_labels", item.uuid, "no_history", None)
        elif isinstance(item, Episode):
            if item.created_at > moment:
                found.add("episode", item.uuid, "learned_after", item.created_at)
            elif item.reference_time > moment:
                found.add("episode", item.uuid, "referenced_after", item.reference_time)
        elif isinstance(item, Community):
            if item.built_at > moment:
                found.add("community", item.uuid, "learned_after", item.built_at)
            elif item.attached:
                found.add("community", item.uuid, "no_history", None)
    return check


async def check_lookahead(store: Store, result: Any, moment: datetime) -> LookaheadReport:
    """Every item of ``result`` learned, or only valid, after ``moment``.
    Besides each item's own times it reads, per group, the versions of its
    facts believed at ``moment`` (a fact shown with an end or a retirement
    recorded later is flagged ``changed_after``) and the episodes its facts
    cite (one received later: ``fact_source``): two reads a group."""
    from .store import FactQuery

    found = _Found()
    items = list(items_of(result))
    check = _plain(found, items, moment)
    by_group: dict[str, list[Fact]] = {}
    for fact in check:
        by_group.setdefault(fact.group_id, []).append(fact)
    for fact in (f for f in items if isinstance(f, Fact)):
        by_group.setdefault(fact.group_id, [])
    for group_id, facts in by_group.items():
        if facts:
            query = FactQuery(as_of=moment, known_at=moment, include_retired=True, include_expired=True,
                              uuids=tuple(sorted({f.uuid for f in facts})))
            believed = {f.uuid: f for f in await store.facts(group_id, query)}
            for fact in facts:
                then = believed.get(fact.uuid)
                if then is None or _version(then) != _version(fact):
                    found.add("fact", fact.uuid, "changed_after", await _changed(store, group_id, fact.uuid, moment))
        cited = sorted({e for f in items if isinstance(f, Fact) and f.group_id == group_id for e in f.episodes})
        if cited:
            for episode in await store.episodes_by_uuid(group_id, cited):
                if episode.created_at > moment:
                    found.add("fact_source", episode.uuid, "learned_after", episode.created_at)
    return LookaheadReport(moment=moment, clean=not found.items, items=found.items)


def _version(fact: Fact) -> tuple[Any, ...]:
    return fact.valid_at, fact.invalid_at, fact.expired_at, fact.invalidated_by


async def _changed(store: Store, group_id: str, fact_uuid: str, moment: datetime) -> datetime | None:
    """When the fact's first version after ``moment`` was recorded."""
    later = [c.recorded_at for c in await store.history(group_id, fact_uuid) if c.recorded_at > moment]
    return min(later, default=None)


async def known_sources(store: Lookups, group_id: str, facts: list[Fact], moment: datetime) -> list[Fact]:
    """The facts citing only the episodes received by ``moment`` (a fact's
    current version lists every source, those that restated it later too):
    one read of the episodes they cite."""
    cited = sorted({e for f in facts for e in f.episodes})
    if not cited:
        return facts
    known = {p.uuid for p in await store.episodes_by_uuid(group_id, cited) if p.created_at <= moment}
    out = []
    for fact in facts:
        kept = tuple(e for e in fact.episodes if e in known)
        out.append(fact if kept == fact.episodes else trusted(Fact, **{**fact.__dict__, "episodes": kept}))
    return out

