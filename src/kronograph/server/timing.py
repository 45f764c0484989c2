"""How long the service takes to answer, by route: ``kronograph_http_request_seconds``.

The route is the matched path's template (``/v1/groups/{group}/facts``), never
the path itself, so a series does not name a group and their number stays
bounded; a request no route matched is counted under ``unmatched``.
"""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..metrics import record_http_request

__all__ = ["TimingMiddleware"]


class TimingMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # unless an answer starts

        async def watching_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, watching_send)
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            record_http_request(scope.get("method", "GET"), route, status, time.perf_counter() - started)
