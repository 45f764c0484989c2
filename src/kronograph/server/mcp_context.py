"""The MCP tools' context part: ``get_context``, the memory block an agent
reads before it answers (see :meth:`AsyncMemory.context
<kronograph.AsyncMemory.context>`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..lookahead import LookaheadReport
from ..memory import AsyncMemory
from .mcp_tools import Access, _Out
from .point_in_time import lookahead_text, view_at

__all__ = ["ContextOut", "block_for"]


class ContextOut(_Out):
    """The block (``block``: what the tool's text is), its size, and the
    ids of what went into it, for get_fact and get_episodes."""

    group_id: str
    block: str
    tokens: int
    max_tokens: int
    counter: str
    query: str
    facts: list[str] = []  # fact uuids, in block order
    episodes: list[str] = []  # episode ids of the excerpts, in block order
    cited: list[str] = []  # every episode id the facts cite, whole
    left_out: int = 0
    lookahead: LookaheadReport | None = None  # read with ``at``

    def text(self) -> str:
        if self.block.strip():
            return self.block + lookahead_text(self.lookahead)
        return f"group {self.group_id!r}: nothing in memory for this yet" + lookahead_text(self.lookahead)


async def block_for(
    memory: AsyncMemory, access: Access, group_id: str | None, query: str | None, *,
    messages: Sequence[dict[str, Any]] | None = None, as_of: str | None = None, known_at: str | None = None,
    max_tokens: int = 1000, at: str | None = None,
) -> ContextOut:
    g = access.group(group_id)
    view = view_at(memory, at, as_of=as_of, known_at=known_at)
    if view is not None:
        block = await view.context(g, query, messages=messages, max_tokens=max_tokens)
    else:
        block = await memory.context(g, query, messages=messages, as_of=as_of, known_at=known_at,
                                     max_tokens=max_tokens)
    return ContextOut(
        group_id=g, block=block.text, tokens=block.tokens, max_tokens=block.max_tokens, counter=block.counter,
        query=block.query, facts=[h.item.uuid for h in block.facts], episodes=[h.item.uuid for h in block.episodes],
        cited=list(dict.fromkeys(e for h in block.facts for e in h.item.episodes)), left_out=len(block.left_out),
        lookahead=await view.lookahead(block) if view is not None else None,
    )
