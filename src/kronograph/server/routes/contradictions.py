"""Contradictions: list a group's, file one on purpose, settle one, a fact's
tier, and the group's contradiction policy (:mod:`kronograph.authority`).

Every write is recorded with the calling key as its actor (``key:<id>``), so
the policy weighs a key's filings by ``actor_weights`` / ``actor_kinds``
entries named ``key:<id>``. Changing the policy is for an admin key (or
``--local``): a key that could set its own weight would make the score
meaningless.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from ...authority import ContradictionPolicy
from ...model import Contradiction, Fact
from ..auth import Caller, GroupPath, Who, admin
from ..errors import ErrorBody
from ..limits import ID_MAX
from ..schemas import ContradictIn, Contradictions, Dismissed, DismissIn, TierIn
from . import ERRORS, Mem

router = APIRouter(tags=["contradictions"], responses={k: {**v, "model": ErrorBody} for k, v in ERRORS.items()})


@router.get("/v1/groups/{group}/contradictions", response_model=Contradictions)
async def list_contradictions(
    group: GroupPath, memory: Mem,
    fact_uuid: Annotated[str | None, Query(min_length=1, max_length=ID_MAX,
                                           description="Only those naming this fact, on either side.")] = None,
    open_only: Annotated[bool, Query(description="Only open ones (both sides stand, not dismissed).")] = True,
) -> Contradictions:
    """The group's contradictions (candidates flagged at write time, links filed
    on purpose), highest score first, and how many are open."""
    found = await memory.contradictions(group, fact_uuid=fact_uuid, open_only=open_only)
    still = found if open_only else await memory.contradictions(group, fact_uuid=fact_uuid)
    return Contradictions(contradictions=found, open=len(still))


@router.post("/v1/groups/{group}/facts/{fact_uuid}/contradicts", status_code=201, response_model=Contradiction)
async def contradict(group: GroupPath, fact_uuid: str, body: ContradictIn, memory: Mem, who: Who) -> Contradiction:
    """File that this fact disagrees with ``contradicted_uuid``, touching neither (``contradict``)."""
    return await memory.contradict(group, fact_uuid, body.contradicted_uuid, note=body.note,
                                   **who.attribution(body.actor))


@router.post("/v1/groups/{group}/contradictions/dismiss", response_model=Dismissed)
async def dismiss(group: GroupPath, body: DismissIn, memory: Mem, who: Who) -> Dismissed:
    """Settle the open contradictions of one fact against another, with a reason (``dismiss_contradiction``)."""
    count = await memory.dismiss_contradiction(group, body.fact_uuid, body.contradicted_uuid, reason=body.reason,
                                               actor=who.actor)
    return Dismissed(dismissed=count)


@router.put("/v1/groups/{group}/facts/{fact_uuid}/tier", response_model=Fact)
async def set_tier(group: GroupPath, fact_uuid: str, body: TierIn, memory: Mem, who: Who) -> Fact:
    """Give a fact its tier by hand, as a new version of it (``set_tier``)."""
    return await memory.set_tier(group, fact_uuid, body.tier, actor=who.actor, reason=body.reason)


@router.get("/v1/groups/{group}/contradiction-policy", response_model=ContradictionPolicy)
async def get_policy(group: GroupPath, memory: Mem) -> ContradictionPolicy:
    """How the group weighs contradictions (the defaults until set)."""
    return await memory.contradiction_policy(group)


@router.put("/v1/groups/{group}/contradiction-policy", response_model=ContradictionPolicy,
            responses={403: {"model": ErrorBody, "description": "Not an admin key"}})
async def put_policy(
    group: GroupPath, body: ContradictionPolicy, memory: Mem, who: Annotated[Caller, Depends(admin)],
) -> ContradictionPolicy:
    """Replace the group's contradiction policy (admin key, or --local); answers it as stored."""
    return await memory.set_contradiction_policy(group, body, actor=who.actor)
