"""The slot timeline rule, as a pure function.

Facts that contradict each other are linked by recorded contradiction edges.
A fact's interval follows from its own statement and its linked facts:

* it ends at the start of the earliest linked fact that starts after it, unless
  its own text closed it earlier (a stated end always wins a tie);
* a linked fact with the *same* start that was recorded later is a correction:
  the older record is expired (transaction time), not given an empty interval;
* an event (a moment: ``Sam LEFT Northwind``) is never closed by what follows
  it: it ends only where its own text says (corrections still expire it).

Because the rule only looks at what is linked now, adding or removing a fact
and recomputing its neighbours gives the same answer whatever the order of
arrival: late history is born closed, and retracting a fact restores what it
had closed.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Literal

from ..store.plan import HistoryEntry, Plan
from ..store.records import FactRecord, Source

__all__ = ["arrival_order", "merge_sources", "recompute", "refresh", "status_of", "supersede"]


def arrival_order(record: FactRecord) -> tuple[datetime, str]:
    """Which of two records was learned later (uuids are time ordered)."""
    return (record.created_at, record.uuid)


def recompute(record: FactRecord, neighbours: Iterable[FactRecord], now: datetime) -> FactRecord:
    """The record with ``invalid_at``, ``invalidated_by`` and ``expired_at`` derived
    from its linked facts. ``now`` stamps a newly expired record."""
    closer: FactRecord | None = None
    correction: FactRecord | None = None
    own_order = arrival_order(record)
    for other in neighbours:
        if other.uuid == record.uuid:
            continue
        if other.valid_at > record.valid_at:
            if record.event:
                continue  # what came after a moment does not end it
            if closer is None or (other.valid_at, arrival_order(other)) < (
                closer.valid_at,
                arrival_order(closer),
            ):
                closer = other
        elif other.valid_at == record.valid_at and arrival_order(other) > own_order:
            if correction is None or arrival_order(other) < arrival_order(correction):
                correction = other

    invalid_at = closer.valid_at if closer is not None else None
    invalidated_by = closer.uuid if closer is not None else None
    stated = record.stated_invalid_at
    if stated is not None and (invalid_at is None or stated <= invalid_at):
        invalid_at, invalidated_by = stated, None

    if correction is not None:
        expired_at = record.expired_at or now
        invalidated_by = correction.uuid
    else:
        expired_at = None
    if (
        invalid_at == record.invalid_at
        and invalidated_by == record.invalidated_by
        and expired_at == record.expired_at
    ):
        return record
    return record.with_(invalid_at=invalid_at, invalidated_by=invalidated_by, expired_at=expired_at)


def merge_sources(record: FactRecord, sources: tuple[Source, ...]) -> FactRecord:
    """A fact's own times follow from its sources: the earliest start, and the
    latest end any source stated (a source that states no end says nothing)."""
    ends = [s.stated_invalid_at for s in sources if s.stated_invalid_at is not None]
    return record.with_(
        sources=sources,
        valid_at=min(s.valid_at for s in sources),
        stated_invalid_at=max(ends) if ends else None,
    )


def status_of(record: FactRecord) -> Literal["live", "expired"]:
    return "expired" if record.expired_at is not None else "live"


def _cause(old: FactRecord, new: FactRecord) -> str:
    if new.expired_at is not None and old.expired_at is None:
        return "expired"
    if new.expired_at is None and old.expired_at is not None:
        return "unexpired"
    if old.invalid_at is None and new.invalid_at is not None:
        return "retired"
    if old.invalid_at is not None and new.invalid_at is None:
        return "reopened"
    if (old.valid_at, old.invalid_at) == (new.valid_at, new.invalid_at):
        return "sources_changed"
    return "interval_changed"


def supersede(
    plan: Plan, stored: FactRecord, updated: FactRecord, cause: str, episode_id: str | None
) -> FactRecord:
    """Make ``updated`` the fact's new version in ``plan``: the stored version
    goes to history, the new one is stamped with the plan's time and cause."""
    version = updated.with_(recorded_at=plan.now, cause=cause, cause_episode=episode_id)
    plan.history.append(HistoryEntry(stored, status_of(stored)))
    plan.updated_facts.append(version)
    return version


def refresh(
    plan: Plan,
    records: dict[str, FactRecord],
    edges: dict[str, set[str]],
    targets: set[str],
    originals: dict[str, FactRecord],
    episode_id: str | None,
) -> list[tuple[FactRecord, FactRecord]]:
    """Recompute ``targets`` from their links and put every change in the plan.

    ``records`` holds the latest state of each fact (already changed ones too);
    ``originals`` the state stored now. Returns (stored, new) for each change.
    """
    changes: list[tuple[FactRecord, FactRecord]] = []
    for uuid in sorted(targets):
        current = records[uuid]
        updated = recompute(current, (records[n] for n in edges.get(uuid, ())), plan.now)
        records[uuid] = updated
        stored = originals.get(uuid)
        if stored is None or stored.interval_state() == updated.interval_state():
            continue
        updated = supersede(plan, stored, updated, _cause(stored, updated), episode_id)
        records[uuid] = updated
        changes.append((stored, updated))
    return changes
