"""``kronograph serve``: the REST service (uvicorn) with its ingestion queue's worker."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import KronographError
from ..redact import redact_dsn
from .facts import RelationTypes, _relation_types
from .keys import DEFAULT_KEYS, Keys
from .options import DEFAULT_DB, Db, Offline, option
from .output import console, fail

__all__ = ["serve"]


def serve(
    host: Annotated[str, option("HOST", "Address to listen on.", "--host")] = "127.0.0.1",
    port: Annotated[int, option("PORT", "Port to listen on.", "--port", min=0, max=65535)] = 8000,
    db: Db = DEFAULT_DB,
    keys: Keys = Path(DEFAULT_KEYS),
    local: Annotated[bool, typer.Option(
        "--local", help="Development: no key needed, every group allowed; loopback hosts only (requests naming "
                        "another Host, and writes from another Origin, are refused).")] = False,
    workers: Annotated[int, option("N", "Groups the ingestion queue works on at once.", "--workers", min=1)] = 4,
    max_body: Annotated[int, option("BYTES", "Largest request body accepted (413 beyond).", "--max-body",
                                    min=1)] = 1 << 20,
    timeout: Annotated[float, option("SECONDS", "Longest a request may run (504 beyond).", "--timeout",
                                     min=0.1)] = 30.0,
    lease: Annotated[float | None, option(
        "SECONDS", "Lease on an episode being ingested (default 60), renewed every third of it while it works; "
        "a killed server's episodes are taken up by another once it runs out.", "--lease", min=0.5)] = None,
    offline: Offline = False,
    docs: Annotated[bool, typer.Option(
        "--docs/--no-docs", help="Serve the API reference page at /docs (plain HTML, no script).")] = True,
    relation_type: RelationTypes = [],  # noqa: B006
) -> None:
    """Serve the REST API (reference at /docs, schema at /openapi.json), the web view at /, the MCP
    endpoint at /mcp, and the ingestion queue's worker.

    Keys come from $KRONOGRAPH_API_KEYS, else the --keys file. Episodes posted
    without wait=true wait in a durable queue in the store; the worker in this
    process ingests them and, on start, picks up what a restart left."""
    try:
        import uvicorn

        from ..memory import AsyncMemory
        from ..server.app import create_app
        from ..server.guard import is_loopback
        from ..server.keys import ENV_KEYS, KeyRing
        from ..server.limits import Limits
        from ..server.logs import log_in_background
    except ImportError:
        fail("the service needs the 'server' extra:  pip install 'kronograph[server]'")
    types = _relation_types(relation_type)
    if local and not is_loopback(host):
        fail(f"--local serves without keys, so only on a loopback address (127.0.0.1, ::1), not {host}")
    try:
        ring = KeyRing() if local else KeyRing.from_environment(keys)
    except KronographError as exc:
        fail(str(exc))
    source = f"${ENV_KEYS}" if os.environ.get(ENV_KEYS) else str(keys)
    mode = "local mode: no key needed" if local else f"{len(ring)} key(s) from {source}"
    where = f"http://{host}:{port}" if ":" not in host else f"http://[{host}]:{port}"
    console(stderr=True).print(
        f"kronograph serving {redact_dsn(str(db))} on {where} ({mode})" + ("; docs at /docs" if docs else ""),
        soft_wrap=True)

    async def run() -> None:
        leased: dict[str, Any] = {} if lease is None else {"lease_seconds": lease}
        memory = AsyncMemory(db, model=None if offline else "auto", relation_types=types, **leased)
        try:
            app = create_app(memory, ring, local=local, workers=workers, host=host, docs=docs,
                             limits=Limits(max_body=max_body, timeout=timeout))
            # log_config=None: the loggers are already routed (through a queue, off the event loop)
            server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="info", log_config=None))
            await server.serve()
        finally:
            await memory.aclose()

    try:
        with log_in_background():
            asyncio.run(run())
    except KronographError as exc:
        fail(str(exc))
