"""Issue 14 through MCP: ``add_memory`` given a conversation's ``messages``
(with ``thread`` and ``user_name``) and ``get_user``, through the SDK's
in-process client (which checks every result against the tool's output schema)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client

from kronograph import AsyncMemory
from kronograph.server.limits import Limits
from kronograph.server.mcp_server import build_mcp_server
from kronograph.server.mcp_tools import Access

CHAT = [
    {"role": "user", "content": "Hi, I'm Sam. I work at Northwind.", "created_at": "2024-01-05T10:00:00Z"},
    {"role": "assistant", "content": "Nice to meet you! Do you like Northwind?", "created_at": "2024-01-05T10:01:00Z"},
    {"role": "user", "content": "I live in Lisbon.", "created_at": "2024-01-06T09:00:00Z", "id": "m3"},
]

Run = Callable[[Client, AsyncMemory], Awaitable[None]]


def _serve(work: Run, access: Access | None = None) -> None:
    async def run() -> None:
        async with AsyncMemory(":memory:", model=None) as memory:
            server = build_mcp_server(memory, access=access or Access.local(["g"]), limits=Limits(max_content=500))
            async with Client(server) as client:
                await work(client, memory)

    asyncio.run(run())


async def _ok(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def _refused(client: Client, arguments: dict[str, Any]) -> str:
    result = await client.call_tool("add_memory", arguments)
    assert result.is_error, result.structured_content
    return result.content[0].text  # type: ignore[union-attr]


def test_add_memory_takes_a_conversation_and_get_user_shows_its_user() -> None:
    async def work(client: Client, memory: AsyncMemory) -> None:
        empty = await client.call_tool("get_user", {})
        assert "has no user" in empty.content[0].text  # type: ignore[union-attr]
        out = await _ok(client, "add_memory", {"messages": CHAT, "thread": "chat-1", "user_name": "Sam Carter"})
        assert [m["status"] for m in out["messages"]] == ["complete"] * 3
        assert out["episode_id"] == "m3" and out["status"] == "complete"
        assert {(f["subject"], f["object"]) for f in out["created"]} == {
            ("Sam Carter", "Northwind"), ("Sam Carter", "Lisbon")}
        assert out["messages"][1]["created"] == 0 and out["messages"][1]["notes"]  # the assistant's question
        episodes = await memory.episodes("g")
        assert [(e.speaker, e.role, e.saga, e.actor) for e in episodes] == [
            ("Sam Carter", "user", "chat-1", "mcp"), ("Assistant", "assistant", "chat-1", "mcp"),
            ("Sam Carter", "user", "chat-1", "mcp")]
        assert episodes[0].reference_time.isoformat().startswith("2024-01-05T10:00")

        user = await _ok(client, "get_user", {})
        assert user["user_name"] == "Sam Carter" and user["user"]["name"] == "Sam Carter"
        assert "Sam" in user["user"]["aliases"]
        assert sorted(f["object"] for f in user["facts"]) == ["Lisbon", "Northwind"]
        text = (await client.call_tool("get_user", {})).content[0].text  # type: ignore[union-attr]
        assert "the user of group 'g': Sam Carter" in text and "Lisbon" in text

        # The user's name is kept: a later call may leave it out.
        later = await _ok(client, "add_memory", {"messages": [{"role": "user", "content": "I moved to Porto."}],
                                                 "thread": "chat-1"})
        assert [(f["subject"], f["object"]) for f in later["created"]] == [("Sam Carter", "Porto")]
        assert [f["object"] for f in later["retired"]] == ["Lisbon"]
        again = await _ok(client, "add_memory", {"messages": [CHAT[2]]})
        assert again["duplicate"] and again["messages"][0]["duplicate"]

        # One episode still works as before, and its speaker shows in get_episodes.
        one = await _ok(client, "add_memory", {"content": "Bo works at Initech.", "episode_id": "e1"})
        assert one["episode_id"] == "e1" and "messages" not in one
        shown = await _ok(client, "get_episodes", {"episode_ids": ["m3"]})
        assert (shown["episodes"][0]["speaker"], shown["episodes"][0]["role"]) == ("Sam Carter", "user")

    _serve(work)


def test_a_bad_call_names_what_is_wrong_and_stores_nothing() -> None:
    async def work(client: Client, memory: AsyncMemory) -> None:
        good = {"role": "user", "content": "I live in Oslo."}
        for arguments, words in [
            ({"messages": [good, good, good, {"role": "", "content": "x"}]}, "messages[3].role"),
            ({"messages": [good, {"content": "x"}]}, "messages[1].role: is required"),
            ({"messages": [good, {"role": "user", "content": "x" * 501}]}, "messages[1].content"),
            ({"messages": [good], "content": "Ann lives in Rome."}, "not both"),
            ({"messages": [good], "saga": "s"}, "saga: not with messages"),
            ({"messages": [good], "episode_id": "e9"}, "episode_id: not with messages"),
            ({"messages": [good], "kind": "text"}, "kind"),
            ({"messages": [good], "user_name": " Zed"}, "user_name"),
            ({"messages": []}, "messages"),
            ({"content": "Ann lives in Rome.", "user_name": "Zed"}, "user_name: goes with messages"),
            ({"content": "Ann lives in Rome.", "thread": "t"}, "thread: goes with messages"),
            ({}, "give content"),
        ]:
            assert words in await _refused(client, {**arguments}), arguments
        assert await memory.episodes("g") == [] and (await memory.settings("g")).user_name is None

    _serve(work)


def test_another_group_reads_as_no_group() -> None:
    async def work(client: Client, memory: AsyncMemory) -> None:
        assert "no group 'h'" in await _refused(client, {"group_id": "h", "messages": CHAT, "user_name": "Eve"})
        result = await client.call_tool("get_user", {"group_id": "h"})
        assert result.is_error and "no group 'h'" in result.content[0].text  # type: ignore[union-attr]
        assert await memory.groups() == []

    _serve(work)
