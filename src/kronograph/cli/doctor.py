"""``kronograph doctor``: reconcile one group, and repair what is safe with ``--repair``."""

from __future__ import annotations

import json
import shlex
from typing import Annotated

import typer
from rich.markup import escape

from ..maintain.reconcile import ReconcileReport
from .facts import RelationTypes, _relation_types
from .options import DEFAULT_DB, Db
from .output import console, plural, short, when
from .session import open_memory

__all__ = ["doctor"]

_REPORTED_ONLY = ("unmentioned_episodes", "overlaps", "fragments")


def _merge_command(group: str, db: str, keep: str, merge: str) -> str:
    """The ``kronograph merge`` line for a fragment, ready to paste (a database
    URL is left out: it may carry a password; ``KRONOGRAPH_DB`` covers it)."""
    where = f" --db {shlex.quote(db)}" if db != DEFAULT_DB and "://" not in db else ""
    return f"kronograph merge {shlex.quote(group)} {keep} {merge}{where}"


def _lines(report: ReconcileReport, group: str, db: str = DEFAULT_DB) -> list[str]:
    out: list[str] = []
    for e in report.unmentioned_episodes:
        out.append(f"episode without mentions: {escape(e.episode_id)} ({escape(e.name)}, {when(e.reference_time)})")
    for d in report.dangling_sources:
        fact = escape(d.fact or d.fact_uuid)
        out.append(f"fact cites missing episode {escape(d.episode_id)}: {fact} [dim]({d.fact_uuid})[/]")
    for o in report.overlaps:
        a, b = o.facts
        out.append(
            f"overlap in {escape(o.relation)} ({o.cardinality}, same {o.side} {escape(o.entity)}) from"
            f" {when(o.overlap_from)} to {when(o.overlap_until)}: {escape(a.triple)} / {escape(b.triple)}"
            f" [dim]({short(a.uuid)}, {short(b.uuid)})[/]"
        )
    for f in report.fragments:
        score = f" {f.score:.2f}" if f.score is not None else ""
        out.append(
            f"maybe one entity ({f.source}{score}): {escape(f.a_name)} / {escape(f.b_name)}"
            f" [dim]({f.a_uuid}, {f.b_uuid})[/]"
        )
        keep, merge = f.merge_arguments()
        out.append(f"  to merge: [bold]{escape(_merge_command(group, db, keep, merge))}[/]")
    for orphan in report.orphan_entities:
        out.append(f"orphan entity: {escape(orphan.name)} [dim]({orphan.uuid})[/]")
    for s in report.stale_summaries:
        if s.built_at is not None:  # never built: a state, counted below, not listed entity by entity
            out.append(f"stale summary: {escape(s.name)} ({plural(s.changes, 'fact change')}) [dim]({s.uuid})[/]")
    for g in report.saga_lag:
        stale = ", stale: an episode it drew on was removed" if g.stale else ""
        behind = f"{g.lag:,} of {plural(g.episodes, 'episode')} not summarised{stale}"
        out.append(f"saga behind: {escape(g.saga)} ({behind})")
    if report.open_contradictions:
        out.append(f"open contradictions: {report.open_contradictions:,} (kronograph contradictions"
                   f" {escape(group)} lists them)")
    if report.pending_erasure:
        out.append("pending erasure: a forget's erasure from the store's files was held back by a reader")
    return out


def _state_line(report: ReconcileReport) -> str:
    """What is not built yet or behind: a state of a healthy memory, not a defect."""
    built = report.summaries_not_built
    parts = [
        f"summaries not built yet: {built:,}",
        f"summaries behind their facts: {len(report.stale_summaries) - built:,}",
        f"sagas behind: {len(report.saga_lag):,}",
        f"open contradictions: {report.open_contradictions:,}",
    ]
    return "state (not defects): " + ", ".join(parts)


def doctor(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to check.")],
    repair: Annotated[
        bool,
        typer.Option(
            "--repair", help="Fix what is safe (dangling sources, orphan entities, stale summaries, a pending erasure)."
        ),
    ] = False,
    relation_type: RelationTypes = [],  # noqa: B006
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Check a group for defects; exit 1 while any is left unrepaired. Summaries not
    built yet or behind their facts, and sagas behind, are reported as a state: exit 0."""
    types = _relation_types(relation_type)
    with open_memory(db, group=group, relation_types=types) as memory:
        report = memory.reconcile(group, repair=repair)
    repaired = report.repaired
    clean = report.ok or (
        repair and not any(report.counts[k] for k in _REPORTED_ONLY) and repaired.erasure_complete is not False
    )
    if as_json:
        typer.echo(json.dumps({
            **report.model_dump(mode="json"), "ok": report.ok, "counts": report.counts, "defects": report.defects,
            "summaries_not_built": report.summaries_not_built,
        }, indent=2))
    else:
        out = console()
        for line in _lines(report, group, db):
            out.print(line, soft_wrap=True)
        counts = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in report.defects.items())
        mark = "[green]✓[/]" if report.ok else "[yellow]![/]"
        out.print(f"{mark} group {escape(group)}: {counts}", soft_wrap=True)
        out.print(f"  {_state_line(report)}", soft_wrap=True)
        if repair:
            entities, summaries = len(repaired.deleted_entities), len(repaired.refreshed_summaries)
            out.print(
                f"  repaired: {plural(len(repaired.removed_sources), 'source')} dropped,"
                f" {plural(len(repaired.deleted_facts), 'fact')} and"
                f" {entities:,} entit{'y' if entities == 1 else 'ies'} deleted,"
                f" {summaries:,} summar{'y' if summaries == 1 else 'ies'} rebuilt"
            )
            if repaired.erasure is not None:
                mark = "[green]✓[/]" if repaired.erasure_complete else "[red]still held back:[/]"
                out.print(f"  erasure {mark} {escape(repaired.erasure)}", soft_wrap=True)
        elif not report.ok:
            out.print(
                "  [dim]--repair fixes dangling sources, orphan entities, stale summaries and a pending erasure;"
                " the rest needs a person[/]"
            )
        if report.not_checked:
            out.print(f"  [dim]not checked yet: {', '.join(report.not_checked)}[/]")
    if not clean:
        raise typer.Exit(1)
