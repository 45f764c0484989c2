"""``context`` everywhere an agent looks: ``POST /v1/groups/{group}/context``
(on every backend), the MCP tool ``get_context``, ``kronograph context``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from kronograph import AsyncMemory, RelationType
from kronograph.cli import app
from kronograph.server.mcp_server import build_mcp_server
from kronograph.server.mcp_tools import Access
from kronograph.store import Store

from .server_helpers import live_server

ONE = RelationType(cardinality="many_to_one")


async def _fill(memory: AsyncMemory) -> None:
    await memory.configure("g", user_name="Sam")
    await memory.add_fact("g", "Sam", "WORKS_AT", "Acme", valid_at="2022-01-10", episode_id="e1",
                          subject_labels=["Person"])
    await memory.add_fact("g", "Sam", "WORKS_AT", "Initech", valid_at="2024-08-25", episode_id="e2")
    await memory.add_fact("g", "Sam", "LIVES_IN", "Chicago", valid_at="2023-11-02", invalid_at="2024-07-01",
                          episode_id="e3")
    await memory.add_episode("g", "Maya and I got engaged last weekend!", speaker="Sam", role="user",
                             reference_time="2024-05-20T10:00:00Z", episode_id="e4")
    await memory.add_fact("other", "Sam", "WORKS_AT", "Globex Secret", valid_at="2024-01-01")


def test_rest_context_on_every_backend(backend: Callable[..., Store]) -> None:
    store = backend(threaded=True)
    with live_server(store, local=True) as server, server.client() as api:  # type: ignore[arg-type]
        said = api.post("/v1/groups/g/messages?wait=true", json={"user_name": "Sam", "messages": [
            {"role": "user", "content": "I work at Acme as a data engineer.", "created_at": "2022-01-10T09:00:00Z",
             "id": "e1"},
            {"role": "user", "content": "Big news: I started at Initech today!", "created_at": "2024-08-25T09:00:00Z",
             "id": "e2"},
        ]})
        assert said.status_code == 200, said.text
        assert api.post("/v1/groups/g/facts", json={
            "subject": "Sam", "relation": "LIVES_IN", "object": "Chicago", "valid_at": "2023-11-02",
            "invalid_at": "2024-07-01", "episode_id": "e3"}).status_code in (200, 201)
        assert api.post("/v1/groups/other/facts", json={
            "subject": "Sam", "relation": "WORKS_AT", "object": "Globex Secret", "valid_at": "2024-01-01"}
        ).status_code in (200, 201)
        got = api.post("/v1/groups/g/context", json={"query": "where does Sam work and live?", "max_tokens": 200})
        assert got.status_code == 200, got.text
        out = got.json()
        assert "Sam works at Initech (since 2024-08-25; replaced: Sam works at Acme" in out["text"]
        assert out["text"].startswith("User: Sam") and out["user"]["name"] == "Sam"
        assert "Sam lives in Chicago (2023-11-02 to 2024-07-01)" in out["text"]  # retired, with its end
        assert "Globex" not in out["text"] and 0 < out["tokens"] <= 200 and out["counter"]
        assert out["facts"] and {"item", "score", "methods"} <= set(out["facts"][0])
        assert isinstance(out["left_out"], int)
        past = api.post("/v1/groups/g/context", json={"query": "where does Sam work?", "as_of": "2023-01-01"}).json()
        assert "Initech" not in past["text"] and "Acme (since 2022-01-10)" in past["text"]
        templated = api.post("/v1/groups/g/context", json={
            "messages": [{"role": "user", "content": "where do I work now?", "name": "Sam"}],
            "template": "<memory>\n{facts_text}\n</memory>"}).json()
        assert templated["text"].startswith("<memory>\n") and "Initech" in templated["text"]
        for bad, field in (({"query": "x", "max_tokens": 10}, "max_tokens"),
                           ({"query": "x", "max_tokens": 1.5}, "max_tokens"),
                           ({"query": "x", "template": "{nope}"}, "template"),
                           ({"query": "x", "scopes": ["communities"]}, "scopes"),
                           ({"messages": [{"role": "user"}]}, "messages[0].content")):
            refused = api.post("/v1/groups/g/context", json=bad)
            assert refused.status_code in (400, 422), (bad, refused.text)
            assert field in (refused.json()["error"]["field"] or ""), (bad, refused.json())


def test_the_schema_documents_the_route(tmp_path: Path) -> None:
    with live_server(tmp_path / "schema.db", local=True) as server, httpx.Client(base_url=server.url) as api:
        paths = api.get("/openapi.json", timeout=60).json()["paths"]
        assert "post" in paths["/v1/groups/{group}/context"]


def test_mcp_get_context_is_the_first_thing_to_call() -> None:
    from mcp import Client

    async def run() -> None:
        async with AsyncMemory(":memory:", model=None, relation_types={"WORKS_AT": ONE}) as memory:
            await _fill(memory)
            async with Client(build_mcp_server(memory, access=Access.local(["g"]))) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                assert "first" in (tools["get_context"].description or "").lower()
                result = await client.call_tool("get_context", {"query": "where does Sam work?", "max_tokens": 300})
                assert not result.is_error, result.content
                text = result.content[0].text  # type: ignore[union-attr]
                assert "Sam works at Initech (since 2024-08-25; replaced: Sam works at Acme" in text
                out: dict[str, Any] = result.structured_content  # type: ignore[assignment]
                assert out["block"] == text and out["tokens"] <= 300 and "e2" in out["cited"]
                result = await client.call_tool("get_context", {
                    "messages": [{"role": "user", "content": "any news about Maya?"}]})
                said = result.content[0].text  # type: ignore[union-attr]
                assert "2024-05-20:\n[e4] Sam: Maya and I got engaged last weekend!" in said
                denied = await client.call_tool("get_context", {"query": "Sam", "group_id": "other"})
                assert denied.is_error and "Globex" not in denied.content[0].text  # type: ignore[union-attr]
                bad = await client.call_tool("get_context", {"query": "Sam", "max_tokens": 5})
                assert bad.is_error and "max_tokens" in bad.content[0].text  # type: ignore[union-attr]

    asyncio.run(run())


def test_cli_context(tmp_path: Path) -> None:
    db = tmp_path / "m.db"

    async def fill() -> None:
        async with AsyncMemory(db, model=None, relation_types={"WORKS_AT": ONE}) as memory:
            await _fill(memory)

    asyncio.run(fill())
    runner = CliRunner()

    def run(*args: str, expect: int = 0) -> str:
        result = runner.invoke(app, [*args, "--db", str(db)], env={"COLUMNS": "200"})
        assert result.exit_code == expect, (args, result.output, result.exception)
        return result.output

    text = run("context", "g", "where does Sam work?")
    assert "Sam works at Initech (since 2024-08-25; replaced: Sam works at Acme, 2022-01-10 to 2024-08-25)" in text
    assert text.startswith("User: Sam")
    past = run("context", "g", "where does Sam work?", "--as-of", "2023-01-01", "--max-tokens", "100")
    assert "Initech" not in past and past.startswith("Memory as of 2023-01-01")
    out = json.loads(run("context", "g", "Maya", "--json", "--scope", "episodes"))
    assert out["episodes"] and not out["facts"] and out["tokens"] <= 1000
    assert "Sam: Maya and I got engaged" in out["text"]
    assert run("context", "g", "Sam", "--template", "{facts_text}").startswith("Sam works at")
    assert "--max-tokens" in run("context", "g", "Sam", "--max-tokens", "20", expect=2)
    assert "--template" in run("context", "g", "Sam", "--template", "{nope}", expect=2)
    assert "Globex" not in run("context", "g")
    help_text = runner.invoke(app, ["context", "--help"], env={"COLUMNS": "200"}).output
    for option in ("--as-of", "--known-at", "--max-tokens", "--scope", "--template", "--json"):
        assert option in help_text


@pytest.mark.parametrize("path", ["/v1/groups/g/context"])
def test_rest_context_needs_a_key(tmp_path: Path, path: str) -> None:
    with live_server(tmp_path / "k.db", keys={"a": (["g"], False)}) as server:
        with server.client() as anonymous:
            assert anonymous.post(path, json={"query": "x"}).status_code == 401
        with server.client("a") as api:
            assert api.post("/v1/groups/other/context", json={"query": "x"}).status_code == 404
            assert api.post(path, json={"query": "x"}).status_code == 200
