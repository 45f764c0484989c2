"""Conversations: messages in (queued, or ingested at once), the group's user and its settings."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from ...model import Entity, GroupSettings
from ..auth import GroupPath, Who
from ..errors import ApiError, ErrorBody
from ..limits import Limits
from ..schemas import Accepted, MessagesAccepted, MessagesDone, MessagesIn, SettingsIn
from . import ERRORS, Lim, Mem

router = APIRouter(tags=["conversations"], responses={k: {**v, "model": ErrorBody} for k, v in ERRORS.items()})


def _sizes(messages: list[dict[str, Any]], limits: Limits) -> None:
    """413 for a message whose content is over the service's limit for one episode."""
    for i, message in enumerate(messages):
        refused = limits.content_refused(message.get("content", ""))
        if refused is not None:
            raise ApiError(413, refused, field=f"messages[{i}].content")


@router.post(
    "/v1/groups/{group}/messages",
    status_code=202,
    response_model=MessagesAccepted | MessagesDone,
    responses={200: {"model": MessagesDone, "description": "Ingested (wait=true)"},
               202: {"model": MessagesAccepted, "description": "Accepted into the durable queue"}},
)
async def add_messages(
    group: GroupPath, body: MessagesIn, memory: Mem, limits: Lim, who: Who,
    wait: Annotated[
        bool, Query(description="Ingest now and answer the results (200) instead of queueing (202).")
    ] = False,
) -> JSONResponse:
    """Accept a conversation, one episode a message, in order (``add_messages``):
    by default recorded in the durable queue and answered 202 (ingested in
    the background in that order); with ``wait=true`` ingested before
    answering, each message's result in order (a failed one says so in its
    ``status``). Every message is checked first: a bad one is a 400 naming
    it (``messages[3].role``) and nothing is stored."""
    _sizes(body.messages, limits)
    fields: dict[str, Any] = {"thread": body.thread, "user_name": body.user_name,
                              "assistant_name": body.assistant_name, "actor": who.actor}
    if wait:
        results = await memory.add_messages(group, body.messages, **fields)
        return JSONResponse(MessagesDone(results=results).model_dump(mode="json"), status_code=200)
    episodes = await memory.enqueue_messages(group, body.messages, **fields)
    accepted = [Accepted(episode_id=e.uuid, status=e.status) for e in episodes]
    return JSONResponse(MessagesAccepted(accepted=accepted).model_dump(), status_code=202)


@router.get("/v1/groups/{group}/user", response_model=Entity)
async def get_user(group: GroupPath, memory: Mem) -> Entity:
    """The group's user entity (the person behind role ``user``), with its
    summary; 404 when no user name is set or nothing was said of them yet."""
    found = await memory.user(group)
    if found is None:
        raise ApiError(404, f"group {group!r} has no user yet: name one with user_name (settings or messages)")
    return found


@router.get("/v1/groups/{group}/settings", response_model=GroupSettings)
async def get_settings(group: GroupPath, memory: Mem) -> GroupSettings:
    """The group's settings: ``user_name``, and every setting by name in ``values``."""
    return await memory.settings(group)


@router.patch("/v1/groups/{group}/settings", response_model=GroupSettings)
async def change_settings(group: GroupPath, body: SettingsIn, memory: Mem) -> GroupSettings:
    """Change the group's settings (those given); answers them as they now stand."""
    return await memory.configure(group, **body.model_dump(exclude_unset=True))
