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
from datetime import datetime, time
from pathlib import Path
from typing import Annotated, Any, NoReturn

from . import __version__
from .errors import InvalidInputError, KronographError
from .memory import Memory
from .model import Cardinality, Fact

try:
    import typer
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table
except ImportError as exc:  # the optional extra is missing: main() explains
    _MISSING: ImportError | None = exc
else:
    _MISSING = None

__all__ = ["COMMANDS", "app", "build_app", "fact_table", "interval", "main", "short", "timeline_table", "when"]

INSTALL_HINT = (
    "The kronograph command line needs typer and rich, which are not installed.\n"
    "Install them with:  pip install 'kronograph[cli]'"
)
DEFAULT_DB = Path("kronograph.db")
# Library field names, as the options that feed them are spelled on the command line.
_OPTION_NAMES = {
    "as_of": "--as-of", "known_at": "--known-at", "valid_at": "--valid-at", "invalid_at": "--invalid-at",
    "episode_id": "--episode", "group_id": "--group", "subject_labels": "--subject-label",
    "object_labels": "--object-label", "relation_types": "--relation-type",
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
def _memory(db: Path, *, create: bool = False, **options: Any) -> Iterator[Memory]:
    """Open the memory at ``db``; every kronograph error becomes a one-line message."""
    if not create and not db.exists():
        _fail(f"no database at {db} (add a fact first, or pass --db / set KRONOGRAPH_DB)")
    try:
        with Memory(db, **options) as memory:
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


def demo(
    db: Annotated[
        Path | None,
        _option("PATH", "Keep the demo's memory in this new file (default: a temp file).", "--db"),
    ] = None,
) -> None:
    """A narrated tour, offline: a CEO change, late history, a refused retirement."""
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
    "remove-episode": remove_episode, "demo": demo,
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
