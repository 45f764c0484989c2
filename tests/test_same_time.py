"""Same-time conflicts (issue 20, item 5), on every backend: a relation
declared ``same_time="hold"`` keeps two values of one slot at the same valid
time side by side, flagged in the write's candidates, the group's
contradictions, ``conflicts()`` and every ``facts()`` answer, until one is
settled by hand; the default (``"correct"``) corrects as before. The
library, the episode paths (offline and a scripted model), REST, MCP and
the CLI."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

from kronograph import AsyncMemory, Memory, RelationType
from kronograph.errors import InvalidInputError
from kronograph.store import Store

from .conftest import StepClock
from .server_helpers import live_server

MakeMemory = Callable[..., Memory]
G = "desk"
T1 = datetime(2025, 3, 1, tzinfo=UTC)
HOLD = {"RATE_IS": {"cardinality": "many_to_one", "same_time": "hold"}}


def _rate(memory: Memory, value: str, at: datetime = T1, **kw: Any) -> Any:
    return memory.add_fact(G, "policy rate", "RATE_IS", value, valid_at=at, **kw)


def _marks(memory: Memory, **query: Any) -> dict[str, tuple[str, ...]]:
    return {f.object: f.conflicting for f in memory.facts(G, **query)}


def test_the_policy_is_declared_and_checked() -> None:
    assert RelationType().same_time == "correct"
    assert RelationType(cardinality="many_to_one", same_time="hold").same_time == "hold"  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="same_time"):
        RelationType(cardinality="many_to_one", same_time="keep")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="many_to_many"):
        RelationType(same_time="hold")
    with pytest.raises(InvalidInputError, match="relation_types"):
        Memory(":memory:", model=None, relation_types={"RATE_IS": {"same_time": "hold"}})


def test_by_default_the_later_learned_value_corrects_the_other(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None, relation_types={"RATE_IS": {"cardinality": "many_to_one"}})
    first = _rate(memory, "5.25%").fact
    second = _rate(memory, "5.50%")
    assert [f.uuid for f in second.retired] == [first.uuid] and second.retired[0].expired_at is not None
    assert _marks(memory) == {"5.50%": ()}
    assert [c.reason for c in memory.contradictions(G)] == []


def test_hold_keeps_both_current_and_flags_them_everywhere(memory_factory: MakeMemory, clock: StepClock) -> None:
    memory = memory_factory(model=None, relation_types=HOLD)
    memory.set_contradiction_policy(G, {"candidates": 0})  # held conflicts are listed whatever the cap
    first = _rate(memory, "5.25%", actor="analyst").fact
    clock.tick()
    second = _rate(memory, "5.50%", actor="board")
    a, b = first.uuid, second.fact.uuid
    assert second.retired == [] and second.changed == [] and second.fact.invalid_at is None
    [held] = second.possible_contradictions
    assert (held.reason, held.fact, held.contradicts.uuid) == ("same_time", b, a)
    assert _marks(memory) == {"5.25%": (b,), "5.50%": (a,)}
    assert memory.fact(G, a).conflicting == (b,)  # type: ignore[union-attr]
    for uuid in (a, b):
        slot = memory.conflicts(G, uuid)
        assert {f.uuid: f.conflicting for f in slot} == {a: (b,), b: (a,)}
    [row] = memory.contradictions(G, fact_uuid=a)
    assert (row.kind, row.reason, row.fact, row.contradicts.uuid, row.actor) == ("held", "same_time", b, a, "board")
    assert memory.contradictions(G, fact_uuid=b) == [row]
    assert any(e.kind == "contradiction_flagged" and e.detail["reason"] == "same_time"
               for e in memory.audit_events(G))
    assert [f.object for f in memory.timeline(G, "policy rate") if f.conflicting] == ["5.25%", "5.50%"]
    assert memory.reconcile(G).overlaps == []  # held on purpose: no defect
    assert {p.reason for p in memory.audit(G)} == {"same_time"}

    # A restatement is still a restatement: merged, nothing new flagged.
    again = _rate(memory, "5.50%")
    assert again.merged and again.fact.uuid == b and again.possible_contradictions == []
    assert len(memory.contradictions(G, open_only=False)) == 1

    # As believed before the second was learned: one value, no marker.
    assert _marks(memory, known_at=T1 + timedelta(days=400), as_of=T1) == {"5.25%": (b,), "5.50%": (a,)}
    assert _marks(memory, known_at=first.created_at) == {"5.25%": ()}

    # A later value supersedes the slot: both close at its start, the conflict is no longer open.
    clock.tick()
    later = _rate(memory, "5.00%", at=T1 + timedelta(days=30))
    assert sorted(f.uuid for f in later.retired) == sorted((a, b))
    assert all(f.invalid_at == T1 + timedelta(days=30) for f in later.retired)
    assert _marks(memory) == {"5.00%": ()}
    assert _marks(memory, as_of=T1 + timedelta(days=1)) == {"5.25%": (b,), "5.50%": (a,)}  # held then
    assert memory.contradictions(G) == []


def test_a_held_conflict_is_settled_by_hand(memory_factory: MakeMemory, clock: StepClock) -> None:
    memory = memory_factory(model=None, relation_types=HOLD)
    a = _rate(memory, "5.25%").fact.uuid
    b = _rate(memory, "5.50%").fact.uuid
    c = _rate(memory, "5.75%").fact.uuid  # a third value: held beside both
    assert _marks(memory) == {"5.25%": tuple(sorted((b, c))), "5.50%": tuple(sorted((a, c))),
                              "5.75%": tuple(sorted((a, b)))}
    clock.tick()
    memory.remove_fact(G, c)  # retracted: its rows go with it
    assert _marks(memory) == {"5.25%": (b,), "5.50%": (a,)}
    clock.tick()
    confirmed = _rate(memory, "5.50%", replaces=a, reason="the decision")  # restates b, retires a
    assert confirmed.merged and confirmed.fact.uuid == b and [f.uuid for f in confirmed.retired] == [a]
    assert _marks(memory) == {"5.50%": ()}
    assert memory.contradictions(G) == []

    d = _rate(memory, "6.00%", at=T1 + timedelta(days=60)).fact.uuid
    e = _rate(memory, "6.25%", at=T1 + timedelta(days=60)).fact.uuid
    clock.tick()
    assert memory.dismiss_contradiction(G, e, d, reason="both published") == 1  # both kept, flag settled
    assert _marks(memory) == {"6.00%": (), "6.25%": ()}


def test_late_history_is_held_and_born_closed(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None, relation_types=HOLD)
    later = _rate(memory, "5.00%", at=T1 + timedelta(days=30)).fact.uuid  # the later value learned first
    a = _rate(memory, "5.25%").fact
    b = _rate(memory, "5.50%").fact
    assert a.invalid_at == b.invalid_at == T1 + timedelta(days=30) and b.invalidated_by == later
    assert _marks(memory, as_of=T1) == {"5.25%": (b.uuid,), "5.50%": (a.uuid,)}
    assert _marks(memory) == {"5.00%": ()}
    assert [c.kind for c in memory.contradictions(G, open_only=False)] == ["held"]


def test_a_replacement_at_the_same_time_is_a_correction_not_a_hold(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None, relation_types=HOLD)
    a = _rate(memory, "5.25%").fact.uuid
    fixed = _rate(memory, "5.30%", replaces=a)
    assert [f.uuid for f in fixed.retired] == [a] and fixed.possible_contradictions == []
    assert _marks(memory) == {"5.30%": ()}


def test_episodes_hold_on_the_offline_path(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None, relation_types={"LIVES_IN": {"cardinality": "many_to_one",
                                                                      "same_time": "hold"}})
    memory.add_episode(G, "Ann Lee lives in Paris.", reference_time=T1)
    second = memory.add_episode(G, "Ann Lee lives in Rome.", reference_time=T1)
    assert second.retired == [] and [p.reason for p in second.possible_contradictions] == ["same_time"]
    assert all(f.conflicting for f in memory.facts(G))
    both = memory.add_episode(G, "Ann Lee lives in Oslo and Ann Lee lives in Bergen.",
                              reference_time=T1 + timedelta(days=90))  # one episode, two values
    assert sorted(f.object for f in both.retired) == ["Paris", "Rome"]
    assert sorted(f.object for f in memory.facts(G) if f.conflicting) == ["Bergen", "Oslo"]


class RATE_IS(BaseModel):  # noqa: N801 (a fact type is named as its relation)
    """The policy rate set from a date."""

    cardinality: ClassVar[str] = "many_to_one"
    same_time: ClassVar[str] = "hold"


def test_episodes_hold_on_the_model_path_by_a_declared_fact_type() -> None:
    from .ingest_helpers import ScriptedProvider
    from .test_ingest import client, extraction_table, facts_json

    table = {text: facts_json(("policy rate", "RATE_IS", value), valid_at="2025-03-01")
             for text, value in (("forecast: 5.25", "5.25%"), ("decision: 5.50", "5.50%"))}
    provider = ScriptedProvider(Extraction=extraction_table(table))
    with Memory(":memory:", model=client(provider)) as memory:
        memory.add_episode(G, "forecast: 5.25", reference_time=T1, fact_types=[RATE_IS])
        decided = memory.add_episode(G, "decision: 5.50", reference_time=T1, fact_types=[RATE_IS])
        assert decided.retired == [] and provider.count("JudgeAnswer") == 0  # declared: no judge
        assert [p.reason for p in decided.possible_contradictions] == ["same_time"]
        assert sorted(f.object for f in memory.facts(G) if f.conflicting) == ["5.25%", "5.50%"]
    with pytest.raises(InvalidInputError, match="many_to_many"):
        Memory(":memory:", model=None).add_episode(
            G, "x", fact_types=[type("RATE_IS", (BaseModel,), {"__annotations__": {"same_time": ClassVar[str]},
                                                              "same_time": "hold"})])


def test_rest_carries_the_marker_and_lists_the_held_conflict(backend: Callable[..., Store]) -> None:
    with live_server(backend(threaded=True), local=True, relation_types=HOLD) as server, server.client() as api:
        base = f"/v1/groups/{G}"
        body = {"subject": "policy rate", "relation": "RATE_IS", "valid_at": T1.isoformat()}
        a = api.post(f"{base}/facts", json={**body, "object": "5.25%"}).json()["fact"]["uuid"]
        made = api.post(f"{base}/facts", json={**body, "object": "5.50%"})
        assert made.status_code == 201, made.text
        b = made.json()["fact"]["uuid"]
        assert [p["reason"] for p in made.json()["possible_contradictions"]] == ["same_time"]
        listed = api.get(f"{base}/facts").json()["facts"]
        assert {f["uuid"]: f["conflicting"] for f in listed} == {a: [b], b: [a]}
        slot = api.get(f"{base}/facts/{a}/conflicts").json()["facts"]
        assert {f["uuid"] for f in slot} == {a, b}
        [row] = api.get(f"{base}/contradictions").json()["contradictions"]
        assert (row["kind"], row["reason"]) == ("held", "same_time")
        assert api.delete(f"{base}/facts/{b}").status_code == 200
        assert [f["conflicting"] for f in api.get(f"{base}/facts").json()["facts"]] == [[]]


def test_mcp_shows_the_marker() -> None:
    from mcp import Client

    from kronograph.server.mcp_server import build_mcp_server
    from kronograph.server.mcp_tools import Access

    async def run() -> None:
        async with AsyncMemory(":memory:", model=None, relation_types=HOLD) as memory:
            a = (await memory.add_fact(G, "policy rate", "RATE_IS", "5.25%", valid_at=T1)).fact.uuid
            b = (await memory.add_fact(G, "policy rate", "RATE_IS", "5.50%", valid_at=T1)).fact.uuid
            async with Client(build_mcp_server(memory, access=Access.local([G]))) as client:
                slot = await client.call_tool("conflicts", {"fact_uuid": a})
                assert not slot.is_error, slot.content
                shown = {f["uuid"]: f["conflicting"] for f in slot.structured_content["slot"]}  # type: ignore[index]
                assert shown == {a: [b], b: [a]}
                assert "CONFLICTING (same time)" in slot.content[0].text  # type: ignore[union-attr]
                found = await client.call_tool("search_facts", {"query": "policy rate"})
                hits = found.structured_content["facts"]  # type: ignore[index]
                assert {f["uuid"]: f["conflicting"] for f in hits} == {a: [b], b: [a]}
                rows = await client.call_tool("get_contradictions", {"fact_uuid": b})
                assert [r["kind"] for r in rows.structured_content["contradictions"]] == ["held"]  # type: ignore[index]

    asyncio.run(run())


def test_cli_declares_hold_and_shows_the_conflict(tmp_path: Path) -> None:
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from kronograph.cli import app

    db = tmp_path / "cli.db"
    runner = CliRunner()

    def cli(*args: str, expect: int = 0) -> Any:
        result = runner.invoke(app, [*args, "--db", str(db)], env={"COLUMNS": "240"})  # type: ignore[arg-type]
        assert result.exit_code == expect, (args, result.output, result.exception)
        return result

    spec = ("--relation-type", "RATE_IS=many_to_one:hold", "--valid-at", "2025-03-01")
    cli("add-fact", G, "policy rate", "RATE_IS", "5.25%", *spec)
    filed = cli("add-fact", G, "policy rate", "RATE_IS", "5.50%", *spec).stdout
    assert "same_time" in filed
    rows = json.loads(cli("contradictions", G, "--json").stdout)
    assert [(r["kind"], r["reason"]) for r in rows] == [("held", "same_time")]
    facts = json.loads(cli("facts", G, "--json").stdout)
    assert all(f["conflicting"] for f in facts) and len(facts) == 2
    assert cli("facts", G).stdout.count("(conflicting)") == 2
    assert cli("conflicts", G, facts[0]["uuid"]).stdout.count("conflicting") == 2
    assert "hold" in cli("add-fact", G, "a", "R", "b", "--relation-type", "R=many_to_one:hold:correct", expect=2).stderr
