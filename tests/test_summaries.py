"""Entity summaries on every backend: built from current facts only, marked
stale in the plan that changes a fact, rebuilt by summarize_entities (by the
model in batches when one is configured)."""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kronograph import Memory, NotFoundError
from kronograph.maintain.summaries import BATCH, SUMMARY_CHARS, extractive_summary
from kronograph.store.plan import BuiltSummary, Plan

from .ingest_helpers import ScriptedProvider

G = "g"
MakeMemory = Callable[..., Memory]
SINGLE_HOME = {"LIVES_IN": {"cardinality": "many_to_one"}}


def _stale(memory: Memory) -> dict[str, bool]:
    return {e.name: e.summary_stale for e in memory.entities(G)}


def _summary(memory: Memory, name: str) -> str | None:
    (entity,) = memory.entities(G, name=name)
    return entity.summary


def test_extractive_summary_uses_current_facts_only(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None, relation_types=SINGLE_HOME)
    memory.add_fact(G, "Carol", "LIVES_IN", "Paris", valid_at="2020-01-01")
    memory.add_fact(G, "Carol", "WORKS_AT", "Initech", fact="Carol works at Initech as an engineer",
                    valid_at="2021-01-01")
    memory.add_fact(G, "Carol", "LIVES_IN", "Rome", valid_at="2022-01-01")  # retires Paris
    built = {s.name: s for s in memory.summarize_entities(G)}
    assert set(built) == {"Carol", "Paris", "Initech", "Rome"}
    carol = built["Carol"]
    assert carol.method == "extractive" and carol.facts == 2
    assert carol.summary == "Carol lives in Rome. Carol works at Initech as an engineer."  # the most recent first
    assert "Paris" not in carol.summary
    assert built["Paris"].summary is None and built["Paris"].facts == 0  # only a retired fact touches it
    assert _summary(memory, "Carol") == carol.summary
    assert not any(_stale(memory).values())
    (entity,) = memory.entities(G, name="carol")
    assert entity.summary_built_at == carol.built_at


def test_extractive_summary_is_bounded_and_deterministic(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    for i in range(40):
        memory.add_fact(G, "Hub", f"REL_{i % 7}", f"Spoke number {i}", valid_at=f"20{10 + i % 10}-01-01")
    first = {s.name: s.summary for s in memory.summarize_entities(G, "Hub")}
    again = {s.name: s.summary for s in memory.summarize_entities(G, "hub", refresh_stale_only=False)}
    assert first == again and first["Hub"] is not None
    assert 0 < len(first["Hub"]) <= SUMMARY_CHARS
    assert len(set(re.findall(r"rel \d", first["Hub"]))) >= 5  # one fact per relation before a second of any


def test_extractive_summary_cuts_one_long_fact() -> None:
    from datetime import UTC, datetime

    from kronograph.model import Fact

    t = datetime(2024, 1, 1, tzinfo=UTC)
    long = Fact(uuid="f", group_id=G, subject="A", subject_uuid="a", relation="SAID", object="B",
                object_uuid="b", fact="A said " + "words " * 200, valid_at=t, created_at=t)
    text = extractive_summary([long])
    assert text is not None and len(text) <= SUMMARY_CHARS and text.endswith("…")
    assert extractive_summary([]) is None


def test_a_summary_goes_stale_when_its_facts_change(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None, relation_types=SINGLE_HOME)
    memory.add_fact(G, "Carol", "LIVES_IN", "Paris", valid_at="2020-01-01", episode_id="e1")
    memory.add_fact(G, "Dan", "KNOWS", "Erin", valid_at="2020-01-01", episode_id="e2")
    assert all(_stale(memory).values())  # new facts: nothing built yet
    memory.summarize_entities(G)
    assert not any(_stale(memory).values())

    memory.add_fact(G, "Carol", "LIKES", "Tea", valid_at="2021-01-01", episode_id="e3")  # a new fact
    assert _stale(memory) == {"Carol": True, "Paris": False, "Dan": False, "Erin": False, "Tea": True}
    assert memory.summarize_entities(G, ["Carol", "Dan"]) and not _stale(memory)["Carol"]
    assert "Tea" in (_summary(memory, "Carol") or "")

    memory.add_fact(G, "Carol", "LIVES_IN", "Rome", valid_at="2022-01-01", episode_id="e4")  # retires Paris
    stale = _stale(memory)
    assert stale["Carol"] and stale["Paris"] and stale["Rome"] and not stale["Dan"]
    built = {s.name for s in memory.summarize_entities(G)}
    assert built == {"Carol", "Paris", "Rome", "Tea"}  # Tea was never refreshed
    assert "Paris" not in (_summary(memory, "Carol") or "") and _summary(memory, "Paris") is None

    memory.remove_episode(G, "e3")  # removes Carol LIKES Tea (and Tea with it)
    stale = _stale(memory)
    assert "Tea" not in stale and stale["Carol"] and not stale["Dan"]
    memory.summarize_entities(G)
    assert "Tea" not in (_summary(memory, "Carol") or "")
    assert not any(_stale(memory).values())
    assert memory.summarize_entities(G) == []  # nothing stale: nothing rebuilt


def test_summarize_entities_by_name_or_uuid(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    memory.add_fact(G, "Carol", "KNOWS", "Dan")
    (dan,) = memory.entities(G, name="Dan")
    assert [s.name for s in memory.summarize_entities(G, dan.uuid)] == ["Dan"]
    assert [s.name for s in memory.summarize_entities(G, [dan.uuid])] == []  # fresh now
    assert [s.name for s in memory.summarize_entities(G, "DAN", refresh_stale_only=False)] == ["Dan"]
    with pytest.raises(NotFoundError):
        memory.summarize_entities(G, "Nobody")


def test_a_rebuild_is_not_written_over_a_change_it_did_not_see(backend: Callable[..., Any]) -> None:
    memory = Memory(backend(), model=None)
    try:
        memory.add_fact(G, "Carol", "KNOWS", "Dan")
        (carol,) = memory.entities(G, name="Carol")
        plan = Plan(group_id=G, now=carol.created_at, expected_revision=None)
        plan.built_summaries.append(BuiltSummary(carol.uuid, "outdated", stale=2))  # its count is 1
        memory._call(memory.store.apply(plan))  # type: ignore[attr-defined]
        (carol,) = memory.entities(G, name="Carol")
        assert carol.summary is None and carol.summary_stale
    finally:
        memory.close()


def _summary_answer(system: str, user: str) -> dict[str, Any]:
    rows = [json.loads(line) for line in user.splitlines() if line.startswith("{")]
    return {"reasoning": "short", "summaries": [{"id": r["id"], "summary": f"{r['name']} (by model)."} for r in rows]}


def test_model_summaries_are_batched(memory_factory: MakeMemory) -> None:
    provider = ScriptedProvider(SummaryAnswer=_summary_answer)
    memory = memory_factory(model=provider)
    for i in range(BATCH + 24):
        memory.add_fact(G, "Hub", "KNOWS", f"Person {i}")
    memory.add_fact(G, "Loner", "KNOWS", "Person 0", valid_at="2020-01-01", invalid_at="2021-01-01")
    assert provider.count("SummaryAnswer") == 0  # nothing is summarised while ingesting
    built = memory.summarize_entities(G)
    with_facts = [s for s in built if s.facts]
    assert len(built) == BATCH + 26 and len(with_facts) == BATCH + 25  # Loner's only fact is over
    assert provider.count("SummaryAnswer") == math.ceil(len(with_facts) / BATCH)
    assert all(s.method == "model" and s.summary == f"{s.name} (by model)." for s in with_facts)
    (loner,) = [s for s in built if s.name == "Loner"]
    assert loner.summary is None and loner.method == "extractive"
    assert _summary(memory, "Hub") == "Hub (by model)."
    prompts = [user for name, user in provider.calls if name == "SummaryAnswer"]
    assert all(user.count('"id": "S') <= BATCH for user in prompts)


def test_an_entity_the_model_leaves_out_keeps_its_extractive_summary(memory_factory: MakeMemory) -> None:
    def skip_dan(system: str, user: str) -> dict[str, Any]:
        answer = _summary_answer(system, user)
        answer["summaries"] = [s for s in answer["summaries"] if not s["summary"].startswith("Dan")]
        return answer

    provider = ScriptedProvider(SummaryAnswer=skip_dan)
    memory = memory_factory(model=provider)
    memory.add_fact(G, "Carol", "KNOWS", "Dan")
    built = {s.name: s for s in memory.summarize_entities(G)}
    assert built["Carol"].method == "model" and built["Dan"].method == "extractive"
    assert built["Dan"].summary == "Carol knows Dan."
    assert provider.count("SummaryAnswer") == 1


def test_a_v4_memory_marks_entities_with_facts_stale(tmp_path: Path) -> None:
    from kronograph.store.sqlite.schema import MIGRATIONS

    path = tmp_path / "v4.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT)")
    for number, name, apply in MIGRATIONS[:4]:
        apply(conn)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, 'now')", (number, name))
    conn.execute("INSERT INTO groups VALUES ('g', 0)")
    for uuid, name in (("a", "Ann"), ("r", "Rome"), ("z", "Zed")):
        conn.execute(
            "INSERT INTO entities(uuid, group_id, name, name_key, created_at, summary) VALUES (?, 'g', ?, ?, 0, ?)",
            (uuid, name, name.lower(), "From one episode." if name == "Zed" else None),
        )
    conn.execute(
        "INSERT INTO facts(uuid, group_id, source_uuid, target_uuid, relation, relation_key, fact, valid_at,"
        " created_at, recorded_at, cause) VALUES ('f', 'g', 'a', 'r', 'LIVES_IN', 'livesin', 'Ann lives in Rome',"
        " 0, 0, 0, 'created')"
    )
    conn.commit()
    conn.close()
    with Memory(path, model=None, resume=False) as memory:
        assert _stale(memory) == {"Ann": True, "Rome": True, "Zed": False}
        assert _summary(memory, "Zed") == "From one episode."
        assert {s.name: s.summary for s in memory.summarize_entities(G)} == {
            "Ann": "Ann lives in Rome.", "Rome": "Ann lives in Rome."
        }
