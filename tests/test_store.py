"""Store conformance: every backend applies plans faithfully and atomically."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from kronograph.errors import ConcurrentWriteError, StoreError
from kronograph.ingest.timeline import supersede
from kronograph.model import Entity, Episode
from kronograph.store import FactQuery, Store
from kronograph.store.plan import Plan
from kronograph.store.records import FactRecord, Source

ON_CITUS = True  # the backend fixture adds the Citus cluster (tests/conftest.py)

NOW = datetime(2025, 1, 1, tzinfo=UTC)


def on_store(
    backend: Callable[..., Store], check: Callable[[Store], Awaitable[None]], *, threaded: bool = False
) -> None:
    """Run ``check`` against a fresh, open store of the backend, then close it."""

    async def go() -> None:
        store = backend(threaded=threaded)
        await store.open()
        try:
            await check(store)
        finally:
            await store.close()

    asyncio.run(go())


def episode(uuid: str) -> Episode:
    return Episode(uuid=uuid, group_id="g", name=uuid, kind="fact", reference_time=NOW, created_at=NOW)


def entity(uuid: str, name: str) -> Entity:
    return Entity(uuid=uuid, group_id="g", name=name, created_at=NOW)


def record(uuid: str, s: str, o: str, episode_id: str = "e1") -> FactRecord:
    return FactRecord(
        uuid=uuid, group_id="g", source_uuid=s, target_uuid=o, subject=s.upper(), object=o.upper(),
        relation="KNOWS", relation_key="knows", fact=f"{s} knows {o}", valid_at=NOW, invalid_at=None,
        stated_invalid_at=None, created_at=NOW, expired_at=None, invalidated_by=None,
        sources=(Source(episode_id, NOW, None, NOW),),
    )


def first_plan(revision: int = 0) -> Plan:
    plan = Plan(group_id="g", now=NOW, expected_revision=revision)
    plan.new_episodes.append(episode("e1"))
    plan.new_entities += [entity("a", "A"), entity("b", "B")]
    plan.mentions += [("e1", "a"), ("e1", "b")]
    fact = record("f1", "a", "b")
    plan.new_facts.append(fact)
    return plan


async def counts(store: Store) -> tuple[int, int, int]:
    facts = await store.facts("g", FactQuery(as_of=NOW, include_retired=True, include_expired=True))
    return (
        len(facts),
        len(await store.entities("g")),
        len(await store.episodes("g")),
    )


def test_a_plan_is_applied_whole(backend: Callable[..., Store]) -> None:
    async def check(store: Store) -> None:
        before = await store.revision("g")
        await store.apply(first_plan(before))
        assert await store.revision("g") != before
        assert await counts(store) == (1, 2, 1)
        (fact,) = await store.facts("g", FactQuery(as_of=NOW))
        assert (fact.subject, fact.object, fact.episodes) == ("A", "B", ("e1",))
        assert [c.cause for c in await store.history("g", "f1")] == ["created"]
        assert await store.entity_references("g", ["a", "zz"]) == {"a": ({"f1"}, {"e1"}), "zz": (set(), set())}

    on_store(backend, check, threaded=True)


def test_a_failing_plan_leaves_nothing_behind(backend: Callable[..., Store]) -> None:
    async def check(store: Store) -> None:
        await store.apply(first_plan(await store.revision("g")))
        before = await counts(store)
        revision = await store.revision("g")
        plan = Plan(group_id="g", now=NOW, expected_revision=revision)
        plan.new_episodes.append(episode("e2"))
        plan.new_entities.append(entity("c", "C"))
        plan.new_facts.append(record("f2", "a", "missing-entity", "e2"))  # violates a foreign key
        with pytest.raises(StoreError):
            await store.apply(plan)
        assert await counts(store) == before
        assert await store.revision("g") == revision
        assert await store.episode("g", "e2") is None

    on_store(backend, check)


def test_a_stale_plan_is_refused(backend: Callable[..., Store]) -> None:
    async def check(store: Store) -> None:
        read_before = await store.revision("g")
        await store.apply(first_plan(read_before))
        stale = Plan(group_id="g", now=NOW, expected_revision=read_before)
        stale.new_entities.append(entity("c", "C"))
        with pytest.raises(ConcurrentWriteError):
            await store.apply(stale)
        assert await counts(store) == (1, 2, 1)

    on_store(backend, check)


def test_conflict_neighbourhood_marks_complete_links(backend: Callable[..., Store]) -> None:
    async def check(store: Store) -> None:
        plan = first_plan(await store.revision("g"))
        plan.new_entities.append(entity("c", "C"))
        for uuid, target in (("f2", "c"), ("f3", "a")):
            fact = record(uuid, "b" if uuid == "f2" else "c", target)
            plan.new_facts.append(fact)
        plan.add_conflicts += [("f1", "f2", "e1"), ("f2", "f3", "e1")]
        await store.apply(plan)
        hood = await store.conflict_neighbourhood("g", ["f1"], 1)
        assert hood.complete == {"f1"} and hood.edges["f1"] == {"f2"} and set(hood.records) == {"f1", "f2"}
        hood = await store.conflict_neighbourhood("g", ["f1"], 2)
        assert hood.complete == {"f1", "f2"} and set(hood.records) == {"f1", "f2", "f3"}
        assert hood.edges["f2"] == {"f1", "f3"}
        assert (await store.conflict_neighbourhood("other", ["f1"], 2)).records == {}
        links = await store.conflict_links("g", ["f2", "f1", "nope", "f2"])
        assert links == {"f2": {"f1", "f3"}, "f1": {"f2"}, "nope": set()}  # the edges one link out, both ways
        assert await store.conflict_links("other", ["f1", "f2"]) == {"f1": set(), "f2": set()}  # another group's
        assert await store.conflict_links("g", []) == {}

    on_store(backend, check)


def test_reads_are_scoped_by_group(backend: Callable[..., Store]) -> None:
    async def check(store: Store) -> None:
        await store.apply(first_plan(await store.revision("g")))
        q = FactQuery(as_of=NOW, include_retired=True, include_expired=True)
        assert await store.facts("h", q) == []
        assert await store.facts("h", FactQuery(as_of=NOW, known_at=NOW, include_retired=True)) == []
        assert await store.entities("h") == [] and await store.episodes("h") == []
        assert await store.episode("h", "e1") is None
        assert await store.history("h", "f1") == []
        assert await store.facts_citing("h", "e1") == []
        assert await store.fact_candidates("h", "a", "b", "knows", around=NOW) == []
        assert await store.entities_named("h", ["a"]) == []
        assert await store.timeline("h", "a", None) == []

    on_store(backend, check)


def test_the_event_flag_is_written_and_read_and_filters_facts(backend: Callable[..., Store]) -> None:
    """A fact's ``event`` flag goes in with it and its history, comes back on
    every read, and a query keeps events only, states only, or both; and
    ``since``/``until`` bound its valid_at."""
    later = datetime(2025, 3, 1, tzinfo=UTC)

    async def check(store: Store) -> None:
        plan = first_plan(await store.revision("g"))
        plan.new_entities.append(entity("c", "C"))
        plan.new_facts.append(replace(record("f2", "a", "c"), relation="MET", relation_key="met", event=True))
        await store.apply(plan)
        met = (await store.facts("g", FactQuery(as_of=NOW, uuids=("f2",))))[0]
        assert met.event and not (await store.facts("g", FactQuery(as_of=NOW, uuids=("f1",))))[0].event
        assert [f.uuid for f in await store.facts("g", FactQuery(as_of=NOW, event=True))] == ["f2"]
        assert [f.uuid for f in await store.facts("g", FactQuery(as_of=NOW, event=False))] == ["f1"]
        assert {f.uuid for f in await store.facts("g", FactQuery(as_of=NOW))} == {"f1", "f2"}
        assert (await store.conflict_neighbourhood("g", ["f2"], 1)).records["f2"].event
        assert [f.event for f in await store.timeline("g", "c", None)] == [True]
        # a new version keeps the flag, and the superseded one in history has it too (known_at reads it)
        stored = (await store.conflict_neighbourhood("g", ["f2"], 1)).records["f2"]
        update = Plan(group_id="g", now=later, expected_revision=await store.revision("g"))
        supersede(update, stored, stored.with_(expired_at=later), "expired", None)
        await store.apply(update)
        believed = FactQuery(as_of=NOW, known_at=NOW, include_retired=True, event=True)
        assert [(f.uuid, f.event) for f in await store.facts("g", believed)] == [("f2", True)]
        assert await store.facts("g", replace(believed, event=False, entity_key="c")) == []
        window = FactQuery(as_of=later, include_retired=True, include_expired=True, since=NOW, until=later)
        assert {f.uuid for f in await store.facts("g", window)} == {"f1", "f2"}
        assert await store.facts("g", replace(window, since=later, until=None)) == []
        assert await store.facts("g", replace(window, since=None, until=NOW)) == []
        (found,) = await store.facts("g", replace(window, event=True))
        assert found.event and found.expired_at == later

    on_store(backend, check)
