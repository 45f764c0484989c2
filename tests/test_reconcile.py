"""reconcile finds each planted defect on every backend and repairs the safe ones."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from kronograph import Memory
from kronograph.model import Entity, Episode
from kronograph.store import SQLiteStore, Store
from kronograph.store.plan import Plan
from kronograph.store.records import FactRecord, Source

from .conftest import StepClock

G = "g"
T0 = datetime(2025, 1, 1, tzinfo=UTC)


def _entity(uuid: str, name: str) -> Entity:
    return Entity(uuid=uuid, group_id=G, name=name, created_at=T0)


def _lives_in(uuid: str, city: str, valid_at: datetime) -> FactRecord:
    return FactRecord(
        uuid=uuid, group_id=G, source_uuid="e-carol", target_uuid=f"e-{city.lower()}", subject="Carol",
        object=city, relation="LIVES_IN", relation_key="livesin", fact=f"Carol lives in {city}",
        valid_at=valid_at, invalid_at=None, stated_invalid_at=None, created_at=T0, expired_at=None,
        invalidated_by=None, sources=(Source("planted", valid_at, None, T0),),
    )


def _planted() -> Plan:
    """What the public API cannot make: an overlap in a declared slot, an
    episode with content that mentions nothing, recorded fragments, near-duplicate
    names and an orphan entity."""
    plan = Plan(group_id=G, now=T0, expected_revision=None)
    plan.new_episodes += [
        Episode(uuid="planted", group_id=G, name="planted", kind="fact", reference_time=T0, created_at=T0),
        Episode(uuid="quiet", group_id=G, name="quiet", kind="text", content="nothing at all",
                reference_time=T0, created_at=T0),
        Episode(uuid="names", group_id=G, name="names", kind="text", content="Globex Corp, Hooli and hooli.",
                reference_time=T0, created_at=T0),
    ]
    plan.new_entities += [
        _entity("e-carol", "Carol"), _entity("e-paris", "Paris"), _entity("e-rome", "Rome"),
        _entity("e-globex", "Globex Corp"), _entity("e-globex2", "Globex Corporation"),
        _entity("e-hooli", "Hooli"), _entity("e-hooli2", "hooli."), _entity("e-zed", "Zed"),
    ]
    plan.mentions += [("names", u) for u in ("e-globex", "e-globex2", "e-hooli", "e-hooli2")]
    plan.fragments.append(("e-globex", "e-globex2", 0.81, "names"))
    plan.new_facts += [
        _lives_in("f-paris", "Paris", datetime(2020, 1, 1, tzinfo=UTC)),
        _lives_in("f-rome", "Rome", datetime(2022, 1, 1, tzinfo=UTC)),
    ]
    return plan


def _drop_episode(memory: Memory, store: Store, episode_id: str) -> None:
    """Delete an episode's row behind the store's back, leaving its fact sources."""
    if isinstance(store, SQLiteStore):

        def drop(conn: sqlite3.Connection) -> None:
            conn.execute("PRAGMA foreign_keys = OFF")
            conn.execute("DELETE FROM mentions WHERE group_id = ? AND episode_id = ?", (G, episode_id))
            conn.execute("DELETE FROM episodes WHERE group_id = ? AND uuid = ?", (G, episode_id))
            conn.execute("PRAGMA foreign_keys = ON")

        memory._call(store._run(drop))  # type: ignore[attr-defined]
        return
    import psycopg

    with psycopg.connect(store.url, autocommit=True) as conn:  # type: ignore[attr-defined]
        conn.execute("SET session_replication_role = replica")  # no foreign keys, no cascades
        conn.execute("DELETE FROM mentions WHERE group_id = %s AND episode_id = %s", (G, episode_id))
        conn.execute("DELETE FROM episodes WHERE group_id = %s AND uuid = %s", (G, episode_id))


@pytest.fixture
def damaged(backend: Callable[..., Store], clock: StepClock):
    store = backend()
    memory = Memory(store, model=None, clock=clock, relation_types={"LIVES_IN": {"cardinality": "many_to_one"}})
    memory.add_fact(G, "Alice", "KNOWS", "Bob", episode_id="healthy")
    memory.add_fact(G, "Dave", "WORKS_AT", "Acme", episode_id="gone")
    memory.add_fact(G, "Erin", "WORKS_AT", "Initech", episode_id="keep")
    memory.add_fact(G, "Erin", "WORKS_AT", "Initech", episode_id="gone")
    memory._call(store.apply(_planted()))  # type: ignore[attr-defined]
    _drop_episode(memory, store, "gone")
    clock.tick(hours=1)
    yield memory
    memory.close()


def test_reconcile_finds_every_planted_defect(damaged: Memory) -> None:
    from kronograph import metrics

    before = metrics.snapshot()["kronograph_interval_violations_total"].get("", 0)
    report = damaged.reconcile(G)
    assert metrics.snapshot()["kronograph_interval_violations_total"][""] == before + 1  # the overlap, counted
    assert not report.repair and not report.ok
    assert [e.episode_id for e in report.unmentioned_episodes] == ["quiet"]
    assert sorted((d.fact, d.episode_id, d.other_sources) for d in report.dangling_sources) == [
        ("Dave WORKS_AT Acme", "gone", 0),
        ("Erin WORKS_AT Initech", "gone", 1),
    ]
    [overlap] = report.overlaps
    assert (overlap.side, overlap.entity, overlap.cardinality) == ("subject", "Carol", "many_to_one")
    assert [f.uuid for f in overlap.facts] == ["f-paris", "f-rome"]
    assert overlap.overlap_from == datetime(2022, 1, 1, tzinfo=UTC) and overlap.overlap_until is None
    assert not overlap.same_value
    assert sorted((f.source, f.a_name, f.b_name) for f in report.fragments) == [
        ("recorded", "Globex Corp", "Globex Corporation"),
        ("similar_name", "Hooli", "hooli."),
    ]
    assert [o.name for o in report.orphan_entities] == ["Zed"]
    assert report.counts == {
        "unmentioned_episodes": 1, "dangling_sources": 2, "overlaps": 1, "fragments": 2, "orphan_entities": 1,
        "stale_summaries": 9, "saga_lag": 0, "open_contradictions": report.open_contradictions,
    }
    assert "open_contradictions" not in report.defects  # drift to look at, not a defect
    assert sorted(s.name for s in report.stale_summaries) == [  # every end of a fact; no summary built yet
        "Acme", "Alice", "Bob", "Carol", "Dave", "Erin", "Initech", "Paris", "Rome",
    ]
    assert all(s.changes >= 1 and s.built_at is None for s in report.stale_summaries)
    assert report.not_checked == ()
    assert report.repaired.deleted_entities == []
    assert not [e for e in damaged.audit_events(G) if e.kind == "reconcile_repaired"]
    assert damaged.reconcile(G).counts == report.counts  # checking changes nothing


def test_repair_fixes_the_safe_defects_and_reports_the_rest(damaged: Memory) -> None:
    before = {f.triple for f in damaged.facts(G, include_retired=True)}
    report = damaged.reconcile(G, repair=True)
    assert report.repair and report.counts["dangling_sources"] == 2
    names = {e.uuid: e.name for e in report.orphan_entities}
    assert sorted(report.repaired.removed_sources) == sorted(
        (d.fact_uuid, "gone") for d in report.dangling_sources
    )
    [dave] = [d.fact_uuid for d in report.dangling_sources if d.fact == "Dave WORKS_AT Acme"]
    assert report.repaired.deleted_facts == [dave]
    assert "e-zed" in report.repaired.deleted_entities and names == {"e-zed": "Zed"}

    after = {f.triple for f in damaged.facts(G, include_retired=True)}
    assert before - after == {"Dave WORKS_AT Acme"}
    [erin] = damaged.facts(G, subject="Erin")
    assert erin.episodes == ("keep",)
    assert not damaged.entities(G, name="Zed") and not damaged.entities(G, name="Dave")
    assert damaged.entities(G, name="Erin")
    kinds = [e.detail["check"] for e in damaged.audit_events(G) if e.kind == "reconcile_repaired"]
    assert sorted(kinds) == ["dangling_sources", "orphan_entities", "stale_summaries"]
    (carol,) = damaged.entities(G, name="Carol")
    assert carol.summary == "Carol lives in Rome. Carol lives in Paris." and not carol.summary_stale
    assert {e.name for e in damaged.entities(G) if e.uuid in report.repaired.refreshed_summaries} == {
        "Alice", "Bob", "Erin", "Initech", "Carol", "Paris", "Rome",  # Dave and Acme went with their fact
    }

    again = damaged.reconcile(G)
    assert again.counts == {
        "unmentioned_episodes": 1, "dangling_sources": 0, "overlaps": 1, "fragments": 2, "orphan_entities": 0,
        "stale_summaries": 0, "saga_lag": 0, "open_contradictions": again.open_contradictions,
    }
    assert damaged.reconcile(G, repair=True).repaired.model_dump() == {
        "removed_sources": [], "deleted_facts": [], "changed_facts": [], "deleted_entities": [],
        "refreshed_summaries": [], "erasure": None, "erasure_complete": None,
    }


def test_a_healthy_group_is_ok(memory_factory: Callable[..., Memory]) -> None:
    memory = memory_factory(model=None, relation_types={"LIVES_IN": {"cardinality": "many_to_one"}})
    memory.add_fact(G, "Carol", "LIVES_IN", "Paris", valid_at="2020-01-01")
    memory.add_fact(G, "Carol", "LIVES_IN", "Rome", valid_at="2022-01-01")  # retires Paris: no overlap
    memory.summarize_entities(G)
    report = memory.reconcile(G, repair=True)
    assert report.ok and report.counts["overlaps"] == 0
    assert not [e for e in memory.audit_events(G) if e.kind == "reconcile_repaired"]
    assert memory.reconcile("other").ok


def test_reconcile_finds_stale_summaries_and_rebuilds_them_without_a_model(
    memory_factory: Callable[..., Memory],
) -> None:
    from .ingest_helpers import ScriptedProvider

    provider = ScriptedProvider()  # any model call would fail: it has no answers
    memory = memory_factory(model=provider, relation_types={"LIVES_IN": {"cardinality": "many_to_one"}})
    memory.add_fact(G, "Carol", "LIVES_IN", "Paris", valid_at="2020-01-01")
    memory.add_fact(G, "Dan", "KNOWS", "Erin", valid_at="2020-01-01")
    memory.reconcile(G, repair=True)
    assert memory.reconcile(G).ok
    memory.add_fact(G, "Carol", "LIVES_IN", "Rome", valid_at="2022-01-01")  # retires Paris
    report = memory.reconcile(G)
    assert sorted(s.name for s in report.stale_summaries) == ["Carol", "Paris", "Rome"]
    assert all(s.changes == 1 and s.built_at is not None for s in report.stale_summaries if s.name != "Rome")
    repaired = memory.reconcile(G, repair=True)
    assert sorted(repaired.repaired.refreshed_summaries) == sorted(s.uuid for s in report.stale_summaries)
    assert provider.calls == []
    (carol,) = memory.entities(G, name="Carol")
    assert carol.summary == "Carol lives in Rome." and not carol.summary_stale
    assert memory.reconcile(G).ok
    events = [e for e in memory.audit_events(G) if e.kind == "reconcile_repaired"]
    assert [e.detail["check"] for e in events] == ["stale_summaries", "stale_summaries"]
