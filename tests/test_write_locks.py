"""A group's writes never wait on a network: the group's write lock is held
from the reads a plan depends on to its commit, never across a model call,
an embedder call, a judge, a backoff or clustering; a plan whose group moved
meanwhile is redone, and only then. Each test blocks one model call on an
event and checks that other writes complete meanwhile (with a timeout, so a
regression fails instead of hanging)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kronograph import AsyncMemory, metrics
from kronograph.model import Verdict
from kronograph.store import SQLiteStore, Store
from kronograph.store.plan import Plan

from . import pg_server
from .ingest_helpers import ScriptedProvider, current_episode, transient
from .provider_servers import FakeServer, fake_server
from .test_ingest import client, employment_judge, extraction_table, facts_json

T0 = datetime(2024, 1, 1, 9, tzinfo=UTC)
T1 = datetime(2024, 6, 1, 9, tzinfo=UTC)
SOON = 60.0  # seconds a write that must not wait is given (it takes milliseconds)

EPISODES = {
    "Alice works at Acme.": facts_json(("Alice", "WORKS_AT", "Acme")),
    "Alice works at Beta now.": facts_json(("Alice", "WORKS_AT", "Beta")),
    "Carol works at Delta.": facts_json(("Carol", "WORKS_AT", "Delta")),
}


class _Gate:
    def __init__(self, schema: str, marker: str) -> None:
        self.schema, self.marker = schema, marker
        self.reached = asyncio.Event()  # the call is at the model
        self.release = asyncio.Event()  # the model answers


class GatedProvider(ScriptedProvider):
    """A scripted provider whose calls of a schema with a marker in the
    prompt wait until the test releases them."""

    def __init__(self, **answers: Any) -> None:
        super().__init__(**answers)
        self.gates: list[_Gate] = []

    def hold(self, schema: str, marker: str) -> _Gate:
        gate = _Gate(schema, marker)
        self.gates.append(gate)
        return gate

    async def complete(self, *, system: str, user: str, schema: Any, schema_name: str, small: bool = False) -> Any:
        for gate in self.gates:
            shown = current_episode(user) if "<current_episode" in user else user  # not its context
            if gate.schema == schema_name and gate.marker in shown and not gate.release.is_set():
                gate.reached.set()
                await gate.release.wait()
        return await super().complete(system=system, user=user, schema=schema, schema_name=schema_name, small=small)


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return str(tmp_path / "m.db") if request.param == "sqlite" else pg_server.databases().fresh()


def redos(kind: str) -> float:
    return float(metrics.snapshot()["kronograph_write_redos_total"].get(f'{{kind="{kind}"}}', 0))


async def soon(work: Any) -> Any:
    return await asyncio.wait_for(work, SOON)


def test_writes_to_a_group_go_on_while_an_episode_extracts(location: str) -> None:
    async def go() -> None:
        provider = GatedProvider(Extraction=extraction_table(EPISODES))
        gate = provider.hold("Extraction", "Alice works at Acme.")
        async with AsyncMemory(location, model=client(provider)) as memory:
            episode = asyncio.create_task(
                memory.add_episode("g", "Alice works at Acme.", reference_time=T0, episode_id="e1")
            )
            await soon(gate.reached.wait())
            added = await soon(memory.add_fact("g", "Bob", "LIVES_IN", "Paris"))
            assert not added.merged
            forgotten = await soon(memory.forget("g", entity="Bob"))
            assert forgotten.verified
            other = await soon(memory.add_episode("h", "Carol works at Delta.", reference_time=T0))
            assert other.ok
            assert not episode.done()
            gate.release.set()
            result = await soon(episode)
            assert result.ok
            assert [(f.subject, f.object) for f in await memory.facts("g")] == [("Alice", "Acme")]

    asyncio.run(go())


def test_writes_go_on_while_an_episode_waits_on_its_judge_and_it_is_redone_without_asking_again(
    location: str,
) -> None:
    async def go() -> None:
        metrics.reset()
        provider = GatedProvider(Extraction=extraction_table(EPISODES), JudgeAnswer=employment_judge)
        gate = provider.hold("JudgeAnswer", "Beta")
        async with AsyncMemory(location, model=client(provider)) as memory:
            assert (await memory.add_episode("g", "Alice works at Acme.", reference_time=T0)).ok
            episode = asyncio.create_task(memory.add_episode("g", "Alice works at Beta now.", reference_time=T1))
            await soon(gate.reached.wait())
            await soon(memory.add_fact("g", "Alice", "LIVES_IN", "Oslo"))  # moves the group: not a candidate
            gate.release.set()
            result = await soon(episode)
            assert result.ok and [f.object for f in result.retired] == ["Acme"]
            assert redos("episode") == 1
            assert provider.count("JudgeAnswer") == 1  # the same candidates: the redo's answer is the cached one
            current = sorted((f.relation, f.object) for f in await memory.facts("g"))
            assert current == [("LIVES_IN", "Oslo"), ("WORKS_AT", "Beta")]

    asyncio.run(go())


def test_a_group_keeps_its_order_while_its_episodes_extract_concurrently(tmp_path: Path) -> None:
    async def go() -> None:
        provider = GatedProvider(Extraction=extraction_table(EPISODES), JudgeAnswer=employment_judge)
        gate = provider.hold("Extraction", "Alice works at Acme.")
        async with AsyncMemory(tmp_path / "m.db", model=client(provider)) as memory:
            first = asyncio.create_task(memory.add_episode("g", "Alice works at Acme.", reference_time=T0,
                                                           episode_id="e1"))
            second = asyncio.create_task(memory.add_episode("g", "Alice works at Beta now.", reference_time=T1,
                                                            episode_id="e2"))
            await soon(gate.reached.wait())

            async def extracted() -> None:  # the second extracts while the first waits on its model
                while (await memory.episode("g", "e2")).status != "resolving":
                    await asyncio.sleep(0.01)

            await soon(extracted())
            for _ in range(20):
                await asyncio.sleep(0.01)
                assert not second.done()  # its turn comes after the first's commit
            gate.release.set()
            assert (await soon(first)).ok and (await soon(second)).ok
            facts = {f.object: f for f in await memory.facts("g", include_retired=True)}
            assert facts["Acme"].created_at < facts["Beta"].created_at

    asyncio.run(go())


def test_the_queue_backs_off_holding_nothing(tmp_path: Path) -> None:
    async def go() -> None:
        provider = GatedProvider(Extraction=extraction_table(EPISODES))
        provider.fail = [transient() for _ in range(3)]  # every try of the first attempt: retryable
        async with AsyncMemory(tmp_path / "m.db", model=client(provider)) as memory:
            await memory.enqueue_episode("g", "Alice works at Acme.", reference_time=T0, episode_id="e1")
            worker = asyncio.create_task(memory._ingestion.run_queued("g", attempts=2, backoff=10 * SOON))

            async def failed_once() -> None:
                while (await memory.episode("g", "e1")).status != "retryable":
                    await asyncio.sleep(0.01)

            await soon(failed_once())
            try:
                await soon(memory.add_fact("g", "Bob", "LIVES_IN", "Paris"))  # during the backoff
                await soon(memory.add_episode("g", "Carol works at Delta.", reference_time=T1))
            finally:
                worker.cancel()

    asyncio.run(go())


def test_add_fact_lets_the_group_go_while_its_judge_thinks(location: str) -> None:
    async def go() -> None:
        metrics.reset()
        thinking, answer = asyncio.Event(), asyncio.Event()
        asked: list[list[str]] = []

        async def judge(new: Any, candidates: Any) -> Verdict:
            asked.append([c.object for c in candidates])
            thinking.set()
            await answer.wait()
            return Verdict(contradicts=[c.uuid for c in candidates])

        async with AsyncMemory(location, model=None, judge=judge) as memory:
            await memory.add_fact("g", "Alice", "WORKS_AT", "Acme", valid_at=T0)
            judged = asyncio.create_task(memory.add_fact("g", "Alice", "WORKS_AT", "Beta", valid_at=T1))
            await soon(thinking.wait())
            await soon(memory.add_fact("g", "Bob", "LIVES_IN", "Paris"))  # not a candidate of Alice's
            answer.set()
            result = await soon(judged)
            assert [f.object for f in result.retired] == ["Acme"]
            assert asked == [["Acme"]]  # redone once (the group moved), the judge not asked again
            assert redos("add_fact") == 1

    asyncio.run(go())


def _summaries(system: str, user: str) -> dict[str, Any]:
    rows = [json.loads(line) for line in user.splitlines() if line.startswith("{")]
    return {"reasoning": "short",
            "summaries": [{"id": r["id"], "summary": "Linked: " + ", ".join(r["members"])} for r in rows]}


def test_build_communities_holds_the_group_only_for_its_commit(location: str) -> None:
    async def go() -> None:
        metrics.reset()
        provider = GatedProvider(CommunitySummaryAnswer=_summaries)
        gate = provider.hold("CommunitySummaryAnswer", "Zed")
        async with AsyncMemory(location, model=client(provider)) as memory:
            for a, b in (("Ann", "Bea"), ("Bea", "Zed"), ("Zed", "Ann"), ("Cid", "Dov"), ("Dov", "Eli"),
                         ("Eli", "Cid")):
                await memory.add_fact("g", a, "KNOWS", b)
            build = asyncio.create_task(memory.build_communities("g"))
            await soon(gate.reached.wait())
            await soon(memory.add_fact("g", "Fay", "KNOWS", "Gus"))
            assert (await soon(memory.forget("g", entity="Zed"))).verified
            gate.release.set()
            built = await soon(build)
            assert redos("communities") == 1  # a member it drew on was forgotten: built again
            text = json.dumps([c.model_dump(mode="json") for c in built.communities])
            assert "Zed" not in text and "Ann" in text

    asyncio.run(go())


def test_update_communities_does_not_hold_the_group_through_embedding(tmp_path: Path) -> None:
    async def go() -> None:
        async with AsyncMemory(tmp_path / "m.db", model=None) as memory:
            for a, b in (("Ann", "Bea"), ("Bea", "Cid"), ("Cid", "Ann")):
                await memory.add_fact("g", a, "KNOWS", b)
            await memory.build_communities("g")
            await memory.add_fact("g", "Dov", "KNOWS", "Ann")
            embedder = memory._services.embedder
            embedding, go_on = asyncio.Event(), asyncio.Event()
            plain = embedder.embed

            async def slow(texts: list[str]) -> Any:
                if any("Dov" in t for t in texts) and not go_on.is_set():
                    embedding.set()
                    await go_on.wait()
                return await plain(texts)

            embedder.embed = slow  # type: ignore[method-assign]
            update = asyncio.create_task(memory.update_communities("g"))
            await soon(embedding.wait())
            await soon(memory.add_fact("g", "Eli", "KNOWS", "Fay"))
            go_on.set()
            done = await soon(update)
            assert [a.entity for a in done.attached] == ["Dov"]

    asyncio.run(go())


# -- the revision a plan is checked against is its group's -------------------------
def _plan(group_id: str, name: str) -> Plan:
    from kronograph.model import Entity

    plan = Plan(group_id=group_id, now=T0, expected_revision=None)
    plan.new_entities.append(Entity(uuid=f"{group_id}-{name}", group_id=group_id, name=name, created_at=T0))
    return plan


@pytest.fixture(params=["sqlite", "postgres"])
def two_stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    if request.param == "sqlite":
        yield SQLiteStore(tmp_path / "m.db"), SQLiteStore(tmp_path / "m.db")
        return
    from kronograph.store.postgres import PostgresStore

    url = pg_server.databases().fresh()
    yield PostgresStore(url, min_size=0, max_size=2), PostgresStore(url, min_size=0, max_size=2)


def test_another_connections_commit_moves_only_its_groups_revision(two_stores: tuple[Store, Store]) -> None:
    async def go() -> None:
        mine, theirs = two_stores
        await mine.open()
        await theirs.open()
        try:
            await mine.apply(_plan("a", "Ann"))
            before = await mine.revision("a")
            await theirs.apply(_plan("b", "Bea"))
            assert await mine.revision("a") == before
            await theirs.apply(_plan("a", "Cid"))
            assert await mine.revision("a") != before
        finally:
            await mine.close()
            await theirs.close()

    asyncio.run(go())


def test_another_process_writing_another_group_forces_no_redo(tmp_path: Path) -> None:
    async def go() -> None:
        metrics.reset()
        provider = GatedProvider(Extraction=extraction_table(EPISODES), JudgeAnswer=employment_judge)
        async with AsyncMemory(tmp_path / "m.db", model=client(provider)) as memory, \
                AsyncMemory(tmp_path / "m.db", model=None) as other:
            assert (await memory.add_episode("a", "Alice works at Acme.", reference_time=T0)).ok
            gate = provider.hold("JudgeAnswer", "Beta")
            episode = asyncio.create_task(memory.add_episode("a", "Alice works at Beta now.", reference_time=T1))
            await soon(gate.reached.wait())
            await soon(other.add_fact("b", "Bob", "LIVES_IN", "Paris"))
            gate.release.set()
            assert (await soon(episode)).ok
            assert redos("episode") == 0

            provider.answers["Extraction"] = extraction_table({"Alice works at Gamma.": facts_json(
                ("Alice", "WORKS_AT", "Gamma"))})
            gate = provider.hold("JudgeAnswer", "Gamma")
            episode = asyncio.create_task(memory.add_episode("a", "Alice works at Gamma.", reference_time=T1))
            await soon(gate.reached.wait())
            await soon(other.add_fact("a", "Alice", "LIVES_IN", "Oslo"))
            gate.release.set()
            assert (await soon(episode)).ok
            assert redos("episode") == 1

    asyncio.run(go())


# -- model="auto" ------------------------------------------------------------------------
@pytest.fixture
def server() -> Iterator[FakeServer]:
    with fake_server() as running:
        yield running


def test_the_auto_model_probe_does_not_block_the_event_loop(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "KRONOGRAPH_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OLLAMA_HOST", server.url)
    server.ollama_models = ["qwen2.5:7b"]
    server.tags_gate = threading.Event()  # the listing is answered only once the loop has run meanwhile

    async def go() -> None:
        async def meanwhile() -> None:
            while not server.requests:
                await asyncio.sleep(0.005)
            server.tags_gate.set()  # type: ignore[union-attr]

        memory = AsyncMemory(tmp_path / "m.db", model="auto")
        try:
            running = asyncio.create_task(meanwhile())
            chosen = await memory._services.model()
            await running
            assert chosen is not None and chosen.provider.name == "ollama"
        finally:
            server.tags_gate.set()  # type: ignore[union-attr]
            await memory.aclose()

    asyncio.run(go())


def test_a_ticket_given_up_before_its_turn_keeps_the_order() -> None:
    from kronograph.ingest.turns import Turns

    async def go() -> None:
        turns = Turns()
        first, given_up, last = turns.take("g"), turns.take("g"), turns.take("g")
        other = turns.take("h")
        await soon(other.wait())  # another group waits on nobody
        given_up.done()  # cancelled before its turn: the next still waits for the one before it
        waiting = asyncio.create_task(last.wait())
        for _ in range(5):
            await asyncio.sleep(0)
        assert not waiting.done()
        first.done()
        await soon(waiting)

    asyncio.run(go())
