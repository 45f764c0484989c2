"""Episode ingestion through the public API: the pipeline's contract."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, Field

from kronograph import Memory
from kronograph.errors import EpisodeFailedError, InvalidInputError
from kronograph.llm.client import ModelClient
from kronograph.model import EpisodeStatus

from .ingest_helpers import ScriptedProvider, current_episode, transient

T0 = "2024-01-01T09:00:00Z"


def facts_json(*facts: tuple[str, str, str], valid_at: str | None = None, labels: dict[str, list[str]] | None = None):
    names = dict.fromkeys(n for s, _, o in facts for n in (s, o))
    return {
        "reasoning": "scripted",
        "entities": [{"name": n, "labels": (labels or {}).get(n, [])} for n in names],
        "facts": [
            {"subject": s, "relation": r, "object": o, "fact": f"{s} {r} {o}", "valid_at": valid_at}
            for s, r, o in facts
        ],
    }


def extraction_table(table: dict[str, Any]):
    """Answers extraction prompts by looking the episode's text up."""
    return lambda system, user: table[current_episode(user)]


def employment_judge(system: str, user: str) -> dict[str, Any]:
    """Contradicts an existing WORKS_AT of the same subject with another object."""
    data = json.loads(user)
    verdicts = []
    for new in data["new_facts"]:
        hits = [
            c["id"] for c in new["candidates"]
            if c["relation"] == new["relation"] == "WORKS_AT" and c["subject"] == new["subject"]
            and c["object"] != new["object"]
        ]
        verdicts.append({"new_fact": new["id"], "contradicts": hits, "duplicate_of": None})
    return {"reasoning": "scripted", "verdicts": verdicts}


def client(provider: ScriptedProvider) -> ModelClient:
    return ModelClient(provider, base_delay=0.001, max_delay=0.002, max_attempts=3)


# -- the offline path -------------------------------------------------------------
def test_offline_extractor_builds_a_timeline_from_chat(tmp_path):
    with Memory(tmp_path / "m.db", model=None) as memory:
        first = memory.add_episode(
            "g", "Alice Moreno: I work at Fjord Biotech and I live in Toronto.", reference_time=T0, episode_id="e1"
        )
        assert first.ok and first.extractor == "offline" and first.usage.calls == 0
        assert sorted(f.triple for f in first.created) == [
            "Alice Moreno LIVES_IN Toronto", "Alice Moreno WORKS_AT Fjord Biotech"
        ]
        second = memory.add_episode(
            "g", "Alice Moreno: I joined Acme Robotics on March 3, 2024.", reference_time="2024-02-01T00:00:00Z"
        )
        assert [f.triple for f in second.retired] == ["Alice Moreno WORKS_AT Fjord Biotech"]
        (now,) = memory.facts("g", subject="Alice Moreno", relation="works at")
        assert now.object == "Acme Robotics" and now.valid_at.isoformat().startswith("2024-03-03")
        (then,) = memory.facts("g", subject="Alice Moreno", relation="works at", as_of="2024-02-15")
        assert then.object == "Fjord Biotech"
        # Provenance: what produced the entity, and each statement of a fact.
        (alice,) = memory.entities("g", name="alice moreno")
        assert alice.provenance["extractor"] == "offline" and alice.provenance["episode"] == "e1"
        (source,) = memory.fact_sources("g", now.uuid)
        assert source.provenance["time_expression"] and source.provenance["reference_time"].startswith("2024-02-01")
        assert source.provenance["time_zone"] == "UTC"
        assert source.provenance["valid_at_from"] in ("stated", "expression")


def test_the_same_episode_id_twice_changes_nothing():
    memory = Memory(model=None)
    text = "Bruno Okafor: I live in Berlin."
    assert memory.add_episode("g", text, reference_time=T0, episode_id="x").ok
    before = memory.facts("g", include_retired=True)
    again = memory.add_episode("g", text, reference_time=T0, episode_id="x")
    assert again.duplicate and again.ok and not again.created
    assert memory.facts("g", include_retired=True) == before
    assert len(memory.episodes("g")) == 1
    with pytest.raises(InvalidInputError, match="episode_id"):
        memory.add_episode("g", "Bruno Okafor: I live in Rome.", episode_id="x")


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"content": ""}, "content"),
        ({"content": 42}, "content"),
        ({"content": "x", "kind": "audio"}, "kind"),
        ({"content": "x", "reference_time": "last tuesday"}, "reference_time"),
        ({"content": "{not json", "kind": "json"}, "content"),
        ({"content": "x", "metadata": {"when": object()}}, "metadata"),
        ({"content": "x", "previous_episode_ids": "e1"}, "previous_episode_ids"),
        ({"content": "x", "entity_types": {"Person": dict}}, "entity_types"),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_stored(kwargs, field):
    memory = Memory(model=None)
    with pytest.raises(InvalidInputError) as caught:
        memory.add_episode("g", **kwargs)
    assert caught.value.field == field
    assert memory.episodes("g") == []


def test_json_episodes_are_mapped_without_a_model_call():
    provider = ScriptedProvider()
    memory = Memory(model=provider)
    record = {"name": "Acme Robotics", "type": "Company", "founded": 2011, "ceo": {"name": "Dana Reyes"}}
    result = memory.add_episode("g", record, kind="json", reference_time=T0, metadata={"source": "crm"})
    assert result.ok and result.extractor == "json" and provider.calls == []
    assert [f.triple for f in result.created] == ["Acme Robotics CEO Dana Reyes"]
    (acme,) = memory.entities("g", name="Acme Robotics")
    assert acme.attributes["founded"] == 2011 and "Company" in acme.labels
    (episode,) = memory.episodes("g")
    assert episode.metadata == {"source": "crm"} and episode.kind == "json"


def test_store_raw_content_false_keeps_no_text_on_any_path(tmp_path):
    memory = Memory(tmp_path / "m.db", model=None, store_raw_content=False)
    memory.add_episode("g", "Chiara Lindqvist: I live in Oslo.", reference_time=T0)
    memory.add_episodes("g", [{"content": "Chiara Lindqvist: I moved to Bergen.", "reference_time": "2024-05-01"}])
    assert [e.content for e in memory.episodes("g")] == [None, None]
    assert [f.object for f in memory.facts("g")] == ["Bergen"]
    memory.close()
    import sqlite3

    with sqlite3.connect(tmp_path / "m.db") as conn:
        assert conn.execute("SELECT COUNT(*) FROM episodes WHERE content IS NOT NULL OR pending IS NOT NULL"
                            " OR checkpoint IS NOT NULL").fetchone() == (0,)
        assert conn.execute("SELECT COUNT(*) FROM episodes_fts WHERE episodes_fts MATCH 'Oslo'").fetchone() == (0,)


def test_episodes_can_be_listed_by_status():
    provider = ScriptedProvider(Extraction=lambda s, u: "not json at all")
    memory = Memory(model=client(provider))
    assert memory.add_episode("g", "Ann: hello", reference_time=T0, episode_id="bad").status == "quarantined"
    memory2 = Memory(memory.store, model=None)
    memory2.add_episode("g", "Ann Lee: I live in Lyon.", reference_time=T0, episode_id="good")
    assert [e.uuid for e in memory2.episodes("g", status="quarantined")] == ["bad"]
    assert [e.uuid for e in memory2.episodes("g", status="complete")] == ["good"]
    (bad,) = memory2.episodes("g", status="quarantined")
    assert "did not validate" in bad.error
    with pytest.raises(InvalidInputError, match="status"):
        memory2.episodes("g", status="done")


# -- the model path -----------------------------------------------------------------
def test_model_path_costs_one_extraction_and_one_judge_call():
    table = {
        "Ann Lee: I work at Acme.": facts_json(("Ann Lee", "WORKS_AT", "Acme")),
        "Ann Lee: I now work at Globex.": facts_json(("Ann Lee", "WORKS_AT", "Globex"), valid_at="2024-03-01"),
    }
    provider = ScriptedProvider(Extraction=extraction_table(table), JudgeAnswer=employment_judge)
    memory = Memory(model=client(provider))
    first = memory.add_episode("g", "Ann Lee: I work at Acme.", reference_time=T0)
    assert first.usage.calls == 1 and provider.count("JudgeAnswer") == 0  # nothing to judge against yet
    second = memory.add_episode("g", "Ann Lee: I now work at Globex.", reference_time="2024-03-02")
    assert second.usage.calls == 2 and second.usage.by_purpose["judge"]["calls"] == 1
    assert [f.triple for f in second.retired] == ["Ann Lee WORKS_AT Acme"]
    # The judge was shown entities, relation and interval, not bare strings.
    judge_prompt = json.loads(provider.calls[-1][1])
    (candidate,) = judge_prompt["new_facts"][0]["candidates"]
    assert candidate["subject"] == "Ann Lee" and candidate["relation"] == "WORKS_AT"
    assert candidate["valid_from"].startswith("2024-01-01") and candidate["valid_to"] is None


def test_a_judge_cannot_retire_a_fact_it_was_not_shown_for():
    table = {
        "a": facts_json(("Ann Lee", "LIVES_IN", "Paris"), ("Ann Lee", "LIKES", "Jazz")),
        "b": facts_json(("Ann Lee", "LIVES_IN", "Rome")),
    }

    def greedy(system, user):  # names every fact it saw anywhere, plus a made-up id
        data = json.loads(user)
        ids = [c["id"] for n in data["new_facts"] for c in n["candidates"]]
        return {"reasoning": "", "verdicts": [{"new_fact": "N1", "contradicts": [*ids, "E99"]}]}

    memory = Memory(model=client(ScriptedProvider(Extraction=extraction_table(table), JudgeAnswer=greedy)))
    memory.add_episode("g", "a", reference_time=T0)
    result = memory.add_episode("g", "b", reference_time="2024-02-01")
    assert [f.triple for f in result.retired] == ["Ann Lee LIVES_IN Paris"]
    assert result.refused == ["E99"]
    assert {f.triple for f in memory.facts("g")} == {"Ann Lee LIVES_IN Rome", "Ann Lee LIKES Jazz"}
    assert any(e.kind == "verdict_refused" for e in memory.audit_events("g"))


class Person(BaseModel):
    """A human being."""

    age: int | None = Field(None, description="age in years")


class WorksAt(BaseModel):
    """Employment: one employer at a time."""

    cardinality: ClassVar[str] = "many_to_one"
    title: str | None = None


def test_custom_types_attributes_cardinality_and_exclusions():
    def extraction(system, user):
        assert "Person: A human being." in system and "WORKS_AT: Employment" in system
        assert "do not list entities of these types: food" in system.lower()
        text = current_episode(user)
        employer = "Acme" if "Acme" in text else "Globex"
        return {
            "reasoning": "",
            "entities": [
                {"name": "Ann Lee", "labels": ["Person"], "attributes": {"age": "41", "shoe": 9}},
                {"name": employer, "labels": ["Organization"]},
                {"name": "Pizza", "labels": ["Food"]},
            ],
            "facts": [
                {"subject": "Ann Lee", "relation": "WORKS_AT", "object": employer, "fact": "x",
                 "attributes": {"title": "CTO"}},
                {"subject": "Ann Lee", "relation": "LIKES", "object": "Pizza", "fact": "y"},
            ],
        }

    provider = ScriptedProvider(Extraction=extraction)
    memory = Memory(model=client(provider))
    kinds = {"entity_types": {"Person": Person}, "fact_types": {"WORKS_AT": WorksAt}, "excluded_entity_types": ["Food"]}
    memory.add_episode("g", "Ann Lee: Acme", reference_time=T0, **kinds)
    result = memory.add_episode("g", "Ann Lee: Globex", reference_time="2024-02-01", **kinds)
    # The declared cardinality decided: no judge call was needed.
    assert provider.count("JudgeAnswer") == 0
    assert [f.triple for f in result.retired] == ["Ann Lee WORKS_AT Acme"]
    (ann,) = memory.entities("g", name="Ann Lee")
    assert ann.attributes == {"age": 41}
    assert memory.entities("g", name="Pizza") == []
    (job,) = memory.facts("g", relation="WORKS_AT")
    assert job.attributes == {"title": "CTO"}


def test_checkpoints_spare_a_retry_the_calls_already_paid_for():
    table = {
        "a": facts_json(("Ann Lee", "WORKS_AT", "Acme")),
        "b": facts_json(("Ann Lee", "WORKS_AT", "Globex")),
    }
    provider = ScriptedProvider(Extraction=extraction_table(table), JudgeAnswer=employment_judge)
    memory = Memory(model=client(provider))
    memory.add_episode("g", "a", reference_time=T0)

    def judge_down(system, user):
        return transient()

    provider.answers["JudgeAnswer"] = judge_down
    failed = memory.add_episode("g", "b", reference_time="2024-02-01", episode_id="b")
    assert failed.status == EpisodeStatus.RETRYABLE and "503" in failed.error
    with pytest.raises(EpisodeFailedError, match="retryable"):
        failed.raise_for_status()
    assert [f.object for f in memory.facts("g")] == ["Acme"]  # nothing of it was written
    extractions = provider.count("Extraction")
    provider.answers["JudgeAnswer"] = employment_judge
    (done,) = memory.resume()
    assert done.ok and [f.triple for f in done.retired] == ["Ann Lee WORKS_AT Acme"]
    assert provider.count("Extraction") == extractions  # the extraction came from the checkpoint


def test_reingesting_the_same_prompt_is_served_from_the_reply_cache():
    table = {"a": facts_json(("Ann Lee", "WORKS_AT", "Acme"))}
    provider = ScriptedProvider(Extraction=extraction_table(table))
    memory = Memory(model=provider)
    memory.add_episode("g", "a", reference_time=T0, episode_id="one")
    memory.remove_episode("g", "one")
    again = memory.add_episode("g", "a", reference_time=T0, episode_id="two")
    assert provider.count("Extraction") == 1 and again.usage.cached == 1 and again.usage.calls == 0
    assert [f.triple for f in again.created] == ["Ann Lee WORKS_AT Acme"]


def test_ambiguous_names_go_to_the_model_in_one_call():
    table = {
        "a": facts_json(("Ann Lee", "WORKS_AT", "Acme Robotics"), ("Bo Chen", "WORKS_AT", "Acme Bank")),
        "b": facts_json(("Cy Diaz", "WORKS_AT", "Acme")),
    }
    seen = []

    def dedupe(system, user):
        data = json.loads(user)
        seen.append(data)
        (mention,) = data["mentions"]
        bank = next(c["id"] for c in mention["candidates"] if c["name"] == "Acme Bank")
        return {"reasoning": "", "matches": [{"mention": mention["id"], "entity": bank}]}

    provider = ScriptedProvider(Extraction=extraction_table(table), DedupeAnswer=dedupe,
                                JudgeAnswer=employment_judge)
    memory = Memory(model=client(provider))
    memory.add_episode("g", "a", reference_time=T0)
    result = memory.add_episode("g", "b", reference_time="2024-02-01")
    assert provider.count("DedupeAnswer") == 1 and result.usage.by_purpose["dedupe"]["calls"] == 1
    (job,) = [f for f in result.created]
    assert job.object == "Acme Bank"
    (bank,) = memory.entities("g", name="Acme Bank")
    assert "Acme" in bank.aliases


def test_without_a_model_ambiguous_names_stay_apart_as_fragment_candidates(tmp_path):
    memory = Memory(tmp_path / "m.db", model=None)
    memory.add_fact("g", "Ann Lee", "WORKS_AT", "Acme Robotics")
    memory.add_fact("g", "Bo Chen", "WORKS_AT", "Acme Bank")
    memory.add_episode("g", "Cy Diaz: I work at Acme.", reference_time=T0)
    names = sorted(e.name for e in memory.entities("g"))
    assert "Acme" in names
    memory.close()
    import sqlite3

    with sqlite3.connect(tmp_path / "m.db") as conn:
        assert conn.execute("SELECT COUNT(*) FROM entity_fragments").fetchone()[0] == 2


def test_a_clear_fuzzy_match_merges_and_records_the_alias():
    memory = Memory(model=None)
    memory.add_episode("g", "Ann Lee: I work at Acme Robotics.", reference_time=T0)
    result = memory.add_episode("g", "Bo Chen: I joined Acme last week.", reference_time="2024-02-01")
    (job,) = result.created
    assert job.object == "Acme Robotics"
    (acme,) = memory.entities("g", name="Acme Robotics")
    assert acme.aliases == ("Acme",)
    # the alias now resolves exactly, with no fuzzy step
    third = memory.add_episode("g", "Cy Diaz: I work at Acme.", reference_time="2024-03-01")
    assert third.created[0].object == "Acme Robotics"


def test_identifiers_never_merge_by_fuzzy_match():
    memory = Memory(model=None)
    memory.add_fact("g", "SR-2023-052", "ASSIGNED_TO", "Ann Lee")
    memory.add_episode(
        "g", {"name": "SR-2023-053", "owner": {"name": "Bo Chen"}}, kind="json", reference_time=T0
    )
    assert sorted(e.name for e in memory.entities("g") if e.name.startswith("SR")) == ["SR-2023-052", "SR-2023-053"]


def test_groups_do_not_see_each_others_episodes_or_entities():
    memory = Memory(model=None)
    memory.add_episode("a", "Ann Lee: I live in Lyon.", reference_time=T0, episode_id="same")
    result = memory.add_episode("b", "Ann Lee: I live in Lille.", reference_time=T0, episode_id="same")
    assert result.ok and not result.duplicate
    assert [f.object for f in memory.facts("a")] == ["Lyon"]
    assert [f.object for f in memory.facts("b")] == ["Lille"]
    assert {e.uuid for e in memory.entities("a")}.isdisjoint({e.uuid for e in memory.entities("b")})


def test_a_store_refuses_an_embedder_of_another_dimension(tmp_path):
    from kronograph import EmbeddingError, HashingEmbedder

    with Memory(tmp_path / "m.db", model=None, embedder=HashingEmbedder(256)) as memory:
        memory.add_episode("g", "Ann Lee: I live in Lyon.", reference_time=T0)
    with pytest.raises(EmbeddingError, match="dimension 256"):
        with Memory(tmp_path / "m.db", model=None, embedder=HashingEmbedder(128)) as memory:
            memory.facts("g")
    with Memory(tmp_path / "m.db", model=None, embedder=HashingEmbedder(256)) as memory:
        assert [f.object for f in memory.facts("g")] == ["Lyon"]


def test_extraction_sees_earlier_episodes_of_its_saga_or_the_ids_given():
    provider = ScriptedProvider(Extraction=lambda s, u: {"reasoning": "", "entities": [], "facts": []})
    memory = Memory(model=provider, context_episodes=2)
    memory.add_episode("g", "one", reference_time="2024-01-01", saga="s1", episode_id="a")
    memory.add_episode("g", "two", reference_time="2024-01-02", saga="s2", episode_id="b")
    memory.add_episode("g", "three", reference_time="2024-01-03", saga="s1", episode_id="c")
    assert "one" in provider.calls[-1][1] and "two" not in provider.calls[-1][1].split("<current_episode")[0]
    memory.add_episode("g", "four", reference_time="2024-01-04", previous_episode_ids=["b"], episode_id="d")
    context = provider.calls[-1][1].split("<current_episode")[0]
    assert "two" in context and "three" not in context
