"""``kronograph forget``: erase an entity, an episode or a data subject's data for good, and prove it;
``kronograph erasures``: the group's erasure receipts."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape

from ..erasure import ErasureReceipt
from .options import DEFAULT_DB, Actor, Db, Group, option
from .output import console, plural
from .session import open_memory

__all__ = ["erasures", "forget"]


def forget(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to purge in.")],
    entity: Annotated[
        str | None, option("NAME", "Forget this entity (a name or uuid) and every episode naming it.")
    ] = None,
    episode: Annotated[str | None, option("ID", "Forget this episode and what only it stated.")] = None,
    data_subject: Annotated[
        str | None,
        option("KEY", "Forget everything filed under this data subject (a customer id) and what only it stated.",
               "--data-subject"),
    ] = None,
    request_id: Annotated[
        str | None, option("ID", "The erasure request's reference, kept on the receipt.", "--request-id")
    ] = None,
    reason: Annotated[str | None, option("TEXT", "Why, kept on the receipt.", "--reason")] = None,
    actor: Actor = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would go; change nothing.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Compliance purge: erase the text, facts, entities, history, summaries and
    cached model replies of an entity, an episode or a data subject, then check
    that no read or search still returns it, and keep a receipt (counts, never
    what was erased) in the group's append-only erasure log. Exit 1 if anything
    was found left. The request id and reason must not name what goes."""
    if sum(x is not None for x in (entity, episode, data_subject)) != 1:
        raise typer.BadParameter("give exactly one of --entity, --episode and --data-subject")
    target = {"entity": entity, "episode_id": episode, "data_subject": data_subject}
    asked = {"request_id": request_id, "reason": reason, "actor": actor}
    with open_memory(db, group=group) as memory:
        if not (dry_run or yes or as_json):
            preview = memory.forget(group, **target, dry_run=True, **asked)
            typer.confirm(
                f"Erase {plural(len(preview.episodes), 'episode')}, {plural(len(preview.facts), 'fact')} and"
                f" {plural(len(preview.entities), 'entity', 'entities')} from group {group!r}? This cannot be undone",
                abort=True,
            )
        report = memory.forget(group, **target, dry_run=dry_run, **asked)
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
            if report.receipt is not None:
                out.print(f"receipt {report.receipt.receipt_id} (entry {report.receipt.seq} of the erasure log)")
    if not dry_run and not report.verified:
        raise typer.Exit(1)


def erasures(
    group: Group,
    request_id: Annotated[str | None, option("ID", "Only this request's entries.", "--request-id")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print them as a JSON array instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """The group's erasure receipts, oldest first: each forget's erasure entry (what kinds and how many
    went) and its verification entry, with the hash chain checked. Exit 1 if the chain is broken."""
    with open_memory(db, group=group) as memory:
        found = memory.erasures(group, request_id=request_id)
        chain = memory.verify_erasure_log(group)
    if as_json:
        typer.echo(json.dumps([r.model_dump(mode="json") for r in found], indent=2))
    else:
        out = console()
        for r in found:
            out.print(_line(r), soft_wrap=True)
        out.print(f"{plural(chain.entries, 'entry', 'entries')} in the log;"
                  f" chain {'[green]intact[/]' if chain.ok else '[red]broken[/]'}")
        for problem in chain.problems:
            out.print(f"[red]![/] {escape(problem)}", soft_wrap=True)
    if not chain.ok:  # exit 1, as forget does when something was left: the answer is bad news, not a bad request
        raise typer.Exit(1)


def _line(r: ErasureReceipt) -> str:
    who = " ".join(f"{k}={escape(v)}" for k, v in
                   (("request", r.request_id), ("actor", r.actor), ("for", r.on_behalf_of)) if v)
    if r.entry == "verification":
        what = "verified" if r.verified else f"[red]NOT verified[/] ({plural(r.leftovers or 0, 'leftover')})"
    else:
        what = "by " + r.by + ": " + ", ".join(f"{k} {v}" for k, v in r.counts.items() if v)
    return f"{r.seq} {r.recorded_at.isoformat()} {r.entry} {r.receipt_id} {what} {who}".rstrip()
