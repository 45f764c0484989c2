"""Behaviour of the public API on every backend: judge, provenance, removal, errors."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta, timezone

import pytest

import kronograph
from kronograph import (
    AsyncMemory,
    ClosedError,
    Fact,
    InvalidInputError,
    JudgeError,
    Memory,
    NotFoundError,
    Verdict,
)

MakeMemory = Callable[..., Memory]
G = "g1"


def snapshot(memory: Memory, group: str = G) -> tuple[object, ...]:
    return (
        sorted((f.uuid, f.valid_at, f.invalid_at, f.expired_at, f.episodes) for f in
               memory.facts(group, include_retired=True, include_expired=True)),
        sorted(e.uuid for e in memory.entities(group)),
        sorted(e.uuid for e in memory.episodes(group)),
    )


class RecordingJudge:
    def __init__(self, answer: Callable[[Fact, Sequence[Fact]], Verdict] | None = None) -> None:
        self.calls: list[tuple[Fact, list[Fact]]] = []
        self.answer = answer

    def __call__(self, new: Fact, candidates: Sequence[Fact]) -> Verdict:
        self.calls.append((new, list(candidates)))
        return self.answer(new, candidates) if self.answer else Verdict()


def test_public_names_are_pinned() -> None:
    assert set(kronograph.__all__) >= {"Memory", "AsyncMemory", "Fact", "RelationType", "Verdict"}
    for name in kronograph.__all__:
        assert getattr(kronograph, name) is not None


def test_sync_and_async_apis_mirror_each_other() -> None:
    def public(cls: type) -> dict[str, inspect.Signature]:
        return {
            n: inspect.signature(m)
            for n, m in inspect.getmembers(cls, inspect.isfunction)
            if not n.startswith("_")
        }

    sync, async_ = public(Memory), public(AsyncMemory)
    async_.pop("aclose")
    sync.pop("close")
    assert sync.keys() == async_.keys()
    for name, sig in sync.items():
        assert list(sig.parameters.values()) == list(async_[name].parameters.values()), name
        assert inspect.iscoroutinefunction(getattr(AsyncMemory, name)) or name == "at", name  # at: a view
    assert inspect.signature(Memory.__init__) == inspect.signature(AsyncMemory.__init__)


def test_judge_sees_only_guarded_candidates_with_context(memory_factory: MakeMemory, clock) -> None:
    judge = RecordingJudge()
    memory = memory_factory(judge=judge)
    memory.add_fact(G, "Dana", "WORKS_AT", "Initech", valid_at="2023-01-01")
    memory.add_fact(G, "Dana", "LIKES", "tea", valid_at="2023-01-01")
    memory.add_fact(G, "Bob", "WORKS_AT", "Initech", valid_at="2023-02-01")
    clock.tick(days=1)
    judge.calls.clear()
    memory.add_fact(G, "Dana", "WORKS_AT", "Globex", valid_at="2024-01-01")
    assert len(judge.calls) == 1
    new, shown = judge.calls[0]
    assert new.triple == "Dana WORKS_AT Globex" and new.valid_at == datetime(2024, 1, 1, tzinfo=UTC)
    assert [c.triple for c in shown] == ["Dana WORKS_AT Initech"]
    assert shown[0].valid_at == datetime(2023, 1, 1, tzinfo=UTC) and shown[0].invalid_at is None


def test_no_judge_means_nothing_is_contradicted(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    memory.add_fact(G, "Sarah", "CEO_OF", "Acme", valid_at="2024-01-15")
    result = memory.add_fact(G, "Mike", "CEO_OF", "Acme", valid_at="2024-03-03")
    assert result.retired == [] and len(memory.facts(G, object="acme")) == 2


def test_judge_is_not_called_without_candidates(memory_factory: MakeMemory) -> None:
    judge = RecordingJudge()
    memory = memory_factory(judge=judge)
    memory.add_fact(G, "A", "R", "B")
    memory.add_fact(G, "A", "R", "B")  # a restatement needs no judge either
    assert judge.calls == []


def test_async_judge_and_dict_verdicts(memory_factory: MakeMemory) -> None:
    async def judge(new: Fact, candidates: Sequence[Fact]) -> dict[str, object]:
        await asyncio.sleep(0)
        return {"contradicts": [c.uuid for c in candidates]}

    memory = memory_factory(judge=judge)
    memory.add_fact(G, "Sarah", "CEO_OF", "Acme", valid_at="2024-01-15")
    result = memory.add_fact(G, "Mike", "CEO_OF", "Acme", valid_at="2024-03-03")
    assert [f.triple for f in result.retired] == ["Sarah CEO_OF Acme"]
    assert result.retired[0].invalid_at == datetime(2024, 3, 3, tzinfo=UTC)
    assert result.retired[0].invalidated_by == result.fact.uuid


def test_failing_judge_writes_nothing(memory_factory: MakeMemory) -> None:
    def judge(new: Fact, candidates: Sequence[Fact]) -> Verdict:
        raise TimeoutError("model timed out")

    memory = memory_factory(judge=judge)
    memory.add_fact(G, "Sarah", "CEO_OF", "Acme", valid_at="2024-01-15")
    before = snapshot(memory)
    with pytest.raises(JudgeError, match="timed out"):
        memory.add_fact(G, "Mike", "CEO_OF", "Acme", valid_at="2024-03-03", episode_id="e9")
    assert snapshot(memory) == before

    memory2 = memory_factory(judge=lambda new, cands: "yes")
    memory2.add_fact(G, "Sarah", "CEO_OF", "Acme")
    with pytest.raises(JudgeError, match="must return a Verdict"):
        memory2.add_fact(G, "Mike", "CEO_OF", "Acme")


def test_correction_with_same_valid_time_expires_the_old_record(memory_factory: MakeMemory, clock) -> None:
    memory = memory_factory(relation_types={"LIVES_IN": {"cardinality": "many_to_one"}})
    first = memory.add_fact(G, "Eve", "LIVES_IN", "Oslo", valid_at="2024-01-01", episode_id="e1")
    clock.tick(days=1)
    before_fix = clock()
    clock.tick(days=1)
    fix = memory.add_fact(G, "Eve", "LIVES_IN", "Bergen", valid_at="2024-01-01", episode_id="e2")
    assert [f.uuid for f in fix.retired] == [first.fact.uuid]
    assert fix.retired[0].expired_at == clock() and fix.retired[0].invalid_at is None
    assert [f.object for f in memory.facts(G, subject="eve", include_retired=True)] == ["Bergen"]
    expired = memory.facts(G, subject="eve", include_retired=True, include_expired=True)
    assert {f.object for f in expired} == {"Oslo", "Bergen"}
    assert [f.object for f in memory.facts(G, subject="eve", known_at=before_fix, as_of="2024-06-01")] == ["Oslo"]
    # Retracting the correction brings the old record back.
    memory.remove_episode(G, "e2")
    assert [(f.object, f.expired_at) for f in memory.facts(G, subject="eve")] == [("Oslo", None)]


def test_history_records_every_change_with_its_cause(memory_factory: MakeMemory, clock) -> None:
    memory = memory_factory(relation_types={"CEO_OF": {"cardinality": "one_to_many"}})
    sarah = memory.add_fact(G, "Sarah", "CEO_OF", "Acme", valid_at="2024-01-15", episode_id="e1").fact
    clock.tick(days=1)
    memory.add_fact(G, "Mike", "CEO_OF", "Acme", valid_at="2024-03-03", episode_id="e2")
    clock.tick(days=1)
    memory.remove_episode(G, "e2")
    changes = memory.history(G, sarah.uuid)
    assert [c.cause for c in changes] == ["created", "retired", "reopened"]
    assert [c.episode_id for c in changes] == ["e1", "e2", "e2"]
    assert changes[1].invalid_at == datetime(2024, 3, 3, tzinfo=UTC)


def test_remove_episode_keeps_other_sources_and_prunes_entities(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    memory.add_fact(G, "Bob", "LIKES", "coffee", valid_at="2024-01-01", episode_id="e1")
    memory.add_fact(G, "Bob", "LIKES", "coffee", valid_at="2024-06-01", episode_id="e2")
    memory.add_fact(G, "Bob", "OWNS", "bike", valid_at="2024-02-01", episode_id="e1")
    result = memory.remove_episode(G, "e1")
    (coffee,) = memory.facts(G, subject="bob")
    assert coffee.episodes == ("e2",) and coffee.valid_at == datetime(2024, 6, 1, tzinfo=UTC)
    assert len(result.deleted_facts) == 1
    assert {e.name for e in memory.entities(G)} == {"Bob", "coffee"}
    assert len(result.deleted_entities) == 1
    memory.remove_episode(G, "e2")
    assert memory.entities(G) == [] and memory.episodes(G) == []
    with pytest.raises(NotFoundError, match="e2"):
        memory.remove_episode(G, "e2")


def test_facts_added_without_an_episode_get_their_own(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    result = memory.add_fact(G, "A", "R", "B")
    assert result.episode_id and result.fact.episodes == (result.episode_id,)
    (episode,) = memory.episodes(G)
    assert episode.uuid == result.episode_id and episode.kind == "fact"
    memory.remove_episode(G, result.episode_id)
    assert memory.facts(G, include_retired=True) == []


def test_filters(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    memory.add_fact(G, "Acme  Corp", "Migrated Off", "Redis", valid_at="2024-01-01")
    memory.add_fact(G, "Redis", "OWNED_BY", "Redis Ltd", valid_at="2024-01-01")
    assert len(memory.facts(G, subject="acme corp", relation="MIGRATED_OFF")) == 1
    assert len(memory.facts(G, relation="migrated-off")) == 1
    assert len(memory.facts(G, entity="REDIS")) == 2
    assert len(memory.facts(G, object="redis")) == 1
    assert len(memory.facts(G, limit=1)) == 1
    assert [f.triple for f in memory.timeline(G, "redis", relation="owned by")] == ["Redis OWNED_BY Redis Ltd"]


def test_times_are_utc_and_naive_means_utc(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    plus2 = timezone(timedelta(hours=2))
    a = memory.add_fact(G, "A", "R", "B", valid_at=datetime(2024, 1, 1, 12, tzinfo=plus2)).fact
    b = memory.add_fact(G, "C", "R", "D", valid_at=datetime(2024, 1, 1, 10)).fact
    assert a.valid_at == b.valid_at == datetime(2024, 1, 1, 10, tzinfo=UTC)
    assert a.valid_at.tzinfo == UTC and a.created_at.tzinfo is not None
    assert len(memory.facts(G, as_of=datetime(2024, 1, 1, 10))) == 2
    assert memory.facts(G, as_of=datetime(2024, 1, 1, 9, 59)) == []


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"subject": ""}, "subject"),
        ({"subject": "   "}, "subject"),
        ({"relation": ""}, "relation"),
        ({"object": None}, "object"),
        ({"valid_at": "2024-02-01", "invalid_at": "2024-01-01"}, "invalid_at"),
        ({"valid_at": "2024-02-01", "invalid_at": "2024-02-01"}, "invalid_at"),
        ({"valid_at": "yesterday"}, "valid_at"),
        ({"subject_labels": "Person"}, "subject_labels"),
        ({"object_labels": [""]}, "object_labels"),
        ({"episode_id": ""}, "episode_id"),
        ({"group_id": ""}, "group_id"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(memory_factory: MakeMemory, kwargs, field) -> None:
    memory = memory_factory()
    memory.add_fact(G, "Eve", "LIVES_IN", "Oslo", valid_at="2024-01-01")
    before = snapshot(memory)
    call = {"group_id": G, "subject": "Eve", "relation": "LIVES_IN", "object": "Bergen", **kwargs}
    with pytest.raises(InvalidInputError) as err:
        memory.add_fact(call.pop("group_id"), call.pop("subject"), call.pop("relation"), call.pop("object"), **call)
    assert err.value.field == field and field in str(err.value)
    assert snapshot(memory) == before


def test_invalid_at_before_the_episode_time_default(memory_factory: MakeMemory, clock) -> None:
    memory = memory_factory()
    memory.add_fact(G, "A", "R", "B", episode_id="e1")  # episode reference time = clock
    before = snapshot(memory)
    with pytest.raises(InvalidInputError, match="invalid_at"):
        memory.add_fact(G, "C", "R", "D", episode_id="e1", invalid_at=clock() - timedelta(days=1))
    assert snapshot(memory) == before


def test_bad_constructor_and_query_arguments(memory_factory: MakeMemory) -> None:
    with pytest.raises(InvalidInputError, match=r"relation_types\['LIVES_IN'\]"):
        Memory(relation_types={"LIVES_IN": {"cardinality": "some_to_few"}})
    with pytest.raises(InvalidInputError, match="judge"):
        Memory(judge="not callable")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="store"):
        Memory("")
    with pytest.raises(InvalidInputError, match="store"):
        Memory("mysql://localhost/db")
    memory = memory_factory()
    with pytest.raises(InvalidInputError, match="as_of"):
        memory.facts(G, as_of="2024-01-01", include_retired=True)
    with pytest.raises(InvalidInputError, match="known_at"):
        memory.facts(G, known_at="not a time")
    with pytest.raises(InvalidInputError, match="entity"):
        memory.timeline(G, "")


def test_closed_memory_refuses_calls(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    memory.add_fact(G, "A", "R", "B")
    memory.close()
    memory.close()  # idempotent
    with pytest.raises(ClosedError):
        memory.facts(G)
    with pytest.raises(ClosedError):
        memory.add_fact(G, "A", "R", "B")


def test_groups_never_see_each_other(memory_factory: MakeMemory) -> None:
    memory = memory_factory(relation_types={"LIVES_IN": {"cardinality": "many_to_one"}})
    memory.add_fact("a", "Alice", "LIVES_IN", "Paris", valid_at="2020-01-01", episode_id="e1")
    memory.add_fact("b", "Alice", "LIVES_IN", "Rome", valid_at="2021-01-01", episode_id="e1")
    (paris,) = memory.facts("a", subject="alice")
    (rome,) = memory.facts("b", subject="alice")
    assert paris.object == "Paris" and paris.invalid_at is None and paris.group_id == "a"
    assert rome.object == "Rome" and rome.group_id == "b"
    assert paris.subject_uuid != rome.subject_uuid
    assert memory.history("b", paris.uuid) == []
    memory.remove_episode("a", "e1")
    assert memory.facts("a") == [] and len(memory.facts("b")) == 1


def test_async_memory_works_in_a_running_loop(tmp_path) -> None:
    asyncio.run(_async_roundtrip(tmp_path))


async def _async_roundtrip(tmp_path) -> None:
    async with AsyncMemory(tmp_path / "m.db", relation_types={"LIVES_IN": {"cardinality": "many_to_one"}}) as memory:
        await memory.add_fact(G, "Eve", "LIVES_IN", "Oslo", valid_at="2024-01-01")
        result = await memory.add_fact(G, "Eve", "LIVES_IN", "Bergen", valid_at="2025-01-01")
        assert [f.object for f in result.retired] == ["Oslo"]
        assert [f.object for f in await memory.facts(G, subject="Eve")] == ["Bergen"]
        # The sync shell works inside a running loop too (it owns its own).
        with Memory(tmp_path / "m.db") as sync:
            assert [f.object for f in sync.facts(G, subject="Eve")] == ["Bergen"]
    with pytest.raises(ClosedError):
        await memory.facts(G)


def test_memory_reopens_a_file(tmp_path) -> None:
    path = tmp_path / "m.db"
    with Memory(path) as memory:
        memory.add_fact(G, "A", "R", "B")
    with Memory(f"sqlite:///{path}") as memory:
        assert [f.triple for f in memory.facts(G)] == ["A R B"]


def test_late_arrival_in_a_long_slot_finds_its_true_neighbours(memory_factory: MakeMemory) -> None:
    memory = memory_factory(relation_types={"LIVES_IN": {"cardinality": "many_to_one"}}, candidate_limit=2)
    for year in range(2000, 2020, 2):
        memory.add_fact(G, "Nomad", "LIVES_IN", f"City{year}", valid_at=f"{year}-01-01")
    result = memory.add_fact(G, "Nomad", "LIVES_IN", "Lima", valid_at="2005-01-01")
    assert result.fact.invalid_at == datetime(2006, 1, 1, tzinfo=UTC)
    assert [f.object for f in result.changed] == ["City2004"]
    assert result.changed[0].invalid_at == datetime(2005, 1, 1, tzinfo=UTC)
    timeline = memory.timeline(G, "nomad")
    for before, after in zip(timeline, timeline[1:]):
        assert before.invalid_at == after.valid_at
    assert [f.object for f in memory.facts(G, subject="nomad")] == ["City2018"]


def test_a_wrong_judge_is_refused_and_the_refusal_audited(memory_factory: MakeMemory, clock) -> None:
    postgres: list[str] = []
    judge = RecordingJudge(lambda new, cands: Verdict(contradicts=[*postgres, *(c.uuid for c in cands)]))
    memory = memory_factory(judge=judge)
    postgres.append(memory.add_fact(G, "Initech", "USES", "Postgres", valid_at="2022-04-01").fact.uuid)
    memory.add_fact(G, "Initech", "SPONSORS", "EuroPython", valid_at="2024-07-08")
    clock.tick(days=1)
    result = memory.add_fact(G, "Initech", "SPONSORS", "PyCon", valid_at="2025-05-20", episode_id="e3")
    shown = [c.triple for c in judge.calls[-1][1]]
    assert shown == ["Initech SPONSORS EuroPython"]
    assert result.refused == postgres
    assert [f.triple for f in result.retired] == ["Initech SPONSORS EuroPython"]
    assert {f.triple for f in memory.facts(G, subject="initech")} == {
        "Initech USES Postgres",
        "Initech SPONSORS PyCon",
    }
    (event,) = [e for e in memory.audit_events(G) if e.kind == "verdict_refused"]
    assert event.episode_id == "e3" and event.detail == {"fact": result.fact.uuid, "refused": postgres}


def test_a_plain_judge_may_read_the_sync_memory(memory_factory: MakeMemory) -> None:
    box: list[Memory] = []

    def judge(new: Fact, candidates: Sequence[Fact]) -> Verdict:
        # Reads through the same sync memory while add_fact waits for this verdict.
        known = box[0].facts(G, object=new.object)
        return Verdict(contradicts=[f.uuid for f in known if f.uuid in {c.uuid for c in candidates}])

    memory = memory_factory(judge=judge)
    box.append(memory)
    memory.add_fact(G, "Sarah", "CEO_OF", "Acme", valid_at="2024-01-15")
    result = memory.add_fact(G, "Mike", "CEO_OF", "Acme", valid_at="2024-03-03")
    assert [f.triple for f in result.retired] == ["Sarah CEO_OF Acme"]


def test_an_async_judge_calling_the_sync_memory_gets_a_clear_error(memory_factory: MakeMemory) -> None:
    box: list[Memory] = []

    async def judge(new: Fact, candidates: Sequence[Fact]) -> Verdict:
        box[0].facts(G)
        return Verdict()

    memory = memory_factory(judge=judge)
    box.append(memory)
    memory.add_fact(G, "Sarah", "CEO_OF", "Acme")
    with pytest.raises(JudgeError, match="AsyncMemory"):
        memory.add_fact(G, "Mike", "CEO_OF", "Acme")


def test_threads_can_share_one_sync_memory(memory_factory: MakeMemory) -> None:
    import threading

    memory = memory_factory(relation_types={"LIVES_IN": {"cardinality": "many_to_one"}})
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(20):
                memory.add_fact(f"t{n}", "Ann", "LIVES_IN", f"City{i}", valid_at=datetime(2000 + i, 1, 1))
                memory.facts(f"t{n}", subject="ann")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    for n in range(4):
        (current,) = memory.facts(f"t{n}", subject="ann", as_of="2030-01-01")
        assert current.object == "City19"
        assert len(memory.facts(f"t{n}", subject="ann", include_retired=True)) == 20


def test_judge_duplicate_merges_provenance_into_the_existing_fact(memory_factory: MakeMemory) -> None:
    memory = memory_factory(judge=lambda new, cands: Verdict(duplicate_of=cands[0].uuid if cands else None))
    first = memory.add_fact(G, "Alice", "WORKS_FOR", "Acme", valid_at="2024-02-01", episode_id="e1").fact
    result = memory.add_fact(G, "Acme", "EMPLOYS", "Alice", valid_at="2024-01-01", episode_id="e2")
    assert result.merged and result.fact.uuid == first.uuid
    assert result.fact.episodes == ("e1", "e2") and result.fact.valid_at == datetime(2024, 1, 1, tzinfo=UTC)
    assert [f.triple for f in memory.facts(G, entity="alice")] == ["Alice WORKS_FOR Acme"]
    memory.remove_episode(G, "e2")
    (back,) = memory.facts(G, entity="alice")
    assert back.episodes == ("e1",) and back.valid_at == datetime(2024, 2, 1, tzinfo=UTC)


def test_one_to_one_constrains_both_ends(memory_factory: MakeMemory) -> None:
    memory = memory_factory(relation_types={"MARRIED_TO": {"cardinality": "one_to_one"}})
    memory.add_fact(G, "Ann", "MARRIED_TO", "Ben", valid_at="2010-01-01")
    memory.add_fact(G, "Cat", "MARRIED_TO", "Dan", valid_at="2011-01-01")
    result = memory.add_fact(G, "Ann", "MARRIED_TO", "Dan", valid_at="2020-01-01")
    assert sorted(f.triple for f in result.retired) == ["Ann MARRIED_TO Ben", "Cat MARRIED_TO Dan"]
    assert [f.triple for f in memory.facts(G, relation="married to")] == ["Ann MARRIED_TO Dan"]


def test_a_restored_correction_is_closed_by_what_came_after(memory_factory: MakeMemory, clock) -> None:
    memory = memory_factory(relation_types={"LIVES_IN": {"cardinality": "many_to_one"}})
    for city, start, episode in (("Paris", 2020, "e1"), ("Berlin", 2022, "e2"), ("Munich", 2022, "e3")):
        memory.add_fact(G, "Alice", "LIVES_IN", city, valid_at=f"{start}-01-01", episode_id=episode)
        clock.tick()
    memory.add_fact(G, "Alice", "LIVES_IN", "Rome", valid_at="2024-01-01", episode_id="e4")
    clock.tick()
    memory.remove_episode(G, "e3")  # the correction goes: Berlin is believed again
    assert [f.object for f in memory.facts(G, subject="alice")] == ["Rome"]
    timeline = memory.timeline(G, "alice")
    assert [(f.object, f.valid_at.year, f.invalid_at and f.invalid_at.year) for f in timeline] == [
        ("Paris", 2020, 2022),
        ("Berlin", 2022, 2024),
        ("Rome", 2024, None),
    ]


@pytest.mark.parametrize("write", ["same group", "other group", "remove"])
def test_a_judge_that_writes_gets_a_clear_error_not_a_deadlock(memory_factory: MakeMemory, write: str) -> None:
    import threading

    box: list[Memory] = []

    def judge(new: Fact, candidates: Sequence[Fact]) -> Verdict:
        if write == "remove":
            box[0].remove_episode(G, "e1")
        else:
            box[0].add_fact(G if write == "same group" else "elsewhere", "X", "R", "Y")
        return Verdict()

    memory = memory_factory(judge=judge)
    box.append(memory)
    memory.add_fact(G, "Sarah", "CEO_OF", "Acme", episode_id="e1")
    before = snapshot(memory)
    errors: list[BaseException] = []

    def call() -> None:
        try:
            memory.add_fact(G, "Mike", "CEO_OF", "Acme")
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(20)
    assert not worker.is_alive(), "add_fact deadlocked"
    assert len(errors) == 1 and isinstance(errors[0], JudgeError) and "must not write" in str(errors[0])
    assert snapshot(memory) == before and memory.facts("elsewhere") == []


def test_the_same_episode_restating_with_new_times_updates_them(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    first = memory.add_fact(G, "Bob", "LIKES", "tea", valid_at="2024-05-01", episode_id="e1").fact
    again = memory.add_fact(G, "Bob", "LIKES", "tea", valid_at="2024-05-01", episode_id="e1")
    assert again.merged and again.fact == first  # idempotent: nothing changed
    assert len(memory.history(G, first.uuid)) == 1
    moved = memory.add_fact(G, "Bob", "LIKES", "tea", valid_at="2024-03-01", invalid_at="2024-09-01", episode_id="e1")
    assert moved.fact.valid_at == datetime(2024, 3, 1, tzinfo=UTC)
    assert moved.fact.invalid_at == datetime(2024, 9, 1, tzinfo=UTC) and moved.fact.episodes == ("e1",)
    assert [c.cause for c in memory.history(G, first.uuid)] == ["created", "restated"]


def test_entities_by_name_and_label(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    memory.add_fact(G, "Tim", "WORKS_AT", "Apple", subject_labels=["Person"], object_labels=["Organization"])
    memory.add_fact(G, "Tim", "EATS", "apple", object_labels=["Food"])
    memory.add_fact(G, "Tim", "VISITS", "Apple Park")
    assert {(e.name, e.labels) for e in memory.entities(G, name="APPLE")} == {
        ("Apple", ("Organization",)),
        ("apple", ("Food",)),
    }
    assert [e.name for e in memory.entities(G, label="food")] == ["apple"]
    assert [e.name for e in memory.entities(G, label="Person")] == ["Tim"]
    assert len(memory.entities(G)) == 4 and memory.entities("other") == []
    # A later mention labelled with the same family (Company ~ Organization) joins that entity.
    memory.add_fact(G, "Tim", "JOINED", "Apple", object_labels=["Company"])
    assert {e.labels for e in memory.entities(G, name="apple")} == {("Organization",), ("Food",)}


# -- actor: who filed an episode, a fact, an audit event -----------------------------


def test_episodes_and_facts_record_their_actor(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    memory.add_episode(G, "Ann Lee lives in Paris.", episode_id="e1", actor="user:ann")
    memory.add_episodes(G, [{"content": "Bo Chen works at Acme.", "episode_id": "e2", "actor": "agent:sync"},
                            {"content": "Cy Diaz works at Initech.", "episode_id": "e3"}])
    memory.add_fact(G, "Dee", "WORKS_AT", "Hooli", episode_id="f1", actor="key:1234")
    memory.add_fact(G, "Eli", "WORKS_AT", "Hooli", episode_id="f2")
    assert {e.uuid: e.actor for e in memory.episodes(G)} == {
        "e1": "user:ann", "e2": "agent:sync", "e3": None, "f1": "key:1234", "f2": None,
    }


def test_every_write_records_its_actor_and_for_whom(memory_factory: MakeMemory, clock) -> None:
    """``on_behalf_of`` is kept beside ``actor`` on episodes and on the audit
    event of every kind of write: ingestion, a fact, retractions, forget, repairs."""
    memory = memory_factory(relation_types={"LIVES_IN": {"cardinality": "many_to_one"}})
    memory.add_episode(G, "Ann Lee lives in Paris.", episode_id="e1", actor="key:a", on_behalf_of="user:ann")
    memory.enqueue_episode(G, "Bo Chen works at Acme.", episode_id="e2", actor="key:a", on_behalf_of="user:bo")
    memory.process_queue()
    memory.add_episodes(G, [{"content": "Cy Diaz works at Initech.", "episode_id": "e3", "actor": "key:b",
                             "on_behalf_of": "user:cy"}])
    memory.add_fact(G, "Ann Lee", "LIVES_IN", "Rome", valid_at="2020-01-01", episode_id="f1", actor="key:a",
                    on_behalf_of="user:dee")
    clock.tick()
    rome = memory.add_fact(G, "Ann Lee", "LIVES_IN", "Oslo", valid_at="2021-01-01", episode_id="f2", actor="key:c")
    assert {e.uuid: (e.actor, e.on_behalf_of) for e in memory.episodes(G)} == {
        "e1": ("key:a", "user:ann"), "e2": ("key:a", "user:bo"), "e3": ("key:b", "user:cy"),
        "f1": ("key:a", "user:dee"), "f2": ("key:c", None),
    }
    memory.remove_fact(G, rome.fact.uuid, actor="key:d", on_behalf_of="user:eve")
    memory.remove_episode(G, "e3", actor="key:e")
    memory.forget(G, entity="Bo Chen", actor="key:f", on_behalf_of="dpo")
    memory.reconcile(G, repair=True, actor="key:g", on_behalf_of="ops")
    by_kind = {e.kind: (e.actor, e.on_behalf_of) for e in memory.audit_events(G)}
    assert by_kind["fact_removed"] == ("key:d", "user:eve")
    assert by_kind["episode_removed"] == ("key:e", None)
    assert by_kind["forgotten"] == ("key:f", "dpo")
    assert all(a == ("key:g", "ops") for k, a in by_kind.items() if k == "reconcile_repaired")
    with pytest.raises(InvalidInputError, match="on_behalf_of"):
        memory.add_fact(G, "A", "R", "B", on_behalf_of="x" * 201)
    with pytest.raises(InvalidInputError, match="on_behalf_of"):
        memory.remove_episode(G, "e1", on_behalf_of="")
    assert memory.episode(G, "e1").on_behalf_of == "user:ann"  # nothing changed


def test_audit_events_record_their_actor(memory_factory: MakeMemory, clock) -> None:
    postgres: list[str] = []
    memory = memory_factory(judge=lambda new, cands: Verdict(contradicts=[*postgres]))
    postgres.append(memory.add_fact(G, "Initech", "USES", "Postgres", valid_at="2022-04-01").fact.uuid)
    memory.add_fact(G, "Initech", "SPONSORS", "EuroPython", valid_at="2024-07-08")
    clock.tick(days=1)
    memory.add_fact(G, "Initech", "SPONSORS", "PyCon", valid_at="2025-05-20", episode_id="e2", actor="agent:crawler")
    (event,) = [e for e in memory.audit_events(G) if e.kind == "verdict_refused"]
    assert event.actor == "agent:crawler" and event.episode_id == "e2"


@pytest.mark.parametrize("actor", ["", "   ", 42, "a\x00b", "x" * 201, "  user:ann  ", "ann\u200b", "a\ud800"])
def test_a_bad_actor_is_refused_and_changes_nothing(memory_factory: MakeMemory, actor: object) -> None:
    memory = memory_factory()
    before = snapshot(memory)
    with pytest.raises(InvalidInputError, match="actor"):
        memory.add_fact(G, "A", "R", "B", actor=actor)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="actor"):
        memory.add_episode(G, "Ann lives in Rome.", actor=actor)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=r"episodes\[0\]\.actor"):
        memory.add_episodes(G, [{"content": "Ann lives in Rome.", "actor": actor}])
    assert snapshot(memory) == before


# -- possible contradictions ----------------------------------------------------------


def test_a_same_slot_fact_left_standing_is_flagged(memory_factory: MakeMemory, clock) -> None:
    memory = memory_factory()
    paris = memory.add_fact(G, "Ann", "LIVES_IN", "Paris", valid_at="2020-01-01", actor="user:bo").fact
    clock.tick(hours=1)
    result = memory.add_fact(G, "Ann", "LIVES_IN", "Rome", valid_at="2021-01-01", episode_id="e2", actor="agent:x")
    assert result.retired == []
    (flag,) = result.possible_contradictions
    assert (flag.fact, flag.contradicts.uuid, flag.reason, flag.authority) == (
        result.fact.uuid, paris.uuid, "same_slot", 0.5
    )
    (event,) = [e for e in memory.audit_events(G) if e.kind == "contradiction_flagged"]
    assert event.episode_id == "e2" and event.actor == "agent:x"
    assert event.detail == {"fact": result.fact.uuid, "contradicts": paris.uuid, "reason": "same_slot",
                            "authority": 0.5, "tier": None, "actor_weight": 0.5, "score": 0.25, "similarity": None}
    # another subject, or a declared many-to-many relation: nothing to flag by structure (an undeclared
    # relation's facts close in meaning are candidates still: topical closeness, not disagreement)
    assert {p.reason for p in memory.add_fact(G, "Bo", "LIVES_IN", "Rome").possible_contradictions} <= {
        "similar_meaning"}
    many = memory_factory(relation_types={"LIKES": {"cardinality": "many_to_many"}})
    many.add_fact(G, "Ann", "LIKES", "Jazz")
    assert many.add_fact(G, "Ann", "LIKES", "Rock").possible_contradictions == []
    assert not [e for e in many.audit_events(G) if e.kind == "contradiction_flagged"]


def test_no_flag_for_a_restatement_or_what_the_guard_or_judge_retired(memory_factory: MakeMemory, clock) -> None:
    memory = memory_factory()
    memory.add_fact(G, "Ann", "LIVES_IN", "Paris", valid_at="2020-01-01")
    again = memory.add_fact(G, "Ann", "LIVES_IN", "Paris", valid_at="2020-01-01", episode_id="again")
    assert again.merged and again.possible_contradictions == []

    declared = memory_factory(relation_types={"LIVES_IN": {"cardinality": "many_to_one", "authority": 0.9}})
    declared.add_fact(G, "Ann", "LIVES_IN", "Paris", valid_at="2020-01-01")
    moved = declared.add_fact(G, "Ann", "LIVES_IN", "Rome", valid_at="2021-01-01")
    assert [f.object for f in moved.retired] == ["Paris"] and moved.possible_contradictions == []

    judged = memory_factory(judge=lambda new, cands: Verdict(contradicts=[c.uuid for c in cands]))
    judged.add_fact(G, "Ann", "LIVES_IN", "Paris", valid_at="2020-01-01")
    moved = judged.add_fact(G, "Ann", "LIVES_IN", "Rome", valid_at="2021-01-01")
    assert [f.object for f in moved.retired] == ["Paris"] and moved.possible_contradictions == []
    for m in (memory, declared, judged):
        assert not [e for e in m.audit_events(G) if e.kind == "contradiction_flagged"]


def test_a_similar_text_on_the_same_pair_is_flagged_with_its_relations_authority(memory_factory: MakeMemory) -> None:
    judge = RecordingJudge()  # shown the candidates, retires nothing
    memory = memory_factory(judge=judge, relation_types={"WORKS_AT": {"authority": 0.9}})
    works = memory.add_fact(G, "Ann", "WORKS_AT", "Acme", fact="Ann works at Acme as an engineer").fact
    result = memory.add_fact(G, "Ann", "WORKED_AT", "Acme", fact="Ann worked at Acme as an engineer")
    (flag,) = result.possible_contradictions
    assert (flag.contradicts.uuid, flag.reason, flag.authority) == (works.uuid, "similar_text", 0.9)


def test_an_episode_lists_its_possible_contradictions(memory_factory: MakeMemory) -> None:
    from kronograph.llm.client import ModelClient

    from .ingest_helpers import ScriptedProvider, current_episode

    def lives_in(city: str) -> dict[str, object]:
        return {"reasoning": "", "entities": [{"name": "Ann Lee"}, {"name": city}],
                "facts": [{"subject": "Ann Lee", "relation": "LIVES_IN", "object": city,
                           "fact": f"Ann Lee lives in {city}"}]}

    table = {"a": lives_in("Paris"), "b": lives_in("Rome")}
    provider = ScriptedProvider(Extraction=lambda system, user: table[current_episode(user)],
                                JudgeAnswer=lambda system, user: {"reasoning": "", "verdicts": []})
    model = ModelClient(provider, base_delay=0.001, max_delay=0.002, max_attempts=3)  # type: ignore[arg-type]
    memory = memory_factory(model=model)
    memory.add_episode(G, "a", reference_time="2024-01-01", episode_id="a")
    result = memory.add_episode(G, "b", reference_time="2024-02-01", episode_id="b", actor="user:ann")
    assert result.ok and result.retired == []
    (flag,) = result.possible_contradictions
    assert flag.contradicts.object == "Paris" and flag.reason == "same_slot"
    (event,) = [e for e in memory.audit_events(G) if e.kind == "contradiction_flagged"]
    assert event.episode_id == "b" and event.actor == "user:ann"
    assert event.detail["contradicts"] == flag.contradicts.uuid


def test_the_conflicts_audit_sweeps_a_group_and_writes_nothing(memory_factory: MakeMemory, clock) -> None:
    memory = memory_factory(relation_types={"LIKES": {"cardinality": "many_to_many"},
                                            "WORKS_AT": {"authority": 0.8}})
    paris = memory.add_fact(G, "Ann", "LIVES_IN", "Paris", valid_at="2020-01-01").fact
    clock.tick(hours=1)
    rome = memory.add_fact(G, "Ann", "LIVES_IN", "Rome", valid_at="2021-01-01").fact
    memory.add_fact(G, "Ann", "LIKES", "Jazz")
    memory.add_fact(G, "Ann", "LIKES", "Rock")  # declared many-to-many: no conflict
    memory.add_fact(G, "Bo", "LIVES_IN", "Rome")  # another subject: no conflict
    works = memory.add_fact(G, "Bo", "WORKS_AT", "Acme", fact="Bo works at Acme as an engineer").fact
    clock.tick(hours=1)
    worked = memory.add_fact(G, "Bo", "WORKED_AT", "Acme", fact="Bo worked at Acme as an engineer").fact
    before = (snapshot(memory), memory.audit_events(G))
    found = memory.audit(G, mode="conflicts")
    assert [(p.fact, p.contradicts.uuid, p.reason, p.authority) for p in found] == [
        (rome.uuid, paris.uuid, "same_slot", 0.5),
        (worked.uuid, works.uuid, "similar_text", 0.8),
    ]
    assert (snapshot(memory), memory.audit_events(G)) == before
    assert memory.audit("other") == []
    with pytest.raises(InvalidInputError, match="mode"):
        memory.audit(G, mode="everything")


def test_remove_fact_retracts_one_fact_and_gives_back_what_it_retired(memory_factory) -> None:
    memory = memory_factory(model=None, relation_types={"LIVES_IN": {"cardinality": "many_to_one"}})
    memory.add_fact("g", "Ann", "LIVES_IN", "Paris", valid_at="2020-01-01", episode_id="e1")
    moved = memory.add_fact("g", "Ann", "LIVES_IN", "Oslo", valid_at="2022-01-01", episode_id="e2")
    memory.add_fact("g", "Ann", "LIKES", "chess", valid_at="2021-01-01", episode_id="e2")
    before = memory.facts("g", subject="Ann")
    result = memory.remove_fact("g", moved.fact.uuid)
    assert result.fact_uuid == moved.fact.uuid and result.deleted_facts == [moved.fact.uuid]
    assert {f.object for f in memory.facts("g", subject="Ann")} == {"Paris", "chess"}
    assert [f.uuid for f in result.changed] == [next(f.uuid for f in memory.facts("g", object="Paris"))]
    assert [p.uuid for p in memory.episodes("g")] == ["e1", "e2"]  # the episodes stay: e2 said more
    assert memory.entities("g", name="Oslo") == []  # no fact and no mention is left of it
    # What was believed stays answerable.
    then = memory.facts("g", subject="Ann", relation="lives in", known_at=before[0].created_at)
    assert then and memory.history("g", moved.fact.uuid)[-1].status == "deleted"
    assert memory.audit_events("g")[-1].kind == "fact_removed"
    with pytest.raises(NotFoundError):
        memory.remove_fact("g", moved.fact.uuid)
    with pytest.raises(NotFoundError):
        memory.remove_fact("other", before[0].uuid)  # another group's fact is not found
    assert memory.groups() == ["g"]
