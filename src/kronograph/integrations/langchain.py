"""LangChain and LangGraph: a retriever over a group's memory, and the memory
tools (``remember``, ``recall``, ``get_context``) a LangGraph agent calls.

Needs ``langchain-core`` (``pip install 'kronograph[integrations]'``)::

    from kronograph.integrations.langchain import KronographRetriever, memory_tools

    retriever = KronographRetriever(memory=memory, group_id="alice")         # documents of memory.context
    docs = retriever.invoke("where does Alice live?")
    tools = memory_tools(memory, "alice")                                     # for ToolNode / create_react_agent

The group is bound here by the developer; no tool argument can name another.
A tool's bad argument (an empty query, a malformed date) goes back to the
model as the tool's answer, so it can try again; other errors are raised.
Over an ``AsyncMemory`` use the async calls (``ainvoke``, ``astream``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError

from ..errors import InvalidInputError
from ..memory import AsyncMemory
from ..sync import Memory
from ._binding import GET_CONTEXT, RECALL, REMEMBER, AsOf, Content, Limit, MemoryBinding, Query, When, bind
from ._pieces import Piece
from ._require import require

require("langchain_core", "langchain-core", __name__)

from langchain_core.callbacks import (  # noqa: E402  (after the check that names the extra)
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402
from langchain_core.tools import BaseTool, StructuredTool, ToolException  # noqa: E402

__all__ = ["KronographRetriever", "memory_tools", "to_document"]


def to_document(piece: Piece) -> Document:
    """A LangChain document of one fact, entity or episode: its text, and
    metadata ``kind``, ``uuid``, ``score``, for facts ``valid_at`` /
    ``invalid_at`` and ``episodes`` (the source episode ids)."""
    return Document(page_content=piece.text, metadata=dict(piece.metadata), id=piece.uuid)


class KronographRetriever(BaseRetriever):
    """Documents from a group's memory for a query: one per fact, entity and
    episode that went into its context block (``mode="context"``, within
    ``max_tokens``), or per search hit (``mode="search"``, ``k`` of each
    scope). ``memory`` is a ``Memory`` (sync and async calls) or an
    ``AsyncMemory`` (async calls only); ``as_of`` / ``known_at`` read the
    memory as of then."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Memory | AsyncMemory
    group_id: str
    mode: Literal["context", "search"] = "context"
    as_of: datetime | str | None = None
    known_at: datetime | str | None = None
    max_tokens: int = 1000
    k: int = 10
    scopes: tuple[str, ...] | None = None

    _binding: MemoryBinding = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        self._binding = MemoryBinding(self.memory, self.group_id, as_of=self.as_of, known_at=self.known_at,
                                      max_tokens=self.max_tokens)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        found = self._binding.documents(query, mode=self.mode, limit=self.k, scopes=self.scopes)
        return [to_document(p) for p in found]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        found = await self._binding.adocuments(query, mode=self.mode, limit=self.k, scopes=self.scopes)
        return [to_document(p) for p in found]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a stray argument (a group_id) is refused, not ignored


class RememberArgs(_Args):
    content: Content
    when: When = None


class RecallArgs(_Args):
    query: Query
    limit: Limit = None
    as_of: AsOf = None


class ContextArgs(_Args):
    query: Query
    as_of: AsOf = None


def _invalid(exc: ValidationError) -> str:
    """A tool call's bad arguments, named, for the model to correct."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors())


def _tool(
    name: str, description: str, schema: type[BaseModel], run: Callable[..., str],
    arun: Callable[..., Awaitable[str]],
) -> StructuredTool:
    """A tool whose bad arguments answer the model instead of failing the run."""

    def call(**kwargs: Any) -> str:
        try:
            return run(**kwargs)
        except InvalidInputError as exc:
            raise ToolException(str(exc)) from exc

    async def acall(**kwargs: Any) -> str:
        try:
            return await arun(**kwargs)
        except InvalidInputError as exc:
            raise ToolException(str(exc)) from exc

    return StructuredTool.from_function(
        func=call, coroutine=acall, name=name, description=description, args_schema=schema, handle_tool_error=True,
        handle_validation_error=_invalid,
    )


def memory_tools(
    memory: Memory | AsyncMemory | MemoryBinding, group_id: str | None = None, **options: Any
) -> list[BaseTool]:
    """The LangChain tools ``remember``, ``recall`` and ``get_context`` over
    ``memory`` bound to ``group_id`` (or over a :class:`MemoryBinding`);
    ``options`` are the binding's (``as_of``, ``known_at``, ``max_tokens``,
    ``recall_limit``, ``actor``, ``source_description``)."""
    binding = bind(memory, group_id, options)
    return [
        _tool("remember", REMEMBER, RememberArgs, binding.remember, binding.aremember),
        _tool("recall", RECALL, RecallArgs, binding.recall, binding.arecall),
        _tool("get_context", GET_CONTEXT, ContextArgs, binding.get_context, binding.aget_context),
    ]

