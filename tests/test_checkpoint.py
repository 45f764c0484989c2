"""The episode checkpoint: its stored JSON layout, and resuming from a
checkpoint in the layout earlier versions wrote (a dict of magic keys)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from kronograph import AsyncMemory
from kronograph.ingest.checkpoint import Checkpoint, JudgedFact
from kronograph.llm.protocol import Usage
from kronograph.model import normalise_name
from kronograph.store.plan import EpisodeState, Plan

from .ingest_helpers import ScriptedProvider, transient
from .test_ingest import T0, client, employment_judge, extraction_table, facts_json

USAGE = {"calls": 1, "cached": 0, "prompt_tokens": 10, "completion_tokens": 5, "prompt_chars": 40,
         "by_purpose": {"extract": {"calls": 1, "prompt_chars": 40, "prompt_tokens": 10, "completion_tokens": 5,
                                    "cached": 0}}}
PROVENANCE = {"extractor": "model", "model": "scripted", "prompt_version": 1, "ontology_version": "x"}


def test_the_stored_layout_round_trips_and_older_layouts_read():
    stored = {
        "extraction": facts_json(("Ann Lee", "WORKS_AT", "Acme")), "provenance": PROVENANCE, "unread": ["Hm."],
        "usage": USAGE, "entities": {"ann lee": {"uuid": "u1", "how": "name", "alias": False, "fragments": []}},
        "verdicts": {"0": {"contradicts": ["f1"], "duplicate_of": None, "shown": ["f1", "f2"], "refused": ["E9"]}},
    }
    checkpoint = Checkpoint.from_json(stored)
    assert checkpoint.decided and checkpoint.unread == ("Hm.",) and checkpoint.usage == Usage.from_dict(USAGE)
    assert checkpoint.verdicts == {0: JudgedFact(contradicts=("f1",), shown=("f1", "f2"), refused=("E9",))}
    assert checkpoint.extraction is not None and checkpoint.extraction.facts[0].object == "Acme"
    assert checkpoint.to_json() == {**stored, "extraction": checkpoint.extraction.model_dump(mode="json")}
    assert Checkpoint.from_json(checkpoint.to_json()) == checkpoint
    # The first layouts: no notes, verdicts without "shown" and "refused", a key no longer read.
    oldest = Checkpoint.from_json({"extraction": stored["extraction"], "provenance": PROVENANCE, "usage": USAGE,
                                   "entities": {}, "verdicts": {"1": {"contradicts": [], "duplicate_of": "f3"}},
                                   "retired_key": 1})
    assert oldest.unread == () and oldest.verdicts == {1: JudgedFact(duplicate_of="f3")} and oldest.decided
    assert "retired_key" not in oldest.to_json()
    assert Checkpoint.from_json(None) == Checkpoint() and not Checkpoint().decided
    assert Checkpoint().to_json() == {}
    # What is never stored: the extracting flag, the committing state; undecided drops the decisions.
    state = Plan(group_id="g", now=datetime.now(UTC), expected_revision=None)
    pending = Checkpoint(**{**_fields(checkpoint), "extracting": True, "state": state})
    assert pending.to_json() == checkpoint.to_json()
    undecided = pending.undecided()
    assert (undecided.entities, undecided.verdicts, undecided.state) == (None, None, None)
    assert undecided.extraction == checkpoint.extraction


def _fields(checkpoint: Checkpoint) -> dict[str, object]:
    return {name: getattr(checkpoint, name) for name in Checkpoint.__dataclass_fields__}


async def _stored_as_before(memory: AsyncMemory, episode_id: str, status: str, checkpoint: dict[str, object]) -> None:
    """An episode left ``status`` with ``checkpoint`` as the dict-based pipeline wrote it."""
    episode = await memory.enqueue_episode("g", "b", reference_time="2024-02-01", episode_id=episode_id)
    plan = Plan(group_id="g", now=episode.created_at, expected_revision=None)
    plan.episode_states.append(EpisodeState(episode_id, status, plan.now, checkpoint=checkpoint))
    await memory.store.apply(plan)


def _memory() -> tuple[AsyncMemory, ScriptedProvider]:
    table = {"a": facts_json(("Ann Lee", "WORKS_AT", "Acme")), "b": facts_json(("Ann Lee", "WORKS_AT", "Globex"))}
    provider = ScriptedProvider(Extraction=extraction_table(table), JudgeAnswer=employment_judge)
    return AsyncMemory(model=client(provider), resume=False), provider


def test_an_episode_resumes_from_an_extraction_checkpoint_stored_by_the_dict_based_pipeline():
    async def run() -> None:
        memory, provider = _memory()
        async with memory:
            await memory.add_episode("g", "a", reference_time=T0)
            # Stored before the notes were kept: no "unread"; it says Initech, the model would say Globex.
            old = {"extraction": facts_json(("Ann Lee", "WORKS_AT", "Initech")), "provenance": PROVENANCE,
                   "usage": USAGE}
            await _stored_as_before(memory, "b", "resolving", old)
            extractions = provider.count("Extraction")
            (done,) = await memory.resume()
            assert done.ok and [f.triple for f in done.created] == ["Ann Lee WORKS_AT Initech"]
            assert [f.triple for f in done.retired] == ["Ann Lee WORKS_AT Acme"]  # judged now, by the model
            assert provider.count("Extraction") == extractions  # the stored extraction was used
            assert done.usage.calls == USAGE["calls"] + 1  # what the checkpoint paid for, and the judge

    asyncio.run(run())


def test_an_episode_resumes_from_a_decided_checkpoint_stored_by_the_dict_based_pipeline():
    async def run() -> None:
        memory, provider = _memory()
        async with memory:
            await memory.add_episode("g", "a", reference_time=T0)
            (ann,) = await memory.entities("g", name="Ann Lee")
            (acme,) = await memory.facts("g")
            new = {"uuid": None, "how": "new", "alias": False, "fragments": []}
            old = {
                "extraction": facts_json(("Ann Lee", "WORKS_AT", "Globex")), "provenance": PROVENANCE,
                "unread": [], "usage": USAGE,
                "entities": {normalise_name("Ann Lee"): {**new, "uuid": ann.uuid, "how": "name"},
                             normalise_name("Globex"): new},
                "verdicts": {"0": {"contradicts": [acme.uuid], "duplicate_of": None, "shown": [acme.uuid],
                                   "refused": []}},
            }
            await _stored_as_before(memory, "b", "committing", old)
            calls = len(provider.calls)
            (done,) = await memory.resume()
            assert done.ok and [f.triple for f in done.created] == ["Ann Lee WORKS_AT Globex"]
            assert [f.triple for f in done.retired] == ["Ann Lee WORKS_AT Acme"]  # the stored verdict decided
            assert len(provider.calls) == calls  # no question asked again
            assert ann.uuid in {e.uuid for e in done.entities}

    asyncio.run(run())


def test_a_checkpoint_is_stored_in_the_layout_earlier_versions_read():
    async def run() -> None:
        memory, provider = _memory()
        async with memory:
            await memory.add_episode("g", "a", reference_time=T0)
            provider.answers["JudgeAnswer"] = lambda system, user: transient()
            failed = await memory.add_episode("g", "b", reference_time="2024-02-01", episode_id="b")
            assert failed.status == "retryable"
            progress = await memory.store.episode_progress("g", "b")
            assert progress is not None and progress.checkpoint is not None
            assert set(progress.checkpoint) == {"extraction", "provenance", "unread", "usage"}
            assert progress.checkpoint["extraction"]["facts"][0]["object"] == "Globex"
            assert progress.checkpoint["usage"]["by_purpose"]["extract"]["calls"] == 1

    asyncio.run(run())
