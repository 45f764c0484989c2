"""What one request may ask of the service, over REST and MCP alike.

The sizes of what a caller sends (an episode's content, a query, a name, an
id, a list of ids, the messages of one call) are set here once; the REST schemas and the MCP tools'
parameters both read them, so neither door takes more than the other.

And request limits, as plain ASGI middleware: a body larger than
``max_body`` bytes is refused with 413 (by its Content-Length, or as it
streams in), and a request running past ``timeout`` seconds answers 504.

A timed-out write is not undone: an episode stays registered and is finished
by the queue's worker (it resumes interrupted episodes), so the client may
ask for it by id.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "FACT_TEXT_MAX", "ID_MAX", "IDS_MAX", "Limits", "LimitsMiddleware", "MESSAGES_MAX", "NAME_MAX", "QUERY_MAX",
    "content_size",
]

QUERY_MAX = 10_000  # characters of a search query
NAME_MAX = 1_000  # characters of a name: an entity, a relation, an episode's name or source
ID_MAX = 200  # characters of an id: an episode, a saga, a group, an actor
FACT_TEXT_MAX = 10_000  # characters of a fact's sentence
IDS_MAX = 100  # ids in one call
MESSAGES_MAX = 100  # messages in one call (each within ``max_content``)


@dataclass(frozen=True, slots=True)
class Limits:
    """What one request may ask of the service."""

    max_body: int = 1 << 20  # bytes of request body
    timeout: float = 30.0  # seconds per request
    max_content: int = 200_000  # characters of one episode's content

    def content_refused(self, content: Any) -> str | None:
        """Why ``content`` is too long for one episode (REST answers 413, an MCP
        tool an error naming ``content``), or None."""
        if content_size(content) > self.max_content:
            return f"content is over {self.max_content:,} characters"
        return None


def content_size(content: Any) -> int:
    """An episode's content in characters (JSON content: its serialised length)."""
    return len(content) if isinstance(content, str) else len(json.dumps(content))


class _TooLarge(HTTPException):
    """Raised from ``receive``: FastAPI passes its HTTPExceptions through to the error handlers."""

    def __init__(self, message: str) -> None:
        super().__init__(413, message)


def _error(status: int, code: str, message: str) -> tuple[Message, Message]:
    body = json.dumps({"error": {"code": code, "message": message, "field": None}}).encode()
    start: Message = {"type": "http.response.start", "status": status,
                      "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]}
    return start, {"type": "http.response.body", "body": body}


class LimitsMiddleware:
    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limits.max_body
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        too_large = f"the request body is over {limit:,} bytes"
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._send(send, *_error(413, "too_large", too_large))
            return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge(too_large)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await asyncio.wait_for(self.app(scope, limited_receive, tracking_send), self.limits.timeout)
        except _TooLarge:
            if not started:
                await self._send(send, *_error(413, "too_large", too_large))
        except TimeoutError:
            if not started:
                await self._send(send, *_error(504, "timeout", f"the request took over {self.limits.timeout:g} s"))

    @staticmethod
    async def _send(send: Send, start: Any, body: Any) -> None:
        await send(start)
        await send(body)
