"""The change feed everywhere an agent looks: ``GET /v1/groups/{group}/changes``
(pages by ``next``, errors in the documented shape, a key reads only its
groups), the MCP tool ``get_changes`` and ``kronograph changes``. The feed
itself is tested on every backend in test_changes.py."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kronograph import AsyncMemory, Memory
from kronograph.server.mcp_server import build_mcp_server
from kronograph.server.mcp_tools import Access

from .conftest import StepClock
from .server_helpers import live_server

START = "2000-01-01T00:00:00Z"


def _objects(changes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(c["kind"], c["fact"]["object"]) for c in changes if c.get("fact")]


def test_rest_reads_the_feed_by_page_and_checks_its_window(tmp_path: Path) -> None:
    keys = {"alpha": (["alpha"], False), "beta": (["beta"], False)}
    with live_server(tmp_path / "feed.db", keys=keys) as server, server.client("alpha") as api, \
            server.client("beta") as other:
        add = {"subject": "Sam", "relation": "WORKS_AT", "object": "Acme", "valid_at": "2022-01-01T00:00:00Z"}
        acme = api.post("/v1/groups/alpha/facts", json=add).json()["fact"]["uuid"]
        for text, sent in (("Sam lives in Paris.", "2023-01-01"), ("Sam moved to Berlin.", "2024-01-01")):
            done = api.post("/v1/groups/alpha/episodes?wait=true", json={"content": text, "reference_time": sent})
            assert done.status_code == 200 and done.json()["status"] == "complete"
        berlin = done.json()["episode_id"]
        assert api.delete(f"/v1/groups/alpha/episodes/{berlin}").status_code == 200
        assert api.delete(f"/v1/groups/alpha/facts/{acme}").status_code == 200
        other.post("/v1/groups/beta/facts", json={**add, "object": "Globex"})

        whole = api.get("/v1/groups/alpha/changes", params={"since": START})
        assert whole.status_code == 200 and whole.json()["next"] is None
        feed = whole.json()["changes"]
        assert sorted(_objects(feed)) == sorted([
            ("learned", "Acme"), ("learned", "Paris"), ("learned", "Berlin"), ("retired", "Paris"),
            ("removed", "Berlin"), ("restored", "Paris"), ("removed", "Acme")])
        assert all(c["fact"]["group_id"] == "alpha" for c in feed)
        paris = [c for c in feed if c["fact"]["object"] == "Paris"]
        assert paris[1]["detail"]["after"]["invalid_at"].startswith("2024-01-01")
        assert paris[1]["episode_id"] == paris[2]["episode_id"] == berlin

        # Pages of one, chained by next, read the same feed; the last page says there is no more.
        pages, after = [], None
        while True:
            params = {"since": START, "limit": 1, **({"after": after} if after else {})}
            page = api.get("/v1/groups/alpha/changes", params=params).json()
            pages += page["changes"]
            after = page["next"]
            if not page["changes"]:
                break
        assert pages == feed
        recorded = feed[-1]["recorded_at"]
        assert api.get("/v1/groups/alpha/changes", params={"since": recorded}).json()["changes"] == [feed[-1]]
        assert api.get("/v1/groups/alpha/changes",
                       params={"since": START, "until": recorded}).json()["changes"] == feed[:-1]

        def refused(params: dict[str, Any], status: int, field: str | None) -> None:
            response = api.get("/v1/groups/alpha/changes", params=params)
            assert response.status_code == status, response.text
            error = response.json()["error"]
            assert set(error) == {"code", "message", "field"} and error["code"] == "invalid_input", error
            if field is not None:
                assert field in (error["field"] or "") + error["message"], error

        refused({}, 422, "since")
        refused({"since": "last week"}, 422, "since")
        refused({"since": "2024-06-01T00:00:00Z", "until": "2024-01-01T00:00:00Z"}, 400, "until")
        refused({"since": START, "limit": 0}, 422, "limit")
        refused({"since": START, "limit": 10_001}, 422, "limit")
        refused({"since": START, "after": "not-a-cursor"}, 400, "after")

        # A key reads its own groups' feeds only: another's is as if it did not exist.
        assert api.get("/v1/groups/beta/changes", params={"since": START}).status_code == 404
        theirs = other.get("/v1/groups/beta/changes", params={"since": START}).json()["changes"]
        assert _objects(theirs) == [("learned", "Globex")]
        schema = api.get("/openapi.json", timeout=60).json()["paths"]["/v1/groups/{group}/changes"]["get"]
        assert {p["name"] for p in schema["parameters"]} >= {"since", "until", "limit", "after"}


def test_mcp_get_changes_tells_what_changed_and_pages() -> None:
    from mcp import Client

    async def run() -> None:
        clock = StepClock(datetime(2026, 1, 1, tzinfo=UTC))
        async with AsyncMemory(":memory:", model=None, clock=clock) as memory:
            clock.tick()
            await memory.add_episode("g", "Sam lives in Paris.", reference_time="2023-01-01")
            clock.tick()
            await memory.add_episode("g", "Sam moved to Berlin.", reference_time="2024-01-01")
            await memory.add_fact("g", "Bob", "KNOWS", "Robert Smith")
            clock.tick()
            merge = await memory.merge_entities("g", "Robert Smith", "Bob")
            await memory.add_fact("other", "Zed", "KNOWS", "Yan")
            async with Client(build_mcp_server(memory, access=Access.local(["g"]))) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                assert "get_changes" in tools and "since" in tools["get_changes"].input_schema["required"]
                result = await client.call_tool("get_changes", {"since": "2026-01-01"})
                assert not result.is_error, result.content
                out: dict[str, Any] = result.structured_content  # type: ignore[assignment]
                kinds = [c["kind"] for c in out["changes"]]
                assert kinds.count("learned") == 3 and "retired" in kinds and "merged" in kinds
                merged = next(c for c in out["changes"] if c["kind"] == "merged")
                assert merged["detail"]["merge_id"] == merge.merge_id and merged["detail"]["absorbed"] == ["Bob"]
                text = result.content[0].text  # type: ignore[union-attr]
                assert "retired (retired by episode" in text and "[Sam LIVES_IN Paris]" in text
                assert "merged: Bob into Robert Smith" in text and "more:" not in text

                first = (await client.call_tool("get_changes", {"since": "2026-01-01", "limit": 2})).structured_content
                assert first is not None and len(first["changes"]) == 2 and first["next"]
                rest = await client.call_tool("get_changes", {"since": "2026-01-01", "after": first["next"]})
                assert first["changes"] + rest.structured_content["changes"] == out["changes"]  # type: ignore[index]
                later = await client.call_tool("get_changes", {"since": "2026-01-01T00:00:03Z"})
                assert [c["kind"] for c in later.structured_content["changes"]][0] == "merged"  # type: ignore[index]

                for arguments, field in (({"since": "soon"}, "since"), ({"since": "2026-01-02", "until": "2026-01-01"},
                                         "until"), ({"since": "2026-01-01", "after": "x"}, "after"),
                                         ({"since": "2026-01-01", "limit": 0}, "limit")):
                    bad = await client.call_tool("get_changes", arguments)
                    assert bad.is_error and field in bad.content[0].text, (arguments, bad.content)  # type: ignore[union-attr]
                elsewhere = await client.call_tool("get_changes", {"since": "2026-01-01", "group_id": "other"})
                assert elsewhere.is_error and "no group 'other'" in elsewhere.content[0].text  # type: ignore[union-attr]

    asyncio.run(run())


def test_cli_lists_changes_by_page_and_names_its_options(tmp_path: Path) -> None:
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from kronograph.cli import app

    db = tmp_path / "cli.db"
    clock = StepClock(datetime(2026, 1, 1, tzinfo=UTC))
    with Memory(db, model=None, clock=clock) as memory:
        clock.tick()
        memory.add_episode("team", "Sam lives in Paris.", reference_time="2023-01-01")
        clock.tick()
        memory.add_episode("team", "Sam moved to Berlin.", reference_time="2024-01-01")
    runner = CliRunner()

    def cli(*args: str, expect: int = 0) -> Any:
        result = runner.invoke(app, [*args, "--db", str(db)], env={"COLUMNS": "200"})  # type: ignore[arg-type]
        assert result.exit_code == expect, (args, result.output, result.exception)
        return result

    table = cli("changes", "team", "--since", "2026-01-01").stdout
    assert "changes in team" in table and "learned" in table and "retired" in table
    assert "Sam LIVES_IN Paris" in table and "2023-01-01 → 2024-01-01" in table and "more:" not in table
    every = json.loads(cli("changes", "team", "--since", "2026-01-01", "--json").stdout)
    assert _objects(every) == [("learned", "Paris"), ("retired", "Paris"), ("learned", "Berlin")]
    page = cli("changes", "team", "--since", "2026-01-01", "--limit", "1").stdout
    cursor = page.split("more: --after ", 1)[1].split()[0]
    assert cursor == every[0]["cursor"]
    rest = json.loads(cli("changes", "team", "--since", "2026-01-01", "--after", cursor, "--json").stdout)
    assert rest == every[1:]
    window = json.loads(cli("changes", "team", "--since", "2026-01-01", "--until", "2026-01-01T00:00:02Z",
                            "--json").stdout)
    assert window == every[:1]
    assert "no changes recorded" in cli("changes", "team", "--since", "2027-01-01").stdout
    err = cli("changes", "team", "--since", "2026-01-02", "--until", "2026-01-01", expect=2).stderr
    assert "--until" in err and "before since" in err
    assert "--after" in cli("changes", "team", "--since", "2026-01-01", "--after", "junk", expect=2).stderr
    assert "unknown group 'nobody'" in cli("changes", "nobody", "--since", "2026-01-01", expect=2).stderr
