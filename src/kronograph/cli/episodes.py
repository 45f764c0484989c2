"""The episode commands: ``add``, ``import``, ``resume`` and ``episodes``."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..model import Episode, EpisodeStatus
from .batches import BATCH_SIZE, ingest
from .jsonl import read_episodes
from .options import DEFAULT_DB, Actor, Db, Offline, option
from .output import console, fail, plural, short, when
from .results import exit_for, print_episode, summary
from .session import open_memory

__all__ = ["add", "episodes", "import_", "resume"]


def _model(offline: bool) -> str | None:
    """``None`` is the offline extractor; ``"auto"`` picks a model from the environment (docs/models.md)."""
    return None if offline else "auto"


def _text_input(text: str | None) -> str:
    """TEXT, or standard input when TEXT is omitted or ``-``."""
    if text is not None and text != "-":
        return text
    if sys.stdin.isatty():
        fail("give TEXT, or pipe the episode on standard input")
    return sys.stdin.read()


def _file_lines(path: Path) -> list[str]:
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"--file: cannot read {path}: {exc}")
    if not lines:
        fail(f"--file: {path} holds no text")
    return lines


def _add_lines(
    group: str, file: Path, text: str | None, episode: str | None, fields: dict[str, Any], model: Any, db: Path
) -> None:
    """``add --file``: each non-blank line an episode with the same options, ingested like an import."""
    if text is not None:
        fail("give TEXT or --file, not both")
    if episode is not None:
        fail("--episode names one episode; it cannot be used with --file")
    items = [{"content": line, **fields} for line in _file_lines(file)]
    with open_memory(db, create=True, model=model) as memory:
        results = ingest(memory, group, items, BATCH_SIZE)
    summary(console(), results, f"into group {group}")
    exit_for(results)


def add(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to write to.")],
    text: Annotated[
        str | None, typer.Argument(metavar="TEXT", help="The episode; omitted or '-': read standard input.")
    ] = None,
    kind: Annotated[str, option("KIND", "message, text or json.")] = "message",
    time_: Annotated[str | None, option("ISO", "Reference time: when it was said (default: now).", "--time")] = None,
    name: Annotated[str | None, option("NAME", "A name for the episode (default: its id).")] = None,
    source: Annotated[str | None, option("TEXT", "Where it came from, e.g. 'slack #general'.")] = None,
    episode: Annotated[
        str | None, option("ID", "Episode id; re-adding an id is a no-op (default: new).", "--episode", "--episode-id")
    ] = None,
    saga: Annotated[str | None, option("SAGA", "The thread or conversation it belongs to.")] = None,
    file: Annotated[
        Path | None, option("FILE", "Ingest each non-blank line of FILE as an episode, with a progress bar.")
    ] = None,
    actor: Actor = None,
    offline: Offline = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Ingest an episode (or each line of --file): extract entities and facts, resolve, commit."""
    fields: dict[str, Any] = {
        "kind": kind, "reference_time": time_, "name": name, "source_description": source, "saga": saga,
        "actor": actor,
    }
    if file is not None:
        _add_lines(group, file, text, episode, fields, _model(offline), db)
        return
    content = _text_input(text)
    with open_memory(db, create=True, model=_model(offline)) as memory:
        result = memory.add_episode(group, content, episode_id=episode, **fields)
    print_episode(console(), result)
    exit_for([result])


def import_(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to write to.")],
    file: Annotated[Path, typer.Argument(metavar="FILE", help="JSON Lines: one episode object a line; '-': stdin.")],
    batch_size: Annotated[int, option("N", "Episodes per add_episodes call.", min=1)] = BATCH_SIZE,
    actor: Actor = None,
    offline: Offline = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Bulk-ingest a JSON Lines file; every line is checked before anything is written.
    --actor applies to the lines that name none."""
    items = read_episodes(file, group)
    if actor is not None:
        items = [item if item.get("actor") is not None else {**item, "actor": actor} for item in items]
    with open_memory(db, create=True, model=_model(offline)) as memory:
        results = ingest(memory, group, items, batch_size)
    summary(console(), results, f"from {file} into group {group}")
    exit_for(results)


def resume(
    no_retryable: Annotated[
        bool, typer.Option("--no-retryable", help="Only episodes a crash left unfinished, not retryable ones.")
    ] = False,
    offline: Offline = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Finish episodes a crash interrupted and retry retryable ones, in every group.
    Episodes another live worker holds (its lease not run out) are left to it, and listed."""
    with open_memory(db, model=_model(offline)) as memory:
        results = memory.resume(include_retryable=not no_retryable)
        held = memory.held_episodes()
    out = console()
    _print_held(out, held)
    if not results:
        out.print("[dim]nothing to resume[/]" if not held else "[dim]nothing else to resume[/]")
        return
    for result in results:
        mark = "[green]✓[/]" if result.ok else "[red]✗[/]"
        detail = f"{plural(len(result.created), 'fact')} created" if result.ok else escape(result.error or "")
        out.print(
            f"{mark} {escape(result.group_id)} / {escape(result.episode_id)}: {result.status}, {detail}",
            soft_wrap=True,
        )
    summary(out, results, "resumed")
    exit_for(results)


def _holder(ep: Episode) -> str:
    """Who holds an unfinished episode and until when, as a reader wants it."""
    if ep.held_by is None or ep.held_until is None:
        return ""
    lapsed = " (lapsed: free to take up)" if ep.held_until <= datetime.now(UTC) else ""
    return f"{ep.held_by} until {when(ep.held_until)}{lapsed}"


def _print_held(out: Console, held: list[Episode]) -> None:
    if not held:
        return
    until = max(ep.held_until for ep in held if ep.held_until is not None)
    out.print(
        f"{plural(len(held), 'episode')} held by another worker, left to it (held until {when(until)} at the "
        "latest; a dead worker's are free then):", soft_wrap=True,
    )
    for ep in held:
        out.print(f"  [cyan]…[/] {escape(ep.group_id)} / {escape(ep.uuid)}: {ep.status}, "
                  f"held by {escape(_holder(ep))}", soft_wrap=True)


def episodes(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to list.")],
    status: Annotated[
        str | None, option("STATUS", f"Only this status: {', '.join(s.value for s in EpisodeStatus)}.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the episodes as a JSON array instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """List a group's episodes by reference time, with their status and error; an
    unfinished one also with the worker holding it and until when (its lease); and
    what each said that gave no fact (its notes)."""
    with open_memory(db, group=group) as memory:
        found = memory.episodes(group, status=status)
    if as_json:
        # warnings=False: the store hands ``kind`` back as a plain string, which serialises the same
        typer.echo(json.dumps([e.model_dump(mode="json", warnings=False) for e in found], indent=2))
        return
    if not found:
        which = f" with status {status}" if status else ""
        console().print(f"[dim]no episodes in group {escape(group)}{which}[/]")
        return
    table = Table(header_style="bold")
    leased = any(ep.held_by for ep in found)
    noted = any(ep.notes for ep in found)
    columns = ("id", "status", "reference time", "ingested", *(("held by",) if leased else ()), "error",
               *(("not understood",) if noted else ()))
    for column in columns:
        table.add_column(column, no_wrap=column not in ("error", "held by", "not understood"), overflow="fold",
                         style="dim" if column == "id" else None)
    for ep in found:
        colour = {"complete": "green", "retryable": "yellow", "quarantined": "red"}.get(ep.status, "cyan")
        holder = (escape(_holder(ep)),) if leased else ()
        table.add_row(
            escape(short(ep.uuid)), f"[{colour}]{ep.status}[/]", when(ep.reference_time), when(ep.created_at),
            *holder, escape(ep.error or ""), *((escape("\n".join(ep.notes)),) if noted else ()),
        )
    console().print(table)
