"""``kronograph user`` and ``kronograph settings``: a group's user (the person
behind role ``user``) and the settings that name them."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape

from .options import DEFAULT_DB, Db, Group, option
from .output import console, fact_table, fail
from .session import open_memory

__all__ = ["settings", "user"]


def user(
    group: Group,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Rebuild the user's summary first if their facts changed since.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the user and their facts as JSON instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Show the group's user: their entity, its summary and the facts true of them now.
    Exits 2 when the group has no user yet."""
    with open_memory(db, group=group) as memory:
        found = memory.user(group)
        if found is None:
            name = memory.settings(group).user_name
            if name is None:
                fail(f"group {group!r} has no user: name one with `kronograph settings {group} --user-name NAME`, "
                     "or import a conversation with --user-name")
            fail(f"the user of group {group!r} is {name!r}, but nothing was said of them yet")
        if refresh:
            memory.summarize_entities(group, [found.uuid])
            found = memory.user(group) or found
        facts = [f for f in memory.facts(group, entity=found.name) if found.uuid in (f.subject_uuid, f.object_uuid)]
    if as_json:
        typer.echo(json.dumps({"user": found.model_dump(mode="json"),
                               "facts": [f.model_dump(mode="json") for f in facts]}, indent=2))
        return
    out = console()
    labels = f" ({', '.join(found.labels)})" if found.labels else ""
    aka = f", also {', '.join(found.aliases)}" if found.aliases else ""
    out.print(f"[bold]{escape(found.name)}[/]{escape(labels + aka)} [dim]{escape(found.uuid)}[/]", soft_wrap=True)
    summary = escape(found.summary) if found.summary else "[dim](none built yet: --refresh builds it)[/]"
    out.print(f"summary: {summary}", soft_wrap=True)
    out.print(fact_table(facts, title="true of them now") if facts else "[dim]no current facts about them[/]")


def settings(
    group: Group,
    user_name: Annotated[
        str | None, option("NAME", "Name the person behind role user (a new name renames the user entity).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the settings as JSON instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Show the group's settings, or change them with the options given."""
    if user_name is not None:
        with open_memory(db, create=True) as memory:
            found = memory.configure(group, user_name=user_name)
    else:
        with open_memory(db, group=group) as memory:
            found = memory.settings(group)
    if as_json:
        typer.echo(json.dumps(found.model_dump(mode="json"), indent=2))
        return
    out = console()
    values = {"user_name": found.user_name, **found.values}
    for name, value in values.items():
        shown = escape(str(value)) if value is not None else "[dim](not set)[/]"
        out.print(f"{escape(name)}: {shown}", soft_wrap=True, highlight=False)
