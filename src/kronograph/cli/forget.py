"""``kronograph forget``: erase an entity or an episode for good, and prove it."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape

from .options import DEFAULT_DB, Db, option
from .output import console, plural
from .session import open_memory

__all__ = ["forget"]


def forget(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to purge in.")],
    entity: Annotated[
        str | None, option("NAME", "Forget this entity (a name or uuid) and every episode naming it.")
    ] = None,
    episode: Annotated[str | None, option("ID", "Forget this episode and what only it stated.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would go; change nothing.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Compliance purge: erase the text, facts, entities, history, summaries and
    cached model replies of an entity or an episode, then check that no read or
    search still returns it. Exit 1 if anything was found left."""
    if (entity is None) == (episode is None):
        raise typer.BadParameter("give exactly one of --entity and --episode")
    with open_memory(db, group=group) as memory:
        if not (dry_run or yes or as_json):
            preview = memory.forget(group, entity=entity, episode_id=episode, dry_run=True)
            typer.confirm(
                f"Erase {plural(len(preview.episodes), 'episode')}, {plural(len(preview.facts), 'fact')} and"
                f" {plural(len(preview.entities), 'entity', 'entities')} from group {group!r}? This cannot be undone",
                abort=True,
            )
        report = memory.forget(group, entity=entity, episode_id=episode, dry_run=dry_run)
    if as_json:
        typer.echo(json.dumps(report.model_dump(mode="json"), indent=2))
    else:
        out = console()
        verb = "would erase" if dry_run else "erased"
        out.print(
            f"{verb}: {plural(len(report.episodes), 'episode')}, {plural(len(report.facts), 'fact')},"
            f" {plural(len(report.entities), 'entity', 'entities')};"
            f" {plural(len(report.summaries_rebuilt), 'summary', 'summaries')}"
            f" rebuilt, {plural(report.audit_events_redacted, 'audit detail')} blanked,"
            f" {plural(report.cached_replies_dropped, 'cached reply', 'cached replies')} dropped",
            soft_wrap=True,
        )
        if not dry_run:
            if report.verified:
                out.print("[green]✓[/] checked: no read, search or stored text returns it")
            for where in report.leftovers:
                out.print(f"[red]left:[/] {escape(where)}", soft_wrap=True)
    if not dry_run and not report.verified:
        raise typer.Exit(1)
