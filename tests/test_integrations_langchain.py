"""The LangChain retriever and the memory tools, against the real
langchain-core and langgraph, with LangChain's own fake chat model driving a
small LangGraph agent (no key, no network)."""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langgraph")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langgraph.graph import START, MessagesState, StateGraph  # noqa: E402
from langgraph.prebuilt import ToolNode, tools_condition  # noqa: E402

from kronograph import AsyncMemory, KronographError, Memory  # noqa: E402
from kronograph.integrations import MemoryBinding  # noqa: E402
from kronograph.integrations.langchain import KronographRetriever, memory_tools  # noqa: E402

from .integrations_fixture import seeded_memory  # noqa: E402


class ToolCallingFakeModel(GenericFakeChatModel):
    """LangChain's fake chat model, which answers with the scripted messages
    (tool calls included) but has no ``bind_tools``: binding changes nothing."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFakeModel:
        return self


def scripted(*turns: AIMessage | str) -> ToolCallingFakeModel:
    return ToolCallingFakeModel(messages=iter(turns))


def call(name: str, call_id: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


def agent_graph(model: Any, tools: list[Any]) -> Any:
    """The graph docs/integrations.md shows: a model node and a ToolNode, looping until no tool is called."""
    bound = model.bind_tools(tools)

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()


@pytest.fixture
def memory() -> Iterator[Memory]:
    with seeded_memory() as memory:
        yield memory


def tool_answers(messages: list[Any]) -> dict[str, str]:
    return {m.tool_call_id: m.content for m in messages if isinstance(m, ToolMessage)}


# -- the retriever --------------------------------------------------------------------
def test_retriever_search_mode_sync_and_async(memory: Memory) -> None:
    retriever = KronographRetriever(memory=memory, group_id="alice", mode="search", k=5)
    docs = retriever.invoke("Alice Berlin")
    fact = next(d for d in docs if d.metadata["kind"] == "fact" and "Berlin" in d.page_content)
    assert fact.page_content == "Alice lives in Berlin (since 2023-01-01)"
    assert fact.id == fact.metadata["uuid"]
    assert fact.metadata["valid_at"] == "2023-01-01T00:00:00+00:00" and fact.metadata["invalid_at"] is None
    assert len(fact.metadata["episodes"]) == 1 and isinstance(fact.metadata["score"], float)
    assert {d.metadata["kind"] for d in docs} >= {"fact", "entity", "episode"}
    again = asyncio.run(retriever.ainvoke("Alice Berlin"))
    assert [d.id for d in again] == [d.id for d in docs]


def test_retriever_context_mode_gives_what_went_into_the_block(memory: Memory) -> None:
    query = "where does Alice work"
    retriever = KronographRetriever(memory=memory, group_id="alice", max_tokens=400)
    docs = retriever.invoke(query)
    block = memory.context("alice", query, max_tokens=400)
    went_in = {h.item.uuid for scope in (block.facts, block.entities, block.episodes) for h in scope}
    assert {d.id for d in docs} == went_in | {block.user.uuid}  # type: ignore[union-attr]
    assert "Alice works at Initech (since 2025-01-01)" in [d.page_content for d in docs]
    assert all(d.metadata["kind"] in ("fact", "entity", "episode") and d.metadata["uuid"] == d.id for d in docs)
    assert [d.id for d in asyncio.run(retriever.ainvoke(query))] == [d.id for d in docs]
    past = KronographRetriever(memory=memory, group_id="alice", as_of="2024-06-01").invoke(query)
    assert past and not any("Initech" in d.page_content or "2025" in d.page_content for d in past)


def test_retriever_never_leaves_its_group(memory: Memory) -> None:
    retriever = KronographRetriever(memory=memory, group_id="alice", mode="search")
    for query in ("Bob lives in Paris", "Globex"):
        assert all(d.metadata["group_id"] == "alice" for d in retriever.invoke(query))
        assert not any("Paris" in d.page_content or "Globex" in d.page_content for d in retriever.invoke(query))


def test_retriever_as_of(memory: Memory) -> None:
    before = KronographRetriever(memory=memory, group_id="alice", mode="search", as_of="2022-06-01")
    assert before.invoke("Alice Berlin") == []
    then = KronographRetriever(memory=memory, group_id="alice", mode="search", as_of="2023-06-01")
    assert "Alice lives in Berlin (since 2023-01-01)" in [d.page_content for d in then.invoke("Alice Berlin")]


def test_retriever_checks_its_settings(memory: Memory) -> None:
    with pytest.raises(ValueError, match="group_id: must not begin or end with white space"):
        KronographRetriever(memory=memory, group_id=" alice")
    with pytest.raises(ValueError, match="mode"):
        KronographRetriever(memory=memory, group_id="alice", mode="nearest")
    with pytest.raises(ValueError, match="as_of"):
        KronographRetriever(memory=memory, group_id="alice", as_of="someday")
    with pytest.raises(ValueError, match="query: must not be empty"):
        KronographRetriever(memory=memory, group_id="alice", mode="search").invoke("  ")


def test_retriever_over_async_memory(tmp_path: Path) -> None:
    async def main() -> None:
        async with AsyncMemory(tmp_path / "m.db", model=None) as memory:
            await memory.add_episode("alice", "Alice lives in Lisbon.", kind="text")
            retriever = KronographRetriever(memory=memory, group_id="alice", mode="search")
            docs = await retriever.ainvoke("Lisbon")
            assert docs[0].page_content.startswith("Alice lives in Lisbon (since ")
            block = await KronographRetriever(memory=memory, group_id="alice").ainvoke("where does Alice live")
            assert docs[0].page_content in [d.page_content for d in block]
            with pytest.raises(KronographError, match="call it asynchronously"):
                retriever.invoke("Lisbon")

    asyncio.run(main())


# -- the tools ------------------------------------------------------------------------
def test_tools_are_named_described_and_never_take_a_group(memory: Memory) -> None:
    tools = memory_tools(memory, "alice")
    assert [t.name for t in tools] == ["remember", "recall", "get_context"]
    assert "first" in tools[2].description
    for tool in tools:
        assert "group_id" not in tool.tool_call_schema.model_json_schema()["properties"]
        assert tool.args_schema.model_json_schema()["additionalProperties"] is False  # type: ignore[union-attr]
    recall = tools[1]
    answer = recall.invoke({"query": "Bob", "group_id": "bob"})
    assert answer == "group_id: Extra inputs are not permitted"
    assert "Bob" not in recall.invoke({"query": "Bob lives in Paris"}).replace("'Bob lives in Paris'", "")


def test_tools_answer_bad_arguments_to_the_model(memory: Memory) -> None:
    remember, recall, _ = memory_tools(memory, "alice", as_of="2025-01-01")
    assert remember.invoke({"content": ""}) == "content: String should have at least 1 character"
    assert recall.invoke({"query": "Alice", "limit": 0}) == "limit: Input should be greater than or equal to 1"
    assert recall.invoke({"query": "Alice", "as_of": "yesterday"}).startswith("as_of: not a datetime")
    assert recall.invoke({"query": "Alice", "as_of": "2026-01-01"}).startswith("as_of: must not be after 2025-01-01")
    assert recall.invoke({"query": "   "}) == "query: must not be empty"


def test_memory_tools_take_a_binding(memory: Memory) -> None:
    binding = MemoryBinding(memory, "alice", recall_limit=1)
    tools = memory_tools(binding)
    assert tools[1].invoke({"query": "Alice"}).count("\n- ") <= 3
    with pytest.raises(ValueError, match="group_id"):
        memory_tools(binding, "bob")
    with pytest.raises(ValueError, match="group_id: required"):
        memory_tools(memory)


def test_a_langgraph_agent_remembers_and_recalls(memory: Memory) -> None:
    model = scripted(
        call("get_context", "c0", query="Where does Alice work?"),
        call("remember", "c1", content="Alice adopted a cat named Miso.", when="2024-06-09"),
        call("recall", "c2", query="What is the name of Alice's cat?"),
        call("recall", "c3", query="Bob", group_id="bob"),  # a model cannot reach another group
        "Alice's cat is called Miso.",
    )
    block = memory.context("alice", "Where does Alice work?").text  # before the agent adds to the memory
    graph = agent_graph(model, memory_tools(memory, "alice"))
    out = graph.invoke({"messages": [HumanMessage("Remember that I adopted Miso, then tell me my cat's name.")]})
    answers = tool_answers(out["messages"])
    assert answers["c0"] == block
    assert "Alice works at Initech (since 2025-01-01" in answers["c0"]
    assert answers["c1"].startswith("Saved as episode ")
    assert "Miso" in answers["c2"] and "[ep …" in answers["c2"]
    assert answers["c3"] == "group_id: Extra inputs are not permitted"
    assert out["messages"][-1].content == "Alice's cat is called Miso."
    saved = answers["c1"].split()[3].rstrip(".")
    assert memory.episode("alice", saved).reference_time == datetime(2024, 6, 9, tzinfo=UTC)
    assert all("Miso" not in (e.content or "") for e in memory.episodes("bob"))


def test_a_langgraph_agent_over_async_memory(tmp_path: Path) -> None:
    async def main() -> list[Any]:
        async with AsyncMemory(tmp_path / "m.db", model=None) as memory:
            model = scripted(
                call("remember", "c1", content="Alice moved to Lisbon in 2024."),
                call("recall", "c2", query="Where does Alice live?"),
                call("get_context", "c3", query="Where does Alice live?", as_of="2023-06-01"),
                "Lisbon.",
            )
            tools = memory_tools(memory, "alice")
            out = await agent_graph(model, tools).ainvoke({"messages": [HumanMessage("hi")]})
            with pytest.raises(KronographError, match="call it asynchronously"):  # blocking calls refused
                tools[1].invoke({"query": "Lisbon"})
            return out["messages"]  # type: ignore[no-any-return]

    answers = tool_answers(asyncio.run(main()))
    assert "Learned: Alice lives in Lisbon (since 2024-01-01)" in answers["c1"]
    assert "Alice lives in Lisbon (since 2024-01-01)" in answers["c2"]
    assert "Lisbon" not in answers["c3"]


def test_missing_framework_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "kronograph.integrations.langchain")
    monkeypatch.setitem(sys.modules, "langchain_core", None)  # importing it now fails
    with pytest.raises(ImportError, match=r"pip install 'kronograph\[integrations\]'"):
        importlib.import_module("kronograph.integrations.langchain")
