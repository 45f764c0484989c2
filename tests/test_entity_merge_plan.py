"""The merge decision as a pure function: records in, a plan out, no database."""

from __future__ import annotations

from datetime import UTC, datetime

from kronograph.maintain.merging import plan_merge, record_from_json, record_to_json
from kronograph.model import Cardinality, Entity, RelationType, fold_relation, trusted
from kronograph.store.plan import Plan
from kronograph.store.records import FactRecord, Neighbourhood

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _entity(uuid: str, name: str) -> Entity:
    return trusted(Entity, uuid=uuid, group_id="g", name=name, labels=(), aliases=(), summary=None, attributes={},
                   created_at=NOW, provenance={}, summary_stale=False, summary_built_at=None)


def _fact(uuid: str, ends: tuple[str, str], names: tuple[str, str], relation: str, year: int) -> FactRecord:
    return FactRecord.stated(
        uuid=uuid, group_id="g", ends=ends, names=names, relation=relation, relation_key=fold_relation(relation),
        fact=f"{names[0]} {relation} {names[1]}", valid_at=datetime(year, 1, 1, tzinfo=UTC), stated_invalid_at=None,
        episode_id=f"ep-{uuid}", now=NOW,
    )


def test_plan_moves_ends_closes_loops_joins_duplicates_and_links_slots() -> None:
    keep, bob = _entity("e-keep", "Robert Smith"), _entity("e-bob", "Bob")
    facts = [
        _fact("f1", ("e-keep", "e-paris"), ("Robert Smith", "Paris"), "LIVES_IN", 2024),
        _fact("f2", ("e-bob", "e-berlin"), ("Bob", "Berlin"), "LIVES_IN", 2022),
        _fact("f3", ("e-bob", "e-keep"), ("Bob", "Robert Smith"), "KNOWS", 2023),
        _fact("f4", ("e-keep", "e-acme"), ("Robert Smith", "Acme"), "WORKS_AT", 2021),
        _fact("f5", ("e-bob", "e-acme"), ("Bob", "Acme"), "WORKS_AT", 2022),
    ]
    hood = Neighbourhood(records={f.uuid: f for f in facts}, edges={f.uuid: set() for f in facts},
                         complete={f.uuid for f in facts})
    plan = Plan(group_id="g", now=NOW, expected_revision=3)
    types = {fold_relation("LIVES_IN"): RelationType(cardinality=Cardinality.MANY_TO_ONE)}
    done = plan_merge(plan, merge_id="m1", keep=keep, merged=[bob], seeds=set(hood.records), hood=hood,
                      mentions={"e-bob": {"ep-x"}, "e-keep": set()}, relation_type=types.get)
    assert done.moved == ["f2", "f3", "f5"] and done.self_loops == ["f3"] and done.duplicates == [("f5", "f4")]
    assert plan.fact_ends == {"f2": ("e-keep", "e-berlin"), "f3": ("e-keep", "e-keep")}
    assert plan.delete_facts == ["f5"] and plan.delete_entities == ["e-bob"] and plan.mentions == [("ep-x", "e-keep")]
    assert [s.episode_id for _, s in plan.add_sources] == ["ep-f5"]
    versions = {f.uuid: f for f in plan.updated_facts}
    assert versions["f2"].invalid_at == datetime(2024, 1, 1, tzinfo=UTC) and versions["f2"].invalidated_by == "f1"
    assert versions["f3"].invalid_at == NOW and versions["f3"].cause == "entity_merged"
    assert plan.entity_records[0].aliases == ("Bob",) and "e-keep" in plan.stale_entities
    (event,) = plan.audit
    assert event.kind == "entities_merged" and event.detail["merge_id"] == "m1"
    assert event.detail["moved"]["f2"] == ["e-bob", "e-berlin"] and event.detail["added_edges"] == [["f1", "f2"]]
    assert record_from_json("g", record_to_json(facts[4])) == facts[4].with_(recorded_at=None)
