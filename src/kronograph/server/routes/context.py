"""Context: a prompt-ready memory block for a question or the last messages."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from ..._context import CONTEXT_SCOPES, MAX_TOKENS_RANGE
from ...context.query import QUERY_MAX
from ...lookahead import LookaheadReport
from ...model import Entity
from ..auth import GroupPath
from ..errors import ErrorBody
from ..limits import MESSAGES_MAX
from ..point_in_time import view_at
from ..schemas import EntityHit, EpisodeHit, FactHit, Time, _In
from . import ERRORS, Mem

__all__ = ["ContextIn", "ContextOut", "router"]

router = APIRouter(tags=["context"], responses={k: {**v, "model": ErrorBody} for k, v in ERRORS.items()})


class ContextIn(_In):
    """``context``'s fields: ``query`` or ``messages`` (the last few, as
    ``/messages`` takes them), or neither for a block about the user and the
    latest. ``template`` is a format string over the block's parts
    (``{user}``, ``{facts_text}``, ``{entities_text}``, ``{episodes_text}``,
    ``{query}``, ``{as_of}``, ``{known_at}``: see docs/context.md)."""

    query: str | None = Field(default=None, min_length=1, max_length=QUERY_MAX)
    messages: list[dict[str, Any]] | None = Field(
        default=None, min_length=1, max_length=MESSAGES_MAX,
        description="The last messages: {role, content, name?, created_at?}; the latest weighs most.",
    )
    as_of: Time | None = None
    known_at: Time | None = None
    at: Time | None = Field(default=None, description="as_of and known_at both, nothing learned later")
    max_tokens: int = Field(default=1000, ge=MAX_TOKENS_RANGE[0], le=MAX_TOKENS_RANGE[1])
    scopes: list[Literal["facts", "entities", "episodes"]] | None = None
    template: str | None = Field(default=None, min_length=1, max_length=20_000)


class ContextOut(BaseModel):
    """The block (``text``), its size by ``counter``, and what went into it
    with scores; ``left_out``: how many ranked lines did not fit."""

    text: str
    tokens: int
    max_tokens: int
    counter: str
    query: str
    as_of: datetime | None = None
    known_at: datetime | None = None
    user: Entity | None = None
    facts: list[FactHit] = Field(default_factory=list)
    entities: list[EntityHit] = Field(default_factory=list)
    episodes: list[EpisodeHit] = Field(default_factory=list)
    left_out: int = 0
    lookahead: LookaheadReport | None = None  # read with ``at``: what lies after it (clean)


def _hits(hits: list[Any]) -> list[dict[str, Any]]:
    return [{"item": h.item, "score": h.score, "methods": list(h.methods)} for h in hits]


@router.post("/v1/groups/{group}/context", response_model=ContextOut)
async def context(group: GroupPath, body: ContextIn, memory: Mem) -> ContextOut:
    """A memory block to put in a prompt: the user, facts with their validity
    and what they replaced, entity summaries, dated episode excerpts with
    their speaker, each citing its episodes; within ``max_tokens``."""
    view = view_at(memory, body.at, as_of=body.as_of, known_at=body.known_at)
    if view is not None:
        block = await view.context(group, body.query, messages=body.messages, max_tokens=body.max_tokens,
                                   scopes=body.scopes or CONTEXT_SCOPES, template=body.template)
    else:
        block = await memory.context(
            group, body.query, messages=body.messages, as_of=body.as_of, known_at=body.known_at,
            max_tokens=body.max_tokens, scopes=body.scopes or CONTEXT_SCOPES, template=body.template,
        )
    return ContextOut.model_validate({
        "text": block.text, "tokens": block.tokens, "max_tokens": block.max_tokens, "counter": block.counter,
        "query": block.query, "as_of": block.as_of, "known_at": block.known_at, "user": block.user,
        "facts": _hits(block.facts), "entities": _hits(block.entities), "episodes": _hits(block.episodes),
        "left_out": len(block.left_out), "lookahead": await view.lookahead(block) if view is not None else None,
    })
