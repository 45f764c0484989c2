"""Point-in-time views (issue 20, item 3) on every backend: ``memory.at(T)``
reads what held at T as the memory knew it at T, and ``lookahead`` flags
what a plain read returns that was learned, or only held, after T.

The story: Acme's rate was 5% from January, learned in March; in May it is
corrected (the same valid time: 4%), its office is learned to have moved
to Paris in April, Globex is learned of, "Acme Corporation" is merged into
Acme (an alias learned in May) and Acme gets a label."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kronograph import AsyncMemory, Memory
from kronograph.errors import InvalidInputError
from kronograph.search.types import SearchFilters
from kronograph.server.mcp_server import build_mcp_server
from kronograph.server.mcp_tools import Access

from .conftest import StepClock
from .server_helpers import live_server

MakeMemory = Callable[..., Memory]
G = "market"
JAN, MARCH, APRIL, MAY, JULY = (datetime(2026, m, 1, tzinfo=UTC) for m in (1, 3, 4, 5, 7))
T = datetime(2026, 4, 15, tzinfo=UTC)  # after the move to Paris happened, before it was learned
TYPES = {"HAS_RATE": {"cardinality": "many_to_one"}, "LOCATED_IN": {"cardinality": "many_to_one"}}


def _story(memory_factory: MakeMemory, clock: StepClock) -> tuple[Memory, dict[str, str]]:
    memory = memory_factory(model=None, relation_types=TYPES)
    clock.set(MARCH)
    five = memory.add_fact(G, "Acme", "HAS_RATE", "5 percent", fact="Acme's rate is 5 percent", valid_at=JAN)
    berlin = memory.add_fact(G, "Acme", "LOCATED_IN", "Berlin", fact="Acme is located in Berlin", valid_at=JAN)
    ipo = memory.add_fact(G, "Acme", "PLANS_IPO_IN", "Frankfurt", fact="Acme plans an IPO in Frankfurt",
                          valid_at=JULY)
    clock.set(MAY)
    memory.add_fact(G, "Acme", "LOCATED_IN", "Berlin", fact="Acme is located in Berlin", valid_at=JAN)  # restated
    four = memory.add_fact(G, "Acme", "HAS_RATE", "4 percent", fact="Acme's rate is 4 percent", valid_at=JAN,
                           subject_labels=["Company"])
    paris = memory.add_fact(G, "Acme", "LOCATED_IN", "Paris", fact="Acme is located in Paris", valid_at=APRIL)
    memory.add_fact(G, "Globex", "PARTNERS_WITH", "Acme", fact="Globex partners with Acme", valid_at=JAN)
    corp = memory.add_fact(G, "Acme Corporation", "LISTED_ON", "Xetra", fact="Acme Corporation is listed on Xetra",
                           valid_at=MAY)
    memory.merge_entities(G, five.fact.subject_uuid, corp.fact.subject_uuid)
    clock.set(datetime(2026, 6, 1, tzinfo=UTC))
    ids = {"five": five.fact.uuid, "four": four.fact.uuid, "berlin": berlin.fact.uuid, "paris": paris.fact.uuid,
           "acme": five.fact.subject_uuid, "ipo": ipo.fact.uuid}
    return memory, ids


def _flagged(report: object) -> set[tuple[str, str, str]]:
    return {(i.kind, i.uuid, i.reason) for i in report.items}  # type: ignore[attr-defined]


def test_a_view_reads_what_was_true_and_known_then(memory_factory: MakeMemory, clock: StepClock) -> None:
    memory, ids = _story(memory_factory, clock)
    view = memory.at(T)
    assert view.moment == T and memory.at("2026-04-15T00:00:00").moment == T  # naive: UTC
    facts = view.facts(G, subject="Acme")
    assert {f.uuid: f.object for f in facts} == {ids["five"]: "5 percent", ids["berlin"]: "Berlin"}
    assert next(f for f in facts if f.uuid == ids["berlin"]).invalid_at is None  # the move was learned in May
    assert view.lookahead(facts).clean
    timeline = view.timeline(G, "Acme")
    assert {f.uuid for f in timeline} == {ids["five"], ids["berlin"]}
    assert view.lookahead(timeline).clean
    entities = view.entities(G)
    assert {e.name for e in entities} == {"Acme", "5 percent", "Berlin", "Frankfurt"}  # not Globex, Paris...
    acme = next(e for e in entities if e.uuid == ids["acme"])
    assert acme.aliases == () and acme.labels == () and acme.summary is None  # no history: left out
    assert view.entities(G, name="Acme Corporation") == []  # an alias learned in May names nothing then
    assert view.lookahead(entities).clean
    assert {p.created_at for p in view.episodes(G)} == {MARCH}
    # A March view sees the same values; a June one the corrections.
    assert {f.object for f in memory.at(MARCH).facts(G, subject="Acme")} == {"5 percent", "Berlin"}
    assert {f.object for f in memory.at("2026-06-01").facts(G, subject="Acme")} == {"4 percent", "Paris", "Xetra"}


def test_lookahead_flags_a_plain_read_as_of_t(memory_factory: MakeMemory, clock: StepClock) -> None:
    memory, ids = _story(memory_factory, clock)
    view = memory.at(T)
    plain = memory.facts(G, subject="Acme", as_of=T)  # valid at T, as believed now: May's corrections
    assert {f.uuid for f in plain} == {ids["four"], ids["paris"]}
    report = view.lookahead(plain)
    assert not report.clean and report.moment == T
    assert {("fact", ids["four"], "learned_after"), ("fact", ids["paris"], "learned_after")} <= _flagged(report)
    assert all(i.at == MAY for i in report.items if i.kind == "fact")
    march = memory.at(datetime(2026, 3, 15, tzinfo=UTC))
    berlin = memory.facts(G, subject="Acme", relation="LOCATED_IN", as_of=datetime(2026, 3, 15, tzinfo=UTC))
    assert [f.invalid_at for f in berlin] == [APRIL]  # its end was learned in May
    flagged = {(i.kind, i.reason, i.at) for i in march.lookahead(berlin).items}
    assert flagged == {("fact", "changed_after", MAY), ("fact_source", "learned_after", MAY)}  # restated in May
    entities = view.lookahead(memory.entities(G))
    assert ("entity_aliases", ids["acme"], "no_history") in _flagged(entities)
    assert ("entity_labels", ids["acme"], "no_history") in _flagged(entities)
    assert any(i.kind == "entity" and i.reason == "learned_after" for i in entities.items)  # Globex
    assert view.lookahead(memory.episodes(G)).items[0].reason == "learned_after"
    assert view.lookahead([]).clean
    timeline = view.lookahead(memory.timeline(G, "Acme"))  # every interval as believed now
    assert ("fact", ids["ipo"], "valid_after") in _flagged(timeline)  # known in March, holds from July
    restated = [i for i in timeline.items if i.kind == "fact_source"]  # Berlin's May source
    assert restated and all(i.reason == "learned_after" and i.at == MAY for i in restated)
    assert ids["ipo"] not in {f.uuid for f in view.timeline(G, "Acme")}


def test_search_and_context_of_a_view_rank_nothing_learned_later(
    memory_factory: MakeMemory, clock: StepClock
) -> None:
    memory, ids = _story(memory_factory, clock)
    view = memory.at(T)
    plain = memory.search(G, "Acme rate percent", as_of=T)
    assert plain.facts[0].item.uuid == ids["four"]  # the best hit now was learned in May
    assert ("fact", ids["four"], "learned_after") in _flagged(view.lookahead(plain))
    found = view.search(G, "Acme rate percent")
    assert found.facts[0].item.uuid == ids["five"]
    assert {h.item.uuid for h in found.facts} <= {ids["five"], ids["berlin"]}
    assert view.lookahead(found).clean and found.communities == [] and found.left_out == 0
    assert all(h.item.name != "Globex" for h in view.search(G, "Globex partners").entities)
    assert all(h.item.created_at == MARCH for h in view.search(G, "Globex partners").facts)
    assert all("Xetra" not in h.item.fact for h in view.search(G, "Acme Corporation Xetra").facts)
    with pytest.raises(InvalidInputError, match="filters.labels"):
        view.search(G, "Acme", filters=SearchFilters(labels=("Company",)))
    block = view.context(G, "What is Acme's rate?")
    assert "5 percent" in block.text and "4 percent" not in block.text and "Paris" not in block.text
    assert block.as_of == T and block.known_at == T
    assert view.lookahead(block).clean
    assert not view.lookahead(memory.context(G, "What is Acme's rate?")).clean


def test_a_view_refuses_a_bad_moment(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    for bad in (None, "soon", 12):
        with pytest.raises(InvalidInputError, match="moment"):
            memory.at(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cannot check"):
        memory.at(JAN).lookahead({"not": "a result"})


# -- the service, the MCP tools and the commands (SQLite: the reads are the library's, tested above) ----------


def _story_file(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    db = tmp_path / "pit.db"
    clock = StepClock()
    with Memory(db, model=None, clock=clock, relation_types=TYPES) as memory:
        _, ids = _story(lambda **options: memory, clock)  # the story on this one memory
    return db, ids


def test_rest_reads_at_a_point_in_time_and_answer_the_report(tmp_path: Path) -> None:
    db, ids = _story_file(tmp_path)
    at = T.isoformat()
    with live_server(db, local=True) as server, server.client() as client:
        base = f"/v1/groups/{G}"
        facts = client.get(f"{base}/facts", params={"subject": "Acme", "at": at})
        assert facts.status_code == 200, facts.text
        assert {f["uuid"] for f in facts.json()["facts"]} == {ids["five"], ids["berlin"]}
        assert facts.json()["lookahead"] == {"moment": "2026-04-15T00:00:00Z", "clean": True, "items": []}
        assert client.get(f"{base}/facts", params={"subject": "Acme"}).json()["lookahead"] is None
        for params in ({"as_of": at}, {"known_at": at}, {"include_retired": "true"}):
            refused = client.get(f"{base}/facts", params={"at": at, **params})
            assert refused.status_code == 400 and refused.json()["error"]["field"] == "at", refused.text
        assert client.get(f"{base}/facts", params={"at": "soon"}).status_code == 422
        timeline = client.get(f"{base}/timeline", params={"entity": "Acme", "at": at}).json()
        assert {f["uuid"] for f in timeline["facts"]} == {ids["five"], ids["berlin"]} and timeline["lookahead"]["clean"]
        entities = client.get(f"{base}/entities", params={"at": at}).json()
        assert "Globex" not in {e["name"] for e in entities["entities"]} and entities["lookahead"]["clean"]
        assert all(e["aliases"] == [] and e["labels"] == [] for e in entities["entities"])
        assert client.get(f"{base}/entities", params={"at": at, "label": "Company"}).status_code == 400
        found = client.post(f"{base}/search", json={"query": "Acme rate percent", "at": at}).json()
        assert found["facts"][0]["item"]["uuid"] == ids["five"] and found["lookahead"]["clean"]
        refused = client.post(f"{base}/search", json={"query": "Acme", "at": at, "as_of": at})
        assert refused.status_code == 400 and refused.json()["error"]["field"] == "at"
        block = client.post(f"{base}/context", json={"query": "What is Acme's rate?", "at": at}).json()
        assert "5 percent" in block["text"] and "4 percent" not in block["text"] and block["lookahead"]["clean"]
        assert client.post(f"{base}/context", json={"query": "rate", "at": at, "known_at": at}).status_code == 400


def test_mcp_tools_read_at_a_point_in_time(tmp_path: Path) -> None:
    from mcp import Client

    db, ids = _story_file(tmp_path)

    async def run() -> None:
        async with AsyncMemory(db, model=None) as memory, \
                Client(build_mcp_server(memory, access=Access.local([G]))) as client:
            at = T.isoformat()
            found = await client.call_tool("search_facts", {"query": "Acme rate percent", "at": at})
            out: dict[str, Any] = found.structured_content  # type: ignore[assignment]
            assert out["facts"][0]["uuid"] == ids["five"] and out["lookahead"]["clean"]
            assert ids["four"] not in {f["uuid"] for f in out["facts"]}
            assert "nothing learned later" in found.content[0].text  # type: ignore[union-attr]
            plain = await client.call_tool("search_facts", {"query": "Acme rate percent"})
            assert plain.structured_content.get("lookahead") is None  # type: ignore[union-attr]
            timeline = await client.call_tool("timeline", {"entity": "Acme", "at": at})
            assert {f["uuid"] for f in timeline.structured_content["facts"]} == {  # type: ignore[index]
                ids["five"], ids["berlin"]}
            entities = await client.call_tool("search_entities", {"query": "Globex", "at": at})
            assert all(e["name"] != "Globex" for e in entities.structured_content["entities"])  # type: ignore[index]
            block = await client.call_tool("get_context", {"query": "What is Acme's rate?", "at": at})
            assert block.structured_content["lookahead"]["clean"]  # type: ignore[index]
            assert "4 percent" not in block.structured_content["block"]  # type: ignore[index]
            both = await client.call_tool("search_facts", {"query": "Acme", "at": at, "known_at": at})
            assert both.is_error and "at" in both.content[0].text  # type: ignore[union-attr]

    asyncio.run(run())


def test_cli_reads_at_a_point_in_time(tmp_path: Path) -> None:
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from kronograph.cli import app

    db, ids = _story_file(tmp_path)
    runner = CliRunner()

    def cli(*args: str, expect: int = 0) -> Any:
        result = runner.invoke(app, [*args, "--db", str(db)], env={"COLUMNS": "240"})  # type: ignore[arg-type]
        assert result.exit_code == expect, (args, result.output, result.exception)
        return result

    at = T.isoformat()
    listed = json.loads(cli("facts", G, "--subject", "Acme", "--at", at, "--json").stdout)
    assert {f["uuid"] for f in listed} == {ids["five"], ids["berlin"]}
    assert "nothing learned later" in cli("facts", G, "--at", at).stdout
    found = json.loads(cli("search", G, "Acme rate percent", "--at", at, "--json").stdout)
    assert found["facts"][0]["item"]["uuid"] == ids["five"] and found["lookahead"]["clean"]
    block = json.loads(cli("context", G, "What is Acme's rate?", "--at", at, "--json").stdout)
    assert "4 percent" not in block["text"] and block["lookahead"]["clean"]
    assert "--at cannot be combined with --as-of" in cli("facts", G, "--at", at, "--as-of", at, expect=2).stderr
    assert "--at" in cli("search", G, "Acme", "--at", "soon", expect=2).stderr
