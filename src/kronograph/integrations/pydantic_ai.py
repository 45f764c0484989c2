"""Pydantic AI: the memory tools (``remember``, ``recall``, ``get_context``)
for an ``Agent``, as a toolset or a list of tools.

Needs ``pydantic-ai-slim`` (``pip install 'kronograph[integrations]'``)::

    from kronograph.integrations import MemoryBinding
    from kronograph.integrations.pydantic_ai import memory_toolset

    agent = Agent(model, toolsets=[memory_toolset(memory, "alice")])           # one group, bound here
    # or one agent for every user, the group bound per run by the developer:
    agent = Agent(model, deps_type=MemoryBinding, toolsets=[memory_toolset()])
    agent.run_sync("...", deps=MemoryBinding(memory, "alice"))

The group is the developer's: a tool's arguments never name it. A bad
argument (an empty query, a malformed date) goes back to the model as a
retry prompt; other errors are raised. The tools are async: over a sync
``Memory`` they run it in a worker thread, so ``run_sync`` and ``run`` both
work with either kind of memory.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..errors import InvalidInputError, KronographError
from ..memory import AsyncMemory
from ..sync import Memory
from ._binding import GET_CONTEXT, RECALL, REMEMBER, AsOf, Content, Limit, MemoryBinding, Query, When, bind
from ._require import require

require("pydantic_ai", "pydantic-ai-slim", __name__)

from pydantic_ai import ModelRetry, RunContext, Tool  # noqa: E402  (after the check that names the extra)
from pydantic_ai.toolsets import FunctionToolset  # noqa: E402

__all__ = ["memory_tools", "memory_toolset"]

T = TypeVar("T")


def _from_deps(deps: Any) -> MemoryBinding:
    if isinstance(deps, MemoryBinding):
        return deps
    found = getattr(deps, "memory_binding", None)
    if isinstance(found, MemoryBinding):
        return found
    raise KronographError(
        "kronograph memory tools made without a memory read it from the run's deps: pass "
        f"deps=MemoryBinding(memory, group_id), or deps with a memory_binding attribute (got {type(deps).__name__})"
    )


async def _answer(work: Callable[[], Awaitable[T]]) -> T:
    """A bad argument becomes a retry prompt for the model; nothing else is caught."""
    try:
        return await work()
    except InvalidInputError as exc:
        raise ModelRetry(str(exc)) from exc


def memory_tools(
    memory: Memory | AsyncMemory | MemoryBinding | None = None, group_id: str | None = None, **options: Any
) -> list[Tool[Any]]:
    """The tools ``remember``, ``recall`` and ``get_context`` for
    ``Agent(tools=...)``: over ``memory`` bound to ``group_id`` (``options``
    as :class:`MemoryBinding` takes them), over a ``MemoryBinding``, or, with
    no memory, over each run's ``deps`` (a ``MemoryBinding``, or an object
    with a ``memory_binding`` attribute holding one)."""
    fixed = None if memory is None and group_id is None and not options else bind(memory, group_id, options)

    def binding(ctx: RunContext[Any]) -> MemoryBinding:
        return fixed if fixed is not None else _from_deps(ctx.deps)

    async def remember(ctx: RunContext[Any], content: Content, when: When = None) -> str:
        return await _answer(lambda: binding(ctx).aremember(content, when))

    async def recall(ctx: RunContext[Any], query: Query, limit: Limit = None, as_of: AsOf = None) -> str:
        return await _answer(lambda: binding(ctx).arecall(query, limit, as_of))

    async def get_context(ctx: RunContext[Any], query: Query, as_of: AsOf = None) -> str:
        return await _answer(lambda: binding(ctx).aget_context(query, as_of))

    return [
        Tool(remember, takes_ctx=True, description=REMEMBER),
        Tool(recall, takes_ctx=True, description=RECALL),
        Tool(get_context, takes_ctx=True, description=GET_CONTEXT),
    ]


def memory_toolset(
    memory: Memory | AsyncMemory | MemoryBinding | None = None, group_id: str | None = None, **options: Any
) -> FunctionToolset[Any]:
    """:func:`memory_tools` as a toolset, for ``Agent(toolsets=[...])``."""
    return FunctionToolset(memory_tools(memory, group_id, **options), id="kronograph-memory")
