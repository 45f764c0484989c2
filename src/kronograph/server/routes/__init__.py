"""The REST routers, one module per resource; each handler is one library call."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from ...memory import AsyncMemory
from ..limits import Limits

__all__ = ["Mem", "Lim", "memory_of"]


# Coroutines, though they never wait: a plain ``def`` dependency would run on
# a worker thread, a hand-off per request (see ..auth).
async def memory_of(request: Request) -> AsyncMemory:
    return request.app.state.memory  # type: ignore[no-any-return]


async def limits_of(request: Request) -> Limits:
    return request.app.state.limits  # type: ignore[no-any-return]


Mem = Annotated[AsyncMemory, Depends(memory_of)]
Lim = Annotated[Limits, Depends(limits_of)]

ERRORS = {
    400: {"description": "Invalid input"},
    401: {"description": "No or unknown API key"},
    404: {"description": "Not found (or a group this key may not touch)"},
    413: {"description": "Body too large"},
    422: {"description": "Invalid request"},
}
