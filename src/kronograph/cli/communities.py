"""``kronograph communities``: list a group's communities, after building
them (``--build``) or attaching new entities to them (``--update``)."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..model import Community
from .options import DEFAULT_DB, Db, option
from .output import console, fail, plural, short, when
from .session import open_memory

__all__ = ["communities"]


def _table(found: list[Community]) -> Table:
    table = Table(title="communities", title_justify="left", header_style="bold")
    for name in ("uuid", "name", "size", "method", "built", "summary"):
        table.add_column(name, no_wrap=name != "summary", overflow="fold", style="dim" if name == "uuid" else None)
    for c in found:
        size = f"{c.size} (+{c.attached})" if c.attached else str(c.size)
        table.add_row(
            short(c.uuid), escape(c.name), size, c.method, when(c.built_at), escape(c.summary or "")
        )
    return table


def communities(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) whose communities to show.")],
    build: Annotated[
        bool, typer.Option("--build", help="Cluster the current graph first, replacing the group's communities.")
    ] = False,
    update: Annotated[
        bool, typer.Option("--update", help="First attach entities in no community to their neighbours' one.")
    ] = False,
    model: Annotated[
        bool, typer.Option("--model", help="With --build: summaries by the environment's model (docs/models.md).")
    ] = False,
    resolution: Annotated[
        float, option("R", "With --build: Louvain's resolution; above 1 gives smaller communities.", min=0.001)
    ] = 1.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the communities as a JSON array instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """List a group's communities (clusters of its entity graph), building or updating them first."""
    if build and update:
        fail("--build and --update cannot be combined (a build attaches every entity it can)")
    if model and not build:
        fail("--model goes with --build (an update never calls a model)")
    out = console()
    with open_memory(db, group=group, model="auto" if model else None) as memory:
        if build:
            report = memory.build_communities(group, resolution=resolution)
            if not as_json:
                out.print(
                    f"built {plural(len(report.communities), 'community')}"
                    f" ({plural(report.model_calls, 'model call')});"
                    f" {plural(report.unassigned, 'entity')} in none"
                )
        elif update:
            result = memory.update_communities(group)
            if not as_json:
                for a in result.attached:
                    out.print(f"attached {escape(a.entity)} to {escape(a.community)} (weight {a.weight})")
                out.print(f"{plural(len(result.unassigned), 'entity')} left in no community")
                if result.rebuild_advised:
                    out.print("[yellow]a full rebuild is advised[/] (kronograph communities GROUP --build)")
        found = memory.communities(group)
    if as_json:
        typer.echo(json.dumps([c.model_dump(mode="json") for c in found], indent=2))
        return
    out.print(_table(found) if found else f"[dim]no communities in {escape(group)} (build them with --build)[/]")
