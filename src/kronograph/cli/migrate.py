"""The ``migrate`` command: copy a SQLite memory into PostgreSQL and check the copy."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import Progress, TaskID
from rich.table import Table

from .options import option
from .output import console, fail, plural, progress_bar

__all__ = ["migrate"]

_SHOWN = 20  # mismatches listed; the rest are counted


class _Bars:
    """The progress callback: one bar per table copied, then the indexes and
    the queries, on standard error. They appear with the first step, so a
    refusal prints its one line alone."""

    def __init__(self) -> None:
        self.bar: Progress = progress_bar(console(stderr=True))
        self.tasks: dict[str, TaskID] = {}

    def __call__(self, step: str, done: int, total: int) -> None:
        if not self.tasks:
            self.bar.start()
        if step not in self.tasks:
            label = step if step in ("vector indexes", "queries") else f"copying {step}"
            self.tasks[step] = self.bar.add_task(escape(label), total=max(total, 0))
        self.bar.update(self.tasks[step], completed=done, total=total)

    def close(self) -> None:
        if self.tasks:
            self.bar.stop()


def migrate(
    source: Annotated[
        str,
        option("URL", "The SQLite memory to copy: sqlite:///relative.db, sqlite:////absolute.db or a path.", "--from"),
    ],
    target: Annotated[
        str, option("URL", "An empty PostgreSQL database with pgvector: postgresql://user@host:5432/db.", "--to")
    ],
    sample: Annotated[
        int, option("N", "Entities, facts and episodes per group whose answers are compared (0: counts only).", min=0)
    ] = 5,
) -> None:
    """Copy a SQLite memory into PostgreSQL in one transaction, then verify counts and answers."""
    from ..migrate import MigrationError, migrate_memory_sync

    bars = _Bars()
    try:
        report = migrate_memory_sync(source, target, sample=sample, progress=bars)
    except MigrationError as exc:
        refused: str | None = str(exc)
    else:
        refused = None
    finally:
        bars.close()
    if refused is not None:
        fail(refused)
    out = console()
    out.print(
        f"[green]✓[/] copied {plural(report.rows, 'row')} ({plural(report.groups, 'group')}) from "
        f"{escape(report.source)} to {escape(report.target)} in {report.copy_seconds:.1f} s"
    )
    check = report.verification
    table = Table(header_style="bold")
    for column in ("table", "sqlite", "postgresql", ""):
        table.add_column(column, justify="right" if column in ("sqlite", "postgresql") else "left")
    for count in check.counts:
        table.add_row(count.table, f"{count.source:,}", f"{count.target:,}", "[green]✓[/]" if count.ok else "[red]✗[/]")
    out.print(table)
    asked = f"{check.queries:,} {'query' if check.queries == 1 else 'queries'}"
    if check.ok:
        answers = f", {asked} asked of both with the same answers" if check.queries else " (no queries asked)"
        out.print(f"[green]✓[/] verified: row counts equal{answers} ({report.verify_seconds:.1f} s)")
        if check.asked:
            kinds = " · ".join(f"{kind} {n:,}" for kind, n in check.asked.items())
            out.print(f"  [dim]{escape(kinds)}[/]", soft_wrap=True)
        return
    bad = [c.table for c in check.counts if not c.ok]
    if bad:
        out.print(f"[red]✗[/] row counts differ: {escape(', '.join(bad))}")
    if check.mismatches:
        out.print(f"[red]✗[/] {len(check.mismatches):,} of {asked} answered differently:")
        for m in check.mismatches[:_SHOWN]:
            where = f"{m.group_id} / " if m.group_id is not None else ""
            out.print(f"  {escape(where + m.query)}: {escape(m.detail)}", soft_wrap=True)
        if len(check.mismatches) > _SHOWN:
            out.print(f"  … and {len(check.mismatches) - _SHOWN:,} more")
    out.print("The copy is committed: look into the differences, and drop the target before migrating again.")
    raise typer.Exit(1)
