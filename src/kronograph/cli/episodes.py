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

from ..errors import InvalidInputError
from ..ingest.episode_input import DEFAULT_ASSISTANT
from ..message import read_messages
from ..model import Episode, EpisodeStatus
from .batches import BATCH_SIZE, ingest
from .conversation import read_conversation
from .jsonl import read_episodes, read_text
from .options import DEFAULT_DB, Actor, DataSubject, Db, Offline, TierOption, option
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
    group: str, file: Path, text: str | None, episode: str | None, fields: dict[str, Any], model: Any, db: str
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
    saga: Annotated[
        str | None, option("SAGA", "The thread or conversation it belongs to.", "--saga", "--thread")
    ] = None,
    file: Annotated[
        Path | None, option("FILE", "Ingest each non-blank line of FILE as an episode, with a progress bar.")
    ] = None,
    role: Annotated[
        str | None, option("ROLE", "Add TEXT as one message said in this role: user, assistant, system, tool...")
    ] = None,
    speaker: Annotated[str | None, option("NAME", "Who said it: \"I\" and \"my\" in it are them.")] = None,
    user_name: Annotated[
        str | None, option("NAME", "With --role: the person behind role user (kept for the group).")
    ] = None,
    assistant_name: Annotated[
        str | None, option("NAME", f"With --role: who speaks for role assistant (default {DEFAULT_ASSISTANT}).")
    ] = None,
    actor: Actor = None,
    tier: TierOption = None,
    data_subject: DataSubject = None,
    offline: Offline = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Ingest an episode (or each line of --file): extract entities and facts, resolve, commit.
    With --role, TEXT is one message of a conversation (as `import` reads them)."""
    if role is not None:
        _add_message(group, text, role, speaker, time_, episode, saga, user_name, assistant_name, actor,
                     refused=[o for o, v in (("--name", name), ("--source", source), ("--file", file),
                                             ("--tier", tier),
                                             ("--data-subject", data_subject)) if v is not None]
                     + (["--kind"] if kind != "message" else []), model=_model(offline), db=db)
        return
    for flag, value in (("--user-name", user_name), ("--assistant-name", assistant_name)):
        if value is not None:
            fail(f"{flag} goes with --role (a message)")
    fields: dict[str, Any] = {
        "kind": kind, "reference_time": time_, "name": name, "source_description": source, "saga": saga,
        "actor": actor, "speaker": speaker, "tier": tier, "data_subject": data_subject,
    }
    if file is not None:
        _add_lines(group, file, text, episode, fields, _model(offline), db)
        return
    content = _text_input(text)
    with open_memory(db, create=True, model=_model(offline)) as memory:
        result = memory.add_episode(group, content, episode_id=episode, **fields)
    print_episode(console(), result)
    exit_for([result])


# A message's fields, as ``add --role`` takes them.
_MESSAGE_OPTIONS = {"role": "--role", "content": "TEXT", "name": "--speaker", "created_at": "--time", "id": "--episode"}


def _add_message(
    group: str, text: str | None, role: str, speaker: str | None, time_: str | None, episode: str | None,
    thread: str | None, user_name: str | None, assistant_name: str | None, actor: str | None, *,
    refused: list[str], model: Any, db: str,
) -> None:
    """``add --role``: TEXT as one message, through ``add_messages``."""
    if refused:
        fail(f"{refused[0]} cannot be used with --role (a message has a role, a speaker, a time and an id)")
    message = {"role": role, "content": _text_input(text), "name": speaker, "created_at": time_, "id": episode}
    try:
        read_messages([message])
    except InvalidInputError as exc:  # named by the option that gave the field
        field = exc.field.removeprefix("messages[0].")
        fail(_MESSAGE_OPTIONS.get(field, field) + str(exc)[len(exc.field) :])
    with open_memory(db, create=True, model=model) as memory:
        [result] = memory.add_messages(group, [message], thread=thread, user_name=user_name,
                                       assistant_name=assistant_name or DEFAULT_ASSISTANT, actor=actor)
    print_episode(console(), result)
    exit_for([result])


def import_(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to write to.")],
    file: Annotated[Path, typer.Argument(
        metavar="FILE", help="JSON Lines: one episode (or one message) a line; a .json conversation; '-': stdin.")],
    batch_size: Annotated[
        int, option("N", "Episodes (or messages) per add_episodes (add_messages) call.", min=1)
    ] = BATCH_SIZE,
    thread: Annotated[str | None, option("THREAD", "A conversation's thread (its saga).")] = None,
    user_name: Annotated[
        str | None, option("NAME", "A conversation's user: the person behind role user (kept for the group).")
    ] = None,
    assistant_name: Annotated[
        str | None, option("NAME", f"Who speaks for role assistant (default {DEFAULT_ASSISTANT}).")
    ] = None,
    actor: Actor = None,
    offline: Offline = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Bulk-ingest a JSON Lines file; every line is checked before anything is written.
    --actor applies to the lines that name none. A file of messages (lines with role and
    content, or a .json list of them) is a conversation, ingested in file order through
    add_messages, with --thread, --user-name and --assistant-name (or the file's own)."""
    text = read_text(file)
    conversation = read_conversation(text, file)
    if conversation is None:
        for flag, value in (("--thread", thread), ("--user-name", user_name), ("--assistant-name", assistant_name)):
            if value is not None:
                fail(f"{flag} is for a conversation (lines with role and content); {file} holds episodes")
        items = read_episodes(file, group, text)
        if actor is not None:
            items = [item if item.get("actor") is not None else {**item, "actor": actor} for item in items]
        with open_memory(db, create=True, model=_model(offline)) as memory:
            results = ingest(memory, group, items, batch_size)
        summary(console(), results, f"from {file} into group {group}")
        exit_for(results)
        return
    said = conversation.options
    saga, user = thread or said.get("thread"), user_name or said.get("user_name")
    bot = assistant_name or said.get("assistant_name") or DEFAULT_ASSISTANT
    with open_memory(db, create=True, model=_model(offline)) as memory:
        results = ingest(memory, group, conversation.messages, batch_size, add=lambda batch: memory.add_messages(
            group, batch, thread=saga, user_name=user, assistant_name=bot, actor=actor))
    summary(console(), results, f"(messages) from {file} into group {group}")
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
    """List a group's episodes by reference time, with their status and error; who
    said a message, in what role; an unfinished one also with the worker holding it
    and until when (its lease); and what each said that gave no fact (its notes)."""
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
    said = any(ep.speaker or ep.role for ep in found)
    columns = ("id", "status", "reference time", "ingested", *(("said by",) if said else ()),
               *(("held by",) if leased else ()), "error", *(("not understood",) if noted else ()))
    for column in columns:
        table.add_column(column, no_wrap=column not in ("error", "held by", "not understood"), overflow="fold",
                         style="dim" if column == "id" else None)
    for ep in found:
        colour = {"complete": "green", "retryable": "yellow", "quarantined": "red"}.get(ep.status, "cyan")
        holder = (escape(_holder(ep)),) if leased else ()
        speaker = (escape(" ".join(filter(None, (ep.speaker, f"({ep.role})" if ep.role else None)))),) if said else ()
        table.add_row(
            escape(short(ep.uuid)), f"[{colour}]{ep.status}[/]", when(ep.reference_time), when(ep.created_at),
            *speaker, *holder, escape(ep.error or ""), *((escape("\n".join(ep.notes)),) if noted else ()),
        )
    console().print(table)
