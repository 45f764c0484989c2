"""Parameters several commands share, declared once so they read the same in every command's help."""

from __future__ import annotations

from typing import Annotated, Any

import typer

__all__ = ["DEFAULT_DB", "AsJson", "Db", "Group", "Offline", "TierOption", "option"]

DEFAULT_DB = "kronograph.db"


def option(metavar: str, help: str, *names: str, **extra: Any) -> Any:
    """A ``typer.Option`` with its metavar and help first, the way every command spells them."""
    return typer.Option(*names, metavar=metavar, help=help, **extra)


Db = Annotated[
    str, option("PATH|URL", "SQLite file or postgresql:// URL of the memory.", "--db", envvar="KRONOGRAPH_DB")
]
Actor = Annotated[
    str | None,
    option("WHO", "Who files this (a user, an agent, an API key id): kept on the episode and its audit events.",
           "--actor", envvar="KRONOGRAPH_ACTOR"),
]
# Every command that works in one group takes it as its first argument (and
# says unknown when a read names a group the memory does not have).
Group = Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to read or write.", show_default=False)]
AsJson = Annotated[bool, typer.Option("--json", help="Print the facts as a JSON array instead.")]
Offline = Annotated[
    bool,
    typer.Option("--offline", help="Use the offline extractor (no model) instead of the environment's model."),
]
DataSubject = Annotated[
    str | None,
    option("KEY", "Whose data it is (a customer id): `forget --data-subject KEY` erases everything filed under it.",
           "--data-subject"),
]
TierOption = Annotated[
    str | None,
    option("TIER", "Governance tier: standing, decision, finding, goal, option, issue, assumption, reference or "
                   "transient (default: the relation's).", "--tier"),
]
