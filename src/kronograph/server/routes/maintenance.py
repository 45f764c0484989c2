"""Maintenance of a group: forget, communities, sagas, reconcile, audit."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from ...model import CommunityBuild, CommunityUpdate, ForgetReport, SagaSummary
from ..auth import GroupPath, Who
from ..errors import ErrorBody
from ..limits import ID_MAX
from ..schemas import (
    AuditEventList,
    CommunityList,
    ContradictionList,
    ErasureList,
    ForgetIn,
    ReconcileIn,
    ReconcileReport,
    SagaList,
)
from . import ERRORS, Mem

router = APIRouter(tags=["maintenance"], responses={k: {**v, "model": ErrorBody} for k, v in ERRORS.items()})

SagaName = Annotated[str, Path(min_length=1, max_length=ID_MAX)]


@router.post("/v1/groups/{group}/forget", response_model=ForgetReport)
async def forget(group: GroupPath, body: ForgetIn, memory: Mem, who: Who) -> ForgetReport:
    """Erase an entity (name or uuid), an episode or a data subject's data for good, then check no read
    returns it; the report's ``receipt`` is its entry in the group's erasure log."""
    return await memory.forget(group, entity=body.entity, episode_id=body.episode_id,
                               data_subject=body.data_subject, dry_run=body.dry_run, request_id=body.request_id,
                               reason=body.reason, **who.attribution(body.actor))


@router.get("/v1/groups/{group}/erasures", response_model=ErasureList)
async def erasures(
    group: GroupPath, memory: Mem,
    request_id: Annotated[str | None, Query(min_length=1, max_length=ID_MAX,
                                            description="Only this request's entries.")] = None,
) -> ErasureList:
    """The group's erasure receipts, oldest first, with the whole log's hash chain checked."""
    return ErasureList(receipts=await memory.erasures(group, request_id=request_id),
                       chain=await memory.verify_erasure_log(group))


@router.get("/v1/groups/{group}/communities", response_model=CommunityList)
async def communities(group: GroupPath, memory: Mem) -> CommunityList:
    return CommunityList(communities=await memory.communities(group))


@router.post("/v1/groups/{group}/communities/build", response_model=CommunityBuild)
async def build_communities(group: GroupPath, memory: Mem) -> CommunityBuild:
    """Cluster the current graph and replace the group's communities."""
    return await memory.build_communities(group)


@router.post("/v1/groups/{group}/communities/update", response_model=CommunityUpdate)
async def update_communities(group: GroupPath, memory: Mem) -> CommunityUpdate:
    """Attach new entities to existing communities, without clustering again."""
    return await memory.update_communities(group)


@router.get("/v1/groups/{group}/sagas", response_model=SagaList)
async def sagas(group: GroupPath, memory: Mem) -> SagaList:
    return SagaList(sagas=await memory.sagas(group))


@router.get("/v1/groups/{group}/sagas/{saga}", response_model=SagaSummary)
async def saga_summary(group: GroupPath, saga: SagaName, memory: Mem) -> SagaSummary:
    """The saga's summary as stored (version 0 when never built)."""
    return await memory.saga_summary(group, saga)


@router.post("/v1/groups/{group}/sagas/{saga}/summarize", response_model=SagaSummary)
async def summarize_saga(group: GroupPath, saga: SagaName, memory: Mem) -> SagaSummary:
    """Bring the saga's running summary up to date."""
    return await memory.summarize_saga(group, saga)


@router.get("/v1/groups/{group}/reconcile", response_model=ReconcileReport)
async def check(group: GroupPath, memory: Mem) -> ReconcileReport:
    """Check the group for defects; repairs nothing."""
    return await memory.reconcile(group)


@router.post("/v1/groups/{group}/reconcile", response_model=ReconcileReport)
async def reconcile(group: GroupPath, body: ReconcileIn, memory: Mem, who: Who) -> ReconcileReport:
    """Check, and with ``repair`` fix what is safe to fix."""
    return await memory.reconcile(group, repair=body.repair, **who.attribution(body.actor))


@router.get("/v1/groups/{group}/audit", response_model=ContradictionList)
async def audit(group: GroupPath, memory: Mem) -> ContradictionList:
    """Every pair of current facts that may disagree."""
    return ContradictionList(possible_contradictions=await memory.audit(group))


@router.get("/v1/groups/{group}/audit/events", response_model=AuditEventList)
async def audit_events(group: GroupPath, memory: Mem) -> AuditEventList:
    """The group's append-only log of mutations and flags."""
    return AuditEventList(events=await memory.audit_events(group))
