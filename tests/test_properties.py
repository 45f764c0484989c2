"""Property-based tests over random sequences of add_fact and remove_episode.

Invariants, on every backend:
* facts linked as contradicting, and facts of one declared slot, never have
  overlapping intervals (unless one record is expired);
* a ``known_at`` answer never changes after the fact;
* no query returns another group's data, and a group's graph does not depend
  on what happens in another group;
* removing every episode empties the group.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kronograph import Fact, Memory, NotFoundError, Verdict
from kronograph.ingest.timeline import recompute

from .conftest import BACKENDS, CITUS, StepClock, make_store

SUBJECTS = ["Ann", "Ben"]
OBJECTS = ["Oslo", "Rome", "ann"]
RELATIONS = ["LIVES_IN", "CEO_OF", "LIKES", "KNOWS"]
TYPES = {"LIVES_IN": {"cardinality": "many_to_one"}, "CEO_OF": {"cardinality": "one_to_many"}}
EPOCH = datetime(2020, 1, 1, tzinfo=UTC)

add_op = st.tuples(
    st.just("add"),
    st.sampled_from(["a", "b"]),
    st.sampled_from(SUBJECTS),
    st.sampled_from(RELATIONS),
    st.sampled_from(OBJECTS),
    st.integers(0, 8),  # valid day: a small range, so equal starts happen
    st.one_of(st.none(), st.integers(1, 20)),  # stated length in days
    st.integers(0, 3),  # episode
    st.frozensets(st.sampled_from([o.casefold() for o in OBJECTS]), max_size=3),  # judge says
)
remove_op = st.tuples(st.just("remove"), st.sampled_from(["a", "b"]), st.integers(0, 3))
operations = st.lists(st.one_of(add_op, add_op, remove_op), min_size=1, max_size=25)


class ContentJudge:
    """Deterministic by content: contradicts candidates whose object it names."""

    def __init__(self) -> None:
        self.objects: frozenset[str] = frozenset()

    def __call__(self, new: Fact, candidates: Sequence[Fact]) -> Verdict:
        return Verdict(contradicts=[c.uuid for c in candidates if c.object.casefold() in self.objects])


def make_memory(backend: str, folder: Path, name: str, clock: StepClock, judge: ContentJudge) -> Memory:
    return Memory(make_store(backend, folder, name), clock=clock, judge=judge, relation_types=TYPES)


def apply(memory: Memory, judge: ContentJudge, op: tuple[Any, ...]) -> None:
    if op[0] == "add":
        _, group, subject, relation, obj, day, length, episode, says = op
        judge.objects = says
        valid = EPOCH + timedelta(days=day)
        memory.add_fact(
            group,
            subject,
            relation,
            obj,
            valid_at=valid,
            invalid_at=None if length is None else valid + timedelta(days=length),
            episode_id=f"ep{episode}",
        )
    else:
        _, group, episode = op
        try:
            memory.remove_episode(group, f"ep{episode}")
        except NotFoundError:
            assert f"ep{episode}" not in {e.uuid for e in memory.episodes(group)}


def state(memory: Memory, group: str, **query: Any) -> list[tuple[Any, ...]]:
    facts = memory.facts(group, include_retired=True, **query)
    assert all(f.group_id == group for f in facts)
    rows = [(f.triple, f.valid_at, f.invalid_at, f.expired_at is not None, f.episodes) for f in facts]
    far = datetime.max.replace(tzinfo=UTC)
    return sorted(rows, key=lambda r: (r[0], r[1], r[2] or far, r[3], r[4]))  # an open end sorts last


def overlap(a: Fact, b: Fact) -> bool:
    far = datetime.max.replace(tzinfo=UTC)
    return a.valid_at < (b.invalid_at or far) and b.valid_at < (a.invalid_at or far)


def check_no_overlap(memory: Memory, group: str) -> None:
    everything = memory.facts(group, include_retired=True, include_expired=True)
    live = {f.uuid: f for f in everything if f.expired_at is None}
    hood = memory._portal.call(memory.store.conflict_neighbourhood(group, [f.uuid for f in everything], 1))
    # Every stored interval is what the timeline rule gives from the links now stored.
    for uuid, record in hood.records.items():
        again = recompute(record, [hood.records[n] for n in hood.edges[uuid]], record.expired_at or EPOCH)
        assert (again.invalid_at, again.invalidated_by, again.expired_at) == (
            record.invalid_at,
            record.invalidated_by,
            record.expired_at,
        ), record
    for uuid, links in hood.edges.items():
        for other in links:
            if uuid in live and other in live:
                assert not overlap(live[uuid], live[other]), (live[uuid], live[other])
    facts = list(live.values())
    for i, a in enumerate(facts):
        for b in facts[i + 1 :]:
            if a.relation != b.relation or a.relation not in TYPES:
                continue
            same_slot = (
                (a.subject_uuid == b.subject_uuid and a.object_uuid != b.object_uuid)
                if a.relation == "LIVES_IN"
                else (a.object_uuid == b.object_uuid and a.subject_uuid != b.subject_uuid)
            )
            if same_slot:
                assert not overlap(a, b), (a, b)


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "postgres"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations)
def test_random_histories_keep_every_invariant(backend: str, ops: list[tuple[Any, ...]]) -> None:
    check_random_history(backend, ops)


# PostgreSQL runs the same histories through the same store protocol; fewer of
# them, since each costs two fresh databases (a third of the suite's time at 60).
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations)
def test_random_histories_keep_every_invariant_on_postgres(ops: list[tuple[Any, ...]]) -> None:
    check_random_history("postgres", ops)


# And on the Citus cluster, fewer still: every write there crosses to a worker.
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations)
def test_random_histories_keep_every_invariant_on_citus(ops: list[tuple[Any, ...]]) -> None:
    check_random_history(CITUS, ops)


def check_random_history(backend: str, ops: list[tuple[Any, ...]]) -> None:
    """Apply the operations to a memory and a shadow holding only group a, and
    check every invariant after each step and at the end."""
    with tempfile.TemporaryDirectory() as tmp:
        clock = StepClock(datetime(2030, 1, 1, tzinfo=UTC))
        judge, shadow_judge = ContentJudge(), ContentJudge()
        memory = make_memory(backend, Path(tmp), "main", clock, judge)
        shadow = make_memory(backend, Path(tmp), "shadow", clock, shadow_judge)
        believed: list[tuple[datetime, list[tuple[Any, ...]], list[tuple[Any, ...]]]] = []
        try:
            for op in ops:
                clock.tick(hours=1)
                apply(memory, judge, op)
                if op[1] == "a":
                    apply(shadow, shadow_judge, op)
                for group in ("a", "b"):
                    check_no_overlap(memory, group)
                moment = clock()
                believed.append(
                    (
                        moment,
                        state(memory, "a", known_at=moment),
                        memory_facts_as_of(memory, moment),
                    )
                )
            # The group's graph is what it would be alone.
            assert state(memory, "a", include_expired=True) == state(shadow, "a", include_expired=True)
            # What was believed at k is still what is reported for k.
            clock.tick(hours=1)
            for moment, retired_view, as_of_view in believed:
                assert state(memory, "a", known_at=moment) == retired_view
                assert memory_facts_as_of(memory, moment) == as_of_view
            # Retracting every episode empties each group.
            for group in ("a", "b"):
                for episode in memory.episodes(group):
                    clock.tick(minutes=1)
                    memory.remove_episode(group, episode.uuid)
                assert memory.facts(group, include_retired=True, include_expired=True) == []
                assert memory.entities(group) == [] and memory.episodes(group) == []
            for moment, retired_view, _ in believed:
                assert state(memory, "a", known_at=moment) == retired_view
        finally:
            memory.close()
            shadow.close()


def memory_facts_as_of(memory: Memory, moment: datetime) -> list[tuple[Any, ...]]:
    as_of = EPOCH + timedelta(days=12)
    facts = memory.facts("a", known_at=moment, as_of=as_of)
    return sorted((f.triple, f.valid_at, f.invalid_at) for f in facts)
