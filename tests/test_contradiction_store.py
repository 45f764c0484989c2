"""The storage of issue 19 on every backend: a fact's tier (kept with each
version, so a tier changed by hand is a new version), and the group's
contradiction rows (inserted first-one-wins, dismissed, read by either
side, open only while both sides stand, deleted with their facts and
episodes, erased by forget), and the migrations that add them (SQLite v18,
PostgreSQL v19)."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kronograph import Memory
from kronograph.model import Entity, Episode
from kronograph.store import FactQuery, SQLiteStore, Store
from kronograph.store.change_rows import ChangeWindow
from kronograph.store.plan import HistoryEntry, Plan
from kronograph.store.records import ContradictionRecord, FactRecord, Source
from kronograph.store.sqlite.schema import MIGRATIONS as SQLITE_MIGRATIONS

from . import pg_server

ON_CITUS = True  # the backend fixture adds the Citus cluster (tests/conftest.py)

G = "g"
NOW = datetime(2025, 1, 1, tzinfo=UTC)
LATER = NOW + timedelta(hours=1)


def on_store(backend: Callable[..., Store], check: Callable[[Store], Awaitable[None]]) -> None:
    """Run ``check`` against a fresh, open store of the backend, then close it."""

    async def go() -> None:
        store = backend()
        await store.open()
        try:
            await check(store)
        finally:
            await store.close()

    asyncio.run(go())


def _episode(uuid_: str) -> Episode:
    return Episode(uuid=uuid_, group_id=G, name=uuid_, kind="fact", reference_time=NOW, created_at=NOW)


def _record(uuid_: str, s: str, o: str, tier: str | None = None) -> FactRecord:
    return FactRecord(
        uuid=uuid_, group_id=G, source_uuid=s, target_uuid=o, subject=s.upper(), object=o.upper(),
        relation="KNOWS", relation_key="knows", fact=f"{s} knows {o}", valid_at=NOW, invalid_at=None,
        stated_invalid_at=None, created_at=NOW, expired_at=None, invalidated_by=None,
        sources=(Source("e1", NOW, None, NOW),), recorded_at=NOW, cause_episode="e1", tier=tier,
    )


FACTS = {"f1": ("a", "b", "standing"), "f2": ("a", "c", None), "f3": ("b", "c", "finding"), "f4": ("c", "d", None)}


def _graph() -> Plan:
    """Episodes e1 (the facts' source) and e9 (a filing of no fact), four entities, four facts."""
    plan = Plan(group_id=G, now=NOW, expected_revision=None)
    plan.new_episodes += [_episode("e1"), _episode("e9")]
    plan.new_entities += [Entity(uuid=u, group_id=G, name=u.upper(), created_at=NOW) for u in "abcd"]
    plan.new_facts += [_record(u, s, o, tier) for u, (s, o, tier) in FACTS.items()]
    return plan


def _row(fact: str, target: str, score: float, *, kind: str = "candidate", reason: str = "same_slot",
         at: datetime = NOW, note: str | None = None, similarity: float | None = None) -> ContradictionRecord:
    return ContradictionRecord(
        group_id=G, fact_uuid=fact, target_uuid=target, kind=kind, reason=reason, target_authority=score,
        actor_weight=1.0, score=score, similarity=similarity, note=note, actor="agent:x", episode_id="e1",
        created_at=at,
    )


async def _records(store: Store, uuids: list[str]) -> dict[str, FactRecord]:
    return {r.uuid: r for r in await store.facts_citing(G, "e1") if r.uuid in uuids}


def _keys(rows: list[ContradictionRecord]) -> list[tuple[str, str, str]]:
    return [(r.fact_uuid, r.target_uuid, r.kind) for r in rows]


# -- tiers ----------------------------------------------------------------------------------------------------------


def test_a_tier_round_trips_through_every_read_of_facts(backend: Callable[..., Store]) -> None:
    async def check(store: Store) -> None:
        await store.apply(_graph())
        tiers = {u: t for u, (_, _, t) in FACTS.items()}
        every = await store.facts(G, FactQuery(as_of=NOW, include_retired=True))
        assert {f.uuid: f.tier for f in every} == tiers
        listed = await store.facts(G, FactQuery(as_of=NOW, uuids=("f1", "f2")))
        assert {f.uuid: f.tier for f in listed} == {"f1": "standing", "f2": None}
        assert {f.uuid: f.tier for f in await store.timeline(G, "a", None)} == {"f1": "standing", "f2": None}
        known = await store.facts(G, FactQuery(as_of=NOW, known_at=LATER, subject_key="b"))
        assert {f.uuid: f.tier for f in known} == {"f3": "finding"}
        assert {r.uuid: r.tier for r in await store.facts_citing(G, "e1")} == tiers
        candidates = await store.fact_candidates(G, "a", "b", "knows", around=NOW)
        assert {r.uuid: r.tier for r in candidates if r.uuid == "f1"} == {"f1": "standing"}
        hood = await store.conflict_neighbourhood(G, ["f3"])
        assert hood.records["f3"].tier == "finding"
        changes = await store.changes(G, ChangeWindow(since=NOW, until=None, after=None, limit=10))
        assert {c.fact.uuid: c.fact.tier for c in changes if c.fact is not None} == tiers

    on_store(backend, check)


def test_a_tier_changed_by_hand_is_a_new_version_and_the_old_one_stays_in_history(
    backend: Callable[..., Store],
) -> None:
    """What the memory does to change a tier: the record with its new tier as
    a new version (cause ``tier``), and the old version in history."""

    async def check(store: Store) -> None:
        await store.apply(_graph())
        old = (await _records(store, ["f1"]))["f1"]
        plan = Plan(group_id=G, now=LATER, expected_revision=await store.revision(G))
        plan.updated_facts.append(old.with_(tier="decision", recorded_at=LATER, cause="tier"))
        plan.history.append(HistoryEntry(old, "live"))
        await store.apply(plan)

        new = (await _records(store, ["f1"]))["f1"]
        assert (new.tier, new.cause, new.recorded_at) == ("decision", "tier", LATER)
        (now,) = await store.facts(G, FactQuery(as_of=NOW, uuids=("f1",)))
        assert now.tier == "decision"
        before = NOW + timedelta(minutes=30)  # believed then: the first version, its tier with it
        (then,) = await store.facts(G, FactQuery(as_of=NOW, known_at=before, uuids=("f1",)))
        assert then.tier == "standing"
        (then,) = await store.facts(G, FactQuery(as_of=NOW, known_at=before, subject_key="a", object_key="b"))
        assert then.tier == "standing"
        assert [(h.cause, h.recorded_at) for h in await store.history(G, "f1")] == [("created", NOW), ("tier", LATER)]
        changes = await store.changes(G, ChangeWindow(since=NOW, until=None, after=None, limit=20))
        versions = [(c.cause, c.fact.tier, c.prior and c.prior.tier) for c in changes
                    if c.fact is not None and c.fact.uuid == "f1"]
        assert versions == [("created", "standing", None), ("tier", "decision", "standing")]
        others = {f.uuid: f.tier for f in await store.facts(G, FactQuery(as_of=NOW)) if f.uuid != "f1"}
        assert others == {"f2": None, "f3": "finding", "f4": None}  # untouched

    on_store(backend, check)


# -- contradiction rows ---------------------------------------------------------------------------------------------


def test_contradictions_are_kept_first_one_wins_and_read_by_either_side(backend: Callable[..., Store]) -> None:
    async def check(store: Store) -> None:
        await store.apply(_graph())
        plan = Plan(group_id=G, now=NOW, expected_revision=None)
        plan.contradictions = [
            _row("f2", "f1", 0.8),
            _row("f3", "f1", 0.5, kind="recorded", reason="recorded", note="the cap moved"),
            _row("e9", "f1", 0.3, reason="similar_meaning", similarity=0.91),
            _row("f4", "f3", 0.0),
            _row("f2", "f1", 0.1),  # the same key again, in the same plan: the first one wins
        ]
        await store.apply(plan)
        again = Plan(group_id=G, now=LATER, expected_revision=None)
        again.contradictions = [_row("f2", "f1", 0.2, at=LATER), _row("f2", "f1", 0.2, kind="recorded", at=LATER)]
        await store.apply(again)  # the first key is kept as it was; another kind is another row

        every = await store.contradictions(G, open_only=False, at=NOW)
        assert _keys(every) == [("f2", "f1", "candidate"), ("f3", "f1", "recorded"), ("e9", "f1", "candidate"),
                                ("f2", "f1", "recorded"), ("f4", "f3", "candidate")]  # by score, then created_at
        first = every[0]
        assert (first.score, first.created_at, first.dismissed_at) == (0.8, NOW, None)
        assert every[1] == _row("f3", "f1", 0.5, kind="recorded", reason="recorded", note="the cap moved")
        assert every[2].similarity == pytest.approx(0.91) and every[2].reason == "similar_meaning"
        assert _keys(await store.contradictions(G, fact_uuids=["f3"], at=NOW)) == [
            ("f3", "f1", "recorded"), ("f4", "f3", "candidate")]  # either side
        assert _keys(await store.contradictions(G, fact_uuids=["e9", "f4"], at=NOW)) == [
            ("e9", "f1", "candidate"), ("f4", "f3", "candidate")]
        assert await store.contradictions(G, fact_uuids=[], at=NOW) == []
        assert await store.contradictions("other", at=NOW) == []  # another group's are never read
        assert await store.open_contradiction_count(G, NOW) == 4  # the score-0 row is open, not counted
        assert await store.open_contradiction_count("other", NOW) == 0

    on_store(backend, check)


def test_a_contradiction_is_open_while_both_sides_stand_and_nobody_dismissed_it(
    backend: Callable[..., Store],
) -> None:
    async def check(store: Store) -> None:
        await store.apply(_graph())
        plan = Plan(group_id=G, now=NOW, expected_revision=None)
        plan.contradictions = [
            _row("f2", "f1", 0.8), _row("f3", "f1", 0.5, kind="recorded"), _row("e9", "f1", 0.3),
            _row("f4", "f3", 0.4), _row("ghost", "f1", 0.9), _row("f2", "nothing", 0.9),
        ]
        await store.apply(plan)
        # A fact that is neither current nor an episode's id, or a target that is no fact: never open.
        assert _keys(await store.contradictions(G, at=NOW)) == [
            ("f2", "f1", "candidate"), ("f3", "f1", "recorded"), ("f4", "f3", "candidate"), ("e9", "f1", "candidate")]

        records = await _records(store, ["f2", "f3"])
        settle = Plan(group_id=G, now=LATER, expected_revision=await store.revision(G))
        settle.dismiss_contradictions = [("f3", "f1", "recorded"), ("f3", "f1", "candidate")]  # the second: none
        # The contradicting f2 is retired (expired); the target f3 ends a day on (valid time).
        settle.updated_facts = [
            records["f2"].with_(expired_at=LATER, recorded_at=LATER, cause="retracted"),
            records["f3"].with_(invalid_at=NOW + timedelta(days=1), recorded_at=LATER, cause="ended"),
        ]
        settle.history = [HistoryEntry(records["f2"], "live"), HistoryEntry(records["f3"], "live")]
        await store.apply(settle)

        assert _keys(await store.contradictions(G, at=NOW)) == [("f4", "f3", "candidate"), ("e9", "f1", "candidate")]
        assert _keys(await store.contradictions(G, at=NOW + timedelta(days=2))) == [("e9", "f1", "candidate")]
        assert await store.open_contradiction_count(G, NOW) == 2
        assert await store.open_contradiction_count(G, NOW + timedelta(days=2)) == 1
        dismissed = await store.contradictions(G, fact_uuids=["f3"], open_only=False, at=NOW)
        assert [(r.kind, r.target_uuid, r.dismissed_at) for r in dismissed] == [
            ("recorded", "f1", LATER), ("candidate", "f3", None)]

        redismiss = Plan(group_id=G, now=LATER + timedelta(hours=1), expected_revision=None)
        redismiss.dismiss_contradictions = [("f3", "f1", "recorded")]
        await store.apply(redismiss)  # dismissed already: it keeps its first time
        recorded = [r for r in await store.contradictions(G, fact_uuids=["f1"], open_only=False, at=NOW)
                    if r.kind == "recorded"]
        assert [r.dismissed_at for r in recorded] == [LATER]

    on_store(backend, check)


def test_contradictions_go_with_the_facts_and_episodes_they_name(backend: Callable[..., Store]) -> None:
    async def check(store: Store) -> None:
        await store.apply(_graph())
        plan = Plan(group_id=G, now=NOW, expected_revision=None)
        plan.contradictions = [_row("f2", "f1", 0.8), _row("f3", "f2", 0.5), _row("e9", "f1", 0.3),
                               _row("f4", "f1", 0.2), _row("e9", "f4", 0.1)]
        await store.apply(plan)
        records = await _records(store, ["f2"])
        remove = Plan(group_id=G, now=LATER, expected_revision=await store.revision(G))
        remove.delete_facts = ["f2"]
        remove.history = [HistoryEntry(records["f2"].with_(recorded_at=LATER, cause="removed"), "deleted")]
        await store.apply(remove)
        assert _keys(await store.contradictions(G, open_only=False, at=NOW)) == [
            ("e9", "f1", "candidate"), ("f4", "f1", "candidate"), ("e9", "f4", "candidate")]  # f2's, either side

        gone = Plan(group_id=G, now=LATER, expected_revision=None)
        gone.delete_episodes = ["e9"]
        await store.apply(gone)
        assert _keys(await store.contradictions(G, open_only=False, at=NOW)) == [("f4", "f1", "candidate")]

    on_store(backend, check)


def test_forget_erases_the_contradictions_of_what_goes_and_those_whose_note_names_it(
    memory_factory: Callable[..., Memory],
) -> None:
    memory = memory_factory(model=None)
    memory.set_contradiction_policy(G, {"candidates": 0})  # only the rows planted below
    cap = memory.add_fact(G, "Pool", "CAPPED_AT", "Twenty").fact
    raise_ = memory.add_fact(G, "Pool", "RAISED_TO", "Thirty Five").fact
    said = memory.add_fact(G, "Zorblax Quentin", "SAYS", "Pool").fact
    plan = Plan(group_id=G, now=cap.created_at, expected_revision=None)
    plan.contradictions = [
        _row(raise_.uuid, cap.uuid, 0.9, kind="recorded", reason="recorded", note="per Zorblax Quentin"),
        _row(said.uuid, cap.uuid, 0.5),
        _row(cap.uuid, raise_.uuid, 0.4),
    ]
    memory._call(memory.store.apply(plan))  # type: ignore[attr-defined]
    assert len(memory._call(memory.store.contradictions(G, at=cap.created_at))) == 3  # type: ignore[attr-defined]

    report = memory.forget(G, entity="Zorblax Quentin")
    assert report.verified, report.leftovers
    assert said.uuid in report.facts
    left = memory._call(memory.store.contradictions(G, open_only=False, at=cap.created_at))  # type: ignore[attr-defined]
    assert _keys(left) == [(cap.uuid, raise_.uuid, "candidate")]


# -- migrations -----------------------------------------------------------------------------------------------------

T0 = 1_700_000_000_000_000  # microseconds


def _old_rows() -> list[tuple[str, str, tuple[object, ...]]]:
    """A fact and a superseded version of it, as a schema before tiers held them."""
    return [
        ("groups", "group_id, created_at", (G, T0)),
        ("episodes", "group_id, uuid, name, kind, reference_time, created_at, status",
         (G, "e1", "e1", "fact", T0, T0, "complete")),
        ("entities", "uuid, group_id, name, name_key, created_at", ("a", G, "Ann", "ann", T0)),
        ("entities", "uuid, group_id, name, name_key, created_at", ("b", G, "Bo", "bo", T0)),
        ("facts", "uuid, group_id, source_uuid, target_uuid, relation, relation_key, fact, valid_at, created_at,"
         " recorded_at, cause", ("f1", G, "a", "b", "KNOWS", "knows", "Ann knows Bo", T0, T0, T0 + 10, "created")),
        ("fact_sources", "fact_uuid, group_id, episode_id, valid_at, added_at", ("f1", G, "e1", T0, T0)),
        ("fact_history", "group_id, fact_uuid, recorded_at, cause, status, source_uuid, target_uuid, subject,"
         " object, subject_key, object_key, relation, relation_key, fact, valid_at, created_at, episodes",
         (G, "f1", T0, "created", "live", "a", "b", "Ann", "Bo", "ann", "bo", "KNOWS", "knows", "Ann knows Bo",
          T0, T0, '["e1"]')),
    ]


async def _upgraded(store: Store) -> None:
    """An upgraded store reads its facts (no tier) and keeps tiers and contradictions from then on."""
    await store.open()
    try:
        (fact,) = await store.facts(G, FactQuery(as_of=NOW, include_retired=True))
        assert (fact.uuid, fact.tier) == ("f1", None)
        known = await store.facts(G, FactQuery(as_of=NOW, include_retired=True, known_at=datetime.fromtimestamp(
            (T0 + 5) / 1e6, UTC), subject_key="ann"))
        assert [(f.uuid, f.tier) for f in known] == [("f1", None)]  # the history's version
        (old,) = await store.facts_citing(G, "e1")
        plan = Plan(group_id=G, now=NOW, expected_revision=await store.revision(G))
        plan.updated_facts.append(old.with_(tier="standing", recorded_at=NOW, cause="tier"))
        plan.history.append(HistoryEntry(old, "live"))
        plan.contradictions.append(_row("e1", "f1", 0.6, reason="similar_meaning"))
        await store.apply(plan)
        (fact,) = await store.facts(G, FactQuery(as_of=NOW, include_retired=True))
        assert fact.tier == "standing"
        assert _keys(await store.contradictions(G, at=NOW)) == [("e1", "f1", "candidate")]
        assert await store.open_contradiction_count(G, NOW) == 1
    finally:
        await store.close()


def test_a_sqlite_memory_at_v17_gains_tiers_and_contradictions(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT)")
    for number, name, apply in SQLITE_MIGRATIONS:
        if number < 18:
            apply(conn)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?, 'now')", (number, name))
    for table, columns, values in _old_rows():
        conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({', '.join('?' * len(values))})", values)
    conn.commit()
    conn.close()
    asyncio.run(_upgraded(SQLiteStore(path, threaded=False)))
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == SQLITE_MIGRATIONS[-1][0] >= 18
    (_, _, v18), = [m for m in SQLITE_MIGRATIONS if m[0] == 18]
    v18(conn)  # idempotent: run again, nothing fails and nothing changes
    assert conn.execute("SELECT tier FROM facts").fetchall() == [("standing",)]
    assert [r[0] for r in conn.execute("SELECT tier FROM fact_history ORDER BY seq")] == [None, None]
    assert conn.execute("SELECT COUNT(*) FROM contradictions").fetchone()[0] == 1
    conn.close()


def test_a_postgres_memory_at_v18_gains_tiers_and_contradictions() -> None:
    pytest.importorskip("psycopg")
    import psycopg

    from kronograph.store.postgres import PostgresStore
    from kronograph.store.postgres.schema import MIGRATIONS as PG_MIGRATIONS
    from kronograph.store.postgres.script import statements

    databases = pg_server.databases()
    name = f"kg_tiers_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(databases.url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
    url = pg_server._with_database(databases.url, name)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                         " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            for number, step, script in PG_MIGRATIONS:
                if number < 19:
                    conn.execute(script)  # type: ignore[arg-type]
                    conn.execute("INSERT INTO schema_migrations(version, name) VALUES (%s, %s)", (number, step))
            for table, columns, values in _old_rows():
                marks = ", ".join(["%s"] * len(values))
                conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", values)  # type: ignore[arg-type]
        asyncio.run(_upgraded(PostgresStore(url, min_size=0, max_size=2)))
        with psycopg.connect(url, autocommit=True) as conn:
            latest = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()  # type: ignore[index]
            assert latest == (PG_MIGRATIONS[-1][0],) and PG_MIGRATIONS[-1][0] >= 19
            (v19,) = [script for number, _, script in PG_MIGRATIONS if number == 19]
            for statement in statements(v19):  # idempotent: run again, nothing fails and nothing changes
                conn.execute(statement)  # type: ignore[arg-type]
            assert conn.execute("SELECT tier FROM facts").fetchall() == [("standing",)]
            tiers = [r[0] for r in conn.execute("SELECT tier FROM fact_history ORDER BY seq").fetchall()]
            assert tiers == [None, None]
            assert conn.execute("SELECT COUNT(*) FROM contradictions").fetchone() == (1,)
    finally:
        with psycopg.connect(databases.url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]


def test_a_tier_survives_an_entity_merge_and_its_undoing(memory_factory: Callable[..., Memory]) -> None:
    """A merge deletes a duplicate fact and its audit event keeps it; the split
    restores it from there, its tier with it."""
    memory = memory_factory(model=None)
    kept = memory.add_fact(G, "Alice", "KNOWS", "Bob").fact
    twin = memory.add_fact(G, "Al", "KNOWS", "Bob").fact
    store = memory.store  # type: ignore[attr-defined]
    records = {r.uuid: r for e in {*kept.episodes, *twin.episodes} for r in memory._call(store.facts_citing(G, e))}  # type: ignore[attr-defined]
    now = memory.episodes(G)[-1].created_at
    plan = Plan(group_id=G, now=now, expected_revision=None)
    for uuid_, tier in ((kept.uuid, "standing"), (twin.uuid, "finding")):
        plan.updated_facts.append(records[uuid_].with_(tier=tier, recorded_at=now, cause="tier"))
        plan.history.append(HistoryEntry(records[uuid_], "live"))
    memory._call(store.apply(plan))  # type: ignore[attr-defined]
    tiered = {c.fact.uuid: (c.kind, c.detail) for c in memory.changes(G, now) if c.cause == "tier" and c.fact}
    assert tiered == {kept.uuid: ("changed", {"before": {"tier": None}, "after": {"tier": "standing"}}),
                      twin.uuid: ("changed", {"before": {"tier": None}, "after": {"tier": "finding"}})}  # the feed
    merged = memory.merge_entities(G, "Alice", "Al")
    assert {f.tier for f in memory.facts(G)} <= {"standing", "finding"}
    memory.split_entity(G, merged.merge_id)
    assert {f.uuid: f.tier for f in memory.facts(G)} == {kept.uuid: "standing", twin.uuid: "finding"}
