"""Episodes: accept into the durable queue (or ingest at once), list, read, remove."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from ...model import Episode, EpisodeResult, EpisodeStatus, ForgetReport, RemovalResult
from ...overview import EpisodeDetail, GroupOverview
from ..auth import GroupPath, Who
from ..errors import ApiError, ErrorBody
from ..schemas import Accepted, EpisodeIn, EpisodeList
from . import ERRORS, Lim, Mem

router = APIRouter(tags=["episodes"], responses={k: {**v, "model": ErrorBody} for k, v in ERRORS.items()})

@router.post(
    "/v1/groups/{group}/episodes",
    status_code=202,
    response_model=Accepted | EpisodeResult,
    responses={200: {"model": EpisodeResult, "description": "Ingested (wait=true)"},
               202: {"model": Accepted, "description": "Accepted into the durable queue"}},
)
async def add_episode(
    group: GroupPath, body: EpisodeIn, memory: Mem, limits: Lim,
    who: Who,
    wait: Annotated[
        bool, Query(description="Ingest now and answer the result (200) instead of queueing (202).")
    ] = False,
) -> JSONResponse:
    """Accept an episode: by default recorded in the durable queue and answered
    202 (ingested in the background, each group in order; poll its status by
    id); with ``wait=true`` ingested before answering."""
    refused = limits.content_refused(body.content)
    if refused is not None:
        raise ApiError(413, refused, field="content")
    fields = body.model_dump(exclude_unset=True)
    fields.update(who.attribution(fields.pop("actor", None)))
    content = fields.pop("content")
    if wait:
        result = await memory.add_episode(group, content, **fields)
        return JSONResponse(result.model_dump(mode="json"), status_code=200)
    episode = await memory.enqueue_episode(group, content, **fields)
    return JSONResponse(Accepted(episode_id=episode.uuid, status=episode.status).model_dump(), status_code=202)


@router.get("/v1/groups/{group}/episodes", response_model=EpisodeList)
async def list_episodes(
    group: GroupPath, memory: Mem,
    status: Annotated[EpisodeStatus | None, Query(description="Only episodes in this status.")] = None,
) -> EpisodeList:
    """The group's episodes by reference time, with status and error."""
    return EpisodeList(episodes=await memory.episodes(group, status=status.value if status else None))


@router.get("/v1/groups/{group}/episodes/{episode_id}", response_model=Episode)
async def get_episode(group: GroupPath, episode_id: str, memory: Mem) -> Episode:
    """One episode: status ``queued``, in progress (``received`` to
    ``committing``), ``complete``, or failed (``retryable`` / ``quarantined``,
    with ``error``)."""
    return await memory.episode(group, episode_id)


@router.get("/v1/groups/{group}/episodes/{episode_id}/detail", response_model=EpisodeDetail)
async def get_episode_detail(group: GroupPath, episode_id: str, memory: Mem) -> EpisodeDetail:
    """One episode and what it did (``episode_detail``): the entities it
    mentioned, the facts citing it and the facts it retired."""
    return await memory.episode_detail(group, episode_id)


@router.get("/v1/groups/{group}/overview", response_model=GroupOverview, tags=["service"])
async def group_overview(
    group: GroupPath, memory: Mem,
    episodes: Annotated[int, Query(ge=1, le=100, description="How many latest episodes.")] = 10,
    entities: Annotated[int, Query(ge=1, le=100, description="How many most connected entities.")] = 10,
) -> GroupOverview:
    """The group at a glance (``overview``): episodes by status, entities, current
    and retired facts, events, open contradiction candidates, the latest episodes
    and the most connected entities."""
    return await memory.overview(group, episodes=episodes, entities=entities)


@router.delete("/v1/groups/{group}/episodes/{episode_id}", response_model=RemovalResult | ForgetReport)
async def delete_episode(
    group: GroupPath, episode_id: str, memory: Mem, who: Who,
    forget: Annotated[bool, Query(description="Erase it for good (forget) instead of retracting it.")] = False,
) -> JSONResponse:
    """Retract an episode (``remove_episode``), or with ``forget=true`` erase it (``forget``)."""
    if forget:
        report = await memory.forget(group, episode_id=episode_id, **who.attribution())
        return JSONResponse(report.model_dump(mode="json"))
    return JSONResponse((await memory.remove_episode(group, episode_id, **who.attribution())).model_dump(mode="json"))
