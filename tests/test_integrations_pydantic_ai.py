"""The memory tools for a Pydantic AI agent, against the real pydantic-ai,
driven by its own offline models (TestModel, FunctionModel): no key, no network."""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from pydantic_ai.models.test import TestModel  # noqa: E402

from kronograph import AsyncMemory, KronographError, Memory  # noqa: E402
from kronograph.integrations import MemoryBinding  # noqa: E402
from kronograph.integrations.pydantic_ai import memory_tools, memory_toolset  # noqa: E402

from .integrations_fixture import seeded_memory  # noqa: E402


@pytest.fixture
def memory() -> Iterator[Memory]:
    with seeded_memory() as memory:
        yield memory


def scripted(*turns: list[tuple[str, dict[str, Any]]] | str) -> FunctionModel:
    """Pydantic AI's FunctionModel answering each request with the next turn:
    tool calls (name, arguments), or the final text."""
    script = iter(turns)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = next(script)
        if isinstance(turn, str):
            return ModelResponse(parts=[TextPart(turn)])
        return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"{name}-{i}-{len(messages)}")
                                    for i, (name, args) in enumerate(turn)])

    return FunctionModel(respond)


def returned(messages: list[ModelMessage]) -> list[tuple[str, str]]:
    """What the tools answered, in order: (tool, text) for returns and retry prompts."""
    out: list[tuple[str, str]] = []
    for message in messages:
        for part in getattr(message, "parts", ()):
            if isinstance(part, ToolReturnPart):  # a retry is one too, in this version, with outcome "retried"
                retried = getattr(part, "outcome", None) == "retried"
                out.append((part.tool_name, f"RETRY {part.content}" if retried else part.content))
            elif isinstance(part, RetryPromptPart) and part.tool_name:
                out.append((part.tool_name, f"RETRY {part.model_response()}"))
    return out


def test_test_model_calls_every_tool_with_valid_arguments(memory: Memory) -> None:
    agent = Agent(TestModel(call_tools=["remember", "recall"]), toolsets=[memory_toolset(memory, "alice")])
    result = agent.run_sync("hello")
    answers = dict(returned(result.all_messages()))
    assert answers["remember"].startswith("Saved as episode ")
    assert answers["recall"]


def test_tools_are_named_described_and_take_no_group(memory: Memory) -> None:
    tools = memory_tools(memory, "alice")
    assert [t.name for t in tools] == ["remember", "recall", "get_context"]
    assert "first" in tools[2].description  # type: ignore[operator]
    for tool in tools:
        schema = tool.tool_def.parameters_json_schema
        assert "group_id" not in schema["properties"] and schema["additionalProperties"] is False


def test_an_agent_remembers_and_recalls_in_its_group(memory: Memory) -> None:
    model = scripted(
        [("get_context", {"query": "Where does Alice work?", "as_of": "2024-06-01"})],
        [("remember", {"content": "Alice adopted a cat named Miso.", "when": "2024-06-09"})],
        [("recall", {"query": "What is the name of Alice's cat?"})],
        [("recall", {"query": "Bob", "group_id": "bob"})],  # a model cannot reach another group
        [("recall", {"query": "Alice", "as_of": "yesterday"}), ("recall", {"query": ""})],
        "Alice's cat is called Miso.",
    )
    agent = Agent(model, tools=memory_tools(memory, "alice"), retries=3)
    result = agent.run_sync("Remember that I adopted Miso, then tell me my cat's name.")
    assert result.output == "Alice's cat is called Miso."
    answers = returned(result.all_messages())
    assert answers[0][1] == memory.context("alice", "Where does Alice work?", as_of="2024-06-01").text
    assert "Acme Robotics" in answers[0][1] and "Initech" not in answers[0][1]
    assert answers[1][1].startswith("Saved as episode ")
    assert "Miso" in answers[2][1] and "[ep …" in answers[2][1]
    assert answers[3][1].startswith("RETRY") and "group_id" in answers[3][1]
    assert "as_of: not a datetime" in answers[4][1] and answers[4][1].startswith("RETRY")
    assert answers[5][1].startswith("RETRY") and "query" in answers[5][1]
    saved = answers[1][1].split()[3].rstrip(".")
    assert memory.episode("alice", saved).reference_time == datetime(2024, 6, 9, tzinfo=UTC)
    assert all("Miso" not in (e.content or "") for e in memory.episodes("bob"))


@dataclass
class Deps:
    memory_binding: MemoryBinding
    user: str


def test_one_agent_many_groups_bound_per_run_by_deps(memory: Memory) -> None:
    agent = Agent(scripted([("recall", {"query": "where does Alice live"})], "done",
                           [("recall", {"query": "where does Alice live"})], "done"),
                  deps_type=MemoryBinding, toolsets=[memory_toolset()])
    alice = returned(agent.run_sync("?", deps=MemoryBinding(memory, "alice")).all_messages())
    bob = returned(agent.run_sync("?", deps=MemoryBinding(memory, "bob")).all_messages())
    assert "Alice lives in Berlin" in alice[0][1]
    assert "Berlin" not in bob[0][1]
    other = Agent(scripted([("recall", {"query": "Paris"})], "done"), deps_type=Deps, tools=memory_tools())
    via_attribute = returned(other.run_sync("?", deps=Deps(MemoryBinding(memory, "bob"), "bob")).all_messages())
    assert "Bob lives in Paris" in via_attribute[0][1]


def test_tools_without_a_memory_need_deps_that_bind_one(memory: Memory) -> None:
    agent = Agent(scripted([("recall", {"query": "Alice"})], "done"), tools=memory_tools())
    with pytest.raises(KronographError, match="deps=MemoryBinding"):
        agent.run_sync("?", deps={"group_id": "alice"})


def test_an_agent_over_async_memory(tmp_path: Path) -> None:
    async def main() -> list[tuple[str, str]]:
        async with AsyncMemory(tmp_path / "m.db", model=None) as memory:
            model = scripted([("remember", {"content": "Alice moved to Lisbon in 2024."})],
                             [("recall", {"query": "Where does Alice live?"})],
                             [("get_context", {"query": "Where does Alice live?"})], "Lisbon.")
            result = await Agent(model, toolsets=[memory_toolset(memory, "alice")]).run("hi")
            return returned(result.all_messages())

    answers = asyncio.run(main())
    assert "Learned: Alice lives in Lisbon (since 2024-01-01)" in answers[0][1]
    assert "Alice lives in Lisbon (since 2024-01-01)" in answers[1][1]
    assert answers[2][0] == "get_context" and "Alice lives in Lisbon (since 2024-01-01)" in answers[2][1]


def test_a_sync_memory_from_an_async_run(memory: Memory) -> None:
    async def main() -> list[tuple[str, str]]:
        agent = Agent(scripted([("recall", {"query": "Berlin"})], "ok"), toolsets=[memory_toolset(memory, "alice")])
        return returned((await agent.run("?")).all_messages())

    assert "Alice lives in Berlin" in asyncio.run(main())[0][1]


def test_bad_binding_options_are_named(memory: Memory) -> None:
    with pytest.raises(ValueError, match="group_id: required"):
        memory_tools(memory)
    with pytest.raises(ValueError, match="recall_limit"):
        memory_toolset(memory, "alice", recall_limit=0)
    with pytest.raises(ValueError, match="bound already"):
        memory_toolset(MemoryBinding(memory, "alice"), "bob")


def test_missing_framework_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "kronograph.integrations.pydantic_ai")
    monkeypatch.setitem(sys.modules, "pydantic_ai", None)  # importing it now fails
    with pytest.raises(ImportError, match=r"pip install 'kronograph\[integrations\]'"):
        importlib.import_module("kronograph.integrations.pydantic_ai")
