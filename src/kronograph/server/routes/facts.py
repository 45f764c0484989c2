"""Facts: add, query (now, as of, as known at, every interval), events by
time, read one with its sources and history, its conflict slot, retract;
the group's changes by the time they were recorded."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...errors import NotFoundError
from ...model import AddFactResult, RemovalResult
from ...qualifiers import parse_pairs
from ..auth import GroupPath, Who
from ..errors import ErrorBody
from ..limits import NAME_MAX
from ..point_in_time import view_at
from ..schemas import ChangeList, Count, FactDetail, FactIn, FactList, Time
from . import ERRORS, Mem

router = APIRouter(tags=["facts"], responses={k: {**v, "model": ErrorBody} for k, v in ERRORS.items()})

Opt = Annotated[str | None, Query(min_length=1, max_length=NAME_MAX)]
At = Annotated[Time | None, Query(description=(
    "A point in time: as_of and known_at both, nothing learned later (refused with either)."))]


@router.post("/v1/groups/{group}/facts", status_code=201, response_model=AddFactResult)
async def add_fact(
    group: GroupPath, body: FactIn, memory: Mem, who: Who
) -> AddFactResult:
    """Add one fact; answers what was written, merged, retired and changed, and
    the possible contradictions it raised, scored (``possible_contradictions``)."""
    fields = body.model_dump(exclude_unset=True)
    fields.update(who.attribution(fields.pop("actor", None)))
    return await memory.add_fact(group, fields.pop("subject"), fields.pop("relation"), fields.pop("object"), **fields)


@router.get("/v1/groups/{group}/facts", response_model=FactList)
async def list_facts(
    group: GroupPath, memory: Mem,
    subject: Opt = None, relation: Opt = None, object: Opt = None, entity: Opt = None,
    as_of: Time | None = None, known_at: Time | None = None, at: At = None,
    include_retired: bool = False, include_expired: bool = False, include_events: bool = False,
    limit: Annotated[Count | None, Query(ge=1, le=10_000)] = None,
    qualifier: Annotated[list[str] | None, Query(max_length=8, description=(
        "KEY=VALUE (repeatable): only facts carrying every one of these qualifiers."))] = None,
) -> FactList:
    """Facts valid now (default), at ``as_of``, as believed at ``known_at``, or every interval;
    events (``event: true``: moments such as LEFT, not standing facts) only with ``include_events``;
    ``qualifier=period=2024-Q2``: only that slot's; ``at``: as of then on both axes, nothing
    learned later (the answer's ``lookahead`` says so)."""
    slot = parse_pairs("qualifier", qualifier) if qualifier else None
    view = view_at(memory, at, as_of=as_of, known_at=known_at, include_retired=include_retired,
                   include_expired=include_expired)
    if view is not None:
        found = await view.facts(group, subject=subject, relation=relation, object=object, entity=entity,
                                 include_events=include_events, limit=limit, qualifiers=slot)
        return FactList(facts=found, lookahead=await view.lookahead(found))
    return FactList(facts=await memory.facts(
        group, subject=subject, relation=relation, object=object, entity=entity, as_of=as_of, known_at=known_at,
        include_retired=include_retired, include_expired=include_expired, include_events=include_events, limit=limit,
        qualifiers=slot,
    ))


@router.get("/v1/groups/{group}/events", response_model=FactList)
async def list_events(
    group: GroupPath, memory: Mem,
    subject: Opt = None, relation: Opt = None, object: Opt = None, entity: Opt = None,
    since: Time | None = None, until: Time | None = None, known_at: Time | None = None,
    include_expired: bool = False,
    limit: Annotated[Count | None, Query(ge=1, le=10_000)] = None,
) -> FactList:
    """Events (moments such as LEFT or MET) by when they happened: at or after ``since``, before ``until``."""
    return FactList(facts=await memory.events(
        group, subject=subject, relation=relation, object=object, entity=entity, since=since, until=until,
        known_at=known_at, include_expired=include_expired, limit=limit,
    ))


@router.get("/v1/groups/{group}/facts/{fact_uuid}", response_model=FactDetail)
async def get_fact(group: GroupPath, fact_uuid: str, memory: Mem) -> FactDetail:
    """A fact record (null when removed and only its history is left), its
    sources and its history."""
    fact = await memory.fact(group, fact_uuid)
    history = await memory.history(group, fact_uuid)
    if fact is None and not history:
        raise NotFoundError(f"no fact {fact_uuid!r} in group {group!r}")
    return FactDetail(fact=fact, sources=await memory.fact_sources(group, fact_uuid), history=history)


@router.get("/v1/groups/{group}/facts/{fact_uuid}/conflicts", response_model=FactList)
async def fact_conflicts(group: GroupPath, fact_uuid: str, memory: Mem) -> FactList:
    """The fact's whole slot: it and the facts linked to it by recorded contradictions."""
    return FactList(facts=await memory.conflicts(group, fact_uuid))


@router.delete("/v1/groups/{group}/facts/{fact_uuid}", response_model=RemovalResult)
async def delete_fact(
    group: GroupPath, fact_uuid: str, memory: Mem, who: Who,
    reason: Annotated[str | None, Query(min_length=1, max_length=1000, description=(
        "Why: required to retract another actor's standing rule or decision."))] = None,
) -> RemovalResult:
    """Retract one fact (``remove_fact``): history keeps what was believed."""
    return await memory.remove_fact(group, fact_uuid, reason=reason, **who.attribution())


@router.get("/v1/groups/{group}/timeline", response_model=FactList)
async def timeline(
    group: GroupPath, memory: Mem,
    entity: Annotated[str, Query(min_length=1, max_length=NAME_MAX, description="The entity's name.")],
    relation: Opt = None, at: At = None,
) -> FactList:
    """Every interval of the facts touching an entity, by ``valid_at``; ``at``:
    those begun by then, as believed then (with the answer's ``lookahead``)."""
    view = view_at(memory, at)
    if view is not None:
        found = await view.timeline(group, entity, relation)
        return FactList(facts=found, lookahead=await view.lookahead(found))
    return FactList(facts=await memory.timeline(group, entity, relation))



@router.get("/v1/groups/{group}/changes", response_model=ChangeList)
async def list_changes(
    group: GroupPath, memory: Mem,
    since: Annotated[Time, Query(description="Changes recorded at or after this time.")],
    until: Annotated[Time | None, Query(description="Changes recorded before this time (default: no end).")] = None,
    limit: Annotated[Count, Query(ge=1, le=10_000)] = 1000,
    after: Annotated[str | None, Query(min_length=1, max_length=NAME_MAX,
                                       description="A change's cursor (or the last page's next): read on after it.")
                     ] = None,
) -> ChangeList:
    """What the memory learned, retired, restored and removed (facts) and merged
    or split (entities) between two transaction times, oldest first."""
    found = await memory.changes(group, since, until, limit=limit, after=after)
    return ChangeList(changes=found, next=found[-1].cursor if len(found) == limit else None)
