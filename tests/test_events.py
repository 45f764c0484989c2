"""Events are not standing facts: ``Sam LEFT Northwind`` happened on a day.

On every backend: the built-in defaults make the extractor's moment relations
events (with a model too), a declared type overrides them, a relation with
neither stays a state; an event ends what it ends, nothing closes it, met
twice is two events; reads of what is true leave events out unless asked
for, ``events()`` reads them by time, timelines and summaries tell them as
what happened, when.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

from kronograph import Fact, Memory, RelationType, Verdict
from kronograph.errors import InvalidInputError
from kronograph.event_relations import is_built_in_event
from kronograph.llm.client import ModelClient

from .ingest_helpers import ScriptedProvider, current_episode

MakeMemory = Callable[..., Memory]


def _said(facts: Sequence[Fact]) -> list[tuple[str, str, bool]]:
    return [(f.triple, f.valid_at.date().isoformat(), f.event) for f in facts]


def _chat(memory: Memory) -> None:
    memory.add_episode("g", "Sam: I work at Northwind.", reference_time="2023-01-10")
    memory.add_episode("g", "Sam: I left Northwind on 1 March 2024.", reference_time="2024-03-05")
    memory.add_episode("g", "Sam: I met Maya on 3 May 2024.", reference_time="2024-05-06")
    memory.add_episode("g", "Sam: I am engaged to Maya.", reference_time="2024-06-01")
    memory.add_episode("g", "Sam: I met Maya again on 9 June 2024.", reference_time="2024-06-10")


def test_the_built_in_defaults_cover_the_moments_and_keep_the_links() -> None:
    for moment in ("LEFT", "met", "Visited", "HAD_LUNCH_WITH", "had-coffee-with", "HAD_DRINKS_WITH", "JOINED",
                   "MOVED_TO", "GOT_ENGAGED_TO", "GOT_MARRIED_TO", "GRADUATED_FROM", "QUIT", "RESIGNED_FROM",
                   "RETIRED_FROM", "ATTENDED", "BORN"):
        assert is_built_in_event(moment), moment
    for link in ("WORKS_AT", "LIVES_IN", "ENGAGED_TO", "MARRIED_TO", "STUDIED_AT", "BORN_IN", "FOUNDED", "KNOWS"):
        assert not is_built_in_event(link), link
    with pytest.raises(ValueError):
        RelationType(event="yes")  # type: ignore[arg-type]


def test_an_extracted_leaving_is_an_event_that_ends_the_job(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _chat(memory)
    # what is true now: engaged to Maya; not working at Northwind, not "left" nor "met" as standing facts
    assert _said(memory.facts("g", subject="Sam")) == [("Sam ENGAGED_TO Maya", "2024-06-01", False)]
    assert _said(memory.events("g", subject="Sam")) == [
        ("Sam LEFT Northwind", "2024-03-01", True), ("Sam MET Maya", "2024-05-03", True),
        ("Sam MET Maya", "2024-06-09", True),
    ]  # met twice: two events, neither closing the other
    assert all(e.invalid_at is None and e.expired_at is None for e in memory.events("g"))
    timeline = {f.triple: f for f in memory.timeline("g", "Sam") if f.relation != "MET"}
    assert timeline["Sam WORKS_AT Northwind"].invalid_at == timeline["Sam LEFT Northwind"].valid_at  # LEFT ends it
    assert [f.event for f in memory.timeline("g", "Sam")].count(True) == 3  # the timeline shows them, as points
    every = memory.facts("g", include_events=True, include_retired=True)
    assert {f.triple for f in every if f.event} == {"Sam LEFT Northwind", "Sam MET Maya"}
    assert len(memory.facts("g", include_events=True)) == 4  # now: the link and the three that had happened
    assert _said(memory.facts("g", include_events=True, as_of="2024-04-01", relation="LEFT")) == [
        ("Sam LEFT Northwind", "2024-03-01", True)]
    assert memory.facts("g", include_events=True, as_of="2024-02-01", relation="LEFT") == []  # not yet happened


def test_the_same_event_told_again_is_merged(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    memory.add_episode("g", "Sam: I met Maya on 9 June 2024.", reference_time="2024-06-10")
    again = memory.add_episode("g", "Sam: I met Maya on 9 June 2024.", reference_time="2024-06-12")
    assert _said(again.merged) == [("Sam MET Maya", "2024-06-09", True)] and not again.created
    (met,) = memory.events("g")
    assert len(met.episodes) == 2


def test_events_filters_by_time_name_and_relation(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _chat(memory)
    memory.add_episode("g", "Omar: I visited Lisbon on 2 April 2024.", reference_time="2024-04-03")

    def triples(**query: Any) -> list[str]:
        return [f"{f.triple} {f.valid_at.date()}" for f in memory.events("g", **query)]

    assert triples(since="2024-04-01", until="2024-06-01") == [
        "Omar VISITED Lisbon 2024-04-02", "Sam MET Maya 2024-05-03"]
    assert triples(since="2024-06-09") == ["Sam MET Maya 2024-06-09"]  # since: inclusive
    assert triples(until="2024-03-01") == []  # until: exclusive
    assert triples(relation="left") == ["Sam LEFT Northwind 2024-03-01"]
    assert triples(object="maya") == ["Sam MET Maya 2024-05-03", "Sam MET Maya 2024-06-09"]
    assert triples(entity="Lisbon") == ["Omar VISITED Lisbon 2024-04-02"]
    assert triples(limit=1) == ["Sam LEFT Northwind 2024-03-01"]
    clock = memory._core._clock  # type: ignore[attr-defined]
    assert triples(known_at=clock()) == triples() and len(triples()) == 4
    assert memory.events("other") == []
    with pytest.raises(InvalidInputError, match="until"):
        memory.events("g", since="2024-06-01", until="2024-05-01")
    with pytest.raises(InvalidInputError, match="include_events"):
        memory.facts("g", include_events="yes")  # type: ignore[arg-type]


def test_a_declared_type_overrides_the_defaults(memory_factory: MakeMemory) -> None:
    state = memory_factory(model=None, relation_types={"LEFT": RelationType(event=False)})
    _chat(state)
    assert "Sam LEFT Northwind" in {f.triple for f in state.facts("g", subject="Sam")}  # a state again
    assert {f.triple for f in state.events("g")} == {"Sam MET Maya"}

    declared = memory_factory(model=None, relation_types={"WORKS_AT": {"event": True}})
    result = declared.add_episode("g", "Sam: I work at Northwind.", reference_time="2024-01-01")
    assert [f.event for f in result.created] == [True]  # the memory's declaration makes a link a moment
    typed = memory_factory(model=None)

    class Stays(BaseModel):
        event: ClassVar[bool] = False

    result = typed.add_episode("g", "Sam: I left Northwind on 1 March 2024.", reference_time="2024-03-05",
                               fact_types={"LEFT": Stays})
    assert [f.event for f in result.created] == [False]  # a fact type's declaration


def test_a_fact_added_directly_is_an_event_only_where_declared(memory_factory: MakeMemory) -> None:
    plain = memory_factory(model=None)
    assert not plain.add_fact("g", "Omar", "LEFT", "Globex", valid_at="2025-04-01").fact.event  # the scenarios' state
    assert len(plain.facts("g", subject="Omar")) == 1
    memory = memory_factory(model=None, relation_types={
        "WORKS_AT": {"cardinality": "many_to_one"}, "LEFT": {"event": True, "ends": ["WORKS_AT"]},
    })
    memory.add_fact("g", "Omar", "WORKS_AT", "Globex", valid_at="2023-01-01")
    left = memory.add_fact("g", "Omar", "LEFT", "Globex", valid_at="2025-04-01")
    assert left.fact.event and _said(left.retired) == [("Omar WORKS_AT Globex", "2023-01-01", False)]
    assert memory.facts("g", subject="Omar") == []
    assert _said(memory.events("g")) == [("Omar LEFT Globex", "2025-04-01", True)]


def test_nothing_closes_an_event_neither_a_cardinality_nor_a_judge(memory_factory: MakeMemory) -> None:
    def judge(new: Fact, candidates: Sequence[Fact]) -> Verdict:  # claims everything it is shown
        return Verdict(contradicts=[c.uuid for c in candidates])

    memory = memory_factory(model=None, judge=judge, relation_types={
        "MOVED_TO": {"event": True, "cardinality": "many_to_one"}, "LEFT": {"event": True},
    })
    memory.add_fact("g", "Sam", "MOVED_TO", "Berlin", valid_at="2020-01-01")
    paris = memory.add_fact("g", "Sam", "MOVED_TO", "Paris", valid_at="2022-01-01")
    assert paris.retired == [] and paris.possible_contradictions == []
    memory.add_fact("g", "Sam", "WORKS_AT", "Acme", valid_at="2019-01-01")
    memory.add_fact("g", "Sam", "LEFT", "Acme", valid_at="2021-01-01")  # the judge: it ends the job
    back = memory.add_fact("g", "Sam", "WORKS_AT", "Acme", valid_at="2023-01-01")  # the judge: it "ends" LEFT
    assert all(not f.event for f in back.retired + back.changed)
    assert all(e.invalid_at is None for e in memory.events("g"))
    assert len(memory.events("g")) == 3
    assert _said(memory.facts("g", subject="Sam")) == [("Sam WORKS_AT Acme", "2023-01-01", False)]
    assert memory.reconcile("g").overlaps == []  # two moves declared one place at a time: two moments, no overlap


def test_search_and_summaries_keep_events_in_the_past(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _chat(memory)
    found = memory.search("g", "Sam left Northwind", scopes=["facts"])
    assert all(not h.item.event for h in found.facts)
    found = memory.search("g", "Sam left Northwind", scopes=["facts"], include_events=True)
    assert "Sam LEFT Northwind" in {h.item.triple for h in found.facts}
    retired = memory.search("g", "Sam met Maya", scopes=["facts"], include_retired=True)
    assert all(not h.item.event for h in retired.facts)  # events only when asked for, in every mode
    (summary,) = memory.summarize_entities("g", "Sam")
    text = summary.summary or ""
    assert text.startswith("Sam is engaged to Maya.")  # what holds first
    assert "Sam left Northwind on 2024-03-01." in text and "Sam met Maya on 2024-06-09." in text
    assert "works at Northwind" not in text


def _extraction(system: str, user: str) -> Any:
    """A model that reads "NAME left ORG." as LEFT and "NAME works at ORG." as WORKS_AT."""
    text = current_episode(user).removesuffix(".")
    relation, words = ("LEFT", " left ") if " left " in text else ("WORKS_AT", " works at ")
    name, org = text.split(words)
    return {
        "reasoning": "scripted",
        "entities": [{"name": name, "labels": ["Person"]}, {"name": org, "labels": ["Organization"]}],
        "facts": [{"subject": name, "relation": relation, "object": org, "fact": text}],
    }


def test_a_leaving_a_model_extracts_is_an_event_too(memory_factory: MakeMemory) -> None:
    provider = ScriptedProvider(Extraction=_extraction, Verdicts=lambda s, u: {"verdicts": []})
    model = ModelClient(provider, base_delay=0.001, max_delay=0.002, max_attempts=2)  # type: ignore[arg-type]
    memory = memory_factory(model=model)
    result = memory.add_episode("g", "Ann left Acme.", reference_time="2024-05-01")
    assert result.ok and _said(result.created) == [("Ann LEFT Acme", "2024-05-01", True)]
    assert memory.facts("g") == [] and len(memory.events("g")) == 1


def test_forgetting_erases_events_and_proves_it(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _chat(memory)
    report = memory.forget("g", entity="Northwind")
    assert report.verified and report.leftovers == []
    assert {f.triple for f in memory.events("g")} == {"Sam MET Maya"}
