"""Rendering for the command line (shared with the demo): times, ids, fact tables, the progress bar, errors."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, time
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..model import Fact
from ..qualifiers import describe
from ..redact import redact_dsn

__all__ = [
    "console", "fact_table", "fail", "interval", "plural", "print_json", "progress_bar", "short", "timeline_table",
    "when",
]


def when(moment: datetime | None, open_end: str = "now") -> str:
    """A UTC time as a reader wants it: a bare date at midnight, else no finer than needed."""
    if moment is None:
        return open_end
    if moment.time() == time(0):
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%d %H:%M:%SZ" if moment.second else "%Y-%m-%d %H:%MZ")


def interval(fact: Fact) -> str:
    """``2024-01-15 → 2024-03-03``, or ``2024-03-03 → now`` while the fact
    holds; an event is a point, ``on 2024-03-01`` (or its stated span)."""
    if fact.event and fact.invalid_at is None:
        return f"on {when(fact.valid_at)}"
    return f"{when(fact.valid_at)} → {when(fact.invalid_at)}"


def short(identifier: str) -> str:
    """The last 8 characters of a long id: UUIDv7s share their leading (time) bits."""
    return identifier if len(identifier) <= 12 else "…" + identifier[-8:]


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 fact``, ``2 facts``; ``nouns`` where adding an s will not do."""
    if count == 1:
        return f"{count:,} {noun}"
    return f"{count:,} {nouns or noun + 's'}"


def fact_table(facts: Sequence[Fact], title: str | None = None) -> Table:
    """Facts with both valid-time ends and their source episodes; a fact
    held in conflict with another of the same time says so by its object."""
    table = Table(title=title, title_justify="left", header_style="bold")
    for name in ("uuid", "subject", "relation", "object", "valid_at", "invalid_at", "episodes"):
        wraps = name == "episodes"  # the one column that may fold on a narrow terminal
        table.add_column(name, style="dim" if name == "uuid" else None, no_wrap=not wraps, overflow="fold")
    for fact in facts:
        table.add_row(
            short(fact.uuid), escape(fact.subject), escape(fact.relation + describe(fact.qualifiers)),
            escape(fact.object) + (" [red](conflicting)[/]" if fact.conflicting else ""), when(fact.valid_at),
            when(fact.invalid_at, "[dim]event[/]" if fact.event else "[dim]open[/]"),
            escape(", ".join(map(short, fact.episodes))),
        )
    return table


def timeline_table(facts: Sequence[Fact], title: str | None = None) -> Table:
    """Intervals in valid-time order: closed ones visibly closed, events as
    the points they are, and when each was learned."""
    table = Table(title=title, title_justify="left", header_style="bold")
    table.add_column("valid", no_wrap=True)
    table.add_column("fact")
    table.add_column("status", no_wrap=True)
    table.add_column("recorded", style="dim", no_wrap=True)
    for fact in facts:
        if fact.event:
            status = "[cyan]event[/]"
        else:
            status = "[green]current[/]" if fact.invalid_at is None else "[yellow]closed[/]"
            if fact.conflicting:  # held beside another value of the same time (kronograph.same_time)
                status += " [red]conflicting[/]"
        table.add_row(interval(fact), escape(fact.triple + describe(fact.qualifiers)), status, when(fact.created_at))
    return table


def progress_bar(console: Console) -> Progress:
    """One bar for ingestion: what, how far, how long. On a non-terminal only its final state is printed."""
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console,
    )


def console(*, stderr: bool = False) -> Console:
    """Standard output (or error), with no guessed highlighting of numbers and names."""
    return Console(stderr=stderr, highlight=False)


def fail(message: str) -> NoReturn:
    """``error: MESSAGE`` on one line of standard error, and exit 2 (a database password in it masked)."""
    console(stderr=True).print(f"[red]error:[/] {escape(redact_dsn(message))}", soft_wrap=True)
    raise typer.Exit(2)


def print_json(facts: Sequence[Fact]) -> None:
    typer.echo(json.dumps([f.model_dump(mode="json") for f in facts], indent=2))
