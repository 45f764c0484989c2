"""Same-time conflicts: two values of one slot at the same valid time.

Two sources may give different values for one slot (the same subject and
relation, for a relation of one object per subject; the object side for one
subject per object) from the same moment: an analyst's forecast and the
decision, two filings. By default (``RelationType(same_time="correct")``) the
one learned later is a correction: the other expires (see
:mod:`kronograph.ingest.timeline`). A relation declared
``same_time="hold"`` keeps both standing instead, and flags them:

* resolution links neither to the other (no contradiction edge: the timeline
  never sees one as the other's correction), so both stay current, and
  whatever later value supersedes the slot closes both as usual;
* the write lists the other in ``possible_contradictions`` (reason
  ``same_time``) and records a contradiction row of kind ``held``, whatever
  the scores and the group's candidate cap;
* ``facts()`` and ``conflicts()`` mark each with the other
  (``Fact.conflicting``) while the row stands undismissed and the other is
  believed, in the read's transaction time (``known_at``).

A held conflict is settled by hand: ``remove_fact`` of one side (its rows go
with it), ``add_fact(replaces=...)`` (the replaced side expires), or
``dismiss_contradiction`` (both kept, the flag settled).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from .model import Fact, RelationType
from .store import FactQuery, Store
from .store.records import ContradictionRecord, FactRecord

__all__ = ["HELD", "held_partners", "mark_conflicting", "split_held"]

HELD = "held"  # the kind of a held conflict's contradiction row (reason "same_time")


def split_held(
    by_cardinality: list[FactRecord], new: FactRecord, relation_type: RelationType | None
) -> list[FactRecord]:
    """Take out of ``by_cardinality`` (the facts a declared cardinality would
    retire) those a ``hold`` relation keeps beside ``new``: the same relation,
    the same valid time, still believed. Returns them."""
    if relation_type is None or relation_type.same_time != "hold":
        return []
    held = [
        c for c in by_cardinality
        if c.relation_key == new.relation_key and c.valid_at == new.valid_at and c.expired_at is None and not c.event
    ]
    for c in held:
        by_cardinality.remove(c)
    return held


def _in_force(row: ContradictionRecord, at: datetime) -> bool:
    return row.kind == HELD and row.created_at <= at and (row.dismissed_at is None or row.dismissed_at > at)


def _believed(fact: Fact, at: datetime) -> bool:
    return fact.created_at <= at and (fact.expired_at is None or fact.expired_at > at)


async def mark_conflicting(
    store: Store, group_id: str, facts: Sequence[Fact], *, at: datetime, known_at: datetime | None
) -> list[Fact]:
    """``facts`` with ``conflicting`` set: for each, the facts it is held in
    conflict with whose row was recorded and not dismissed by the read's
    transaction time (``known_at``, else ``at``: now) and that were believed
    then. One read of the rows; another only for partners the answer lacks."""
    when = known_at or at
    if not facts:
        return list(facts)
    uuids = tuple(sorted({f.uuid for f in facts}))
    rows = [r for r in await store.contradictions(group_id, fact_uuids=uuids, open_only=False, at=at)
            if _in_force(r, when)]
    if not rows:
        return list(facts)
    others: dict[str, set[str]] = {}
    for r in rows:
        others.setdefault(r.fact_uuid, set()).add(r.target_uuid)
        others.setdefault(r.target_uuid, set()).add(r.fact_uuid)
    known = {f.uuid: f for f in facts}
    missing = tuple(sorted({o for u in uuids for o in others.get(u, ())} - set(known)))
    if missing:
        query = FactQuery(as_of=when, uuids=missing, known_at=known_at, include_retired=True, include_expired=True)
        known.update({f.uuid: f for f in await store.facts(group_id, query)})
    out: list[Fact] = []
    for fact in facts:
        partners = tuple(sorted(
            o for o in others.get(fact.uuid, ()) if o in known and _believed(known[o], when)
        )) if _believed(fact, when) else ()
        out.append(fact.model_copy(update={"conflicting": partners}) if partners != fact.conflicting else fact)
    return out


async def held_partners(store: Store, group_id: str, uuid: str, at: datetime) -> set[str]:
    """The facts ``uuid`` was ever held in conflict with (dismissed or not):
    the rest of its slot for :meth:`~kronograph.memory.AsyncMemory.conflicts`."""
    rows = await store.contradictions(group_id, fact_uuids=(uuid,), open_only=False, at=at)
    return {r.target_uuid if r.fact_uuid == uuid else r.fact_uuid for r in rows if r.kind == HELD}
