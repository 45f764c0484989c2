"""kronograph.integrations with no framework: the binding every adapter wraps
(group bound by the developer, arguments checked, sync and async), and that
importing kronograph imports no framework."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from kronograph import AsyncMemory, InvalidInputError, KronographError, Memory
from kronograph.integrations import INSTALL_HINT, MemoryBinding

from .integrations_fixture import seeded_memory

FRAMEWORKS = ("langchain", "langgraph", "pydantic_ai")


def test_importing_kronograph_imports_no_framework() -> None:
    code = (
        "import sys, kronograph, kronograph.integrations;"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r} or m.startswith('langchain_')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_install_hint_names_the_extra() -> None:
    assert INSTALL_HINT == "pip install 'kronograph[integrations]'"


@pytest.fixture
def memory() -> Iterator[Memory]:
    with seeded_memory() as memory:
        yield memory


@pytest.fixture(scope="module")
def bare() -> Iterator[Memory]:
    """An empty memory, for calls refused before anything is read."""
    with Memory(":memory:", model=None) as memory:
        yield memory


def test_recall_reads_only_the_bound_group(memory: Memory) -> None:
    alice = MemoryBinding(memory, "alice")
    text = alice.recall("where does Alice live")
    assert "Alice lives in Berlin (since 2023-01-01)" in text
    assert "[ep …" in text
    for query in ("Bob lives", "Paris", "Globex"):
        text = alice.recall(query).replace(repr(query), "")
        assert not any(word in text for word in ("Bob", "Paris", "Globex")), text
    assert "Bob lives in Paris" in MemoryBinding(memory, "bob").recall("Paris")


def test_remember_then_recall(memory: Memory) -> None:
    alice = MemoryBinding(memory, "alice", actor="helper-bot")
    said = alice.remember("Alice adopted a cat named Miso.", when="2024-06-09")
    assert said.startswith("Saved as episode ")
    episode_id = said.split()[3].rstrip(".")
    stored = memory.episode("alice", episode_id)
    assert stored.actor == "helper-bot" and stored.kind == "text"
    assert stored.reference_time == datetime(2024, 6, 9, tzinfo=UTC)
    assert stored.source_description == "remembered by an agent"
    assert "Already in memory" not in said
    assert "Miso" in alice.recall("Miso")
    assert "Miso" not in MemoryBinding(memory, "bob").recall("Miso")


def test_recall_as_of_never_later_than_bound(memory: Memory) -> None:
    alice = MemoryBinding(memory, "alice", as_of="2023-06-01")
    assert "lives in Berlin" in alice.recall("Alice Berlin")
    assert alice.recall("Alice Berlin", as_of="2022-06-01") == "Nothing in memory matches 'Alice Berlin'."
    with pytest.raises(InvalidInputError, match="as_of: must not be after 2023-06-01"):
        alice.recall("Alice", as_of="2024-01-01")
    then = MemoryBinding(memory, "alice", as_of="2024-06-01").recall("where does Alice work")
    assert "Alice works at Acme Robotics (since 2024-05-01)" in then
    assert "Initech" not in then and "2025" not in then  # neither the later job nor the end of this one
    assert "lives in Berlin" in MemoryBinding(memory, "alice").recall("Alice Berlin", as_of="2024-01-01")


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda b: b.recall(""), "query"),
        (lambda b: b.recall("   "), "query"),
        (lambda b: b.recall("x" * 2001), "query"),
        (lambda b: b.recall("Alice", limit=0), "limit"),
        (lambda b: b.recall("Alice", limit=26), "limit"),
        (lambda b: b.recall("Alice", limit=True), "limit"),
        (lambda b: b.recall("Alice", as_of="yesterday"), "as_of"),
        (lambda b: b.remember(""), "content"),
        (lambda b: b.remember("a\x00b"), "content"),
        (lambda b: b.remember("x" * 20_001), "content"),
        (lambda b: b.remember("Alice likes tea.", when="soon"), "when"),
        (lambda b: b.documents("Alice", mode="nearest"), "mode"),
    ],
)
def test_bad_arguments_are_named_and_store_nothing(bare: Memory, call, field: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInputError) as caught:
        call(MemoryBinding(bare, "alice"))
    assert caught.value.field == field
    assert bare.episodes("alice") == []


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"group_id": ""}, "group_id"),
        ({"group_id": " alice"}, "group_id"),
        ({"group_id": 7}, "group_id"),
        ({"as_of": "not a time"}, "as_of"),
        ({"known_at": 3}, "known_at"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": 49}, "max_tokens"),
        ({"max_tokens": 100_001}, "max_tokens"),
        ({"recall_limit": 26}, "recall_limit"),
        ({"actor": ""}, "actor"),
        ({"memory": "memory.db"}, "memory"),
    ],
)
def test_binding_checks_its_options(bare: Memory, options: dict, field: str) -> None:  # type: ignore[type-arg]
    args = {"memory": bare, "group_id": "alice", **options}
    with pytest.raises(InvalidInputError) as caught:
        MemoryBinding(args.pop("memory"), args.pop("group_id"), **args)
    assert caught.value.field == field


def test_search_documents_carry_metadata(memory: Memory) -> None:
    found = MemoryBinding(memory, "alice").documents("Alice Berlin", mode="search")
    fact = next(p for p in found if p.kind == "fact" and "Berlin" in p.text)
    assert fact.text == "Alice lives in Berlin (since 2023-01-01)"
    assert fact.metadata["valid_at"] == "2023-01-01T00:00:00+00:00" and fact.metadata["invalid_at"] is None
    assert fact.metadata["episodes"] and fact.metadata["uuid"] == fact.uuid
    assert isinstance(fact.metadata["score"], float)
    kinds = [p.kind for p in found]
    assert kinds == sorted(kinds, key=["fact", "entity", "episode", "community"].index)
    assert all(p.metadata["group_id"] == "alice" for p in found)


def test_sync_memory_from_async_code(memory: Memory) -> None:
    alice = MemoryBinding(memory, "alice")

    async def main() -> tuple[str, str]:
        said = await alice.aremember("Alice plays the cello.")
        return said, await alice.arecall("cello")

    said, recalled = asyncio.run(main())
    assert said.startswith("Saved as episode") and "cello" in recalled


def test_async_memory_async_calls_and_sync_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    async def main() -> None:
        async with AsyncMemory(tmp_path / "m.db", model=None) as memory:
            alice = MemoryBinding(memory, "alice")
            assert alice.is_async
            assert (await alice.aremember("Alice lives in Lisbon.")).startswith("Saved as episode")
            assert "Lisbon" in await alice.arecall("where does Alice live")
            assert [p.kind for p in await alice.adocuments("Lisbon", mode="search")][0] == "fact"
            with pytest.raises(KronographError, match="AsyncMemory: call it asynchronously"):
                alice.recall("Lisbon")

    asyncio.run(main())


def test_remembered_text_says_what_was_retired(memory: Memory) -> None:
    alice = MemoryBinding(memory, "alice")
    said = alice.remember("Alice moved to Munich.", when="2025-01-10")
    assert "Learned: Alice lives in Munich (since 2025-01-10)" in said
    assert "No longer true: Alice lives in Berlin (2023-01-01 to 2025-01-10)" in said
    assert alice.remember("Alice moved to Munich.", when="2025-01-10").startswith("Saved as episode")
    assert "No new fact" in alice.remember("Hello there!")


# -- the context block (memory.context) -------------------------------------------------
def test_get_context_is_the_block(memory: Memory) -> None:
    text = MemoryBinding(memory, "alice", max_tokens=300).get_context("where does Alice work")
    assert text == memory.context("alice", "where does Alice work", max_tokens=300).text
    assert "Alice works at Initech (since 2025-01-01" in text


def test_get_context_as_of_holds_nothing_later(memory: Memory) -> None:
    alice = MemoryBinding(memory, "alice", as_of="2024-06-01")
    text = alice.get_context("where does Alice work")
    assert "Alice works at Acme Robotics (since 2024-05-01)" in text
    assert "Initech" not in text and "2025" not in text
    assert "Acme" not in alice.get_context("where does Alice work", as_of="2024-01-01")
    with pytest.raises(InvalidInputError, match="as_of: must not be after"):
        alice.get_context("where does Alice work", as_of="2025-01-01")


def test_context_documents_are_what_went_into_the_block(memory: Memory) -> None:
    query = "where does Alice work"
    block = memory.context("alice", query, max_tokens=400)
    docs = MemoryBinding(memory, "alice", max_tokens=400).documents(query)
    assert block.user is not None and block.user.uuid not in [h.item.uuid for h in block.entities]
    expected = [h.item.uuid for h in block.facts] + [block.user.uuid] + [
        h.item.uuid for scope in (block.entities, block.episodes) for h in scope]
    assert [p.uuid for p in docs] == expected
    user = next(p for p in docs if p.metadata.get("user"))
    assert user.kind == "entity" and user.text.startswith("Alice: ")
    initech = next(p for p in docs if p.kind == "fact" and "Initech" in p.text)
    assert initech.text == "Alice works at Initech (since 2025-01-01)"
    assert initech.metadata["episodes"] and initech.metadata["valid_at"] == "2025-01-01T00:00:00+00:00"
    episode = next(p for p in docs if p.kind == "episode")
    assert episode.text.startswith("[2025-02-01] Alice: ") or episode.text.startswith("[2024-05-01] Alice: ")
    assert [p.kind for p in MemoryBinding(memory, "alice").documents(query, scopes=["facts"])] == ["fact"] * len(
        memory.context("alice", query, scopes=["facts"]).facts)


def test_context_documents_as_of_tell_nothing_later(memory: Memory) -> None:
    docs = MemoryBinding(memory, "alice", as_of="2024-06-01").documents("where does Alice work")
    assert docs and not any("Initech" in p.text or "2025" in p.text for p in docs)
    acme = next(p for p in docs if p.kind == "fact" and "Acme" in p.text)
    assert acme.metadata["invalid_at"] is None  # it ended in 2025: not known in 2024
    for later in (MemoryBinding(memory, "alice", as_of="2025-06-01"), MemoryBinding(memory, "alice")):
        acme = next(p for p in later.documents("Acme Robotics") if p.kind == "fact" and "works at Acme" in p.text)
        assert acme.text == "Alice works at Acme Robotics (2024-05-01 to 2025-01-01)"
        assert acme.metadata["invalid_at"] == "2025-01-01T00:00:00+00:00"
