"""``kronograph audit``: sweep a group for possible contradictions, or read its audit log."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..model import AuditEvent, PossibleContradiction
from .facts import RelationTypes, _relation_types
from .options import DEFAULT_DB, Db, option
from .output import console, plural, short, when
from .session import open_memory

__all__ = ["audit"]


def _conflicts_table(found: list[PossibleContradiction], facts: dict[str, str]) -> Table:
    table = Table(header_style="bold")
    for column in ("fact", "may contradict", "reason", "authority", "since"):
        table.add_column(column, overflow="fold")
    for p in found:
        table.add_row(
            escape(facts.get(p.fact, short(p.fact))), escape(p.contradicts.triple), p.reason.replace("_", " "),
            f"{p.authority:.2f}", when(p.contradicts.valid_at),
        )
    return table


def _log_table(events: list[AuditEvent]) -> Table:
    table = Table(header_style="bold")
    for column in ("recorded", "kind", "actor", "on behalf of", "episode", "detail"):
        table.add_column(column, overflow="fold", no_wrap=column in ("recorded", "kind"))
    for e in events:
        detail = json.dumps(e.detail, ensure_ascii=False, sort_keys=True)
        table.add_row(when(e.recorded_at), e.kind, escape(e.actor or ""), escape(e.on_behalf_of or ""),
                      escape(e.episode_id or ""), escape(detail))
    return table


def audit(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to audit.")],
    log: Annotated[bool, typer.Option("--log", help="Print the group's audit log instead of sweeping it.")] = False,
    kind: Annotated[str | None, option("KIND", "With --log: only events of this kind (e.g. forgotten).")] = None,
    relation_type: RelationTypes = [],  # noqa: B006
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings or events as JSON instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Sweep a group for pairs of current facts that may disagree (whether or not
    they were flagged when admitted); with --log, print its audit events. Reads only."""
    if kind is not None and not log:
        raise typer.BadParameter("--kind filters the audit log: use it with --log")
    with open_memory(db, group=group, relation_types=_relation_types(relation_type)) as memory:
        if log:
            events = [e for e in memory.audit_events(group) if kind is None or e.kind == kind]
            if as_json:
                typer.echo(json.dumps([e.model_dump(mode="json") for e in events], indent=2))
            elif events:
                console().print(_log_table(events))
            else:
                console().print(f"[dim]no audit events in group {escape(group)}[/]")
            return
        found = memory.audit(group, mode="conflicts")
        texts = {f.uuid: f.triple for f in memory.facts(group)}
    if as_json:
        typer.echo(json.dumps([p.model_dump(mode="json") for p in found], indent=2))
        return
    out = console()
    if found:
        out.print(_conflicts_table(found, texts))
    out.print(f"{plural(len(found), 'possible contradiction')} in group {escape(group)}", soft_wrap=True)
