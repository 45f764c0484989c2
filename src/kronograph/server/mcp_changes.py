"""The MCP tool ``get_changes``: what the memory learned, retired, restored
and removed, and which entities it merged or split, since a time; for an agent
catching up on what changed while it was away. A thin call on
:meth:`~kronograph.AsyncMemory.changes` behind the group check, as every tool
of :mod:`.mcp_tools` is.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..memory import AsyncMemory
from ..model import Change
from .mcp_tools import Access, FactOut, _Out, _when

__all__ = ["ChangesOut", "FeedItemOut", "get_changes"]


class FeedItemOut(_Out):
    """One change: its kind, when it was recorded, why (``cause``, the
    history's word), the episode behind it, the fact as it stood right after
    (none for an entity merge or split), what moved (``detail``) and the
    ``cursor`` to read on after it."""

    kind: str
    recorded_at: datetime
    cause: str
    episode_id: str | None = None
    fact: FactOut | None = None
    detail: dict[str, Any] = {}
    cursor: str

    @classmethod
    def of(cls, change: Change) -> FeedItemOut:
        return cls(kind=change.kind, recorded_at=change.recorded_at, cause=change.cause, episode_id=change.episode_id,
                   fact=None if change.fact is None else FactOut.of(change.fact), detail=change.detail,
                   cursor=change.cursor)

    def text(self) -> str:
        head = f"- {_when(self.recorded_at)} {self.kind}"
        if self.fact is None:
            kept, names = self.detail.get("kept"), self.detail.get("absorbed") or self.detail.get("restored")
            what = "into" if self.kind == "merged" else "back out of"
            who = f": {', '.join(str(n) for n in names or ())} {what} {kept}" if kept else ""
            return f"{head}{who} (merge {self.detail.get('merge_id', '?')})"
        line = self.fact.text().removeprefix("- ")
        why = f" by episode {self.episode_id}" if self.episode_id else ""
        return f"{head} ({self.cause}{why}): {line}"


class ChangesOut(_Out):
    """Changes in a window of recording time, oldest first; ``next``: the
    cursor to pass as ``after`` for more (none: the window has no more)."""

    group_id: str
    changes: list[FeedItemOut]
    next: str | None = None

    def text(self) -> str:
        if not self.changes:
            return f"no change recorded in group {self.group_id!r} in that window"
        lines = [f"{len(self.changes)} change(s) in group {self.group_id!r}, oldest first:"]
        lines += [c.text() for c in self.changes]
        if self.next:
            lines.append(f"(more: call get_changes again with after={self.next!r})")
        return "\n".join(lines)


async def get_changes(
    memory: AsyncMemory, access: Access, group_id: str | None, since: str, *, until: str | None = None,
    limit: int = 50, after: str | None = None,
) -> ChangesOut:
    g = access.group(group_id)
    found = await memory.changes(g, since, until, limit=limit, after=after)
    return ChangesOut(group_id=g, changes=[FeedItemOut.of(c) for c in found],
                      next=found[-1].cursor if len(found) == limit else None)
