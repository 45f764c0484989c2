"""``kronograph changes``: what the memory learned, retired, restored and
removed, and which entities it merged or split, in a window of recording time."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..model import Change
from .options import DEFAULT_DB, Db, Group, option
from .output import console, interval, short, when
from .session import open_memory

__all__ = ["changes"]

_COLOURS = {"learned": "green", "retired": "yellow", "removed": "red", "restored": "cyan", "changed": "blue"}


def changes(
    group: Group,
    since: Annotated[str, option("TIME", "Changes recorded at or after this time.", "--since")],
    until: Annotated[str | None, option("TIME", "Changes recorded before this time (default: up to now).")] = None,
    limit: Annotated[int, option("N", "At most N changes (up to 10,000).", min=1)] = 1000,
    after: Annotated[str | None, option("CURSOR", "Read on after this change (the cursor the last page ended on).")
                     ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the changes as a JSON array instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """List what the memory recorded between two times, oldest first: facts learned, retired, restored,
    removed or changed, entities merged or split."""
    with open_memory(db, group=group) as memory:
        found = memory.changes(group, since, until, limit=limit, after=after)
    if as_json:
        typer.echo(json.dumps([c.model_dump(mode="json") for c in found], indent=2))
        return
    out = console()
    if not found:
        out.print("[dim]no changes recorded in that window[/]")
        return
    out.print(_table(found, f"changes in {escape(group)}"))
    if len(found) == limit:
        out.print(f"[dim]more: --after {found[-1].cursor}[/]", soft_wrap=True)


def _table(found: list[Change], title: str) -> Table:
    table = Table(title=title, title_justify="left", header_style="bold")
    for name in ("recorded", "kind", "what", "valid", "cause"):
        table.add_column(name, no_wrap=name != "what")
    for change in found:
        colour = _COLOURS.get(change.kind, "magenta")
        kind = f"[{colour}]{change.kind}[/]"
        if change.fact is None:
            names = change.detail.get("absorbed") or change.detail.get("restored") or []
            what = f"{', '.join(map(str, names))} {'into' if change.kind == 'merged' else 'out of'} " \
                   f"{change.detail.get('kept') or ''}"
            table.add_row(when(change.recorded_at), kind, escape(what.strip()), "", change.cause)
            continue
        fact = change.fact
        source = f" [dim](episode {escape(short(change.episode_id))})[/]" if change.episode_id else ""
        table.add_row(when(change.recorded_at), kind, escape(fact.triple) + source, interval(fact), change.cause)
    return table
