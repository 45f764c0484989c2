"""The saga commands: ``saga`` (bring a running summary up to date, or show
it) and ``sagas`` (a group's sagas with their lag)."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..maintain.sagas import MAX_CALLS
from ..model import SagaSummary
from .options import DEFAULT_DB, Db, Offline, option
from .output import console, plural, short, when
from .session import open_memory

__all__ = ["saga", "sagas"]


def _print(found: SagaSummary) -> None:
    out = console()
    if found.version == 0:
        out.print(f"[dim]saga {escape(found.saga)} has no summary yet[/]")
        return
    cursor = f"{when(found.cursor[0])} {short(found.cursor[1])}" if found.cursor else "none"
    out.print(f"[bold]saga {escape(found.saga)}[/] (version {found.version}, {found.method})", soft_wrap=True)
    out.print(escape(found.summary or "(nothing to summarise: no episode with text)"), soft_wrap=True)
    out.print(
        f"  [dim]{plural(found.episodes, 'episode')} in it ({found.without_text:,} without text), "
        f"{found.added:,} added now; covers {when(found.covered_from)} to {when(found.covered_to)};"
        f" cursor {escape(cursor)}[/]",
        soft_wrap=True,
    )
    if found.model_calls:
        out.print(f"  [dim]model: {plural(found.model_calls, 'call')}[/]")
    if found.stale:
        out.print("  [yellow]stale: an episode it drew on was removed; the next run rebuilds it[/]")
    if found.error:
        out.print(f"  [yellow]stopped early: {escape(found.error)}[/]", soft_wrap=True)
    elif not found.complete:
        out.print("  [yellow]stopped at --max-calls: run it again for the rest[/]")


def saga(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) of the saga.")],
    name: Annotated[str, typer.Argument(metavar="SAGA", help="The saga's name (add --saga NAME).")],
    stored: Annotated[bool, typer.Option("--stored", help="Show the stored summary; update nothing.")] = False,
    max_calls: Annotated[int, option("N", "Model calls at most (an episode begun is finished).")] = MAX_CALLS,
    offline: Offline = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Bring a saga's running summary up to date and print it."""
    model = None if offline or stored else "auto"
    with open_memory(db, group=group, model=model) as memory:
        found = memory.saga_summary(group, name) if stored else memory.summarize_saga(group, name, max_calls=max_calls)
    if as_json:
        typer.echo(json.dumps(found.model_dump(mode="json"), indent=2))
    else:
        _print(found)
    if found.error:
        raise typer.Exit(1)


def sagas(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to list.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the sagas as a JSON array instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """List a group's sagas with their lag (episodes not yet summarised)."""
    with open_memory(db, group=group) as memory:
        found = memory.sagas(group)
    if as_json:
        typer.echo(json.dumps([s.model_dump(mode="json") for s in found], indent=2))
        return
    if not found:
        console().print(f"[dim]no sagas in group {escape(group)}[/]")
        return
    table = Table(header_style="bold")
    for column in ("saga", "episodes", "lag", "version", "built"):
        table.add_column(column, no_wrap=True)
    for s in found:
        lag = f"[yellow]{s.lag:,}[/]" if s.lag else "0"
        built = when(s.built_at, "never") + (" [yellow](stale)[/]" if s.stale else "")
        table.add_row(escape(s.saga), f"{s.episodes:,}", lag, str(s.version), built)
    console().print(table)
