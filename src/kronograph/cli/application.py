"""The typer app: the root options (``--version``) and every command under its name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer

from .. import __version__
from .audit import audit
from .changes import changes
from .communities import communities
from .context import context
from .contradictions import contradict, contradictions, dismiss, remove_fact, tier
from .demo import demo
from .doctor import doctor
from .episodes import add, episodes, import_, resume
from .export import export
from .facts import add_fact, events, facts, history, remove_episode, timeline
from .forget import erasures, forget
from .groups import groups
from .keys import keys_app
from .mcp import mcp
from .migrate import migrate
from .repair import merge, split
from .sagas import saga, sagas
from .search import conflicts, search
from .serve import serve
from .user import settings, user

__all__ = ["COMMANDS", "GROUPS", "build_app"]

COMMANDS: dict[str, Callable[..., None]] = {
    "add-fact": add_fact, "facts": facts, "events": events, "timeline": timeline, "history": history,
    "changes": changes,
    "remove-episode": remove_episode, "search": search, "context": context, "conflicts": conflicts,
    "add": add, "import": import_, "resume": resume, "episodes": episodes,
    "demo": demo, "groups": groups, "migrate": migrate, "doctor": doctor, "saga": saga, "sagas": sagas,
    "forget": forget, "erasures": erasures, "merge": merge, "split": split, "user": user, "settings": settings,
    "audit": audit, "communities": communities, "export": export, "mcp": mcp, "serve": serve,
    "contradictions": contradictions, "contradict": contradict, "dismiss": dismiss, "tier": tier,
    "remove-fact": remove_fact,
}

# Commands with subcommands of their own.
GROUPS: dict[str, typer.Typer] = {"keys": keys_app}


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


def build_app() -> typer.Typer:
    """The typer app; needs the ``cli`` extra."""
    application = typer.Typer(no_args_is_help=True, add_completion=False)
    application.callback()(_root)
    for name, command in COMMANDS.items():
        application.command(name)(command)
    for name, group in GROUPS.items():
        application.add_typer(group, name=name)
    return application
