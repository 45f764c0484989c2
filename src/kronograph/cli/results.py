"""How ingestion's outcome is reported: one episode in full, or many as a summary, and the exit status."""

from __future__ import annotations

from collections.abc import Sequence

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..model import EpisodeResult, EpisodeStatus
from .contradictions import print_candidates
from .output import interval, plural

__all__ = ["exit_for", "print_episode", "summary"]


def _usage_line(results: Sequence[EpisodeResult]) -> str:
    """What the model cost, in all and per episode that was not a duplicate."""
    calls = sum(r.usage.calls for r in results)
    if calls == 0:
        extractors = sorted({r.extractor for r in results if r.extractor}) or ["none"]
        return f"model: no calls (extractor: {', '.join(extractors)})"
    cached = sum(r.usage.cached for r in results)
    prompt = sum(r.usage.prompt_tokens for r in results)
    completion = sum(r.usage.completion_tokens for r in results)
    chars = sum(r.usage.prompt_chars for r in results)
    ran = max(1, sum(not r.duplicate for r in results))
    return (
        f"model: {plural(calls, 'call')} ({cached:,} cached) · {prompt:,} prompt + {completion:,} completion tokens"
        f" · {chars:,} prompt chars; per episode {calls / ran:.1f} calls, {chars / ran:,.0f} prompt chars"
    )


def print_episode(out: Console, result: EpisodeResult) -> None:
    """One episode's outcome: what it wrote, merged, retired and moved, then its model cost."""
    eid = escape(result.episode_id)
    if result.duplicate:
        out.print(f"[dim]=[/] episode [bold]{eid}[/] was already ingested: nothing done again")
        return
    if not result.ok:
        out.print(f"[red]✗[/] episode [bold]{eid}[/] {result.status}: {escape(result.error or '')}", soft_wrap=True)
        return
    out.print(f"[green]✓[/] episode [bold]{eid}[/] complete: {plural(len(result.created), 'fact')} created")
    if result.entities:
        out.print(f"  entities: {escape(', '.join(e.name for e in result.entities))}")
    for mark, facts in (("[green]+[/]", result.created), ("[dim]=[/]", result.merged),
                        ("[yellow]−[/] retired", result.retired), ("[cyan]~[/] moved", result.changed)):
        for fact in facts:
            out.print(f"  {mark} {escape(fact.triple)}  {interval(fact)}")
    if result.understood_nothing:
        out.print("  [yellow]nothing understood in this episode: nothing stored from it[/]")
    for note in result.notes:
        out.print(f"  [yellow]?[/] {escape(note)}", soft_wrap=True)
    print_candidates(out, result.possible_contradictions,
                     {f.uuid: f.fact for f in (*result.created, *result.merged)})
    out.print(f"  [dim]{_usage_line([result])}[/]")


def _failed(results: Sequence[EpisodeResult]) -> list[EpisodeResult]:
    return [r for r in results if r.status in (EpisodeStatus.RETRYABLE, EpisodeStatus.QUARANTINED)]


def _episode_rows(rows: Sequence[tuple[str, str, str | None]], title: str) -> Table:
    table = Table(title=title, title_justify="left", header_style="bold")
    table.add_column("episode", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("error", overflow="fold")
    for episode_id, status, error in rows:
        table.add_row(escape(episode_id), status, escape(error or ""))
    return table


def _not_understood(out: Console, results: Sequence[EpisodeResult]) -> None:
    """Say how many episodes gave no fact at all: silence is not understanding."""
    empty = sum(r.understood_nothing for r in results)
    if empty:
        groups = sorted({r.group_id for r in results if r.understood_nothing})
        where = groups[0] if len(groups) == 1 else "GROUP"
        out.print(
            f"[yellow]{plural(len(results), 'episode')}: nothing understood in {empty:,}[/]; "
            f"see `kronograph episodes {escape(where)}`", soft_wrap=True,
        )


def summary(out: Console, results: Sequence[EpisodeResult], heading: str) -> None:
    """Counts by outcome, facts written, model cost; then every episode that did not complete."""
    count = {s: sum(r.status == s and not r.duplicate for r in results) for s in EpisodeStatus}
    table = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
    table.add_column(justify="right", style="bold")
    table.add_column()
    rows = [
        (count[EpisodeStatus.COMPLETE], "complete"),
        (sum(r.duplicate for r in results), "duplicate (already ingested)"),
        (count[EpisodeStatus.RETRYABLE], "retryable"),
        (count[EpisodeStatus.QUARANTINED], "quarantined"),
        (sum(len(r.created) for r in results), "facts created"),
        (sum(len(r.merged) for r in results), "facts merged"),
        (sum(len(r.retired) for r in results), "facts retired"),
        (sum(r.understood_nothing for r in results), "nothing understood"),
    ]
    for number, label in rows:
        table.add_row(f"{number:,}", label)
    out.print(f"[bold]{plural(len(results), 'episode')}[/] {escape(heading)}")
    out.print(table)
    out.print(_usage_line(results))
    _not_understood(out, results)
    failed = _failed(results)
    if failed:
        out.print(_episode_rows([(r.episode_id, str(r.status), r.error) for r in failed], "did not complete"))
        out.print("[dim]retry with: kronograph resume (retryable ones); see kronograph episodes GROUP --status ...[/]")


def exit_for(results: Sequence[EpisodeResult]) -> None:
    """Exit 1 when an episode ended retryable or quarantined: scripts must notice."""
    if _failed(results):
        raise typer.Exit(1)
