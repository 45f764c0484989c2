"""Events over REST and MCP: a fact carries its ``event`` flag; listing and
searching facts leave events out unless asked (``include_events``); events
are read by time (``GET /events``, the ``get_events`` tool)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from kronograph import AsyncMemory
from kronograph.server.mcp_server import build_mcp_server
from kronograph.server.mcp_tools import Access

from .server_helpers import live_server

CHAT = [
    ("Sam: I work at Northwind.", "2023-01-10T00:00:00Z"),
    ("Sam: I left Northwind on 1 March 2024.", "2024-03-05T00:00:00Z"),
    ("Sam: I met Maya on 3 May 2024.", "2024-05-06T00:00:00Z"),
    ("Sam: I am engaged to Maya.", "2024-06-01T00:00:00Z"),
]


def _triples(facts: list[dict[str, Any]]) -> list[str]:
    return [f"{f['subject']} {f['relation']} {f['object']}" for f in facts]


def test_rest_lists_events_apart_from_what_is_true(tmp_path: Path) -> None:
    with live_server(tmp_path / "events.db", local=True) as server, server.client() as api:
        for text, sent in CHAT:
            done = api.post("/v1/groups/g/episodes?wait=true", json={"content": text, "reference_time": sent})
            assert done.status_code == 200 and done.json()["status"] == "complete"
        now = api.get("/v1/groups/g/facts", params={"subject": "Sam"}).json()["facts"]
        assert _triples(now) == ["Sam ENGAGED_TO Maya"] and now[0]["event"] is False
        every = api.get("/v1/groups/g/facts", params={"subject": "Sam", "include_events": "true"}).json()["facts"]
        assert {t for f, t in zip(every, _triples(every), strict=True) if f["event"]} == {
            "Sam LEFT Northwind", "Sam MET Maya"}
        events = api.get("/v1/groups/g/events").json()["facts"]
        assert _triples(events) == ["Sam LEFT Northwind", "Sam MET Maya"]
        assert all(f["event"] and f["invalid_at"] is None for f in events)
        window = api.get("/v1/groups/g/events", params={"since": "2024-04-01T00:00:00Z", "entity": "Maya"})
        assert _triples(window.json()["facts"]) == ["Sam MET Maya"]
        left = api.get("/v1/groups/g/events", params={"relation": "LEFT", "until": "2024-03-01T00:00:00Z"})
        assert left.json()["facts"] == []  # until is exclusive
        wrong = api.get("/v1/groups/g/events", params={"since": "2024-06-01T00:00:00Z", "until": "2024-01-01"})
        assert wrong.status_code == 400 and wrong.json()["error"]["field"] == "until"
        timeline = api.get("/v1/groups/g/timeline", params={"entity": "Sam"}).json()["facts"]
        assert [f["event"] for f in timeline].count(True) == 2
        found = api.post("/v1/groups/g/search", json={"query": "Sam left Northwind", "scopes": ["facts"]}).json()
        assert all(not h["item"]["event"] for h in found["facts"])
        asked = {"query": "Sam left Northwind", "scopes": ["facts"], "include_events": True}
        found = api.post("/v1/groups/g/search", json=asked).json()
        assert "Sam LEFT Northwind" in _triples([h["item"] for h in found["facts"]])
        sam = next(e for e in api.get("/v1/groups/g/entities", params={"name": "Sam"}).json()["entities"])
        drawn = api.get(f"/v1/groups/g/entities/{sam['uuid']}").json()["facts"]
        assert {f["relation"] for f in drawn if f["event"]} == {"LEFT", "MET"}  # the web view draws them as points


def test_mcp_tells_events_as_what_happened_and_reads_them_by_time() -> None:
    from mcp import Client

    async def run() -> None:
        async with AsyncMemory(":memory:", model=None) as memory:
            for text, sent in CHAT:
                await memory.add_episode("g", text, reference_time=sent)
            async with Client(build_mcp_server(memory, access=Access.local(["g"]))) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                assert "get_events" in tools
                result = await client.call_tool("get_events", {"entity": "Sam", "since": "2024-01-01"})
                assert not result.is_error, result.content
                facts = result.structured_content["facts"]  # type: ignore[index]
                assert _triples(facts) == ["Sam LEFT Northwind", "Sam MET Maya"] and all(f["event"] for f in facts)
                text = result.content[0].text  # type: ignore[union-attr]
                assert "[Sam LEFT Northwind] on 2024-03-01 (event: happened then, not a standing fact)" in text
                assert "→" not in text.split("\n")[1]  # a point, not an interval running to now
                searched = await client.call_tool("search_facts", {"query": "Sam left Northwind"})
                hits = searched.structured_content["facts"]  # type: ignore[index]
                assert all(not f["event"] for f in hits)
                searched = await client.call_tool("search_facts", {"query": "Sam left Northwind",
                                                                   "include_events": True})
                assert "Sam LEFT Northwind" in _triples(searched.structured_content["facts"])  # type: ignore[index]
                timeline = await client.call_tool("timeline", {"entity": "Sam"})
                assert "on 2024-05-03 (event" in timeline.content[0].text  # type: ignore[union-attr]

    asyncio.run(run())


def test_the_rest_schema_documents_the_events_route(tmp_path: Path) -> None:
    with live_server(tmp_path / "schema.db", local=True) as server, httpx.Client(base_url=server.url) as api:
        paths = api.get("/openapi.json", timeout=60).json()["paths"]
        assert "/v1/groups/{group}/events" in paths
        names = {p["name"] for p in paths["/v1/groups/{group}/facts"]["get"]["parameters"]}
        assert "include_events" in names
