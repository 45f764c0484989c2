"""The ``demo`` command: the narrated offline tour of :mod:`kronograph.demo`, in a fresh memory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from ..errors import KronographError
from .options import option
from .output import console, fail
from .session import message

__all__ = ["demo"]


def demo(
    db: Annotated[
        Path | None,
        option("PATH", "Keep the demo's memory in this new file (default: a temp file).", "--db"),
    ] = None,
) -> None:
    """A narrated tour, offline: a chat read into a graph, a timeline, as_of and known_at, the judge's guard."""
    from ..demo import run_demo

    if db is not None and db.exists():
        fail(f"--db: {db} already exists; the demo writes a fresh memory, give it a new path")
    try:
        run_demo(console(), db)
    except KronographError as exc:
        fail(message(exc))
