"""The text a block is made relevant to, from a query or the last messages.

From messages: the last :data:`MESSAGES` of them, the latest first and
whole (up to :data:`LATEST_CHARS`), each earlier one cut shorter (half as
many characters per step back), then their speakers' names: so the latest
message weighs most, and the people in the conversation are matched.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..message import Message

__all__ = ["LATEST_CHARS", "MESSAGES", "QUERY_MAX", "from_messages"]

MESSAGES = 6
LATEST_CHARS = 2_000
QUERY_MAX = 10_000  # characters of a query, as the service takes


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0]


def from_messages(messages: Sequence[Message], query: str | None = None) -> str:
    """``query`` (when given), then the messages' text as above."""
    parts = [query] if query else []
    limit = LATEST_CHARS
    names: list[str] = []
    for message in reversed(messages[-MESSAGES:]):
        parts.append(_cut(message.content, limit))
        limit = max(limit // 2, 120)
        if message.name and message.name not in names:
            names.append(message.name)
    return " ".join(p for p in (*parts, *names) if p)[:QUERY_MAX]
