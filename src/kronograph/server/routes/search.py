"""Search: ranked facts, entities, episodes and communities, no model in the way."""

from __future__ import annotations

from fastapi import APIRouter

from ...search.engine import SCOPES
from ...search.types import SearchFilters
from ..auth import GroupPath
from ..errors import ErrorBody
from ..point_in_time import view_at
from ..schemas import SearchIn, SearchOut
from . import ERRORS, Mem

router = APIRouter(tags=["search"], responses={k: {**v, "model": ErrorBody} for k, v in ERRORS.items()})


def _hits(hits: list) -> list[dict]:  # type: ignore[type-arg]
    return [{"item": h.item, "score": h.score, "methods": list(h.methods)} for h in hits]


@router.post("/v1/groups/{group}/search", response_model=SearchOut)
async def search(group: GroupPath, body: SearchIn, memory: Mem) -> SearchOut:
    """Current facts by default; ``as_of``, ``known_at``, ``include_retired`` for history;
    events (moments, not standing facts) with ``include_events``; ``at``: as of then on
    both axes, nothing learned later (the answer's ``lookahead`` says so)."""
    filters = SearchFilters(qualifiers=body.qualifiers) if body.qualifiers else None
    view = view_at(memory, body.at, as_of=body.as_of, known_at=body.known_at, include_retired=body.include_retired)
    if view is not None:
        found = await view.search(
            group, body.query, scopes=body.scopes or SCOPES, recipe=body.recipe, limit=body.limit,
            include_events=body.include_events, center_entity=body.center_entity, filters=filters,
        )
        report = await view.lookahead(found)
    else:
        found = await memory.search(
            group, body.query, scopes=body.scopes or SCOPES, recipe=body.recipe, limit=body.limit, as_of=body.as_of,
            known_at=body.known_at, include_retired=body.include_retired, include_events=body.include_events,
            center_entity=body.center_entity, filters=filters,
        )
        report = None
    return SearchOut.model_validate({
        "facts": _hits(found.facts), "entities": _hits(found.entities), "episodes": _hits(found.episodes),
        "communities": _hits(found.communities), "left_out": found.left_out, "lookahead": report,
    })
