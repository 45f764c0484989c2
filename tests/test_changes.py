"""``memory.changes``: what the memory recorded between two transaction times,
on every backend, through the public API. Each change appears once, with the
kind its two states say, and the feed agrees with every fact's ``history``;
windows are closed-open, pages chain by cursor, groups never mix. (REST, MCP
and the CLI are in test_changes_service.py.)"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kronograph import Cardinality, Change, InvalidInputError, Memory, RelationType
from kronograph._changes import cursor_key

from .conftest import StepClock

G = "g"


def _script(memory: Memory, clock: StepClock, group: str = G) -> dict[str, Any]:
    """Add, correct by a contradicting episode, retract it, correct again,
    restate, remove a fact, merge two entities and split them back: a tick of
    the clock between steps. Returns what the steps made, and when."""
    at: dict[str, Any] = {"start": clock.now}
    at["paris"] = clock.tick()
    memory.add_episode(group, "Sam lives in Paris.", reference_time="2023-01-01")
    at["acme"] = clock.tick()
    acme = memory.add_fact(group, "Sam", "WORKS_AT", "Acme", valid_at="2022-01-01").fact.uuid
    at["berlin"] = clock.tick()
    berlin = memory.add_episode(group, "Sam moved to Berlin.", reference_time="2024-01-01").episode_id
    at["retract"] = clock.tick()
    retracted = memory.remove_episode(group, berlin).deleted_facts
    at["rome"] = clock.tick()
    memory.add_episode(group, "Sam moved to Rome.", reference_time="2024-03-01")
    at["restate"] = clock.tick()
    restated = memory.add_episode(group, "Sam lives in Rome.", reference_time="2024-04-01").episode_id
    at["remove"] = clock.tick()
    gone = memory.remove_fact(group, acme).deleted_facts
    at["people"] = clock.tick()
    memory.add_fact(group, "Robert Smith", "WORKS_AT", "Northwind", valid_at="2023-01-01")
    memory.add_fact(group, "Bob", "WORKS_AT", "Northwind", valid_at="2023-03-01")  # one statement once merged
    memory.add_fact(group, "Bob", "KNOWS", "Robert Smith", valid_at="2023-06-01")  # a loop once merged
    memory.add_fact(group, "Maya", "FRIEND_OF", "Bob", valid_at="2023-01-01")
    at["merge"] = clock.tick()
    merge = memory.merge_entities(group, "Robert Smith", "Bob")
    at["split"] = clock.tick()
    memory.split_entity(group, merge.merge_id)
    at["end"] = clock.tick()
    return {"at": at, "berlin_episode": berlin, "restated_episode": restated,
            "removed": set(retracted) | set(gone) | {d for d, _ in merge.merged_duplicates}, "merge_id": merge.merge_id}


def _by_fact(changes: list[Change]) -> dict[str, list[Change]]:
    out: dict[str, list[Change]] = {}
    for c in changes:
        if c.fact is not None:
            out.setdefault(c.fact.uuid, []).append(c)
    return out


def _agrees_with_history(memory: Memory, feed: list[Change], removed: set[str]) -> None:
    """Every recorded version of every fact, once: the feed is the histories, merged by time."""
    uuids = {f.uuid for f in memory.facts(G, include_retired=True, include_expired=True, include_events=True)}
    assert set(_by_fact(feed)) == uuids | removed
    for uuid, mine in _by_fact(feed).items():
        history = memory.history(G, uuid)
        assert [(h.recorded_at, h.cause, h.episode_id, h.status, h.valid_at, h.invalid_at, h.episodes)
                for h in history] == [
            (c.recorded_at, c.cause, c.episode_id,
             "deleted" if c.kind == "removed" else "expired" if c.fact.expired_at else "live",  # type: ignore[union-attr]
             c.fact.valid_at, c.fact.invalid_at, c.fact.episodes)  # type: ignore[union-attr]
            for c in mine
        ], uuid
    assert [c.recorded_at for c in feed] == sorted(c.recorded_at for c in feed)
    assert len({c.cursor for c in feed}) == len(feed)


def test_changes_match_every_facts_history_each_once_with_its_kind(
    memory_factory: Callable[..., Memory], clock: StepClock
) -> None:
    memory = memory_factory(model=None)
    made = _script(memory, clock)
    feed = memory.changes(G, made["at"]["start"])

    _agrees_with_history(memory, feed, made["removed"])

    kinds = sorted((mine[0].fact.triple, [c.kind for c in mine]) for mine in _by_fact(feed).values())  # type: ignore[union-attr]
    assert kinds == [
        ("Bob KNOWS Robert Smith", ["learned", "retired", "restored"]),  # a loop once merged: closed, then back
        ("Bob WORKS_AT Northwind", ["learned", "removed", "restored"]),  # joined the other statement, then back
        ("Maya FRIEND_OF Bob", ["learned", "changed", "changed"]),  # moved to Robert Smith and back
        ("Robert Smith WORKS_AT Northwind", ["learned", "changed", "changed"]),  # gained Bob's source, lost it
        ("Sam LIVES_IN Berlin", ["learned", "removed"]),  # its only episode retracted
        ("Sam LIVES_IN Paris", ["learned", "retired", "restored", "retired"]),
        ("Sam LIVES_IN Rome", ["learned", "changed"]),  # restated by another episode
        ("Sam WORKS_AT Acme", ["learned", "removed"]),
    ]
    entity_events = [c for c in feed if c.fact is None]
    assert [(c.kind, c.cause, c.recorded_at) for c in entity_events] == [
        ("merged", "entities_merged", made["at"]["merge"]), ("split", "entities_split", made["at"]["split"])]
    merged, split = entity_events
    assert merged.detail["kept"] == "Robert Smith" and merged.detail["absorbed"] == ["Bob"]
    assert merged.detail["merge_id"] == split.detail["merge_id"] == made["merge_id"]
    assert split.detail["kept"] == "Robert Smith" and split.detail["restored"] == ["Bob"]
    assert merged.episode_id is None and split.episode_id is None

    # The fact is its state right after the change; detail says what moved, and which episode did it.
    paris = [c for c in feed if c.fact is not None and c.fact.triple == "Sam LIVES_IN Paris"]
    ended = datetime(2024, 1, 1, tzinfo=UTC)
    assert paris[1].fact.invalid_at == ended  # type: ignore[union-attr]
    assert paris[1].detail == {"before": {"invalid_at": None}, "after": {"invalid_at": ended}}
    assert paris[1].episode_id == paris[2].episode_id == made["berlin_episode"]  # retired by it, back by its removal
    assert paris[2].fact.invalid_at is None  # type: ignore[union-attr]
    rome = [c for c in feed if c.fact is not None and c.fact.triple == "Sam LIVES_IN Rome"]
    assert rome[1].detail == {"episodes_added": [made["restated_episode"]]}
    assert rome[1].episode_id == made["restated_episode"]
    moved = [c for c in feed if c.fact is not None and c.fact.relation == "FRIEND_OF"]
    assert moved[1].detail == {"before": {"object": "Bob"}, "after": {"object": "Robert Smith"}}
    assert all(c.episode_id is None for c in feed if c.cause.startswith("entity_"))
    acme = [c for c in feed if c.fact is not None and c.fact.triple == "Sam WORKS_AT Acme"]
    assert acme[-1].cause == "fact_removed" and acme[-1].fact == acme[0].fact  # its last state


def test_corrections_moved_intervals_and_lost_sources_read_as_such(
    memory_factory: Callable[..., Memory], clock: StepClock
) -> None:
    """A correction (same start, learned later) expires a record: retired;
    retracting the correction un-expires it: restored; a later start moving
    a closed fact's end, or one of two sources going: changed."""
    memory = memory_factory(model=None, relation_types={"LIVES_IN": RelationType(cardinality=Cardinality.MANY_TO_ONE)})
    start = clock.now
    clock.tick()
    paris = memory.add_fact(G, "Sam", "LIVES_IN", "Paris", valid_at="2024-01-01").fact
    clock.tick()
    rome = memory.add_fact(G, "Sam", "LIVES_IN", "Rome", valid_at="2024-01-01").fact  # a correction of Paris
    clock.tick()
    berlin = memory.add_fact(G, "Sam", "LIVES_IN", "Berlin", valid_at="2022-01-01").fact  # late: born closed
    clock.tick()
    memory.add_fact(G, "Sam", "LIVES_IN", "Oslo", valid_at="2023-01-01")  # closes Berlin earlier
    clock.tick()
    one = memory.add_fact(G, "Maya", "WORKS_AT", "Acme", valid_at="2020-01-01", episode_id="e1").fact
    memory.add_fact(G, "Maya", "WORKS_AT", "Acme", valid_at="2020-01-01", episode_id="e2")
    clock.tick()
    memory.remove_episode(G, "e2")
    clock.tick()
    removed = memory.remove_fact(G, rome.uuid).deleted_facts
    feed = memory.changes(G, start)
    _agrees_with_history(memory, feed, set(removed))
    mine = _by_fact(feed)

    assert [(c.kind, c.cause) for c in mine[paris.uuid]] == [
        ("learned", "created"), ("retired", "expired"), ("restored", "unexpired")]
    corrected = mine[paris.uuid][1]
    assert corrected.fact.expired_at is not None and corrected.fact.invalid_at is None  # type: ignore[union-attr]
    assert corrected.detail["before"] == {"expired_at": None}
    assert [(c.kind, c.cause) for c in mine[berlin.uuid]] == [("learned", "created"), ("changed", "interval_changed")]
    assert mine[berlin.uuid][0].fact.invalid_at == datetime(2024, 1, 1, tzinfo=UTC)  # type: ignore[union-attr]
    assert mine[berlin.uuid][1].detail == {"before": {"invalid_at": datetime(2024, 1, 1, tzinfo=UTC)},
                                           "after": {"invalid_at": datetime(2023, 1, 1, tzinfo=UTC)}}
    assert [c.kind for c in mine[one.uuid]] == ["learned", "changed", "changed"]
    assert mine[one.uuid][1].detail == {"episodes_added": ["e2"]} and mine[one.uuid][1].episode_id == "e2"
    assert mine[one.uuid][2].detail == {"episodes_removed": ["e2"]} and mine[one.uuid][2].cause == "sources_changed"
    assert [c.kind for c in mine[rome.uuid]] == ["learned", "removed"]


def test_windows_are_closed_open_and_pages_chain_by_cursor(
    memory_factory: Callable[..., Memory], clock: StepClock
) -> None:
    memory = memory_factory(model=None)
    at = _script(memory, clock)["at"]
    feed = memory.changes(G, at["start"])
    assert feed and memory.changes(G, at["start"], at["end"]) == feed

    # since is inclusive, until exclusive, to the microsecond; the two halves make the whole.
    merge = memory.changes(G, at["merge"], at["split"])
    assert merge and {c.recorded_at for c in merge} == {at["merge"]}
    assert merge[0].kind == "merged"  # an entity event first among changes of one time
    assert memory.changes(G, at["merge"] + timedelta(microseconds=1), at["split"]) == []
    assert memory.changes(G, at["start"], at["merge"]) + memory.changes(G, at["merge"]) == feed
    assert memory.changes(G, at["merge"], at["merge"]) == []
    naive = at["merge"].replace(tzinfo=None)  # read as UTC
    assert memory.changes(G, naive, naive.isoformat().replace("T", " ")) == []
    assert memory.changes(G, naive.isoformat(), at["split"]) == merge
    assert memory.changes(G, at["end"]) == []

    # A page ends at limit; after= its last cursor reads on, through changes that share one time.
    assert memory.changes(G, at["start"], limit=3) == feed[:3]
    pages, after = [], None
    while True:
        page = memory.changes(G, at["start"], limit=2, after=after)
        pages += page
        if len(page) < 2:
            break
        after = page[-1].cursor
    assert pages == feed
    one_by_one = []
    for _ in range(len(feed) + 1):
        one_by_one += memory.changes(G, at["start"], limit=1, after=one_by_one[-1].cursor if one_by_one else None)
    assert one_by_one == feed
    assert memory.changes(G, at["merge"], after=feed[0].cursor)[0] == merge[0]  # the window still holds
    assert cursor_key(feed[0].cursor) is not None


def test_bad_windows_limits_and_cursors_are_refused(memory_factory: Callable[..., Memory], clock: StepClock) -> None:
    memory = memory_factory(model=None)
    memory.add_fact(G, "Sam", "WORKS_AT", "Acme")
    now = clock.now
    cases: list[tuple[dict[str, Any], str]] = [
        ({"since": None}, "since"),
        ({"since": "yesterday"}, "since"),
        ({"since": now, "until": now - timedelta(seconds=1)}, "until"),
        ({"since": now, "until": "soon"}, "until"),
        ({"since": now, "limit": 0}, "limit"),
        ({"since": now, "limit": 10_001}, "limit"),
        ({"since": now, "limit": 2.5}, "limit"),
        ({"since": now, "limit": True}, "limit"),
        ({"since": now, "after": "nope"}, "after"),
        ({"since": now, "after": "c1:x:1:1:0:u"}, "after"),
        ({"since": now, "after": "c1:1:7:1:0:u"}, "after"),
        ({"since": now, "after": 5}, "after"),
    ]
    for arguments, field in cases:
        with pytest.raises(InvalidInputError) as caught:
            memory.changes(G, **arguments)
        assert caught.value.field == field, arguments
    assert len(memory.changes(G, now, limit=10_000)) == 1
    assert memory.changes("no-such-group", now) == []


def test_changes_never_show_another_groups_rows(memory_factory: Callable[..., Memory], clock: StepClock) -> None:
    memory = memory_factory(model=None)
    start = clock.now
    mine = _script(memory, clock, "g")
    clock.set(start)  # the same times in the other group: only the group keeps them apart
    theirs = _script(memory, clock, "h")
    for group, made in (("g", mine), ("h", theirs)):
        feed = memory.changes(group, start)
        assert feed and all(c.fact is None or c.fact.group_id == group for c in feed)
        assert {c.detail.get("merge_id") for c in feed if c.fact is None} == {made["merge_id"]}
        every = memory.facts(group, include_retired=True, include_expired=True, include_events=True)
        facts = {f.uuid for f in every} | made["removed"]
        assert {c.fact.uuid for c in feed if c.fact is not None} == facts
    # A cursor is a position, not a key to another group's rows.
    g_feed = memory.changes("g", start)
    h_after = memory.changes("h", start, after=g_feed[3].cursor)
    assert all(c.fact is None or c.fact.group_id == "h" for c in h_after)


def test_a_store_migrated_from_before_the_feed_reads_it(tmp_path: Any) -> None:
    """The feed's indexes arrive by migration; the versions written before are all there."""
    import sqlite3

    from kronograph.store.sqlite.schema import MIGRATIONS

    (feed,) = [version for version, name, _ in MIGRATIONS if name == "change_feed"]
    clock = StepClock()
    path = tmp_path / "old.db"
    types = {"LIVES_IN": RelationType(cardinality=Cardinality.MANY_TO_ONE)}
    with Memory(path, model=None, clock=clock, relation_types=types) as memory:
        memory.add_fact(G, "Sam", "LIVES_IN", "Paris", valid_at="2023-01-01")
        clock.tick()
        memory.add_fact(G, "Sam", "LIVES_IN", "Rome", valid_at="2024-01-01")
    conn = sqlite3.connect(path)
    conn.executescript(
        "DROP INDEX facts_by_recorded; DROP INDEX history_by_recorded; DROP INDEX audit_by_kind;"
        " DROP INDEX history_by_group_fact;"
        f" DELETE FROM schema_migrations WHERE version >= {feed};"
    )
    conn.close()
    with Memory(path, model=None, clock=clock) as memory:
        feed = memory.changes(G, datetime(2000, 1, 1))
        assert [c.kind for c in feed] == ["learned", "retired", "learned"]
    conn = sqlite3.connect(path)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    conn.close()
    assert {"facts_by_recorded", "history_by_recorded", "audit_by_kind", "history_by_group_fact"} <= names
