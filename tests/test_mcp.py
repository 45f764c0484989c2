"""The MCP server, through the official SDK's own clients: ``kronograph mcp``
over stdio (a subprocess, as a desktop agent starts it) lists its tools and
answers each one; over streamable HTTP, API keys decide the groups exactly as
for REST. Offline model, temporary SQLite files."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from typer.testing import CliRunner

from kronograph import AsyncMemory
from kronograph.cli import app
from kronograph.errors import InvalidInputError, NotFoundError
from kronograph.server.keys import KeyRing
from kronograph.server.mcp_server import build_mcp_server
from kronograph.server.mcp_tools import Access

KRONOGRAPH = str(Path(sys.executable).with_name("kronograph"))
TOOLS = {
    "add_memory", "search_facts", "search_entities", "get_episodes", "timeline", "conflicts", "get_fact",
    "delete_episode", "delete_fact", "summarize_saga", "list_groups", "get_events", "get_user", "get_context",
    "get_changes", "contradict", "get_contradictions", "set_tier", "add_fact", "get_facts", "forget", "get_erasures",
}


def _env() -> dict[str, str]:
    """No model key, no keys from the environment: the offline extractor, the keys the test gives."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("KRONOGRAPH_", "OPENAI", "ANTHROPIC", "GEMINI"))}


async def _call(session: ClientSession, name: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(name, arguments)
    assert not result.is_error, (name, result.content)
    assert result.content and result.content[0].type == "text" and result.content[0].text
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def _error(session: ClientSession, name: str, **arguments: Any) -> str:
    result: CallToolResult = await session.call_tool(name, arguments)
    assert result.is_error, (name, result.content)
    return result.content[0].text  # type: ignore[union-attr]


def _interval_and_sources(fact: dict[str, Any]) -> None:
    assert fact["valid_at"] and isinstance(fact["retired"], bool) and fact["episodes"], fact
    for source in fact.get("sources", []):
        assert source["episode_id"] in fact["episodes"] and source["valid_at"], fact


# -- stdio: every tool, through the SDK's client, against the real command -------------------


async def _every_tool_over_stdio(db: Path) -> None:
    params = StdioServerParameters(command=KRONOGRAPH, args=["mcp", "--db", str(db), "--offline", "-g", "team", "-g",
                                                             "side"], env=_env())
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = (await session.list_tools()).tools
        assert {t.name for t in listed} == TOOLS
        for tool in listed:  # each says when to use it, and what it returns
            assert len(tool.description or "") > 80 and tool.output_schema, tool.name
        search = next(t for t in listed if t.name == "search_facts")
        assert {"group_id", "query", "as_of", "known_at", "include_retired", "limit"} <= set(
            search.input_schema["properties"]
        )

        groups = await _call(session, "list_groups")
        assert groups["groups"] == ["side", "team"] and groups["default_group"] == "team"

        first = await _call(session, "add_memory", content="Alice works at Acme since 2023.",
                            reference_time="2024-01-01", saga="standup", episode_id="ep-1")
        assert first["status"] == "complete" and first["group_id"] == "team"
        acme = next(f for f in first["created"] if f["object"] == "Acme")
        second = await _call(session, "add_memory", content="Alice left Acme in 2024 and now works at Initech.",
                             reference_time="2024-06-01", saga="standup", episode_id="ep-2")
        assert [f["uuid"] for f in second["retired"]] == [acme["uuid"]]
        again = await _call(session, "add_memory", content="Alice left Acme in 2024 and now works at Initech.",
                            episode_id="ep-2")
        assert again["duplicate"]

        now = await _call(session, "search_facts", query="Alice works at")
        assert "Initech" in {f["object"] for f in now["facts"]} and acme["uuid"] not in {
            f["uuid"] for f in now["facts"]}
        every = await _call(session, "search_facts", query="Alice works at", include_retired=True, limit=20)
        old = next(f for f in every["facts"] if f["uuid"] == acme["uuid"])
        assert old["retired"] and old["valid_at"].startswith("2023-01-01") and old["invalid_at"].startswith("2024")
        assert old["episodes"] == ["ep-1"] and old["sources"][0]["time_expression"] == "since 2023"
        for fact in every["facts"]:
            _interval_and_sources(fact)
        then = await _call(session, "search_facts", query="Alice works at", as_of="2023-06-01")
        assert [f["object"] for f in then["facts"] if f["relation"] == "WORKS_AT"] == ["Acme"]

        entities = await _call(session, "search_entities", query="Alice")
        assert entities["entities"][0]["name"] == "Alice"

        episodes = await _call(session, "get_episodes", episode_ids=["ep-1", "nope"])
        assert [e["episode_id"] for e in episodes["episodes"]] == ["ep-1"] and episodes["not_found"] == ["nope"]
        assert episodes["episodes"][0]["content"] == "Alice works at Acme since 2023."
        assert episodes["episodes"][0]["actor"] == "mcp"
        latest = await _call(session, "get_episodes", limit=1, max_chars=5)
        assert [e["episode_id"] for e in latest["episodes"]] == ["ep-2"] and latest["episodes"][0]["truncated"]

        timeline = await _call(session, "timeline", entity="alice", relation="WORKS_AT")
        assert [f["object"] for f in timeline["facts"]] == ["Acme", "Initech"]
        for fact in timeline["facts"]:
            _interval_and_sources(fact)

        happened = await _call(session, "get_events", entity="Alice")  # leaving is an event, not a current fact
        assert [(f["relation"], f["event"]) for f in happened["facts"]] == [("LEFT", True)]
        assert "LEFT" not in {f["relation"] for f in now["facts"]}

        slot = await _call(session, "conflicts", fact_uuid=acme["uuid"])
        assert acme["uuid"] in {f["uuid"] for f in slot["slot"]} and len(slot["slot"]) >= 2
        assert "pairs" in await _call(session, "conflicts")

        detail = await _call(session, "get_fact", fact_uuid=acme["uuid"])
        assert detail["fact"]["sources"][0]["episode_id"] == "ep-1"
        assert [h["cause"] for h in detail["history"]][0] and len(detail["history"]) >= 2

        saga = await _call(session, "summarize_saga", saga="standup")
        assert saga["episodes"] == 2 and "Initech" in saga["summary"] and saga["covered_to"].startswith("2024-06-01")

        initech = next(f for f in second["created"] if f["object"] == "Initech")
        removed = await _call(session, "delete_fact", fact_uuid=initech["uuid"])
        assert removed["deleted_facts"] == [initech["uuid"]]
        assert "no fact" in await _error(session, "get_fact", fact_uuid=initech["uuid"])
        gone = await _call(session, "delete_episode", episode_id="ep-2")
        assert acme["uuid"] in {f["uuid"] for f in gone["restored_or_changed"]}  # what only ep-2 retired is back
        back = await _call(session, "search_facts", query="Alice works at")
        assert [f["object"] for f in back["facts"] if f["relation"] == "WORKS_AT"] == ["Acme"]
        assert (await _call(session, "get_episodes", episode_ids=["ep-2"]))["not_found"] == ["ep-2"]
        feed = await _call(session, "get_changes", since="2000-01-01", limit=100)  # what the memory went through
        seen = {(c["kind"], c["fact"]["object"]) for c in feed["changes"] if "fact" in c}
        assert {("learned", "Acme"), ("retired", "Acme"), ("removed", "Initech"), ("restored", "Acme")} <= seen

        # Bad input names the parameter; another group reads as no group at all.
        assert "as_of" in await _error(session, "search_facts", query="x", as_of="not a time")
        assert "limit" in await _error(session, "search_facts", query="x", limit=0)
        assert "include_retired" in await _error(session, "search_facts", query="x", include_retired="sure")
        assert "ep-404" in await _error(session, "delete_episode", episode_id="ep-404")
        assert "group_id: no group 'elsewhere'" in await _error(session, "search_facts", query="x",
                                                                  group_id="elsewhere")
        side = await _call(session, "add_memory", group_id="side", content="Bob lives in Paris.")
        assert side["group_id"] == "side"

        # A conversation, and its user (tests/test_mcp_messages.py has the details).
        chat = await _call(session, "add_memory", group_id="side", user_name="Dana", thread="chat",
                           messages=[{"role": "user", "content": "I work at Globex."},
                                     {"role": "assistant", "content": "Do you like Globex?"}])
        assert [m["status"] for m in chat["messages"]] == ["complete", "complete"]
        user = await _call(session, "get_user", group_id="side")
        assert user["user"]["name"] == "Dana" and [f["object"] for f in user["facts"]] == ["Globex"]


def test_an_sdk_client_lists_and_calls_every_tool_over_stdio(tmp_path: Path) -> None:
    asyncio.run(asyncio.wait_for(_every_tool_over_stdio(tmp_path / "memory.db"), 120))
    assert (tmp_path / "memory.db").exists()


# -- streamable HTTP: the same tools behind API keys -------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """``kronograph mcp --http`` on a free port with two keys: group A, group B."""
    ring = KeyRing()
    key_a, secret_a = ring.add("agent a", ["A"])
    _, secret_b = ring.add("agent b", ["B"])
    keys = tmp_path / "keys.json"
    ring.save(keys)
    port = _free_port()
    process = subprocess.Popen(
        [KRONOGRAPH, "mcp", "--http", "--db", str(tmp_path / "m.db"), "--offline", "--keys", str(keys),
         "--port", str(port)], env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.post(url, timeout=1)
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        yield url, {"A": secret_a, "B": secret_b, "A.id": key_a.id}
    finally:
        process.terminate()
        process.wait(10)


@asynccontextmanager
async def _http_session(url: str, headers: dict[str, str]) -> AsyncIterator[ClientSession]:
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def _keys_decide_the_groups(url: str, secrets: dict[str, str]) -> None:
    async with _http_session(url, {"X-API-Key": secrets["B"]}) as b:
        await _call(b, "add_memory", content="Carol works at Globex since 2022.", group_id="B")
    async with _http_session(url, {"Authorization": f"Bearer {secrets['A']}"}) as a:
        assert {t.name for t in (await a.list_tools()).tools} == TOOLS
        assert (await _call(a, "list_groups"))["groups"] == ["A"]
        added = await _call(a, "add_memory", content="Alice works at Acme since 2023.")  # A: the key's only group
        assert added["group_id"] == "A" and added["created"]
        filed = await _call(a, "get_episodes", episode_ids=[added["episode_id"]])
        assert filed["episodes"][0]["actor"] == "key:" + secrets["A.id"]  # the audit trail names the key, as REST does
        found = await _call(a, "search_facts", query="Alice Acme", group_id="A")
        _interval_and_sources(found["facts"][0])
        # B exists and holds Carol; to key A it reads exactly like a group that does not exist.
        on_b = await _error(a, "search_facts", query="Carol", group_id="B")
        on_nothing = await _error(a, "search_facts", query="Carol", group_id="Q")
        assert on_b == on_nothing.replace("'Q'", "'B'") and "Carol" not in on_b and "Globex" not in on_b
        for name, args in (("add_memory", {"content": "x"}), ("delete_episode", {"episode_id": "e"}),
                           ("timeline", {"entity": "Carol"}), ("summarize_saga", {"saga": "s"})):
            assert "no group 'B'" in await _error(a, name, group_id="B", **args)


def test_over_http_a_key_touches_only_its_groups(http_server: tuple[str, dict[str, str]]) -> None:
    url, secrets = http_server
    asyncio.run(asyncio.wait_for(_keys_decide_the_groups(url, secrets), 120))


def test_over_http_no_key_or_a_wrong_key_is_401(http_server: tuple[str, dict[str, str]]) -> None:
    url, _ = http_server
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    for extra in ({}, {"Authorization": "Bearer kg_wrong"}, {"X-API-Key": "kg_wrong"}):
        response = httpx.post(url, json=body, headers={**headers, **extra}, timeout=10)
        assert response.status_code == 401 and response.headers["www-authenticate"].startswith("Bearer")
        assert "tools" not in response.text


def test_the_endpoint_mounts_in_another_app_as_the_docs_say() -> None:
    """The REST service's way in: a Route to ``mcp.endpoint``, its lifespan entered by the host app."""
    from starlette.applications import Starlette
    from starlette.routing import Route

    from kronograph.server.mcp_server import mcp_http

    async def run() -> None:
        ring = KeyRing()
        _, secret = ring.add("a", ["A"])
        async with AsyncMemory(":memory:", model=None) as memory:
            mcp = mcp_http(memory, ring, host="0.0.0.0")
            host = Starlette(routes=[Route("/mcp", endpoint=mcp.endpoint, methods=["GET", "POST", "DELETE"])])
            headers = {"Accept": "application/json, text/event-stream", "X-API-Key": secret}
            call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "list_groups", "arguments": {}}}
            async with mcp.lifespan(), httpx.AsyncClient(transport=httpx.ASGITransport(app=host),
                                                         base_url="http://memory.example") as client:
                init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
                assert (await client.post("/mcp", json=init, headers=headers)).status_code == 200
                answer = await client.post("/mcp", json=call, headers={**headers, "Mcp-Protocol-Version": "2025-06-18"})
                assert answer.status_code == 200, answer.text
                assert answer.json()["result"]["structuredContent"]["groups"] == ["A"]
                assert (await client.post("/mcp", json=call)).status_code == 401

    asyncio.run(run())


# -- the rules, without a transport -------------------------------------------------------------


def test_access_local_and_group_checks() -> None:
    every = Access.local()
    assert every.everything and every.group(None) == "default" and every.group("x") == "x"
    some = Access.local(["a", "b", "a"])
    assert some.groups == {"a", "b"} and some.group(None) == "a"
    with pytest.raises(NotFoundError, match="no group 'c'"):
        some.group("c")
    with pytest.raises(InvalidInputError, match="group_id"):
        Access(groups=frozenset({"a", "b"})).group(None)


def test_in_process_server_reports_kronograph_errors_as_tool_errors() -> None:
    from mcp import Client

    async def run() -> None:
        async with AsyncMemory(":memory:", model=None) as memory:
            async with Client(build_mcp_server(memory, access=Access.local(["g"]))) as client:
                result = await client.call_tool("conflicts", {"fact_uuid": "missing"})
                assert result.is_error and "no fact 'missing'" in result.content[0].text  # type: ignore[union-attr]
                result = await client.call_tool("search_facts", {"query": "x", "as_of": "2024-01-01",
                                                                 "include_retired": True})
                assert result.is_error and result.content[0].text.startswith("as_of:")  # type: ignore[union-attr]

    asyncio.run(run())


def test_get_episodes_shows_who_holds_an_unfinished_episode_and_until_when() -> None:
    """As REST does (held_by, held_until): a held episode names its worker and
    its lease's end; a finished one, nobody."""
    from datetime import UTC, datetime, timedelta

    from mcp import Client

    async def run() -> None:
        async with AsyncMemory(":memory:", model=None) as memory:
            await memory.add_episode("g", "Bo works at Initech.", episode_id="done")
            await memory.enqueue_episode("g", "Ann works at Acme.", episode_id="m42")
            now = datetime.now(UTC)  # the memory's clock
            until = (now + timedelta(hours=1)).replace(microsecond=0)
            assert await memory.store.claim_queued("g", "web-1:4711:9f3c2a1b7d0e", until, now) is not None
            async with Client(build_mcp_server(memory, access=Access.local(["g"]))) as client:
                result = await client.call_tool("get_episodes", {"episode_ids": ["m42", "done"]})
                assert not result.is_error, result.content
                held, done = result.structured_content["episodes"]  # type: ignore[index]
                assert (held["status"], held["held_by"]) == ("received", "web-1:4711:9f3c2a1b7d0e")
                assert datetime.fromisoformat(held["held_until"]) == until
                assert (done["status"], done.get("held_by"), done.get("held_until")) == ("complete", None, None)
                text = result.content[0].text  # type: ignore[union-attr]
                assert f"held by web-1:4711:9f3c2a1b7d0e until {until.isoformat().replace('+00:00', 'Z')}" in text

    asyncio.run(run())


# -- the command line's refusals ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--http"], "no API keys"),
        (["--http", "--local", "--host", "0.0.0.0"], "only on 127.0.0.1"),
        (["--http", "--keys", "{keys}", "-g", "team"], "each API key names its groups"),
        (["--keys", "{keys}"], "--keys is for --http only"),
        (["--http", "--keys", "{bad}"], "not valid JSON"),
    ],
)
def test_mcp_refuses_to_serve_http_without_keys(tmp_path: Path, args: list[str], words: str) -> None:
    ring = KeyRing()
    ring.add("a", ["A"])
    ring.save(tmp_path / "keys.json")
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    filled = [a.format(keys=tmp_path / "keys.json", bad=tmp_path / "bad.json") for a in args]
    result = CliRunner().invoke(app, ["mcp", "--db", str(tmp_path / "m.db"), *filled], env={
        "KRONOGRAPH_API_KEYS": "", "KRONOGRAPH_API_KEYS_FILE": ""})
    assert result.exit_code == 2, result.output
    assert words in " ".join(result.output.split()), result.output
