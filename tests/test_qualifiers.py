"""Qualified slots (issue 20, item 4): "Q2 deliveries were 400k" and "Q3
deliveries were 380k" are two values of one relation that do not replace
each other. A relation declares its qualifier keys; cardinality,
restatement and the judge apply per subject, relation and qualifiers; reads,
search, the context block, extraction (a scripted model's reply, a JSON
mapping), REST, MCP and the CLI know them. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kronograph import AsyncMemory, Fact, Memory, RelationType
from kronograph.errors import InvalidInputError
from kronograph.ingest.json_map import JsonMapping
from kronograph.search.types import SearchFilters

from .ingest_helpers import ScriptedProvider, current_episode

MakeMemory = Callable[..., Memory]
BOTH = pytest.mark.parametrize("backend", ["sqlite-memory", "postgres"], indirect=True)
TYPES = {
    "DELIVERIES": RelationType(cardinality="many_to_one", qualifiers=("period",)),
    "RATE": RelationType(cardinality="many_to_one", qualifiers=("year", "tenor")),
}


def _slots(facts: list[Fact]) -> list[tuple[str, dict[str, str]]]:
    return sorted((f.object, f.qualifiers) for f in facts)


@BOTH
def test_two_periods_stand_side_by_side_and_one_period_is_replaced(memory_factory: MakeMemory, clock: Any) -> None:
    memory = memory_factory(model=None, relation_types=TYPES)
    q2 = memory.add_fact("g", "Tesla", "DELIVERIES", "400k", valid_at="2024-07-02", qualifiers={"period": "2024-Q2"})
    assert q2.fact.qualifiers == {"period": "2024-Q2"}
    assert q2.fact.fact == "Tesla DELIVERIES 400k (period 2024-Q2)"  # the generated text shows its slot
    q3 = memory.add_fact("g", "Tesla", "DELIVERIES", "380k", valid_at="2024-10-02", qualifiers={"period": " 2024-Q3 "})
    assert q3.fact.qualifiers == {"period": "2024-Q3"}  # stripped
    assert not q3.retired and not q3.possible_contradictions  # another slot: neither replaced nor flagged
    assert _slots(memory.facts("g")) == [("380k", {"period": "2024-Q3"}), ("400k", {"period": "2024-Q2"})]

    # The same period, corrected: the old Q2 value is retired (many-to-one per slot), Q3's untouched.
    clock.tick(days=1)
    fixed = memory.add_fact("g", "Tesla", "DELIVERIES", "410k", valid_at="2024-07-05",
                            qualifiers={"period": "2024-Q2"})
    assert [f.uuid for f in fixed.retired] == [q2.fact.uuid]
    assert _slots(memory.facts("g")) == [("380k", {"period": "2024-Q3"}), ("410k", {"period": "2024-Q2"})]
    # The same statement again in the same slot merges; in another slot it is another fact.
    again = memory.add_fact("g", "Tesla", "DELIVERIES", "410k", valid_at="2024-07-06",
                            qualifiers={"period": "2024-Q2"})
    assert again.merged and again.fact.uuid == fixed.fact.uuid
    other = memory.add_fact("g", "Tesla", "DELIVERIES", "410k", valid_at="2024-12-30",
                            qualifiers={"period": "2024-Q4"})
    assert not other.merged and not other.retired

    # Reads per slot: now, every interval, as of a time, as believed before the correction.
    q2_now = memory.facts("g", qualifiers={"period": "2024-Q2"})
    assert [f.object for f in q2_now] == ["410k"]
    assert [f.object for f in memory.facts("g", qualifiers={"period": "2024-Q2"}, include_retired=True)] == [
        "400k", "410k"]
    assert [f.object for f in memory.facts("g", qualifiers={"period": "2024-Q2"}, as_of="2024-07-03")] == ["400k"]
    believed = memory.facts("g", qualifiers={"period": "2024-Q2"}, known_at=q3.fact.created_at)
    assert [(f.object, f.qualifiers) for f in believed] == [("400k", {"period": "2024-Q2"})]
    assert memory.facts("g", qualifiers={"period": "2023-Q2"}) == []
    assert memory.facts("g", qualifiers={"colour": "red"}) == []  # an unknown key matches nothing
    assert [f.object for f in memory.facts("g", subject="tesla", relation="deliveries",
                                           qualifiers={"PERIOD": "2024-Q3"})] == ["380k"]
    # A fact's history keeps its slot; the conflicts sweep finds no pair across slots.
    assert memory.fact("g", q2.fact.uuid).qualifiers == {"period": "2024-Q2"}  # type: ignore[union-attr]
    assert memory.audit("g") == []
    assert memory.reconcile("g").overlaps == []  # Q2's and Q3's values overlap in time, in two slots


@BOTH
def test_several_keys_and_unqualified_facts_are_slots_of_their_own(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None, relation_types=TYPES)
    memory.add_fact("g", "ECB", "RATE", "4.00%", valid_at="2024-01-01", qualifiers={"year": "2024", "tenor": "1y"})
    memory.add_fact("g", "ECB", "RATE", "4.20%", valid_at="2024-01-01", qualifiers={"year": "2024", "tenor": "5y"})
    plain = memory.add_fact("g", "ECB", "RATE", "4.50%", valid_at="2024-01-01")
    assert plain.fact.qualifiers == {} and not plain.retired
    assert [f.object for f in memory.facts("g", qualifiers={"year": "2024"})] == ["4.00%", "4.20%"]
    assert [f.object for f in memory.facts("g", qualifiers={"tenor": "5y", "year": "2024"})] == ["4.20%"]
    # the unqualified slot is replaced by an unqualified fact only
    later = memory.add_fact("g", "ECB", "RATE", "4.75%", valid_at="2024-06-01")
    assert [f.object for f in later.retired] == ["4.50%"]
    assert len(memory.facts("g")) == 3


@BOTH
def test_a_bad_qualifier_is_refused_naming_it_and_nothing_is_written(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None, relation_types=TYPES)
    for qualifiers, field in (
        ({"unit": "cars"}, "qualifiers['unit']"),  # not declared for DELIVERIES
        ({"period": ""}, "qualifiers['period']"),
        ({"period": "  "}, "qualifiers['period']"),
        ({"period": "2024\nQ2"}, "qualifiers['period']"),
        ({"period": "x" * 201}, "qualifiers['period']"),
        ({"period": 2024}, "qualifiers['period']"),
        ({"bad key": "x"}, "qualifiers"),
    ):
        with pytest.raises(InvalidInputError) as caught:
            memory.add_fact("g", "Tesla", "DELIVERIES", "400k", qualifiers=qualifiers)  # type: ignore[arg-type]
        assert caught.value.field == field, (qualifiers, caught.value)
    with pytest.raises(InvalidInputError, match="declares no qualifiers"):
        memory.add_fact("g", "Sam", "WORKS_AT", "Acme", qualifiers={"period": "2024"})
    assert memory.groups() == []  # nothing written, not even the group
    with pytest.raises(InvalidInputError):
        memory.facts("g", qualifiers={"period": "a\x00b"})
    # declarations are checked too: identifier-like, short, not twice
    for keys in (("period", "Period"), ("",), ("two words",), ("x" * 41,), ("1st",)):
        with pytest.raises(ValueError):
            RelationType(qualifiers=keys)
    assert RelationType(qualifiers=("Period", "tenor")).qualifiers == ("period", "tenor")
    with pytest.raises(InvalidInputError, match=r"relation_types\['X'\]"):
        Memory(":memory:", model=None, relation_types={"X": {"qualifiers": ["a", "a"]}})


@BOTH
def test_search_filters_and_the_context_block_show_the_slot(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None, relation_types=TYPES)
    memory.add_fact("g", "Tesla", "DELIVERIES", "400k", valid_at="2024-07-02", qualifiers={"period": "2024-Q2"})
    memory.add_fact("g", "Tesla", "DELIVERIES", "380k", valid_at="2024-10-02", qualifiers={"period": "2024-Q3"})
    everything = memory.search("g", "Tesla deliveries", scopes=["facts"])
    assert {h.item.object for h in everything.facts} == {"400k", "380k"}
    only = memory.search("g", "Tesla deliveries", scopes=["facts"],
                         filters=SearchFilters(qualifiers={"period": "2024-Q3"}))
    assert [h.item.object for h in only.facts] == ["380k"]
    with pytest.raises(InvalidInputError):
        SearchFilters(qualifiers={"period": 3})
    block = memory.context("g", "Tesla deliveries").text
    assert "(period 2024-Q2)" in block and "(period 2024-Q3)" in block
    exported = memory.export("g")
    assert sorted(f.qualifiers["period"] for f in exported.facts) == ["2024-Q2", "2024-Q3"]


def _extraction(system: str, user: str) -> dict[str, Any]:
    text = current_episode(user)
    period, value = ("2024-Q2", "400k") if "Q2" in text else ("2024-Q3", "380k")
    return {"reasoning": "", "entities": [{"name": "Tesla"}, {"name": value}], "facts": [{
        "subject": "Tesla", "relation": "DELIVERIES", "object": value, "fact": f"Tesla delivered {value} in {period}",
        "qualifiers": {"period": period, "unit": "cars"},
    }]}


def test_extraction_returns_qualifiers_of_declared_keys_only() -> None:
    provider = ScriptedProvider(Extraction=_extraction, Verdicts=lambda s, u: {"verdicts": []})
    prompts: list[str] = []
    answer = provider.answers["Extraction"]
    provider.answers["Extraction"] = lambda s, u: (prompts.append(s), answer(s, u))[1]
    with Memory(":memory:", model=provider, relation_types=TYPES) as memory:
        first = memory.add_episode("g", "Q2 deliveries were 400k.", reference_time="2024-07-02").raise_for_status()
        second = memory.add_episode("g", "Q3 deliveries were 380k.", reference_time="2024-10-02").raise_for_status()
        assert [f.qualifiers for f in first.created] == [{"period": "2024-Q2"}]  # unit: not declared, dropped
        assert [f.qualifiers for f in second.created] == [{"period": "2024-Q3"}] and not second.retired
        assert _slots(memory.facts("g")) == [("380k", {"period": "2024-Q3"}), ("400k", {"period": "2024-Q2"})]
        [source] = memory.fact_sources("g", second.created[0].uuid)
        assert source.provenance["qualifiers_dropped"] == ["unit: not declared for this relation"]
    assert "Relations with qualifiers" in prompts[0] and "- deliveries: period" in prompts[0]


def test_a_json_mapping_carries_qualifiers() -> None:
    record = {"name": "Tesla", "deliveries": [{"name": "400k", "period": "2024-Q2"},
                                              {"name": "380k", "period": "2024-Q3", "colour": "red"}]}
    with Memory(":memory:", model=None, relation_types=TYPES) as memory:
        result = memory.add_episode("g", record, kind="json", reference_time="2024-10-02",
                                    json_mapping=JsonMapping(qualifier_keys=("period",))).raise_for_status()
        assert _slots(result.created) == [("380k", {"period": "2024-Q3"}), ("400k", {"period": "2024-Q2"})]
        assert _slots(memory.facts("g", relation="DELIVERIES")) == _slots(result.created)


@BOTH
def test_rest_mcp_and_cli(backend: Callable[..., Any], tmp_path: Path) -> None:
    import httpx

    from .server_helpers import live_server

    slot = {"subject": "Tesla", "relation": "DELIVERIES", "valid_at": "2024-07-02T00:00:00Z"}
    with live_server(backend(threaded=True), keys={"k": (["g"], False)}, relation_types=TYPES) as server, \
            server.client("k") as api:  # type: ignore[arg-type]
        made = api.post("/v1/groups/g/facts", json={**slot, "object": "400k", "qualifiers": {"period": "2024-Q2"}})
        assert made.status_code == 201, made.text
        assert made.json()["fact"]["qualifiers"] == {"period": "2024-Q2"}
        other = api.post("/v1/groups/g/facts", json={**slot, "object": "380k", "valid_at": "2024-10-02T00:00:00Z",
                                                     "qualifiers": {"period": "2024-Q3"}})
        assert other.status_code == 201 and other.json()["retired"] == []
        refused = api.post("/v1/groups/g/facts", json={**slot, "object": "1", "qualifiers": {"unit": "cars"}})
        assert refused.status_code == 400 and refused.json()["error"]["field"] == "qualifiers['unit']"
        listed = api.get("/v1/groups/g/facts", params={"qualifier": "period=2024-Q3"}).json()["facts"]
        assert [f["object"] for f in listed] == ["380k"]
        assert api.get("/v1/groups/g/facts", params={"qualifier": "period"}).status_code == 400
        found = api.post("/v1/groups/g/search", json={"query": "Tesla deliveries", "scopes": ["facts"],
                                                      "qualifiers": {"period": "2024-Q2"}}).json()
        assert [h["item"]["object"] for h in found["facts"]] == ["400k"]
        assert isinstance(server.memory, AsyncMemory)
    _mcp()
    _cli(tmp_path)
    assert httpx  # imported for the REST client's errors


def _mcp() -> None:
    from mcp import Client

    from kronograph.server.mcp_server import build_mcp_server
    from kronograph.server.mcp_tools import Access

    async def run() -> None:
        async with AsyncMemory(":memory:", model=None, relation_types=TYPES) as memory:
            async with Client(build_mcp_server(memory, access=Access.local(["g"]))) as client:
                for period, value in (("2024-Q2", "400k"), ("2024-Q3", "380k")):
                    added = await client.call_tool("add_fact", {"subject": "Tesla", "relation": "DELIVERIES",
                                                                "object": value, "qualifiers": {"period": period}})
                    assert not added.is_error, added.content
                    assert added.structured_content["retired"] == []  # type: ignore[index]
                got = await client.call_tool("get_facts", {"qualifiers": {"period": "2024-Q3"}})
                facts = got.structured_content["facts"]  # type: ignore[index]
                assert [(f["object"], f["qualifiers"]) for f in facts] == [("380k", {"period": "2024-Q3"})]
                assert "period 2024-Q3" in got.content[0].text  # type: ignore[union-attr]
                searched = await client.call_tool("search_facts", {"query": "Tesla deliveries",
                                                                   "qualifiers": {"period": "2024-Q2"}})
                assert [f["object"] for f in searched.structured_content["facts"]] == ["400k"]  # type: ignore[index]
                bad = await client.call_tool("add_fact", {"subject": "Tesla", "relation": "DELIVERIES",
                                                          "object": "1", "qualifiers": {"unit": "cars"}})
                assert bad.is_error and "unit" in bad.content[0].text  # type: ignore[union-attr]

    asyncio.run(run())


def _cli(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from kronograph.cli import app

    db = str(tmp_path / "cli.db")
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(app, [*args, "--db", db], env={"COLUMNS": "240"})  # type: ignore[arg-type]

    declared = ["--relation-type", "DELIVERIES=many_to_one:period"]
    first = run("add-fact", "g", "Tesla", "DELIVERIES", "400k", "--qualifier", "period=2024-Q2", *declared)
    assert first.exit_code == 0 and "(period 2024-Q2)" in first.output, first.output
    second = run("add-fact", "g", "Tesla", "DELIVERIES", "380k", "--qualifier", "period=2024-Q3", *declared)
    assert second.exit_code == 0 and "retired" not in second.output, second.output
    undeclared = run("add-fact", "g", "Tesla", "DELIVERIES", "1", "--qualifier", "period=2024-Q4")
    assert undeclared.exit_code != 0 and "period" in undeclared.output
    malformed = run("add-fact", "g", "Tesla", "DELIVERIES", "1", "--qualifier", "period", *declared)
    assert malformed.exit_code != 0 and "KEY=VALUE" in malformed.output
    listed = run("facts", "g", "--qualifier", "period=2024-Q3", "--json")
    assert listed.exit_code == 0, listed.output
    assert [(f["object"], f["qualifiers"]) for f in json.loads(listed.output)] == [("380k", {"period": "2024-Q3"})]


def test_merging_entities_keeps_each_slot_and_retires_within_one() -> None:
    with Memory(":memory:", model=None, relation_types=TYPES) as memory:
        memory.add_fact("g", "Tesla", "DELIVERIES", "400k", valid_at="2024-07-02", qualifiers={"period": "2024-Q2"})
        memory.add_fact("g", "Tesla Inc", "DELIVERIES", "380k", valid_at="2024-10-02",
                        qualifiers={"period": "2024-Q3"})
        memory.add_fact("g", "Tesla Inc", "DELIVERIES", "410k", valid_at="2024-07-05",
                        qualifiers={"period": "2024-Q2"})
        assert len(memory.facts("g")) == 3  # two subjects yet: nothing shares a slot
        merged = memory.merge_entities("g", "Tesla", ["Tesla Inc"])
        assert [f.object for f in merged.changed if f.invalid_at is not None] == ["400k"]  # Q2's, by Q2's
        assert _slots(memory.facts("g", subject="Tesla")) == [
            ("380k", {"period": "2024-Q3"}), ("410k", {"period": "2024-Q2"})]


def test_an_extractors_qualifiers_are_kept_by_the_declaration() -> None:
    from kronograph.qualifiers import kept

    slot, dropped = kept({"Year": 2025, "unit": "pct", "bad key": "x", "tenor": "\x01"}, ("year", "tenor"))
    assert slot == {"year": "2025"}  # a number is read as its text; keys folded
    assert dropped == ["unit: not declared for this relation", "(a key that is not identifier-like)",
                       "tenor: contains a control character"]
