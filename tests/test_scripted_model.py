"""The benchmarks' scripted model: valid answers to the real prompts, and the
extraction, dedupe and judge answers a plain model would give on team chat."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kronograph.errors import ModelError
from kronograph.ingest.ontology import Ontology
from kronograph.ingest.prompts import dedupe_prompt, extraction_prompt, judge_prompt
from kronograph.ingest.schema import DedupeAnswer, Extraction, JudgeAnswer
from kronograph.llm.protocol import ModelReply, Provider
from kronograph.model import Entity
from kronograph.store.records import FactRecord, Source

BENCH = Path(__file__).resolve().parent.parent / "bench"
REF = datetime(2024, 3, 10, 9, 30, tzinfo=UTC)


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("scripted_model", BENCH / "scripted_model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("scripted_model", module)
    spec.loader.exec_module(module)
    return module


sm = _load()


def ask(provider: Any, system: str, user: str, schema_name: str) -> ModelReply:
    return asyncio.run(provider.complete(system=system, user=user, schema=None, schema_name=schema_name))


def extraction(content: str, *, kind: str = "message") -> Extraction:
    prompt = extraction_prompt(
        content=content, kind=kind, reference_time=REF, source_description="team chat", previous=[],
        ontology=Ontology(),
    )
    reply = ask(sm.ScriptedProvider(), prompt.system, prompt.user, "Extraction")
    return Extraction.model_validate_json(reply.text)


def triples(x: Extraction) -> set[tuple[str, str, str]]:
    return {(f.subject, f.relation, f.object) for f in x.facts}


def record(subject: str, relation: str, obj: str, valid: datetime, *, invalid: datetime | None = None) -> FactRecord:
    return FactRecord(
        uuid=f"{subject}-{relation}-{obj}", group_id="g", source_uuid=subject, target_uuid=obj, subject=subject,
        object=obj, relation=relation, relation_key=relation.replace("_", "").lower(),
        fact=f"{subject} {relation} {obj}", valid_at=valid, invalid_at=invalid, stated_invalid_at=None,
        created_at=REF, expired_at=None, invalidated_by=None, sources=(Source("ep", valid, None, REF),),
    )


def entity(name: str, *labels: str, aliases: tuple[str, ...] = ()) -> Entity:
    return Entity(uuid=name, group_id="g", name=name, labels=labels, aliases=aliases, created_at=REF)


# --- the provider ---------------------------------------------------------------------------------------


def test_is_a_provider_and_counts_calls() -> None:
    provider = sm.ScriptedProvider()
    assert isinstance(provider, Provider)
    assert (provider.name, provider.model, provider.small_model, provider.native_schema) == (
        "scripted", "scripted-workload", None, True,
    )
    prompt = extraction_prompt(
        content="Ana Ruiz: I live in Lima.", kind="message", reference_time=REF, source_description=None,
        previous=[], ontology=Ontology(),
    )
    reply = ask(provider, prompt.system, prompt.user, "Extraction")
    assert reply.prompt_tokens == prompt.chars // 4 > 0
    assert reply.completion_tokens == len(reply.text) // 4 > 0
    assert reply.model == "scripted-workload"
    assert provider.calls == {"Extraction": 1}
    assert provider.prompt_chars == {"Extraction": prompt.chars}
    assert provider.seconds > 0


def test_unknown_schema_is_a_model_error() -> None:
    with pytest.raises(ModelError):
        ask(sm.ScriptedProvider(), "s", "u", "Summary")


# --- extraction -------------------------------------------------------------------------------------------


def test_introduction() -> None:
    x = extraction("Ana Ruiz: Hi all, I'm Ana Ruiz. I work at Nimbus Dynamics as a designer and I live in Lima.")
    assert triples(x) == {("Ana Ruiz", "WORKS_AT", "Nimbus Dynamics"), ("Ana Ruiz", "LIVES_IN", "Lima")}
    labels = {e.name: e.labels for e in x.entities}
    assert labels == {"Ana Ruiz": ["Person"], "Nimbus Dynamics": ["Organization"], "Lima": ["Location"]}
    assert all(f.valid_at is None and f.time_expression is None for f in x.facts)


@pytest.mark.parametrize(
    ("line", "fact", "expression", "date"),
    [
        ("Ana Ruiz: Big news! I joined Orbit on March 3, 2024 as a researcher.",
         ("Ana Ruiz", "WORKS_AT", "Orbit"), "on March 3, 2024", "2024-03-03"),
        ("Ana Ruiz: Did you hear? Ben Cole started working at Orbit Labs on February 28, 2024.",
         ("Ben Cole", "WORKS_AT", "Orbit Labs"), "on February 28, 2024", "2024-02-28"),
        ("Ana Ruiz: Ben Cole relocated to Quito on March 1, 2024 for family reasons.",
         ("Ben Cole", "LIVES_IN", "Quito"), "on March 1, 2024", "2024-03-01"),
        ("Ana Ruiz: We finally moved to Porto on March 2, 2024. The new apartment is great.",
         ("Ana Ruiz", "LIVES_IN", "Porto"), "on March 2, 2024", "2024-03-02"),
        ("Ana Ruiz: Since March 3, 2024 I have been working on Project Kite with Ben Cole.",
         ("Ana Ruiz", "WORKS_ON", "Project Kite"), "Since March 3, 2024", "2024-03-03"),
        ("Ana Ruiz: Ben Cole now leads Project Kite on March 4, 2024.",
         ("Ben Cole", "LEADS", "Project Kite"), "on March 4, 2024", "2024-03-04"),
        ("Ana Ruiz: I left Orbit Labs on March 5, 2024. Taking a break for a while.",
         ("Ana Ruiz", "LEFT", "Orbit Labs"), "on March 5, 2024", "2024-03-05"),
        ("Ana Ruiz: Orbit Labs opened a new office in Quito on March 6, 2024.",
         ("Orbit Labs", "HAS_OFFICE_IN", "Quito"), "on March 6, 2024", "2024-03-06"),
        ("Ana Ruiz: I had lunch with Ben Cole in Porto on March 7, 2024.",
         ("Ana Ruiz", "HAD_LUNCH_WITH", "Ben Cole"), "on March 7, 2024", "2024-03-07"),
        ("Ana Ruiz: Ben Cole switched to Project Kite yesterday.",
         ("Ben Cole", "WORKS_ON", "Project Kite"), "yesterday", "2024-03-09"),
        ("Ana Ruiz: Reminder: Ben Cole still works at Orbit Labs.", ("Ben Cole", "WORKS_AT", "Orbit Labs"), None, None),
    ],
)
def test_chat_lines(line: str, fact: tuple[str, str, str], expression: str | None, date: str | None) -> None:
    x = extraction(line)
    assert fact in triples(x)
    found = next(f for f in x.facts if (f.subject, f.relation, f.object) == fact)
    assert found.time_expression == expression
    if date is None:
        assert found.valid_at is None
    else:
        assert found.valid_at == f"{date}T00:00:00+00:00"
    assert {e.name for e in x.entities} >= {fact[0], fact[2], "Ana Ruiz"}


def test_sentence_starts_and_months_are_not_entities() -> None:
    x = extraction("Ana Ruiz: Thanks everyone, see you at the standup tomorrow! Apparently Orbit is hiring in Lima.")
    assert [e.name for e in x.entities] == ["Ana Ruiz", "Orbit", "Lima"]
    assert triples(x) == {("Orbit", "IS_HIRING_IN", "Lima")}


def test_chit_chat_and_questions_state_nothing() -> None:
    for line in ("Ana Ruiz: Coffee machine on the third floor is broken again.",
                 "Ana Ruiz: Has anyone seen the slides from yesterday?",
                 "Ana Ruiz: Does Ben Cole work at Orbit Labs?"):
        assert extraction(line).facts == []


def test_negation_and_plans_state_nothing() -> None:
    x = extraction("Ana Ruiz: Ben Cole does not work at Orbit Labs. I will move to Porto.")
    assert x.facts == []


def test_two_facts_in_one_message() -> None:
    x = extraction("Ana Ruiz: Ben Cole left Orbit Labs on March 1, 2024. Carla Diaz joined Orbit Labs.")
    assert triples(x) == {("Ben Cole", "LEFT", "Orbit Labs"), ("Carla Diaz", "WORKS_AT", "Orbit Labs")}
    assert [f.valid_at is not None for f in x.facts] == [True, False]


def test_text_episode_has_no_speaker() -> None:
    x = extraction("Ben Cole moved to Porto.", kind="text")
    assert triples(x) == {("Ben Cole", "LIVES_IN", "Porto")}


# --- deduplication --------------------------------------------------------------------------------------


def test_dedupe_by_equal_contained_and_acronym_names() -> None:
    prompt = dedupe_prompt([
        ("M1", "Orbit", ["Organization"], "I joined Orbit.",
         [("K1", entity("Orbit Labs", "Organization")), ("K2", entity("Porto", "Location"))]),
        ("M2", "NYC", ["Location"], "We moved to NYC.", [("K1", entity("New York City", "Location"))]),
        ("M3", "Ben", ["Person"], "I had lunch with Ben.", [("K1", entity("Benedict Cole", "Person"))]),
        ("M4", "Orbit", ["Location"], "I moved to Orbit.", [("K1", entity("Orbit Labs", "Organization"))]),
        ("M5", "ben cole", [], "", [("K1", entity("Ben Colet")), ("K2", entity("Cole", aliases=("Ben Cole",)))]),
    ])
    provider = sm.ScriptedProvider()
    answer = DedupeAnswer.model_validate_json(ask(provider, prompt.system, prompt.user, "DedupeAnswer").text)
    assert {m.mention: m.entity for m in answer.matches} == {"M1": "K1", "M2": "K1", "M3": None, "M4": None, "M5": "K2"}
    assert provider.calls == {"DedupeAnswer": 1}


def test_same_entity() -> None:
    assert sm.same_entity("Acme", "Acme Robotics")
    assert sm.same_entity("NYC", "New York City")
    assert sm.same_entity("Alice Moreno", "alice  moreno")
    assert not sm.same_entity("Project Orchid", "Project Nimbus")
    assert not sm.same_entity("nyc", "New York City")  # an acronym is written in capitals


# --- the judge ------------------------------------------------------------------------------------------


def _judge(questions: list[Any]) -> dict[str, Any]:
    prompt = judge_prompt(questions)
    answer = JudgeAnswer.model_validate_json(ask(sm.ScriptedProvider(), prompt.system, prompt.user, "JudgeAnswer").text)
    return {v.new_fact: (sorted(v.contradicts), v.duplicate_of) for v in answer.verdicts}


def test_judge() -> None:
    jan, feb, mar = (datetime(2024, m, 1, tzinfo=UTC) for m in (1, 2, 3))
    works_a = record("Ana", "WORKS_AT", "Orbit Labs", jan)
    works_b = record("Ana", "WORKS_AT", "Kite Inc", feb, invalid=mar)
    lives = record("Ana", "LIVES_IN", "Porto", jan)
    lunch = record("Ana", "HAD_LUNCH_WITH", "Ben", jan)
    other = record("Ben", "WORKS_AT", "Kite Inc", jan)
    verdicts = _judge([
        # a new employer replaces the old one; a closed stint ending before it starts is untouched
        ("N1", record("Ana", "WORKS_AT", "Zest", datetime(2024, 4, 1, tzinfo=UTC)),
         [("E1", works_a), ("E2", works_b), ("E3", lives), ("E4", other)]),
        # leaving a company ends working there (the same pair only)
        ("N2", record("Ana", "LEFT", "Orbit Labs", feb), [("E1", works_a), ("E2", works_b)]),
        # a restatement, also by a shorter name, is a duplicate
        ("N3", record("Ana", "WORKS_AT", "Orbit", mar), [("E1", works_a)]),
        # non-exclusive relations hold alongside each other
        ("N4", record("Ana", "HAD_LUNCH_WITH", "Carla", mar), [("E1", lunch)]),
        ("N5", record("Ana", "LIVES_IN", "Lima", mar), [("E1", lives)]),
    ])
    assert verdicts == {
        "N1": (["E1"], None),
        "N2": (["E1"], None),
        "N3": ([], "E1"),
        "N4": ([], None),
        "N5": (["E1"], None),
    }
