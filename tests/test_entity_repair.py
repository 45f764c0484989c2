"""Entity repair by hand: ``merge_entities`` and ``split_entity`` on every
backend, through the public API (the CLI and REST in their own tests below)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kronograph import Cardinality, InvalidInputError, Memory, NotFoundError, RelationType

from .conftest import StepClock

G = "g"
MANY_TO_ONE = {"LIVES_IN": RelationType(cardinality=Cardinality.MANY_TO_ONE)}


def d(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _graph(memory: Memory, clock: StepClock) -> dict[str, str]:
    """Robert Smith and Bob, who are one person, each with facts of their own."""
    episodes = {
        "works": memory.add_episode(G, "Robert Smith works at Northwind.", reference_time="2023-01-01").episode_id,
        "lives": memory.add_episode(G, "Bob lives in Berlin.", reference_time="2022-01-01").episode_id,
    }
    clock.tick()
    memory.add_fact(G, "Robert Smith", "LIVES_IN", "Paris", valid_at="2024-01-01")
    memory.add_fact(G, "Bob", "LIVES_IN", "Rome", valid_at="2020-01-01")  # born closed by Berlin
    memory.add_fact(G, "Bob", "KNOWS", "Robert Smith", valid_at="2023-06-01")  # a loop once merged
    memory.add_fact(G, "Bob", "WORKS_AT", "Northwind", valid_at="2023-03-01")  # a restatement once merged
    memory.add_fact(G, "Maya", "FRIEND_OF", "Bob", valid_at="2023-01-01")
    clock.tick()
    return episodes


def _entity(memory: Memory, name: str) -> Any:
    (found,) = [e for e in memory.entities(G) if e.name == name]
    return found


def _mentions(memory: Memory, uuid: str) -> set[str]:
    store = memory._core._store  # mentions have no public read: the store's own answer
    return memory._call(store.entity_references(G, [uuid]))[uuid][1]


def _state(memory: Memory) -> tuple[list[Any], list[Any]]:
    """Every fact record and entity, as the reads return them (an entity's
    summary staleness aside: a merge and its undoing both make it stale)."""
    facts = memory.facts(G, include_retired=True, include_expired=True)
    entities = [e.model_copy(update={"summary_stale": False, "summary_built_at": None}) for e in memory.entities(G)]
    return facts, entities


def _triples(memory: Memory, **query: Any) -> list[tuple[str, str, str, str | None]]:
    return [
        (f.subject, f.relation, f.object, f.invalid_at and f.invalid_at.date().isoformat())
        for f in memory.facts(G, **query)
    ]


def test_merge_moves_facts_mentions_and_names_and_reruns_the_rules(
    memory_factory: Callable[..., Memory], clock: StepClock
) -> None:
    memory = memory_factory(model=None, relation_types=MANY_TO_ONE)
    episodes = _graph(memory, clock)
    bob, robert = _entity(memory, "Bob"), _entity(memory, "Robert Smith")
    assert episodes["lives"] in _mentions(memory, bob.uuid)
    merged_at = clock.tick()

    result = memory.merge_entities(G, "Robert Smith", ["Bob"], actor="ops")

    assert result.keep.uuid == robert.uuid and result.merged == [bob.uuid]
    assert "Bob" in result.keep.aliases and result.keep.summary_stale
    assert [e.name for e in memory.entities(G) if e.uuid == bob.uuid] == []
    assert episodes["lives"] in _mentions(memory, robert.uuid)
    # Reads by the old name find the entity kept.
    assert [e.uuid for e in memory.entities(G, name="bob")] == [robert.uuid]
    assert {f.subject for f in memory.facts(G, subject="Bob", include_retired=True)} == {"Robert Smith"}
    every = _triples(memory, include_retired=True)
    # The MANY_TO_ONE rule re-ran: Berlin closes at Paris's start, as ingestion would close it.
    assert ("Robert Smith", "LIVES_IN", "Berlin", "2024-01-01") in every
    assert ("Robert Smith", "LIVES_IN", "Rome", "2022-01-01") in every  # retired facts move too
    assert ("Maya", "FRIEND_OF", "Robert Smith", None) in every  # as object too
    # The loop is retired at the merge, not deleted.
    (loop,) = [f for f in memory.facts(G, include_retired=True) if f.relation == "KNOWS"]
    assert (loop.subject, loop.object, loop.invalid_at) == ("Robert Smith", "Robert Smith", merged_at)
    assert result.self_loops == [loop.uuid]
    assert "KNOWS" not in {f.relation for f in memory.facts(G)}
    # The two WORKS_AT facts are one, with both sources.
    (works,) = [f for f in memory.facts(G, include_retired=True) if f.relation == "WORKS_AT"]
    assert works.valid_at == d("2023-01-01") and episodes["works"] in works.episodes and len(works.episodes) == 2
    assert len(result.merged_duplicates) == 1 and result.merged_duplicates[0][1] == works.uuid
    assert _triples(memory) == [
        ("Robert Smith", "WORKS_AT", "Northwind", None), ("Maya", "FRIEND_OF", "Robert Smith", None),
        ("Robert Smith", "LIVES_IN", "Paris", None),
    ]
    (event,) = [e for e in memory.audit_events(G) if e.kind == "entities_merged"]
    assert event.actor == "ops" and event.detail["merge_id"] == result.merge_id
    # What was believed before the merge is still answered as it was believed.
    then = memory.facts(G, subject="Bob", known_at=merged_at - timedelta(seconds=1), include_retired=True)
    assert {(f.subject, f.object) for f in then} == {
        ("Bob", "Berlin"), ("Bob", "Rome"), ("Bob", "Robert Smith"), ("Bob", "Northwind"),
    }
    assert memory.history(G, loop.uuid)[-1].cause == "entity_merged"


def test_split_restores_exactly_the_state_before(memory_factory: Callable[..., Memory], clock: StepClock) -> None:
    memory = memory_factory(model=None, relation_types=MANY_TO_ONE)
    episodes = _graph(memory, clock)
    bob = _entity(memory, "Bob")
    before = _state(memory)
    clock.tick()
    merge_id = memory.merge_entities(G, _entity(memory, "Robert Smith").uuid, bob.uuid).merge_id
    assert _state(memory) != before
    clock.tick()

    result = memory.split_entity(G, merge_id, actor="ops")

    assert [e.uuid for e in result.restored] == [bob.uuid] and len(result.restored_facts) == 1
    assert _state(memory) == before
    assert episodes["lives"] in _mentions(memory, bob.uuid)
    assert episodes["lives"] not in _mentions(memory, _entity(memory, "Robert Smith").uuid)
    assert [e.kind for e in memory.audit_events(G)][-2:] == ["entities_merged", "entities_split"]
    with pytest.raises(InvalidInputError, match="already split"):
        memory.split_entity(G, merge_id)
    assert _state(memory) == before


def test_split_after_a_later_episode_keeps_what_was_learnt_since(
    memory_factory: Callable[..., Memory], clock: StepClock
) -> None:
    memory = memory_factory(model=None, relation_types=MANY_TO_ONE)
    _graph(memory, clock)
    bob, robert = _entity(memory, "Bob"), _entity(memory, "Robert Smith")
    merge_id = memory.merge_entities(G, robert.uuid, [bob.uuid]).merge_id
    clock.tick()
    memory.add_fact(G, "Robert Smith", "LIVES_IN", "Lisbon", valid_at="2025-01-01")
    memory.add_fact(G, "Bob", "OWNS", "a boat", valid_at="2025-02-01")  # Bob is an alias of the kept entity now
    clock.tick()

    memory.split_entity(G, merge_id)

    assert _entity(memory, "Bob").uuid == bob.uuid
    every = _triples(memory, include_retired=True)
    assert ("Robert Smith", "LIVES_IN", "Lisbon", None) in every
    assert ("Robert Smith", "LIVES_IN", "Paris", "2025-01-01") in every  # what Lisbon did stays
    assert ("Robert Smith", "OWNS", "a boat", None) in every  # learnt since, about the kept entity: stays
    assert ("Bob", "LIVES_IN", "Berlin", None) in every  # no longer closed by Robert's Paris
    assert ("Bob", "LIVES_IN", "Rome", "2022-01-01") in every
    assert ("Bob", "KNOWS", "Robert Smith", None) in every
    assert ("Bob", "WORKS_AT", "Northwind", None) in every
    assert "Bob" not in _entity(memory, "Robert Smith").aliases


def test_bad_merges_and_splits_are_refused_and_change_nothing(
    memory_factory: Callable[..., Memory], clock: StepClock
) -> None:
    memory = memory_factory(model=None, relation_types=MANY_TO_ONE)
    _graph(memory, clock)
    memory.add_fact("other", "Secret Person", "LIVES_IN", "Nowhere")
    (secret,) = [e for e in memory.entities("other") if e.name == "Secret Person"]
    memory.add_fact(G, "Jordan", "LIVES_IN", "Oslo", subject_labels=["Person"])
    memory.add_fact(G, "Amir", "VISITED", "Jordan", object_labels=["Country"])
    before = _state(memory)
    robert = _entity(memory, "Robert Smith")

    with pytest.raises(NotFoundError, match="Nobody"):
        memory.merge_entities(G, "Nobody", "Bob")
    with pytest.raises(NotFoundError, match="Nobody"):
        memory.merge_entities(G, "Bob", ["Robert Smith", "Nobody"])
    with pytest.raises(InvalidInputError, match="itself"):
        memory.merge_entities(G, robert.uuid, "robert smith")
    with pytest.raises(InvalidInputError, match="Jordan"):  # two entities bear that name
        memory.merge_entities(G, "Robert Smith", "Jordan")
    with pytest.raises(InvalidInputError):
        memory.merge_entities(G, "Robert Smith", [])
    with pytest.raises(NotFoundError) as other:  # another group's entity is simply not found
        memory.merge_entities(G, "Robert Smith", secret.uuid)
    assert "other" not in str(other.value).replace(f"group {G!r}", "") and "Secret" not in str(other.value)
    with pytest.raises(NotFoundError):
        memory.merge_entities(G, secret.uuid, "Bob")
    with pytest.raises(NotFoundError, match="no merge"):
        memory.split_entity(G, "no-such-merge")
    merge_id = memory.merge_entities(G, "Robert Smith", "Bob").merge_id
    with pytest.raises(NotFoundError, match="no merge"):  # a merge of another group is not found
        memory.split_entity("other", merge_id)
    memory.split_entity(G, merge_id)
    assert _state(memory) == before
    assert [e.name for e in memory.entities("other")] == ["Secret Person", "Nowhere"]


def _break_a_late_write(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the merge's last statement (deleting the merged entity) fail,
    after its facts, mentions and aliases were written in the transaction."""
    from kronograph.store.sqlite import writes as sqlite_writes

    if type(memory._core._store).__name__.startswith("Postgres"):
        from kronograph.store.postgres import writes as pg_writes

        monkeypatch.setitem(pg_writes.SQL, "deleted_entities", "INSERT INTO no_such_table VALUES (%s, %s)")
    else:
        monkeypatch.setitem(sqlite_writes.SQL, "deleted_entities", "INSERT INTO no_such_table VALUES (?, ?)")


def test_a_merge_that_fails_midway_leaves_nothing_half_written(
    memory_factory: Callable[..., Memory], clock: StepClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = memory_factory(model=None, relation_types=MANY_TO_ONE)
    _graph(memory, clock)
    bob = _entity(memory, "Bob")
    mentions = _mentions(memory, bob.uuid)
    before = _state(memory)
    events = len(memory.audit_events(G))
    with monkeypatch.context() as patch:
        _break_a_late_write(memory, patch)
        with pytest.raises(Exception, match="no_such_table"):
            memory.merge_entities(G, "Robert Smith", "Bob")
    assert _state(memory) == before
    assert _mentions(memory, bob.uuid) == mentions and len(memory.audit_events(G)) == events
    assert memory.entities(G, name="Bob")[0].uuid == bob.uuid
    merge_id = memory.merge_entities(G, "Robert Smith", "Bob").merge_id  # and it goes through once mended
    memory.split_entity(G, merge_id)
    assert _state(memory) == before


def test_several_entities_merge_at_once_and_split_back(memory_factory: Callable[..., Memory], clock: StepClock) -> None:
    memory = memory_factory(model=None, relation_types=MANY_TO_ONE)
    _graph(memory, clock)
    memory.add_fact(G, "R. Smith", "LIVES_IN", "Madrid", valid_at="2024-06-01", subject_labels=["Person"])
    memory.add_fact(G, "R. Smith", "LIKES", "Bob", valid_at="2023-01-01")  # between two merged entities
    before = _state(memory)
    clock.tick()
    result = memory.merge_entities(G, "Robert Smith", ["Bob", "R. Smith"])
    assert sorted(result.keep.aliases) == ["Bob", "R. Smith"] and "Person" in result.keep.labels
    assert {e.name for e in memory.entities(G)} == {"Robert Smith", "Northwind", "Berlin", "Paris", "Rome", "Maya",
                                                      "Madrid"}
    # Three LIVES_IN on one subject now: each closes at the next one's start.
    assert [f.object for f in memory.facts(G, subject="R. Smith", relation="LIVES_IN")] == ["Madrid"]
    assert ("Robert Smith", "LIVES_IN", "Paris", "2024-06-01") in _triples(memory, include_retired=True)
    likes = [f for f in memory.facts(G, include_retired=True) if f.relation == "LIKES"]
    assert [(f.subject, f.object) for f in likes] == [("Robert Smith", "Robert Smith")]
    assert likes[0].uuid in result.self_loops
    clock.tick()
    memory.split_entity(G, result.merge_id)
    assert _state(memory) == before


def test_a_declared_ending_links_across_the_merge_whichever_side_moved(
    memory_factory: Callable[..., Memory], clock: StepClock
) -> None:
    types = {**MANY_TO_ONE, "LEFT": RelationType(ends=("WORKS_AT",))}
    memory = memory_factory(model=None, relation_types=types)
    memory.add_fact(G, "Robert Smith", "LEFT", "Initech", valid_at="2024-03-01")
    memory.add_fact(G, "Bob", "WORKS_AT", "Initech", valid_at="2022-01-01")  # the merged side holds the state
    before = _state(memory)
    clock.tick()
    merge_id = memory.merge_entities(G, "Robert Smith", "Bob").merge_id
    assert ("Robert Smith", "WORKS_AT", "Initech", "2024-03-01") in _triples(memory, include_retired=True)
    clock.tick()
    memory.split_entity(G, merge_id)
    assert _state(memory) == before


def test_split_puts_the_entity_back_into_its_communities(
    memory_factory: Callable[..., Memory], clock: StepClock
) -> None:
    """A merged entity leaves its communities with it; the split brings it back
    into the ones that still exist, at the rank it held."""
    memory = memory_factory(model=None, relation_types=MANY_TO_ONE)
    _graph(memory, clock)
    memory.build_communities(G)
    bob = _entity(memory, "Bob")

    def held() -> list[tuple[str, int]]:
        return sorted(
            (c.uuid, c.member_uuids.index(bob.uuid)) for c in memory.communities(G) if bob.uuid in c.member_uuids
        )

    before = held()
    assert before, "the graph puts Bob in a community"
    merge_id = memory.merge_entities(G, _entity(memory, "Robert Smith").uuid, bob.uuid).merge_id
    assert held() == []
    memory.split_entity(G, merge_id)
    assert held() == before
