"""The ``kronograph`` command line: a thin shell over :class:`kronograph.Memory`.

Each command is one library call, printed as a rich table. typer and rich are
the optional extra ``kronograph[cli]``: without them :func:`main` says how to
install them instead of failing with a traceback, so this module imports them
guarded and only builds the app once they are known to be there.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Annotated, Any, NoReturn

from . import __version__
from .errors import InvalidInputError, KronographError
from .ingest.bulk import EpisodeItem
from .ingest.episode_input import episode_input
from .memory import Memory
from .model import Cardinality, EpisodeResult, EpisodeStatus, Fact

try:
    import typer
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table
except ImportError as exc:  # the optional extra is missing: main() explains
    _MISSING: ImportError | None = exc
else:
    _MISSING = None

__all__ = [
    "COMMANDS", "app", "build_app", "fact_table", "interval", "main", "progress_bar", "short", "timeline_table", "when",
]

INSTALL_HINT = (
    "The kronograph command line needs typer and rich, which are not installed.\n"
    "Install them with:  pip install 'kronograph[cli]'"
)
DEFAULT_DB = Path("kronograph.db")
BATCH_SIZE = 200  # episodes per add_episodes call: validated together, extracted concurrently
# Library field names, as the options that feed them are spelled on the command line.
_OPTION_NAMES = {
    "as_of": "--as-of", "known_at": "--known-at", "valid_at": "--valid-at", "invalid_at": "--invalid-at",
    "episode_id": "--episode", "group_id": "--group", "subject_labels": "--subject-label",
    "object_labels": "--object-label", "relation_types": "--relation-type", "reference_time": "--time",
    "source_description": "--source", "kind": "--kind", "name": "--name", "saga": "--saga", "content": "TEXT",
    "status": "--status",
}

# -- rendering (shared with the demo) -------------------------------------------


def when(moment: datetime | None, open_end: str = "now") -> str:
    """A UTC time as a reader wants it: a bare date at midnight, else no finer than needed."""
    if moment is None:
        return open_end
    if moment.time() == time(0):
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%d %H:%M:%SZ" if moment.second else "%Y-%m-%d %H:%MZ")


def interval(fact: Fact) -> str:
    """``2024-01-15 → 2024-03-03``, or ``2024-03-03 → now`` while the fact holds."""
    return f"{when(fact.valid_at)} → {when(fact.invalid_at)}"


def short(identifier: str) -> str:
    """The last 8 characters of a long id: UUIDv7s share their leading (time) bits."""
    return identifier if len(identifier) <= 12 else "…" + identifier[-8:]


def fact_table(facts: Sequence[Fact], title: str | None = None) -> Table:
    """Facts with both valid-time ends and their source episodes."""
    table = Table(title=title, title_justify="left", header_style="bold")
    for name in ("uuid", "subject", "relation", "object", "valid_at", "invalid_at", "episodes"):
        wraps = name == "episodes"  # the one column that may fold on a narrow terminal
        table.add_column(name, style="dim" if name == "uuid" else None, no_wrap=not wraps, overflow="fold")
    for fact in facts:
        table.add_row(
            short(fact.uuid), escape(fact.subject), escape(fact.relation), escape(fact.object), when(fact.valid_at),
            when(fact.invalid_at, "[dim]open[/]"), escape(", ".join(map(short, fact.episodes))),
        )
    return table


def timeline_table(facts: Sequence[Fact], title: str | None = None) -> Table:
    """Intervals in valid-time order: closed ones visibly closed, and when each was learned."""
    table = Table(title=title, title_justify="left", header_style="bold")
    table.add_column("valid", no_wrap=True)
    table.add_column("fact")
    table.add_column("status", no_wrap=True)
    table.add_column("recorded", style="dim", no_wrap=True)
    for fact in facts:
        status = "[green]current[/]" if fact.invalid_at is None else "[yellow]closed[/]"
        table.add_row(interval(fact), escape(fact.triple), status, when(fact.created_at))
    return table


def progress_bar(console: Console) -> Progress:
    """One bar for ingestion: what, how far, how long. On a non-terminal only its final state is printed."""
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console,
    )


# -- plumbing --------------------------------------------------------------------


def _console() -> Console:
    return Console(highlight=False)


def _fail(message: str) -> NoReturn:
    Console(stderr=True, highlight=False).print(f"[red]error:[/] {escape(message)}", soft_wrap=True)
    raise typer.Exit(2)


def _message(exc: KronographError) -> str:
    """The library's message, naming the option rather than the Python parameter."""
    if isinstance(exc, InvalidInputError) and exc.field in _OPTION_NAMES:
        return _OPTION_NAMES[exc.field] + str(exc)[len(exc.field) :]
    return str(exc)


@contextmanager
def _memory(db: Path, *, create: bool = False, model: str | None = None, **options: Any) -> Iterator[Memory]:
    """Open the memory at ``db``; every kronograph error becomes a one-line message.

    No model unless a command ingests, and no resuming on open: only ``kronograph
    resume`` finishes other episodes, so no command does unannounced work.
    """
    if not create and not db.exists():
        _fail(f"no database at {db} (add a fact or an episode first, or pass --db / set KRONOGRAPH_DB)")
    try:
        with Memory(db, model=model, resume=False, **options) as memory:
            yield memory
    except KronographError as exc:
        _fail(_message(exc))


def _relation_types(specs: Sequence[str]) -> dict[str, dict[str, str]]:
    kinds = ", ".join(c.value for c in Cardinality)
    out: dict[str, dict[str, str]] = {}
    for spec in specs:
        name, sep, cardinality = spec.partition("=")
        if not sep or not name.strip() or cardinality.strip() not in {c.value for c in Cardinality}:
            _fail(f"--relation-type: expected NAME=CARDINALITY with CARDINALITY one of {kinds}, got {spec!r}")
        out[name.strip()] = {"cardinality": cardinality.strip()}
    return out


def _print_json(facts: Sequence[Fact]) -> None:
    typer.echo(json.dumps([f.model_dump(mode="json") for f in facts], indent=2))


# -- commands --------------------------------------------------------------------


def _option(metavar: str, help: str, *names: str, **extra: Any) -> Any:
    return typer.Option(*names, metavar=metavar, help=help, **extra)


if _MISSING is None:
    Db = Annotated[Path, _option("PATH", "SQLite file of the memory.", "--db", envvar="KRONOGRAPH_DB")]
    Group = Annotated[str, _option("GROUP", "Group (tenant) to read or write.", "--group", "-g")]
    AsJson = Annotated[bool, typer.Option("--json", help="Print the facts as a JSON array instead.")]


def add_fact(
    subject: Annotated[str, typer.Argument(metavar="SUBJECT", help="Subject entity name.")],
    relation: Annotated[str, typer.Argument(metavar="RELATION", help="Relation, e.g. LIVES_IN.")],
    object: Annotated[str, typer.Argument(metavar="OBJECT", help="Object entity name.")],
    fact: Annotated[str | None, _option("TEXT", "The fact in words (default: the triple).")] = None,
    valid_at: Annotated[str | None, _option("TIME", "When it became true (default: now).")] = None,
    invalid_at: Annotated[str | None, _option("TIME", "When it stopped being true.")] = None,
    episode: Annotated[str | None, _option("ID", "Source episode id (default: a new one).")] = None,
    subject_label: Annotated[list[str], _option("LABEL", "A type of the subject; repeatable.")] = [],  # noqa: B006
    object_label: Annotated[list[str], _option("LABEL", "A type of the object; repeatable.")] = [],  # noqa: B006
    relation_type: Annotated[
        list[str], _option("NAME=CARDINALITY", "Declare a relation's cardinality for this call; repeatable.")
    ] = [],  # noqa: B006
    db: Db = DEFAULT_DB,
    group: Group = "default",
) -> None:
    """Add one fact; print it and the facts it retired or moved."""
    types = _relation_types(relation_type)
    with _memory(db, create=True, relation_types=types) as memory:
        result = memory.add_fact(
            group, subject, relation, object, fact=fact, valid_at=valid_at, invalid_at=invalid_at,
            episode_id=episode, subject_labels=subject_label, object_labels=object_label,
        )
    out = _console()
    verb = "merged into existing fact" if result.merged else "wrote fact"
    out.print(f"[green]✓[/] {verb} [bold]{escape(result.fact.triple)}[/]  {interval(result.fact)}")
    out.print(f"  [dim]fact {result.fact.uuid} · episode {escape(result.episode_id)}[/]", soft_wrap=True)
    if result.retired:
        out.print(timeline_table(result.retired, "retired (no longer current)"))
    if result.changed:
        out.print(timeline_table(result.changed, "interval changed"))
    for uuid in result.refused:
        out.print(f"[yellow]refused[/] retiring {uuid}: not eligible to be replaced by this fact")


def facts(
    subject: Annotated[str | None, _option("NAME", "Only facts with this subject.")] = None,
    relation: Annotated[str | None, _option("RELATION", "Only this relation (LIVES_IN ≡ lives-in).")] = None,
    object: Annotated[str | None, _option("NAME", "Only facts with this object.", "--object")] = None,
    entity: Annotated[str | None, _option("NAME", "Only facts touching this entity, either end.")] = None,
    as_of: Annotated[str | None, _option("TIME", "Facts valid at this time (default: now).")] = None,
    known_at: Annotated[str | None, _option("TIME", "As the memory believed at this time.")] = None,
    include_retired: Annotated[bool, typer.Option("--include-retired", help="Closed intervals too.")] = False,
    include_expired: Annotated[
        bool, typer.Option("--include-expired", help="Records replaced by a correction too.")
    ] = False,
    limit: Annotated[int | None, _option("N", "At most N facts.", min=1)] = None,
    as_json: AsJson = False,
    db: Db = DEFAULT_DB,
    group: Group = "default",
) -> None:
    """List facts: current ones by default, or as of / as known at a time."""
    with _memory(db) as memory:
        found = memory.facts(
            group, subject=subject, relation=relation, object=object, entity=entity, as_of=as_of,
            known_at=known_at, include_retired=include_retired, include_expired=include_expired, limit=limit,
        )
    if as_json:
        _print_json(found)
        return
    out = _console()
    out.print(fact_table(found) if found else "[dim]no facts match[/]")


def timeline(
    entity: Annotated[str, typer.Argument(metavar="ENTITY", help="Entity name.")],
    relation: Annotated[str | None, _option("RELATION", "Only this relation.")] = None,
    as_json: AsJson = False,
    db: Db = DEFAULT_DB,
    group: Group = "default",
) -> None:
    """Show how an entity's facts evolved, ordered by valid time."""
    with _memory(db) as memory:
        found = memory.timeline(group, entity, relation)
    if as_json:
        _print_json(found)
        return
    title = f"timeline of {escape(entity)}"
    _console().print(timeline_table(found, title) if found else f"[dim]no facts about {escape(entity)}[/]")


def history(
    fact_uuid: Annotated[str, typer.Argument(metavar="FACT_UUID", help="The fact's full uuid.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the changes as a JSON array instead.")] = False,
    db: Db = DEFAULT_DB,
    group: Group = "default",
) -> None:
    """Show every recorded state of one fact, oldest first, and why it changed."""
    with _memory(db) as memory:
        changes = memory.history(group, fact_uuid)
    if as_json:
        typer.echo(json.dumps([c.model_dump(mode="json") for c in changes], indent=2))
        return
    if not changes:
        _fail(f"no fact {fact_uuid} in group {group!r}")
    table = Table(title=f"history of fact {short(fact_uuid)}", title_justify="left", header_style="bold")
    for name in ("recorded", "cause", "episode", "status", "valid"):
        table.add_column(name, no_wrap=True)
    for change in changes:
        valid = f"{when(change.valid_at)} → {when(change.invalid_at)}"
        table.add_row(when(change.recorded_at), change.cause, escape(change.episode_id or ""), change.status, valid)
    _console().print(table)


def remove_episode(
    episode_id: Annotated[str, typer.Argument(metavar="EPISODE_ID", help="The episode to retract.")],
    db: Db = DEFAULT_DB,
    group: Group = "default",
) -> None:
    """Retract an episode: facts it alone supports go, intervals it moved come back."""
    with _memory(db) as memory:
        result = memory.remove_episode(group, episode_id)
    out = _console()
    out.print(f"[green]✓[/] removed episode [bold]{escape(result.episode_id)}[/]")
    out.print(f"  deleted {len(result.deleted_facts)} fact(s), {len(result.deleted_entities)} entity(ies)")
    for uuid in result.deleted_facts:
        out.print(f"  [dim]deleted fact {uuid}[/]")
    if result.changed:
        out.print(timeline_table(result.changed, "interval changed"))


# -- ingestion -------------------------------------------------------------------


def _model(offline: bool) -> str | None:
    """``None`` is the offline extractor; ``"auto"`` picks a model from the environment (docs/models.md)."""
    return None if offline else "auto"


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


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
        f"model: {_plural(calls, 'call')} ({cached:,} cached) · {prompt:,} prompt + {completion:,} completion tokens"
        f" · {chars:,} prompt chars; per episode {calls / ran:.1f} calls, {chars / ran:,.0f} prompt chars"
    )


def _print_episode(out: Console, result: EpisodeResult) -> None:
    """One episode's outcome: what it wrote, merged, retired and moved, then its model cost."""
    eid = escape(result.episode_id)
    if result.duplicate:
        out.print(f"[dim]=[/] episode [bold]{eid}[/] was already ingested: nothing done again")
        return
    if not result.ok:
        out.print(f"[red]✗[/] episode [bold]{eid}[/] {result.status}: {escape(result.error or '')}", soft_wrap=True)
        return
    out.print(f"[green]✓[/] episode [bold]{eid}[/] complete: {_plural(len(result.created), 'fact')} created")
    if result.entities:
        out.print(f"  entities: {escape(', '.join(e.name for e in result.entities))}")
    for mark, facts in (("[green]+[/]", result.created), ("[dim]=[/]", result.merged),
                        ("[yellow]−[/] retired", result.retired), ("[cyan]~[/] moved", result.changed)):
        for fact in facts:
            out.print(f"  {mark} {escape(fact.triple)}  {interval(fact)}")
    out.print(f"  [dim]{_usage_line([result])}[/]")


def _failed(results: Sequence[EpisodeResult]) -> list[EpisodeResult]:
    return [r for r in results if r.status in (EpisodeStatus.RETRYABLE, EpisodeStatus.QUARANTINED)]


def _summary(out: Console, results: Sequence[EpisodeResult], heading: str) -> None:
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
    ]
    for number, label in rows:
        table.add_row(f"{number:,}", label)
    out.print(f"[bold]{_plural(len(results), 'episode')}[/] {escape(heading)}")
    out.print(table)
    out.print(_usage_line(results))
    failed = _failed(results)
    if failed:
        out.print(_episode_rows([(r.episode_id, str(r.status), r.error) for r in failed], "did not complete"))
        out.print("[dim]retry with: kronograph resume (retryable ones); see kronograph episodes GROUP --status ...[/]")


def _episode_rows(rows: Sequence[tuple[str, str, str | None]], title: str) -> Table:
    table = Table(title=title, title_justify="left", header_style="bold")
    table.add_column("episode", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("error", overflow="fold")
    for episode_id, status, error in rows:
        table.add_row(escape(episode_id), status, escape(error or ""))
    return table


def _ingest(memory: Memory, group: str, items: Sequence[dict[str, Any]], batch_size: int) -> list[EpisodeResult]:
    """``add_episodes`` batch by batch behind a progress bar (on stderr, so stdout stays the report)."""
    results: list[EpisodeResult] = []
    refused: str | None = None
    with progress_bar(Console(stderr=True, highlight=False)) as bar:
        task = bar.add_task(f"ingesting into {escape(group)}", total=len(items))
        for start in range(0, len(items), batch_size):
            batch = items[start : start + batch_size]
            try:
                results.extend(memory.add_episodes(group, batch))
            except KronographError as exc:  # validated up front, so only the memory's contents can refuse a batch
                kept = f"episodes 1-{start} are ingested" if start else "nothing was ingested"
                refused = f"episodes {start + 1}-{start + len(batch)}: {exc} ({kept})"
                break
            bar.advance(task, len(batch))
    if refused is not None:
        _fail(refused)
    return results


def _exit_for(results: Sequence[EpisodeResult]) -> None:
    """Exit 1 when an episode ended retryable or quarantined: scripts must notice."""
    if _failed(results):
        raise typer.Exit(1)


def _check_line(where: str, group: str, value: Any, now: datetime) -> None:
    """Validate one line exactly as ``add_episodes`` will, so a bad line stops the import before anything is written."""
    try:
        item = EpisodeItem.of(value, "line")
        episode_input(
            group, item.content, kind=item.kind, reference_time=item.reference_time, name=item.name,
            source_description=item.source_description, episode_id=item.episode_id, saga=item.saga,
            previous_episode_ids=item.previous_episode_ids, entity_types=item.entity_types,
            fact_types=item.fact_types, excluded_entity_types=item.excluded_entity_types,
            metadata=item.metadata, json_mapping=item.json_mapping, now=now,
        )
    except InvalidInputError as exc:
        _fail(f"{where}: {str(exc).removeprefix('line: ').removeprefix('line.')}")


def _read_jsonl(path: Path, group: str) -> list[dict[str, Any]]:
    """Every non-blank line of ``path`` (``-``: stdin) as an episode, each validated, ids checked across lines."""
    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"cannot read {path}: {exc}")
    items: list[dict[str, Any]] = []
    seen: dict[str, tuple[int, Any]] = {}
    now = datetime.now(UTC)
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            value = json.loads(line)
        except ValueError as exc:
            _fail(f"{where}: not valid JSON ({exc})")
        if not isinstance(value, dict):
            _fail(f"{where}: expected a JSON object with add_episode's fields, got {type(value).__name__}")
        _check_line(where, group, value, now)
        episode_id = value.get("episode_id")
        if isinstance(episode_id, str) and episode_id.strip():
            first = seen.setdefault(episode_id.strip(), (number, value["content"]))
            if first[1] != value["content"]:
                _fail(f"{where}: episode_id {episode_id!r} repeats line {first[0]}'s with other content")
        items.append(value)
    if not items:
        _fail(f"{path} holds no episodes")
    return items


if _MISSING is None:
    Offline = Annotated[
        bool,
        typer.Option("--offline", help="Use the offline extractor (no model) instead of the environment's model."),
    ]


def _text_input(text: str | None) -> str:
    """TEXT, or standard input when TEXT is omitted or ``-``."""
    if text is not None and text != "-":
        return text
    if sys.stdin.isatty():
        _fail("give TEXT, or pipe the episode on standard input")
    return sys.stdin.read()


def _file_lines(path: Path) -> list[str]:
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"--file: cannot read {path}: {exc}")
    if not lines:
        _fail(f"--file: {path} holds no text")
    return lines


def _add_lines(
    group: str, file: Path, text: str | None, episode: str | None, fields: dict[str, Any], model: Any, db: Path
) -> None:
    """``add --file``: each non-blank line an episode with the same options, ingested like an import."""
    if text is not None:
        _fail("give TEXT or --file, not both")
    if episode is not None:
        _fail("--episode names one episode; it cannot be used with --file")
    items = [{"content": line, **fields} for line in _file_lines(file)]
    with _memory(db, create=True, model=model) as memory:
        results = _ingest(memory, group, items, BATCH_SIZE)
    _summary(_console(), results, f"into group {group}")
    _exit_for(results)


def add(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to write to.")],
    text: Annotated[
        str | None, typer.Argument(metavar="TEXT", help="The episode; omitted or '-': read standard input.")
    ] = None,
    kind: Annotated[str, _option("KIND", "message, text or json.")] = "message",
    time_: Annotated[str | None, _option("ISO", "Reference time: when it was said (default: now).", "--time")] = None,
    name: Annotated[str | None, _option("NAME", "A name for the episode (default: its id).")] = None,
    source: Annotated[str | None, _option("TEXT", "Where it came from, e.g. 'slack #general'.")] = None,
    episode: Annotated[
        str | None, _option("ID", "Episode id; re-adding an id is a no-op (default: new).", "--episode", "--episode-id")
    ] = None,
    saga: Annotated[str | None, _option("SAGA", "The thread or conversation it belongs to.")] = None,
    file: Annotated[
        Path | None, _option("FILE", "Ingest each non-blank line of FILE as an episode, with a progress bar.")
    ] = None,
    offline: Offline = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Ingest an episode (or each line of --file): extract entities and facts, resolve, commit."""
    fields: dict[str, Any] = {
        "kind": kind, "reference_time": time_, "name": name, "source_description": source, "saga": saga,
    }
    if file is not None:
        _add_lines(group, file, text, episode, fields, _model(offline), db)
        return
    content = _text_input(text)
    with _memory(db, create=True, model=_model(offline)) as memory:
        result = memory.add_episode(group, content, episode_id=episode, **fields)
    _print_episode(_console(), result)
    _exit_for([result])


def import_(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to write to.")],
    file: Annotated[Path, typer.Argument(metavar="FILE", help="JSON Lines: one episode object a line; '-': stdin.")],
    batch_size: Annotated[int, _option("N", "Episodes per add_episodes call.", min=1)] = BATCH_SIZE,
    offline: Offline = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Bulk-ingest a JSON Lines file; every line is checked before anything is written."""
    items = _read_jsonl(file, group)
    with _memory(db, create=True, model=_model(offline)) as memory:
        results = _ingest(memory, group, items, batch_size)
    _summary(_console(), results, f"from {file} into group {group}")
    _exit_for(results)


def resume(
    no_retryable: Annotated[
        bool, typer.Option("--no-retryable", help="Only episodes a crash left unfinished, not retryable ones.")
    ] = False,
    offline: Offline = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Finish episodes a crash interrupted and retry retryable ones, in every group."""
    with _memory(db, model=_model(offline)) as memory:
        results = memory.resume(include_retryable=not no_retryable)
    out = _console()
    if not results:
        out.print("[dim]nothing to resume[/]")
        return
    for result in results:
        mark = "[green]✓[/]" if result.ok else "[red]✗[/]"
        detail = f"{_plural(len(result.created), 'fact')} created" if result.ok else escape(result.error or "")
        out.print(
            f"{mark} {escape(result.group_id)} / {escape(result.episode_id)}: {result.status}, {detail}",
            soft_wrap=True,
        )
    _summary(out, results, "resumed")
    _exit_for(results)


def episodes(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to list.")],
    status: Annotated[
        str | None, _option("STATUS", f"Only this status: {', '.join(s.value for s in EpisodeStatus)}.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the episodes as a JSON array instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """List a group's episodes by reference time, with their status and error."""
    with _memory(db) as memory:
        found = memory.episodes(group, status=status)
    if as_json:
        # warnings=False: the store hands ``kind`` back as a plain string, which serialises the same
        typer.echo(json.dumps([e.model_dump(mode="json", warnings=False) for e in found], indent=2))
        return
    if not found:
        which = f" with status {status}" if status else ""
        _console().print(f"[dim]no episodes in group {escape(group)}{which}[/]")
        return
    table = Table(header_style="bold")
    for column in ("id", "status", "reference time", "ingested", "error"):
        table.add_column(column, no_wrap=column != "error", overflow="fold", style="dim" if column == "id" else None)
    for ep in found:
        colour = {"complete": "green", "retryable": "yellow", "quarantined": "red"}.get(ep.status, "cyan")
        table.add_row(
            escape(short(ep.uuid)), f"[{colour}]{ep.status}[/]", when(ep.reference_time), when(ep.created_at),
            escape(ep.error or ""),
        )
    _console().print(table)


def demo(
    db: Annotated[
        Path | None,
        _option("PATH", "Keep the demo's memory in this new file (default: a temp file).", "--db"),
    ] = None,
) -> None:
    """A narrated tour, offline: a chat read into a graph, a timeline, as_of and known_at, the judge's guard."""
    from .demo import run_demo

    if db is not None and db.exists():
        _fail(f"--db: {db} already exists; the demo writes a fresh memory, give it a new path")
    try:
        run_demo(_console(), db)
    except KronographError as exc:
        _fail(_message(exc))


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kronograph {__version__}")
        raise typer.Exit()


def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """kronograph: a temporal knowledge-graph memory. Times are ISO 8601, naive = UTC."""


COMMANDS: dict[str, Callable[..., None]] = {
    "add-fact": add_fact, "facts": facts, "timeline": timeline, "history": history,
    "remove-episode": remove_episode, "add": add, "import": import_, "resume": resume, "episodes": episodes,
    "demo": demo,
}


def build_app() -> typer.Typer:
    """The typer app; needs the ``cli`` extra."""
    if _MISSING is not None:
        raise _MISSING
    application = typer.Typer(no_args_is_help=True, add_completion=False)
    application.callback()(_root)
    for name, command in COMMANDS.items():
        application.command(name)(command)
    return application


app = build_app() if _MISSING is None else None


def main() -> None:
    """The ``kronograph`` entry point."""
    if app is None:
        print(INSTALL_HINT, file=sys.stderr)
        raise SystemExit(1)
    app()
