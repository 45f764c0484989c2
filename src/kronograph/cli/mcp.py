"""``kronograph mcp``: the memory as an MCP server, over stdio (default) or streamable HTTP."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import KronographError
from .facts import RelationTypes, _relation_types
from .options import DEFAULT_DB, Db, Offline, option
from .output import console, fail
from .session import message

if TYPE_CHECKING:
    from ..memory import AsyncMemory

__all__ = ["mcp"]

LOOPBACK = ("127.0.0.1", "localhost", "::1")
SERVER_HINT = "kronograph mcp needs the server extra: pip install 'kronograph[server]'"


def _open(db: str, offline: bool, types: dict[str, Any] | None = None) -> AsyncMemory:
    """The async memory the server runs on; the file is created when missing (a new agent's memory)."""
    from ..memory import AsyncMemory

    return AsyncMemory(db, model=None if offline else "auto", resume=False, relation_types=types)


async def _stdio(db: str, offline: bool, groups: list[str], types: dict[str, Any] | None = None) -> None:
    from ..server.mcp_server import run_stdio
    from ..server.mcp_tools import Access

    async with _open(db, offline, types) as memory:
        await run_stdio(memory, Access.local(groups))


async def _http(
    db: str, offline: bool, host: str, port: int, keys: Any, anonymous: Any, types: dict[str, Any] | None = None,
) -> None:
    import uvicorn

    from ..server.mcp_server import mcp_http_app

    async with _open(db, offline, types) as memory:
        app = mcp_http_app(memory, keys, host=host, anonymous=anonymous)
        server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
        console(stderr=True).print(f"kronograph MCP (streamable HTTP) at http://{host}:{port}/mcp", soft_wrap=True)
        await server.serve()


def mcp(
    db: Db = DEFAULT_DB,
    group: Annotated[
        list[str] | None,
        option("GROUP", "A group a local caller may touch (repeatable; the first is the default). "
                        "Default: every group, default group 'default'.", "--group", "-g"),
    ] = None,
    offline: Offline = False,
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP with API keys instead of stdio.")] = False,
    host: Annotated[str, option("HOST", "Address to listen on (--http).")] = "127.0.0.1",
    port: Annotated[int, option("PORT", "Port to listen on (--http).")] = 8765,
    keys: Annotated[
        Path | None,
        option("FILE", "API key file (--http; `kronograph keys` writes it). Default: $KRONOGRAPH_API_KEYS, "
                       "else $KRONOGRAPH_API_KEYS_FILE."),
    ] = None,
    local: Annotated[
        bool, typer.Option("--local", help="With --http: accept requests without a key, on 127.0.0.1 only.")
    ] = False,
    relation_type: RelationTypes = [],  # noqa: B006
) -> None:
    """Serve the memory to AI agents over the Model Context Protocol: tools to add
    memories, search facts and entities, read episodes, timelines and conflicts,
    delete an episode or a fact and summarise a saga. Standard input and output
    by default (an agent starts this command); --http for the network."""
    try:
        import mcp as _sdk  # noqa: F401
    except ImportError:
        fail(SERVER_HINT)
    groups = list(group or [])
    if not http:
        for name, given in (("--keys", keys is not None), ("--local", local), ("--host", host != "127.0.0.1"),
                            ("--port", port != 8765)):
            if given:
                fail(f"{name} is for --http only")
        _run(_stdio(db, offline, groups, _relation_types(relation_type)))
        return
    from ..server.keys import KeyRing
    from ..server.mcp_tools import Access

    try:
        ring = KeyRing.load(keys) if keys is not None else KeyRing.from_environment()
    except KronographError as exc:
        fail(message(exc))
    if local and host not in LOOPBACK:
        fail(f"--local serves without keys, so only on 127.0.0.1 (not --host {host})")
    if groups and not local:
        fail("--group is for stdio and --local: over HTTP each API key names its groups")
    if not len(ring) and not local:
        fail("no API keys: give --keys FILE or set $KRONOGRAPH_API_KEYS (`kronograph keys add` makes one), "
             "or --local to serve 127.0.0.1 without keys")
    if not 0 < port < 65_536:
        fail(f"--port: {port} is not a port")
    _run(_http(db, offline, host, port, ring, Access.local(groups) if local else None,
               _relation_types(relation_type)))


def _run(main: Any) -> None:
    try:
        asyncio.run(main)
    except KronographError as exc:
        fail(message(exc))
    except KeyboardInterrupt:
        pass
