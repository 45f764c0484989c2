"""``at``: a read of the service as a point-in-time view (``AsyncMemory.at``).

``at`` stands for ``as_of`` and ``known_at`` both at one moment, with
nothing learned later (see ``docs/point-in-time.md``); an answer read with
it carries its lookahead report (``lookahead``, clean by construction). It
is refused together with ``as_of``, ``known_at`` or an option a view does
not take (every interval, expired records, a label), the one place REST and
MCP say so."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..errors import InvalidInputError
from ..lookahead import LookaheadReport
from ..memory import AsyncMemory
from ..point_in_time import PointInTime

__all__ = ["lookahead_text", "view_at"]


def view_at(memory: AsyncMemory, at: datetime | str | None, **others: Any) -> PointInTime | None:
    """The view ``at`` asks for (None without it); InvalidInputError naming
    ``at`` when any of ``others`` (a read's other temporal options) is set."""
    if at is None:
        return None
    for name, value in others.items():
        if value is not None and value is not False:
            raise InvalidInputError("at", f"cannot be combined with {name} (at is as_of and known_at both)")
    return memory.at(at)


def lookahead_text(report: LookaheadReport | None) -> str:
    """An MCP answer's line about its lookahead report ("" without one)."""
    if report is None:
        return ""
    when = report.moment.isoformat().replace("+00:00", "Z")
    if report.clean:
        return f"\n(as of {when} on both axes: nothing learned later)"
    items = ", ".join(f"{i.kind} {i.uuid} ({i.reason})" for i in report.items[:10])
    return f"\n(as of {when}: {len(report.items)} item(s) lie after it: {items})"
