"""Against DNS rebinding and cross-site writes when the service trusts its
callers because they are on this machine (``--local``, or the MCP endpoint on
a loopback address).

A page on another site can point its own name at 127.0.0.1 and have the
browser send requests to a service bound there: the ``Host`` header then names
the other site, never a loopback name. So every request must name a loopback
host (``localhost``, ``127.x.y.z``, ``[::1]``, any port), else **421**
``misdirected``. A browser also sends ``Origin`` on a cross-site write (a
form, a ``fetch``): a write (any method but GET, HEAD, OPTIONS) whose
``Origin`` is not a loopback one is refused with **403** ``forbidden``. A
request with no ``Origin`` (curl, an SDK, a same-origin GET) passes.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import error_response

__all__ = ["LoopbackGuard", "is_loopback", "loopback_host"]

_SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
_HOST = re.compile(r"(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+))(?::[0-9]{1,5})?")


def is_loopback(host: str) -> bool:
    """Whether a bare host name or address is this machine's loopback."""
    name = host.strip().lower().rstrip(".")
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def loopback_host(value: str | None) -> bool:
    """Whether a ``Host`` header (``name[:port]`` or ``[v6]:port``, nothing
    else: no user info, no path) names a loopback host."""
    found = _HOST.fullmatch(value.strip()) if value else None
    return found is not None and is_loopback(found.group(1) or found.group(2))


def _loopback_origin(value: str) -> bool:
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and parts.hostname is not None and is_loopback(parts.hostname)


class LoopbackGuard:
    """ASGI middleware: only loopback ``Host`` names, and no write from another origin."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[bytes, bytes] = {}
        for name, value in scope.get("headers") or []:
            headers.setdefault(name.lower(), value)
        host = headers.get(b"host")
        if not loopback_host(host.decode("latin-1") if host is not None else None):
            refusal = error_response(421, "this service answers only requests addressed to a loopback host "
                                     "(localhost, 127.0.0.1, [::1]): the Host header names another", code="misdirected")
            await refusal(scope, receive, send)
            return
        origin = headers.get(b"origin")
        if (origin is not None and scope.get("method", "GET") not in _SAFE
                and not _loopback_origin(origin.decode("latin-1"))):
            refusal = error_response(403, "a write from another origin is refused (the Origin header is not "
                                          "a loopback one)", code="forbidden")
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)
