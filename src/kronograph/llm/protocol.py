"""What the ingestion pipeline asks of a language model.

Two layers. A *provider* (``openai``, ``anthropic``, ``gemini``, a scripted
test model) sends one prompt and returns the raw reply with its token counts:
it knows a wire protocol and nothing else. :class:`~kronograph.llm.client.ModelClient`
wraps any provider with what every provider needs alike: tolerant JSON
parsing, pydantic validation with one repair round, backoff on transient
errors, a concurrency limit and a response cache.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = ["ModelReply", "Provider", "ReplyCache", "Usage"]


@dataclass(frozen=True, slots=True)
class ModelReply:
    """One raw answer: the text and what it cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""


@runtime_checkable
class Provider(Protocol):
    """Sends one prompt. ``schema`` is a JSON schema the reply must follow.
    A provider that makes the schema reach the model itself (native
    structured output, a forced tool, or its own fallback instruction) sets
    the optional attribute ``native_schema = True``; for one without it (the
    default) :class:`~kronograph.llm.client.ModelClient` appends a plain
    "answer with one JSON object following this schema" instruction to the
    system prompt. Raises :class:`~kronograph.errors.TransientModelError` for
    what is worth retrying (429, 5xx, timeouts, dropped connections) and
    :class:`~kronograph.errors.ModelError` for the rest."""

    name: str  # "openai", "anthropic", "gemini", "scripted", ...
    model: str
    small_model: str | None

    async def complete(
        self,
        *,
        system: str,
        user: str,
        schema: Mapping[str, Any] | None,
        schema_name: str,
        small: bool = False,
    ) -> ModelReply: ...


@runtime_checkable
class ReplyCache(Protocol):
    """Raw replies by group and key (a hash of model, schema and prompt), so
    that a retry or a re-ingestion of the same prompt costs nothing. A group's
    replies answer that group's prompts only: whether another group sent the
    same prompt must never show (by a hit, a count or a reply)."""

    async def get(self, group_id: str, key: str) -> str | None: ...

    async def put(self, group_id: str, key: str, model: str, text: str) -> None: ...


@dataclass(slots=True)
class Usage:
    """Model calls and tokens, in all and by purpose (``extract``, ``judge``,
    ``dedupe``...). Cached answers count as ``cached``, not as calls."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_chars: int = 0
    by_purpose: dict[str, dict[str, int]] = field(default_factory=dict)

    def add_call(self, purpose: str, *, prompt_chars: int, prompt_tokens: int, completion_tokens: int) -> None:
        self.calls += 1
        self.prompt_chars += prompt_chars
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        row = self.by_purpose.setdefault(purpose, {"calls": 0, "prompt_chars": 0, "prompt_tokens": 0,
                                                   "completion_tokens": 0, "cached": 0})
        row["calls"] += 1
        row["prompt_chars"] += prompt_chars
        row["prompt_tokens"] += prompt_tokens
        row["completion_tokens"] += completion_tokens

    def add_cached(self, purpose: str) -> None:
        self.cached += 1
        row = self.by_purpose.setdefault(purpose, {"calls": 0, "prompt_chars": 0, "prompt_tokens": 0,
                                                   "completion_tokens": 0, "cached": 0})
        row["cached"] += 1

    def merge(self, other: Usage) -> None:
        self.calls += other.calls
        self.cached += other.cached
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.prompt_chars += other.prompt_chars
        for purpose, row in other.by_purpose.items():
            mine = self.by_purpose.setdefault(purpose, dict.fromkeys(row, 0))
            for key, value in row.items():
                mine[key] = mine.get(key, 0) + value

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        """The inverse of :meth:`as_dict` (unknown keys are ignored)."""
        return cls(
            calls=int(data.get("calls", 0)),
            cached=int(data.get("cached", 0)),
            prompt_tokens=int(data.get("prompt_tokens", 0)),
            completion_tokens=int(data.get("completion_tokens", 0)),
            prompt_chars=int(data.get("prompt_chars", 0)),
            by_purpose={str(k): {str(a): int(b) for a, b in v.items()} for k, v in data.get("by_purpose", {}).items()},
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "cached": self.cached,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "prompt_chars": self.prompt_chars,
            "by_purpose": {k: dict(v) for k, v in self.by_purpose.items()},
        }
