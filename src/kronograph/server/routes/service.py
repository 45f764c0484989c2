"""The service itself: health (no key), metrics and the list of groups."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import PlainTextResponse

from ... import __version__, metrics
from ..auth import Caller, admin, caller
from ..errors import ErrorBody
from ..schemas import GroupList, Health
from . import ERRORS, Mem

router = APIRouter(tags=["service"])
_errors = {k: {**v, "model": ErrorBody} for k, v in ERRORS.items() if k in (401, 403)}


@router.get("/v1/health", response_model=Health)
async def health() -> Health:
    """Liveness: answers without a key."""
    return Health(status="ok", version=__version__)


@router.get(
    "/v1/metrics", response_class=PlainTextResponse,
    responses={**_errors, 403: {"model": ErrorBody, "description": "Not an admin key"},
               200: {"content": {"text/plain": {"schema": {"type": "string"}}}, "description": "Prometheus text"}},
)
async def service_metrics(memory: Mem, who: Annotated[Caller, Depends(admin)]) -> PlainTextResponse:
    """Prometheus text: the library's counters and histograms, and the queue
    (store-wide episodes queued, in progress, complete, failed). Admin key, or --local."""
    stats = await memory.queue_stats()
    lines = [
        "# HELP kronograph_queue_episodes Episodes by queue state, store-wide.",
        "# TYPE kronograph_queue_episodes gauge",
        f'kronograph_queue_episodes{{state="queued"}} {stats.queued}',
        f'kronograph_queue_episodes{{state="processing"}} {stats.processing}',
        f'kronograph_queue_episodes{{state="complete"}} {stats.complete}',
        f'kronograph_queue_episodes{{state="failed"}} {stats.failed}',
        "# HELP kronograph_queue_failed Episodes that failed (retryable or quarantined), store-wide.",
        "# TYPE kronograph_queue_failed gauge",
        f"kronograph_queue_failed {stats.failed}",
    ]
    return PlainTextResponse(metrics.render().rstrip("\n") + "\n" + "\n".join(lines) + "\n",
                             media_type="text/plain; version=0.0.4")


@router.get("/v1/groups", response_model=GroupList, responses=_errors)
async def groups(memory: Mem, who: Annotated[Caller, Depends(caller)]) -> GroupList:
    """Admin or local: every group of the store; else the key's own groups."""
    if who.admin:
        return GroupList(groups=await memory.groups())
    return GroupList(groups=sorted(who.key.groups) if who.key is not None else [])
