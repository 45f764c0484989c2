"""Bulk ingestion builds the graph one-by-one ingestion builds."""

from __future__ import annotations

import asyncio

import pytest

from kronograph import AsyncMemory, Memory
from kronograph.errors import InvalidInputError

from .chat_fixture import chat, graph


def test_bulk_equals_sequential_with_contradictions_and_late_arrivals():
    episodes = chat(100)
    assert any(a["reference_time"] > b["reference_time"] for a, b in zip(episodes, episodes[1:], strict=False))
    one_by_one = Memory(model=None)
    for item in episodes:
        assert one_by_one.add_episode("g", **item).ok
    bulk = Memory(model=None)
    results = bulk.add_episodes("g", episodes)
    assert [r.episode_id for r in results] == [e["episode_id"] for e in episodes]
    assert all(r.ok for r in results)
    expected = graph(one_by_one, "g")
    assert len(expected) > 40
    assert sum(1 for f in one_by_one.facts("g", include_retired=True) if f.invalid_at) > 10
    assert graph(bulk, "g") == expected
    # and again: the whole batch is a duplicate now
    assert all(r.duplicate for r in bulk.add_episodes("g", episodes))
    assert graph(bulk, "g") == expected


def test_a_bad_item_refuses_the_whole_batch_before_anything_is_stored():
    memory = Memory(model=None)
    with pytest.raises(InvalidInputError) as caught:
        memory.add_episodes("g", [{"content": "Ann Lee: I live in Lyon."}, {"content": ""}])
    assert caught.value.field == "episodes[1].content"
    with pytest.raises(InvalidInputError, match=r"episodes\[0\].*unknown field"):
        memory.add_episodes("g", [{"content": "x", "when": "now"}])
    assert memory.episodes("g") == []


def test_groups_ingest_in_parallel_and_stay_apart():
    async def run() -> None:
        async with AsyncMemory(model=None) as memory:
            a, b = chat(30, seed=1), chat(30, seed=2)
            await asyncio.gather(memory.add_episodes("a", a), memory.add_episodes("b", b))
            ref_a, ref_b = Memory(model=None), Memory(model=None)
            ref_a.add_episodes("a", a)
            ref_b.add_episodes("b", b)
            assert {(f.subject, f.object, f.valid_at) for f in await memory.facts("a", include_retired=True)} == {
                (f.subject, f.object, f.valid_at) for f in ref_a.facts("a", include_retired=True)
            }
            assert len(await memory.episodes("b")) == 30

    asyncio.run(run())


def test_a_batch_shows_extraction_the_context_one_by_one_ingestion_shows():
    from .ingest_helpers import ScriptedProvider

    def extraction(system, user):
        return {"reasoning": "", "entities": [], "facts": []}

    episodes = chat(12, seed=3, late_every=4)
    seq, bulk = ScriptedProvider(Extraction=extraction), ScriptedProvider(Extraction=extraction)
    one = Memory(model=seq, context_episodes=3)
    for item in episodes:
        one.add_episode("g", **item)
    Memory(model=bulk, context_episodes=3).add_episodes("g", episodes)
    prompts = sorted(user for _, user in seq.calls)
    assert prompts == sorted(user for _, user in bulk.calls)
    assert sum("<previous_episodes>" in p for p in prompts) >= 10
