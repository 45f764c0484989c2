"""``kronograph groups``: the groups a memory holds, so a command's GROUP can be checked by eye."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape

from .options import DEFAULT_DB, Db
from .output import console
from .session import open_memory

__all__ = ["groups"]


def groups(
    as_json: Annotated[bool, typer.Option("--json", help="Print the names as a JSON array instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """List the memory's groups (tenants), one per line, by name."""
    with open_memory(db) as memory:
        found = memory.groups()
    if as_json:
        typer.echo(json.dumps(found))
        return
    out = console()
    if not found:
        out.print("[dim]no groups yet (add a fact or an episode first)[/]")
        return
    for name in found:
        out.print(escape(name), soft_wrap=True, highlight=False)
