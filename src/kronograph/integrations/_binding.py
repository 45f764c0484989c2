"""A memory bound to one group by the developer, and what an agent does with
it: remember, recall, get the context block, and documents for a retriever,
each blocking and async. The framework adapters only wrap these, so every
framework gets the same checks and the same answers; the group is fixed
here, never taken from a model's arguments.

Over a sync ``Memory`` the async calls run it in a worker thread (the event
loop is never blocked); over an ``AsyncMemory`` they await it, and the
blocking calls refuse, since driving an async memory from a second event
loop is not safe: bind a ``Memory`` where a framework calls tools blocking.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import Field

from .. import checks
from .._arguments import TimeLike, _time
from .._context import MAX_TOKENS_RANGE
from ..errors import InvalidInputError, KronographError
from ..ingest.episode_input import actor_text
from ..memory import AsyncMemory
from ..sync import Memory
from ._pieces import Piece, View, pieces, recall_text, remembered_text

__all__ = [
    "AsOf",
    "Content",
    "GET_CONTEXT",
    "Limit",
    "MemoryBinding",
    "Query",
    "RECALL",
    "REMEMBER",
    "When",
    "bind",
]

T = TypeVar("T")

CONTENT_MAX = 20_000  # characters a model may ask to remember in one call
QUERY_MAX = 2_000
RECALL_MAX = 25  # items of each kind one recall may ask for

# The tools' wording and arguments, one source for every framework.
REMEMBER = (
    "Save something worth remembering to long-term memory: a fact, preference, plan or event about the user or "
    "the conversation, in one or a few plain sentences that name who it is about. Returns what was learned."
)
RECALL = (
    "Search long-term memory for a question or topic. Returns dated facts (with the episodes they came from), "
    "the people, places and things involved, and excerpts of past conversations."
)
GET_CONTEXT = (
    "Get the memory block for a question or topic: what is true now with its dates, what changed, who is "
    "involved and relevant past excerpts, citing source episodes. Call this first, before answering anything "
    "that may depend on what you know about the user or earlier conversations."
)
Content = Annotated[str, Field(min_length=1, max_length=CONTENT_MAX, description="What to remember, in plain words")]
When = Annotated[str | None, Field(
    description="When it happened or was said, as an ISO 8601 date or time (naive is UTC); leave out for now")]
Query = Annotated[str, Field(min_length=1, max_length=QUERY_MAX, description="The question or topic")]
Limit = Annotated[int | None, Field(ge=1, le=RECALL_MAX, description="At most this many items of each kind")]
AsOf = Annotated[str | None, Field(
    description="Answer as things stood at this ISO 8601 date or time; leave out for now")]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _model_time(field: str, value: Any) -> datetime | None:
    """A time from a model's arguments: ISO 8601, a date alone read as its start (UTC)."""
    if isinstance(value, str) and _DATE.fullmatch(value.strip()):
        value = value.strip() + "T00:00:00"
    return _time(field, value)


def _bounded_text(field: str, value: Any, limit: int) -> str:
    out = checks.text(field, value)
    if len(out) > limit:
        raise InvalidInputError(field, f"must be at most {limit} characters, got {len(out)}")
    return out


@dataclass(frozen=True, slots=True)
class _Call(Generic[T]):
    """One memory method to call, and what to make of its answer."""

    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    finish: Callable[[Any], T]


class MemoryBinding:
    """A ``Memory`` or ``AsyncMemory`` bound to ``group_id``, for an agent.

    ``as_of`` / ``known_at``: every read is as of then (a model may ask for an
    earlier ``as_of``, never a later one). ``max_tokens``: the context block's
    budget; ``recall_limit``: items of each kind a recall returns by default.
    What ``remember`` saves is a ``text`` episode filed by ``actor`` with
    ``source_description``. Arguments are checked here: a bad one raises
    ``InvalidInputError`` naming it."""

    __slots__ = ("memory", "group_id", "as_of", "known_at", "max_tokens", "recall_limit", "actor",
                 "source_description")

    def __init__(
        self,
        memory: Memory | AsyncMemory,
        group_id: str,
        *,
        as_of: TimeLike | None = None,
        known_at: TimeLike | None = None,
        max_tokens: int = 1000,
        recall_limit: int = 5,
        actor: str | None = "agent",
        source_description: str = "remembered by an agent",
    ) -> None:
        if not isinstance(memory, Memory | AsyncMemory):
            raise InvalidInputError("memory", f"expected a Memory or an AsyncMemory, got {type(memory).__name__}")
        self.memory = memory
        self.group_id: str = checks.identifier("group_id", group_id)  # type: ignore[assignment]
        self.as_of = _time("as_of", as_of)
        self.known_at = _time("known_at", known_at)
        self.max_tokens: int = checks.count("max_tokens", max_tokens, minimum=MAX_TOKENS_RANGE[0])  # type: ignore[assignment]
        if self.max_tokens > MAX_TOKENS_RANGE[1]:
            raise InvalidInputError("max_tokens", f"must be at most {MAX_TOKENS_RANGE[1]}, got {max_tokens}")
        self.recall_limit: int = checks.count("recall_limit", recall_limit)  # type: ignore[assignment]
        if self.recall_limit > RECALL_MAX:
            raise InvalidInputError("recall_limit", f"must be at most {RECALL_MAX}, got {recall_limit}")
        self.actor = actor_text("actor", actor)
        self.source_description: str = _bounded_text("source_description", source_description, checks.NAME_MAX)

    def __repr__(self) -> str:
        return f"MemoryBinding({type(self.memory).__name__}, group_id={self.group_id!r})"

    @property
    def is_async(self) -> bool:
        """True over an ``AsyncMemory``: only the async calls work."""
        return isinstance(self.memory, AsyncMemory)

    # -- what each call asks of the memory --------------------------------------
    def _as_of(self, value: Any) -> datetime | None:
        asked = _model_time("as_of", value)
        if asked is None:
            return self.as_of
        if self.as_of is not None and asked > self.as_of:
            raise InvalidInputError("as_of", f"must not be after {self.as_of.isoformat()}, the time this memory is "
                                             "bound to")
        return asked

    def _view(self, as_of: datetime | None) -> View:
        """Things are told as of ``as_of``, else ``known_at``, else now."""
        moment = as_of or self.known_at
        return View(moment or datetime.now(UTC), moment is not None)

    def _remember(self, content: Any, when: Any) -> _Call[str]:
        text = _bounded_text("content", content, CONTENT_MAX)
        return _Call("add_episode", (self.group_id, text), {
            "kind": "text", "reference_time": _model_time("when", when),
            "source_description": self.source_description, "actor": self.actor,
        }, remembered_text)

    def _recall(self, query: Any, limit: Any, as_of: Any) -> _Call[str]:
        text = _bounded_text("query", query, QUERY_MAX)
        n = self.recall_limit if limit is None else checks.count("limit", limit)
        if n > RECALL_MAX:
            raise InvalidInputError("limit", f"must be at most {RECALL_MAX}, got {n}")
        when = self._as_of(as_of)
        return _Call("search", (self.group_id, text), {
            "scopes": ("facts", "entities", "episodes"), "limit": n, "as_of": when, "known_at": self.known_at,
        }, lambda found: recall_text(text, found, self._view(when)))

    def _context(self, query: Any, as_of: Any) -> _Call[str]:
        text = _bounded_text("query", query, QUERY_MAX)
        return _Call("context", (self.group_id, text), {
            "as_of": self._as_of(as_of), "known_at": self.known_at, "max_tokens": self.max_tokens,
        }, lambda block: block.text or f"Nothing in memory about {text!r}.")

    def _documents(self, query: Any, mode: Any, limit: Any, scopes: Iterable[str] | None) -> _Call[list[Piece]]:
        text = _bounded_text("query", query, QUERY_MAX)
        kwargs: dict[str, Any] = {"as_of": self.as_of, "known_at": self.known_at}
        if scopes is not None:
            kwargs["scopes"] = tuple(scopes)
        view = self._view(self.as_of)
        if mode == "context":
            return _Call("context", (self.group_id, text), {**kwargs, "max_tokens": self.max_tokens},
                         lambda block: pieces(block, view))
        if mode == "search":
            return _Call("search", (self.group_id, text), {**kwargs, "limit": limit},
                         lambda found: pieces(found, view))
        raise InvalidInputError("mode", f"expected 'context' or 'search', got {mode!r}")

    # -- running a call, blocking or awaited ---------------------------------------
    def _run(self, call: _Call[T]) -> T:
        if isinstance(self.memory, AsyncMemory):
            raise KronographError(
                f"{self!r} is bound to an AsyncMemory: call it asynchronously (ainvoke, astream, an async agent "
                "run), or bind a sync Memory for blocking calls"
            )
        return call.finish(getattr(self.memory, call.method)(*call.args, **call.kwargs))

    async def _arun(self, call: _Call[T]) -> T:
        method = getattr(self.memory, call.method)
        if isinstance(self.memory, AsyncMemory):
            found = await method(*call.args, **call.kwargs)
        else:  # a blocking memory: in a worker thread, never on the caller's event loop
            found = await asyncio.to_thread(method, *call.args, **call.kwargs)
        return call.finish(found)

    # -- the public calls ------------------------------------------------------------
    def remember(self, content: str, when: TimeLike | None = None) -> str:
        """Save ``content`` as a text episode of the group; returns a short
        account for a model (the episode id, the facts learned and retired)."""
        return self._run(self._remember(content, when))

    async def aremember(self, content: str, when: TimeLike | None = None) -> str:
        """:meth:`remember`, awaited."""
        return await self._arun(self._remember(content, when))

    def recall(self, query: str, limit: int | None = None, as_of: TimeLike | None = None) -> str:
        """Search the group; returns its facts (with dates and source
        episodes), entities and episode excerpts as short lines for a model."""
        return self._run(self._recall(query, limit, as_of))

    async def arecall(self, query: str, limit: int | None = None, as_of: TimeLike | None = None) -> str:
        """:meth:`recall`, awaited."""
        return await self._arun(self._recall(query, limit, as_of))

    def get_context(self, query: str, as_of: TimeLike | None = None) -> str:
        """The group's context block for ``query`` (``memory.context(...).text``)."""
        return self._run(self._context(query, as_of))

    async def aget_context(self, query: str, as_of: TimeLike | None = None) -> str:
        """:meth:`get_context`, awaited."""
        return await self._arun(self._context(query, as_of))

    def documents(
        self, query: str, *, mode: Literal["context", "search"] = "context", limit: int = 10,
        scopes: Iterable[str] | None = None,
    ) -> list[Piece]:
        """What a retriever returns, one :class:`Piece` per fact, entity and
        episode: those that went into the context block (``mode="context"``),
        or the search hits (``"search"``, ``limit`` of each kind)."""
        return self._run(self._documents(query, mode, limit, scopes))

    async def adocuments(
        self, query: str, *, mode: Literal["context", "search"] = "context", limit: int = 10,
        scopes: Iterable[str] | None = None,
    ) -> list[Piece]:
        """:meth:`documents`, awaited."""
        return await self._arun(self._documents(query, mode, limit, scopes))


def bind(memory: Any, group_id: str | None, options: dict[str, Any]) -> MemoryBinding:
    """What the adapters' factories take: a memory and its group (and the
    binding's options), or a :class:`MemoryBinding` made already."""
    if isinstance(memory, MemoryBinding):
        if group_id is not None or options:
            raise InvalidInputError("group_id", "the MemoryBinding is bound already: give it its group and options")
        return memory
    if group_id is None:
        raise InvalidInputError("group_id", "required: the group the tools read and write")
    return MemoryBinding(memory, group_id, **options)
