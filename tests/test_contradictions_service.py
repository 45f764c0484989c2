"""Contradictions everywhere an agent or a person looks: the REST routes (on
every backend; the caller's key is the actor the group's policy weighs),
the MCP tools (``add_memory``'s candidates, ``contradict``,
``get_contradictions``, ``set_tier``) and the commands (``contradictions``,
``contradict``, ``tier``, ``remove-fact``, ``add-fact --tier``). The scoring
itself is tested in test_contradictions.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from kronograph import AsyncMemory
from kronograph.server.keys import key_actor
from kronograph.server.mcp_server import build_mcp_server
from kronograph.server.mcp_tools import Access
from kronograph.store import Store

from .server_helpers import Live, live_server

KEYS = {"lead": (["alpha"], False), "bot": (["alpha"], False), "beta": (["beta"], False), "root": ([], True)}
RULE = {"subject": "pool", "relation": "CAPPED_AT", "object": "20", "fact": "The pool is capped at 20",
        "tier": "standing"}


def _error(response: httpx.Response, status: int, field: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"code", "message", "field"}, error
    if field is not None:
        assert error["field"] == field, error
    return error  # type: ignore[no-any-return]


def _actor(server: Live, name: str) -> str:
    key = server.app.state.keys.authenticate(server.secrets[name])  # type: ignore[attr-defined]
    return key_actor(key)


def test_rest_contradictions_on_every_backend(backend: Callable[..., Store]) -> None:
    store = backend(threaded=True)
    with live_server(store, keys=KEYS) as server, server.client("lead") as lead, server.client("bot") as bot, \
            server.client("beta") as beta, server.client("root") as root:  # type: ignore[arg-type]
        base = "/v1/groups/alpha"
        # The policy: defaults until set; set by an admin key only, mapping keys (key:<id>) to weights.
        assert root.get(f"{base}/contradiction-policy").json()["candidates"] == 5
        policy = {"actor_weights": {_actor(server, "lead"): 1.0}, "actor_kinds": {_actor(server, "bot"): "unverified"}}
        _error(bot.put(f"{base}/contradiction-policy", json=policy), 403)
        _error(root.put(f"{base}/contradiction-policy", json={"candidates": -1}), 422, "candidates")
        _error(root.put(f"{base}/contradiction-policy", json={"colour": 1}), 422, "colour")
        stored = root.put(f"{base}/contradiction-policy", json=policy)
        assert stored.status_code == 200 and stored.json()["actor_kinds"] == policy["actor_kinds"]
        assert bot.get(f"{base}/contradiction-policy").json() == stored.json()

        made = lead.post(f"{base}/facts", json=RULE)
        assert made.status_code == 201 and made.json()["fact"]["tier"] == "standing"
        rule = made.json()["fact"]["uuid"]
        _error(bot.post(f"{base}/facts", json={**RULE, "tier": "law"}), 422, "tier")

        # An unverified key's filing against the standing rule: a candidate, scored 1.0 x 0.2, not a verdict.
        filed = bot.post(f"{base}/facts", json={**RULE, "object": "35", "fact": "The pool is capped at 35",
                                                "tier": "finding"})
        assert filed.status_code == 201, filed.text
        mine = filed.json()["fact"]["uuid"]
        [candidate] = filed.json()["possible_contradictions"]
        assert candidate["contradicts"]["uuid"] == rule and candidate["contradicts"]["tier"] == "standing"
        assert (candidate["authority"], candidate["actor_weight"], candidate["score"]) == (1.0, 0.2, 0.2)
        assert candidate["reason"] == "same_slot" and candidate["fact"] == mine

        said = bot.post(f"{base}/episodes?wait=true", json={"content": "The pool is capped at 40 now.",
                                                            "tier": "finding"})
        assert said.status_code == 200 and said.json()["status"] == "complete", said.text
        assert rule in {p["contradicts"]["uuid"] for p in said.json()["possible_contradictions"]}
        assert all(p["score"] == round(p["authority"] * 0.2, 6) for p in said.json()["possible_contradictions"])
        _error(bot.post(f"{base}/episodes", json={"content": "x", "tier": "law"}), 422, "tier")

        listed = bot.get(f"{base}/contradictions").json()
        scores = [c["score"] for c in listed["contradictions"]]
        assert listed["open"] == len(scores) >= 2 and scores == sorted(scores, reverse=True)
        assert all(c["kind"] == "candidate" and c["actor"] == _actor(server, "bot") for c in listed["contradictions"])
        # Group scoping as everywhere: another group's key gets the same 404 as for any of alpha's routes.
        assert _error(beta.get(f"{base}/contradictions"), 404) == _error(beta.get(f"{base}/facts"), 404)
        _error(beta.post(f"{base}/facts/{mine}/contradicts", json={"contradicted_uuid": rule}), 404)
        _error(beta.get(f"{base}/contradiction-policy"), 404)

        # An explicit link leaves the rule untouched.
        linked = bot.post(f"{base}/facts/{mine}/contradicts", json={"contradicted_uuid": rule,
                                                                    "note": "ops needs 35"})
        assert linked.status_code == 201, linked.text
        assert linked.json()["kind"] == "recorded" and linked.json()["note"] == "ops needs 35"
        assert linked.json()["score"] == 0.2 and linked.json()["contradicts"]["uuid"] == rule
        detail = bot.get(f"{base}/facts/{rule}").json()
        assert detail["fact"]["invalid_at"] is None and detail["fact"]["expired_at"] is None
        _error(bot.post(f"{base}/facts/{mine}/contradicts", json={"contradicted_uuid": mine}), 400, "contradicted_uuid")
        _error(bot.post(f"{base}/facts/{mine}/contradicts", json={"contradicted_uuid": "nope"}), 404)
        _error(bot.post(f"{base}/facts/{mine}/contradicts", json={}), 422, "contradicted_uuid")
        about = bot.get(f"{base}/contradictions", params={"fact_uuid": mine}).json()["contradictions"]
        assert {c["kind"] for c in about} == {"candidate", "recorded"}

        # Overriding another actor's standing rule needs a reason: 400 naming it, and nothing changes.
        _error(bot.delete(f"{base}/facts/{rule}"), 400, "reason")
        _error(bot.post(f"{base}/facts", json={**RULE, "object": "30", "replaces": rule, "tier": None}), 400,
               "reason")
        _error(bot.put(f"{base}/facts/{rule}/tier", json={"tier": "reference"}), 400, "reason")
        assert bot.get(f"{base}/facts/{rule}").json()["fact"]["tier"] == "standing"
        # Its owner needs none.
        retiered = lead.put(f"{base}/facts/{rule}/tier", json={"tier": "decision"})
        assert retiered.status_code == 200 and retiered.json()["tier"] == "decision"
        _error(lead.put(f"{base}/facts/{rule}/tier", json={"tier": "law"}), 422, "tier")

        # Settling: a reason is required; the rows stay, no longer open.
        _error(bot.post(f"{base}/contradictions/dismiss", json={"fact_uuid": mine, "contradicted_uuid": rule}), 422,
               "reason")
        done = bot.post(f"{base}/contradictions/dismiss", json={"fact_uuid": mine, "contradicted_uuid": rule,
                                                                "reason": "35 is for the staging pool"})
        assert done.status_code == 200 and done.json() == {"dismissed": 2}
        _error(bot.post(f"{base}/contradictions/dismiss", json={"fact_uuid": mine, "contradicted_uuid": rule,
                                                                "reason": "again"}), 404)
        still = bot.get(f"{base}/contradictions", params={"fact_uuid": mine}).json()  # on either side
        assert [c["contradicts"]["uuid"] for c in still["contradictions"]] == [mine] and still["open"] == 1
        every = bot.get(f"{base}/contradictions", params={"fact_uuid": mine, "open_only": "false"}).json()
        settled = [c for c in every["contradictions"] if c["fact"] == mine]
        assert len(settled) == 2 and all(c["dismissed_at"] for c in settled) and every["open"] == 1
        opened = bot.get(f"{base}/contradictions").json()["open"]
        assert bot.get(f"{base}/reconcile").json()["open_contradictions"] == opened

        removed = bot.delete(f"{base}/facts/{rule}", params={"reason": "superseded by the new pool"})
        assert removed.status_code == 200 and removed.json()["fact_uuid"] == rule
        kinds = {e["kind"] for e in bot.get(f"{base}/audit/events").json()["events"]}
        assert {"contradiction_policy_set", "contradiction_flagged", "contradiction_recorded",
                "contradiction_dismissed", "tier_set"} <= kinds


def test_the_schema_documents_the_routes(tmp_path: Path) -> None:
    with live_server(tmp_path / "schema.db", local=True) as server, httpx.Client(base_url=server.url) as api:
        paths = api.get("/openapi.json", timeout=60).json()["paths"]
        assert "get" in paths["/v1/groups/{group}/contradictions"]
        assert "post" in paths["/v1/groups/{group}/facts/{fact_uuid}/contradicts"]
        assert "post" in paths["/v1/groups/{group}/contradictions/dismiss"]
        assert "put" in paths["/v1/groups/{group}/facts/{fact_uuid}/tier"]
        assert {"get", "put"} <= set(paths["/v1/groups/{group}/contradiction-policy"])
        deleting = paths["/v1/groups/{group}/facts/{fact_uuid}"]["delete"]
        assert "reason" in {p["name"] for p in deleting["parameters"]}
        # Local mode is an admin: it may set the policy.
        assert api.put("/v1/groups/g/contradiction-policy", json={"candidates": 3}).json()["candidates"] == 3


def test_mcp_add_memory_carries_the_candidates_and_contradict_records_one() -> None:
    from mcp import Client

    async def run() -> None:
        async with AsyncMemory(":memory:", model=None) as memory:
            await memory.set_contradiction_policy("g", {"actor_kinds": {"mcp": "agent"}})
            rule = (await memory.add_fact("g", **RULE, actor="lead")).fact.uuid  # type: ignore[arg-type]
            await memory.add_fact("other", **RULE, actor="lead")  # type: ignore[arg-type]
            async with Client(build_mcp_server(memory, access=Access.local(["g"]))) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                assert {"contradict", "get_contradictions", "set_tier"} <= set(tools)
                assert "tier" in tools["add_memory"].input_schema["properties"]

                added = await client.call_tool("add_memory", {"content": "The pool is capped at 35.",
                                                              "tier": "finding"})
                assert not added.is_error, added.content
                out: dict[str, Any] = added.structured_content  # type: ignore[assignment]
                top = out["possible_contradictions"][0]
                assert top["contradicts"] == rule and top["contradicts_tier"] == "standing"
                assert top["contradicts_text"] == "The pool is capped at 20"
                assert (top["authority"], top["actor_weight"], top["score"]) == (1.0, 0.5, 0.5)
                assert top["reason"] == "similar_meaning" and top["similarity"] > 0
                text = added.content[0].text  # type: ignore[union-attr]
                assert "possible contradictions" in text and "score 0.5" in text and "contradict" in text

                mine = (await memory.add_fact("g", "pool", "CAPPED_AT", "35", actor="mcp")).fact.uuid
                linked = await client.call_tool("contradict", {"fact_uuid": mine, "contradicted_uuid": rule,
                                                               "note": "ops needs 35"})
                assert not linked.is_error, linked.content
                [row] = linked.structured_content["contradictions"]  # type: ignore[index]
                assert row["kind"] == "recorded" and row["actor"] == "mcp" and row["note"] == "ops needs 35"
                assert row["fact_text"] == "pool CAPPED_AT 35" and row["score"] == 0.5
                assert (await memory.fact("g", rule)).invalid_at is None  # type: ignore[union-attr]

                listed = await client.call_tool("get_contradictions", {"fact_uuid": rule})
                rows = listed.structured_content["contradictions"]  # type: ignore[index]
                assert {r["kind"] for r in rows} == {"candidate", "recorded"}
                assert "The pool is capped at 35." in {r.get("fact_text") for r in rows}
                assert "open contradiction(s)" in listed.content[0].text  # type: ignore[union-attr]

                refused = await client.call_tool("set_tier", {"fact_uuid": rule, "tier": "reference"})
                assert refused.is_error and "reason" in refused.content[0].text  # type: ignore[union-attr]
                retiered = await client.call_tool("set_tier", {"fact_uuid": rule, "tier": "reference",
                                                               "reason": "the rule was only a reference"})
                assert retiered.structured_content["tier"] == "reference"  # type: ignore[index]
                bad = await client.call_tool("set_tier", {"fact_uuid": rule, "tier": "law"})
                assert bad.is_error and "tier" in bad.content[0].text  # type: ignore[union-attr]
                mixed = await client.call_tool("add_memory", {"messages": [{"role": "user", "content": "hi"}],
                                                              "tier": "standing"})
                assert mixed.is_error and "tier" in mixed.content[0].text  # type: ignore[union-attr]
                elsewhere = await client.call_tool("get_contradictions", {"group_id": "other"})
                assert elsewhere.is_error and "no group 'other'" in elsewhere.content[0].text  # type: ignore[union-attr]

    asyncio.run(run())


def test_cli_lists_files_and_overrides(tmp_path: Path) -> None:
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from kronograph.cli import app

    db = tmp_path / "cli.db"
    runner = CliRunner()

    def cli(*args: str, expect: int = 0) -> Any:
        result = runner.invoke(app, [*args, "--db", str(db)], env={"COLUMNS": "240"})  # type: ignore[arg-type]
        assert result.exit_code == expect, (args, result.output, result.exception)
        return result

    made = cli("add-fact", "team", "pool", "CAPPED_AT", "20", "--fact", "The pool is capped at 20", "--tier",
               "standing", "--actor", "lead").stdout
    assert "(standing)" in made
    filed = cli("add-fact", "team", "pool", "CAPPED_AT", "35", "--fact", "The pool is capped at 35", "--actor",
                "bot").stdout
    assert "1 possible contradiction" in filed and "0.5 (standing, same_slot)" in filed
    assert "The pool is capped at 35 vs The pool is capped at 20" in filed
    assert "--tier" in cli("add-fact", "team", "a", "B", "c", "--tier", "law", expect=2).stderr

    rows = json.loads(cli("contradictions", "team", "--json").stdout)
    [row] = rows
    mine, rule = row["fact"], row["contradicts"]["uuid"]
    assert row["score"] == 0.5 and row["fact_text"] == "The pool is capped at 35"
    table = cli("contradictions", "team").stdout
    assert "open contradictions in team" in table and "same_slot" in table and "standing" in table
    assert "The pool is capped at 35" in table and "The pool is capped at 20" in table

    recorded = cli("contradict", "team", mine, rule, "--note", "ops needs 35", "--actor", "bot").stdout
    assert "recorded" in recorded and "score 0.5 = authority 1 x filer weight 0.5" in recorded
    assert len(json.loads(cli("contradictions", "team", "--fact", mine, "--json").stdout)) == 2
    assert "CONTRADICTED_UUID" in cli("contradict", "team", mine, mine, expect=2).stderr
    assert cli("dismiss", "team", mine, rule, expect=2).exit_code == 2  # --reason is required
    assert "dismissed 2 contradictions" in cli("dismiss", "team", mine, rule, "--reason", "staging only").stdout
    assert "no open contradictions" in cli("contradictions", "team").stdout
    assert "(dismissed)" in cli("contradictions", "team", "--all").stdout
    assert "no open contradiction" in cli("dismiss", "team", mine, rule, "--reason", "again", expect=2).stderr

    # Another actor's standing rule: no retraction, replacement or re-tiering without --reason.
    assert "--reason" in cli("remove-fact", "team", rule, "--actor", "bot", expect=2).stderr
    assert "--reason" in cli("add-fact", "team", "pool", "CAPPED_AT", "30", "--replaces", rule, "--actor", "bot",
                             expect=2).stderr
    assert "--reason" in cli("tier", "team", rule, "reference", "--actor", "bot", expect=2).stderr
    assert "TIER" in cli("tier", "team", rule, "law", expect=2).stderr
    assert "now of tier decision" in cli("tier", "team", rule, "decision", "--actor", "lead").stdout
    gone = cli("remove-fact", "team", rule, "--actor", "bot", "--reason", "the new pool has no cap").stdout
    assert "removed fact" in gone and "1 fact deleted" in gone
    assert "unknown group 'nobody'" in cli("contradictions", "nobody", expect=2).stderr


def test_an_integration_tells_the_agent_what_it_may_contradict() -> None:
    from kronograph import Memory
    from kronograph.integrations._pieces import remembered_text

    with Memory(":memory:", model=None) as memory:
        memory.add_fact("g", **RULE, actor="lead")  # type: ignore[arg-type]
        result = memory.add_episode("g", "The pool is capped at 35.", actor="bot")
        said = remembered_text(result)
        assert "May contradict (flagged for review): 'The pool is capped at 20' (standing, score 0.5)." in said
