"""What concurrent workers, failures and odd ids must never do to episodes."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import UTC, datetime

import pytest

from kronograph import AsyncMemory, Memory
from kronograph.errors import InvalidInputError
from kronograph.llm.client import ModelClient
from kronograph.model import EpisodeStatus
from kronograph.store.plan import EpisodeState, Plan

from .ingest_helpers import ScriptedProvider, current_episode, transient

T0 = "2024-01-01T09:00:00Z"
LYON = {
    "reasoning": "",
    "entities": [{"name": "Ann Lee"}, {"name": "Lyon"}],
    "facts": [{"subject": "Ann Lee", "relation": "LIVES_IN", "object": "Lyon", "fact": "Ann Lee lives in Lyon"}],
}


def client(provider: ScriptedProvider) -> ModelClient:
    return ModelClient(provider, base_delay=0.001, max_delay=0.002, max_attempts=2)


def test_a_completed_episode_is_never_marked_failed_afterwards():
    memory = Memory(model=None)
    memory.add_episode("g", "Ann Lee: I live in Lyon.", reference_time=T0, episode_id="e")
    late = Plan(group_id="g", now=datetime.now(UTC), expected_revision=None)
    late.episode_states.append(EpisodeState("e", "quarantined", late.now, error="a slower worker failed"))
    memory._portal.call(memory.store.apply(late))
    (episode,) = memory.episodes("g")
    assert episode.status == "complete" and episode.error is None


def test_another_memory_in_the_process_does_not_take_over_an_episode_in_flight(tmp_path):
    release = asyncio.Event()

    started = asyncio.Event()

    class Slow(ScriptedProvider):
        async def complete(self, **kwargs):
            started.set()
            await release.wait()
            return await super().complete(**kwargs)

    async def run() -> None:
        slow = Slow(Extraction=lambda s, u: LYON)
        first = AsyncMemory(tmp_path / "m.db", model=client(slow))
        task = asyncio.create_task(first.add_episode("g", "Ann Lee: Lyon", reference_time=T0, episode_id="e"))
        await asyncio.wait_for(started.wait(), 10)
        second = AsyncMemory(tmp_path / "m.db", model=None)  # resumes unfinished episodes on opening
        assert await second.resume() == []
        again = await second.add_episode("g", "Ann Lee: Lyon", reference_time=T0, episode_id="e")
        assert again.status == EpisodeStatus.EXTRACTING and "another live worker" in again.error
        release.set()
        done = await task
        assert done.ok and not done.duplicate and [f.triple for f in done.created] == ["Ann Lee LIVES_IN Lyon"]
        await first.aclose()
        await second.aclose()

    asyncio.run(run())


def test_a_batch_with_a_conflicting_id_stores_nothing():
    memory = Memory(model=None)
    memory.add_episode("g", "Ann Lee: I live in Lyon.", reference_time=T0, episode_id="taken")
    with pytest.raises(InvalidInputError) as caught:
        memory.add_episodes("g", [{"content": "Bo Chen: I live in Oslo.", "episode_id": "new"},
                                  {"content": "Cy Diaz: I live in Rome.", "episode_id": "taken"}])
    assert caught.value.field == "episodes[1].episode_id"
    assert [e.uuid for e in memory.episodes("g")] == ["taken"]


def test_an_add_fact_episode_id_is_not_a_duplicate_episode():
    memory = Memory(model=None)
    memory.add_fact("g", "Ann Lee", "LIVES_IN", "Lyon", episode_id="msg-1")
    with pytest.raises(InvalidInputError, match="add_fact"):
        memory.add_episode("g", "Bo Chen: I live in Oslo.", episode_id="msg-1")


def test_a_batch_failure_is_paid_for_once_and_a_repeat_shares_its_result():
    provider = ScriptedProvider(Extraction=lambda s, u: "not json" if "bad" in current_episode(u) else LYON)
    memory = Memory(model=client(provider))
    results = memory.add_episodes("g", [
        {"content": "Ann Lee: bad", "episode_id": "b"},
        {"content": "Ann Lee: good", "episode_id": "ok"},
        {"content": "Ann Lee: bad", "episode_id": "b"},
    ])
    assert [r.status for r in results] == ["quarantined", "complete", "quarantined"]
    assert not results[2].duplicate and results[2].error == results[0].error
    bad_calls = [u for name, u in provider.calls if current_episode(u) == "Ann Lee: bad"]
    assert len(bad_calls) == 2  # the call and its one repair round, not again in the sequential pass


def test_a_model_answer_paid_for_before_a_failure_is_kept():
    table = {
        "a": {"reasoning": "", "entities": [{"name": "Ann Lee"}, {"name": "Acme Robotics"}, {"name": "Acme Bank"},
                                            {"name": "Bo Chen"}],
              "facts": [{"subject": "Ann Lee", "relation": "WORKS_AT", "object": "Acme Robotics", "fact": "x"},
                        {"subject": "Bo Chen", "relation": "WORKS_AT", "object": "Acme Bank", "fact": "y"}]},
        "b": {"reasoning": "", "entities": [{"name": "Ann Lee"}, {"name": "Acme"}],
              "facts": [{"subject": "Ann Lee", "relation": "WORKS_AT", "object": "Acme", "fact": "z"}]},
    }

    def dedupe(system, user):
        (mention,) = json.loads(user)["mentions"]
        bank = next(c["id"] for c in mention["candidates"] if c["name"] == "Acme Bank")
        return {"reasoning": "", "matches": [{"mention": mention["id"], "entity": bank}]}

    verdicts = {"down": True}

    def judge(system, user):
        if verdicts["down"]:
            return transient()
        return {"reasoning": "", "verdicts": []}

    provider = ScriptedProvider(Extraction=lambda s, u: table[current_episode(u)], DedupeAnswer=dedupe,
                                JudgeAnswer=judge)
    memory = Memory(model=client(provider))
    memory.add_episode("g", "a", reference_time=T0)
    failed = memory.add_episode("g", "b", reference_time="2024-02-01")
    assert failed.status == EpisodeStatus.RETRYABLE and provider.count("DedupeAnswer") == 1
    verdicts["down"] = False
    (done,) = memory.resume()
    assert done.ok and provider.count("DedupeAnswer") == 1  # served from the reply cache
    # The checkpointed extraction's cost is carried over; the dedupe answer came from the cache.
    assert done.usage.by_purpose["extract"]["calls"] == 1 and done.usage.by_purpose["dedupe"]["cached"] == 1


def test_a_quarantined_episode_keeps_no_text_when_raw_content_is_off(tmp_path):
    provider = ScriptedProvider(Extraction=lambda s, u: "never json")
    memory = Memory(tmp_path / "m.db", model=client(provider), store_raw_content=False)
    result = memory.add_episode("g", "Ann Lee: my secret is xyzzy", reference_time=T0)
    assert result.status == EpisodeStatus.QUARANTINED
    memory.close()
    with sqlite3.connect(tmp_path / "m.db") as conn:
        ((content, pending),) = conn.execute("SELECT content, pending FROM episodes").fetchall()
    assert content is None and "xyzzy" not in (pending or "")


def test_relative_dates_count_in_the_callers_days():
    memory = Memory(model=None)
    late_evening_east = "2024-03-10T01:00:00+05:00"  # still 9 March in UTC
    (fact,) = memory.add_episode("g", "Ann Lee: I moved to Lyon yesterday.", reference_time=late_evening_east).created
    assert fact.valid_at.date().isoformat() == "2024-03-09"


def test_writes_to_one_group_leave_another_groups_revision_alone():
    memory = Memory(model=None)
    store = memory.store
    before = memory._portal.call(store.revision("b"))
    memory.add_episode("a", "Ann Lee: I live in Lyon.", reference_time=T0)
    assert memory._portal.call(store.revision("b")) == before
    memory.add_fact("b", "Bo Chen", "LIVES_IN", "Oslo")
    assert memory._portal.call(store.revision("b")) != before
