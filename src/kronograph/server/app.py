"""The REST service: ``create_app`` builds the FastAPI application over one
:class:`~kronograph.AsyncMemory` and one key ring.

The app publishes its OpenAPI schema at ``/openapi.json`` and a reference
page at ``/docs`` (plain HTML rendered from it, no script, under the web
view's CSP: nothing from a CDN, :mod:`.docs`), answers every error in
one JSON shape (:mod:`.errors`; an unexpected one is logged once,
:mod:`.logs`), limits bodies and
request time (:mod:`.limits`), and runs the durable ingestion queue's worker
for its lifetime (:meth:`AsyncMemory.process_queue`). The same app serves
the web view at ``/`` (:mod:`.web`) and the MCP server's streamable HTTP
endpoint at ``/mcp`` (:mod:`.mcp_server`), behind the same keys. In local
mode every route refuses a non-loopback ``Host`` and a write from another
origin (:mod:`.guard`). The contract is ``docs/rest.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from fastapi import FastAPI
from starlette.routing import Route

from .. import __version__
from ..memory import AsyncMemory
from ..redact import traceback_text
from .docs import mount_docs
from .errors import install_error_handlers
from .guard import LoopbackGuard
from .keys import KeyRing
from .limits import Limits, LimitsMiddleware
from .logs import UnexpectedErrors, keep_queries_out_of_the_access_log
from .mcp_server import mcp_http
from .mcp_tools import Access
from .routes import context, contradictions, conversation, entities, episodes, facts, maintenance, search, service
from .timing import TimingMiddleware
from .web import mount_web

__all__ = ["create_app"]

_log = logging.getLogger("kronograph.server")


async def _work_queue(memory: AsyncMemory, concurrency: int, poll: float) -> None:
    """The queue's worker for the app's lifetime; restarted after a failure
    (the store down, say): the episodes wait in the store meanwhile."""
    while True:
        try:
            await memory.process_queue(concurrency=concurrency, wait=True, poll=poll)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            _log.error("kronograph: the ingestion queue's worker failed; restarting in 5 s:\n%s", traceback_text(exc))
            await asyncio.sleep(5.0)


def create_app(
    memory: AsyncMemory,
    keys: KeyRing,
    *,
    local: bool = False,
    limits: Limits | None = None,
    workers: int = 4,
    poll: float = 0.5,
    run_queue: bool = True,
    host: str = "127.0.0.1",
    docs: bool = True,
) -> FastAPI:
    """The REST application. ``local``: no key needed, every group allowed
    (the caller binds it to loopback; every route then refuses non-loopback
    Host headers). ``workers``: groups the queue ingests at once;
    ``run_queue=False`` leaves the queue to another process. ``host``: where it
    is served (the MCP endpoint checks Host headers on loopback, against DNS
    rebinding). ``docs``: serve the reference page at ``/docs``."""
    if workers < 1:
        raise ValueError("workers must be at least 1")
    limits = limits or Limits()
    mcp = mcp_http(memory, keys, host=host, anonymous=Access.local() if local else None, limits=limits)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if not local and len(keys) == 0:
            _log.warning("kronograph: no API keys configured: every request but /v1/health answers 401 "
                         "(add one with `kronograph keys add`, or serve with --local)")
        task = asyncio.create_task(_work_queue(memory, workers, poll)) if run_queue else None
        try:
            async with mcp.lifespan():  # the MCP endpoint's sessions run in its task group
                yield
        finally:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    app = FastAPI(
        title="kronograph", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
        description="A temporal knowledge-graph memory for AI agents. Every route but /v1/health needs an "
                    "API key (`Authorization: Bearer <key>` or `X-API-Key`); errors are "
                    '`{"error": {"code", "message", "field"}}`. See docs/rest.md.',
    )
    app.state.memory = memory
    app.state.keys = keys
    app.state.local = local
    app.state.limits = limits
    install_error_handlers(app)
    for module in (service, episodes, conversation, facts, contradictions, entities, search, context, maintenance):
        app.include_router(module.router)
    app.router.routes.append(Route("/mcp", endpoint=mcp.endpoint, methods=["GET", "POST", "DELETE"]))
    mount_web(app)
    if docs:
        mount_docs(app)
    app.add_middleware(UnexpectedErrors)  # innermost: what no handler answered is logged once, here
    app.add_middleware(LimitsMiddleware, limits=limits)
    if local:
        app.add_middleware(LoopbackGuard)
    app.add_middleware(TimingMiddleware)  # outermost: it times what the limits and the guard answer too
    keep_queries_out_of_the_access_log()
    return app
