"""Entities: list, read one with every interval of its facts, forget one, merge and split."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...maintain.repair import MergeResult, SplitResult
from ...model import ForgetReport
from ..auth import GroupPath, Who
from ..errors import ErrorBody
from ..limits import ID_MAX, NAME_MAX
from ..point_in_time import view_at
from ..schemas import EntityDetail, EntityList, MergeIn, SplitIn, Time
from . import ERRORS, Mem

router = APIRouter(tags=["entities"], responses={k: {**v, "model": ErrorBody} for k, v in ERRORS.items()})


@router.get("/v1/groups/{group}/entities", response_model=EntityList)
async def list_entities(
    group: GroupPath, memory: Mem,
    name: Annotated[str | None, Query(min_length=1, max_length=NAME_MAX)] = None,
    label: Annotated[str | None, Query(min_length=1, max_length=ID_MAX)] = None,
    at: Annotated[Time | None, Query(description=(
        "A point in time: the entities known then, without what has no history (summary, aliases, labels)."
    ))] = None,
) -> EntityList:
    """The group's entities, by name (case-insensitive) or label if given;
    ``at``: those known then (with the answer's ``lookahead``; no label)."""
    view = view_at(memory, at, label=label)
    if view is not None:
        found = await view.entities(group, name=name)
        return EntityList(entities=found, lookahead=await view.lookahead(found))
    return EntityList(entities=await memory.entities(group, name=name, label=label))


@router.get("/v1/groups/{group}/entities/{entity_uuid}", response_model=EntityDetail)
async def get_entity(group: GroupPath, entity_uuid: str, memory: Mem) -> EntityDetail:
    """An entity and every interval of every fact touching it, events
    included, by ``valid_at`` (what a graph, a timeline and an as-of view are
    drawn from)."""
    entity = await memory.entity(group, entity_uuid)
    touching = await memory.facts(group, entity=entity.name, include_retired=True, include_events=True)
    mine = [f for f in touching if entity.uuid in (f.subject_uuid, f.object_uuid)]
    mine.sort(key=lambda f: (f.valid_at, f.created_at, f.uuid))
    return EntityDetail(entity=entity, facts=mine)


@router.delete("/v1/groups/{group}/entities/{entity_uuid}", response_model=ForgetReport)
async def forget_entity(group: GroupPath, entity_uuid: str, memory: Mem, who: Who) -> ForgetReport:
    """Erase an entity for good (``forget``), and say whether any trace is left."""
    await memory.entity(group, entity_uuid)  # 404 for an unknown uuid, rather than an empty purge
    return await memory.forget(group, entity=entity_uuid, **who.attribution())


@router.post("/v1/groups/{group}/entities/merge", response_model=MergeResult)
async def merge_entities(group: GroupPath, body: MergeIn, memory: Mem, who: Who) -> MergeResult:
    """Merge entities found to be one into ``keep`` in one transaction (see
    ``merge_entities``); the answer's ``merge_id`` undoes it."""
    return await memory.merge_entities(group, body.keep, body.merge, **who.attribution(body.actor))


@router.post("/v1/groups/{group}/entities/split", response_model=SplitResult)
async def split_entity(group: GroupPath, body: SplitIn, memory: Mem, who: Who) -> SplitResult:
    """Undo a merge by its ``merge_id`` in one transaction (see ``split_entity``)."""
    return await memory.split_entity(group, body.merge_id, **who.attribution(body.actor))
