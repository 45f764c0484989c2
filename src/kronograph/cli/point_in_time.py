"""``--at TIME``: a read command as a point-in-time view (``Memory.at``):
what held at TIME as the memory knew it at TIME, nothing learned later."""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from ..lookahead import LookaheadReport
from .output import console, fail

__all__ = ["AT_HELP", "lookahead_json", "print_lookahead", "refuse_with_at"]

AT_HELP = "At a point in time: --as-of and --known-at both, nothing learned later (a backtest)."
_SPELLED = {"as_of": "--as-of", "known_at": "--known-at", "include_retired": "--include-retired",
            "include_expired": "--include-expired"}


def refuse_with_at(at: str | None, **others: Any) -> None:
    """Exit with a one-line error when ``--at`` comes with another temporal option."""
    if at is None:
        return
    for name, value in others.items():
        if value is not None and value is not False:
            fail(f"--at cannot be combined with {_SPELLED.get(name, name)} (--at is --as-of and --known-at both)")


def print_lookahead(report: LookaheadReport | None) -> None:
    """The line under a table read with ``--at``."""
    if report is None:
        return
    when = report.moment.isoformat()
    if report.clean:
        console().print(f"[dim]as of {when} on both axes: nothing learned later[/]")
        return
    console().print(f"[red]{len(report.items)} item(s) lie after {when}[/]")
    for item in report.items:
        console().print(f"  {item.kind} {escape(item.uuid)}: {item.reason} {item.at.isoformat() if item.at else ''}")


def lookahead_json(report: LookaheadReport | None) -> dict[str, Any]:
    """``{"lookahead": ...}`` for a JSON answer read with ``--at`` (nothing without)."""
    return {} if report is None else {"lookahead": report.model_dump(mode="json")}
