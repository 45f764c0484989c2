"""``kronograph merge`` and ``kronograph split``: entity repair by hand."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape

from .options import DEFAULT_DB, Actor, Db
from .output import console, plural, timeline_table
from .session import open_memory

__all__ = ["merge", "split"]

GroupArg = Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) the entities belong to.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print the result as JSON instead.")]


def merge(
    group: GroupArg,
    keep: Annotated[str, typer.Argument(metavar="KEEP", help="The entity kept (a uuid, or a name only it bears).")],
    merge: Annotated[
        list[str], typer.Argument(metavar="MERGE...", help="The entities merged into it (uuids or names).")
    ],
    actor: Actor = None,
    as_json: AsJson = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Merge entities found to be one into KEEP, in one transaction: facts,
    mentions, aliases, labels and attributes move, the timeline rules re-run
    on what came together. Prints the merge id that `kronograph split` takes
    to undo it."""
    with open_memory(db, group=group) as memory:
        result = memory.merge_entities(group, keep, merge, actor=actor)
    if as_json:
        typer.echo(json.dumps(result.model_dump(mode="json"), indent=2))
        return
    out = console()
    out.print(
        f"[green]✓[/] merged {plural(len(result.merged), 'entity', 'entities')} into"
        f" [bold]{escape(result.keep.name)}[/] [dim]{result.keep.uuid}[/]", soft_wrap=True,
    )
    out.print(
        f"  moved {plural(len(result.moved_facts), 'fact')}; {plural(len(result.merged_duplicates), 'duplicate')}"
        f" joined; {plural(len(result.self_loops), 'self-loop')} closed", soft_wrap=True,
    )
    if result.keep.aliases:
        out.print(f"  aliases: {escape(', '.join(result.keep.aliases))}", soft_wrap=True)
    if result.changed:
        out.print(timeline_table(result.changed, "facts changed"))
    out.print(f"  merge id: [bold]{result.merge_id}[/]  (undo: kronograph split {escape(group)} {result.merge_id})",
              soft_wrap=True)


def split(
    group: GroupArg,
    merge_id: Annotated[str, typer.Argument(metavar="MERGE_ID", help="The id `kronograph merge` printed.")],
    actor: Actor = None,
    as_json: AsJson = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Undo a merge by its id, in one transaction: the merged entities come
    back with what moved; facts learned since that touch the kept entity
    stay with it."""
    with open_memory(db, group=group) as memory:
        result = memory.split_entity(group, merge_id, actor=actor)
    if as_json:
        typer.echo(json.dumps(result.model_dump(mode="json"), indent=2))
        return
    out = console()
    names = ", ".join(e.name for e in result.restored)
    out.print(f"[green]✓[/] split merge {result.merge_id}: restored [bold]{escape(names)}[/]", soft_wrap=True)
    out.print(f"  {plural(len(result.restored_facts), 'fact')} restored, {plural(len(result.changed), 'fact')}"
              " changed", soft_wrap=True)
    if result.changed:
        out.print(timeline_table(result.changed, "facts changed"))
