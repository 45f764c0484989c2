"""Found reviewing the PostgreSQL backend: each test is a bug seen (or a
difference from SQLite), fixed unless marked ``xfail``."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import psycopg
import pytest

from kronograph import InvalidInputError, Memory
from kronograph.embed import HashingEmbedder
from kronograph.errors import StoreError
from kronograph.model import Entity
from kronograph.store import SQLiteStore, Store
from kronograph.store.plan import Plan
from kronograph.store.postgres import PostgresStore

from . import pg_server

NOW = datetime(2025, 1, 1, tzinfo=UTC)


def on_store(backend: Callable[..., Store], check: Callable[[Store], Awaitable[None]]) -> None:
    async def go() -> None:
        store = backend()
        await store.open()
        try:
            await check(store)
        finally:
            await store.close()

    asyncio.run(go())


def _entity_plan(uuid: str, *, aliases: tuple[str, ...] = (), revision: int | None = None) -> Plan:
    plan = Plan(group_id="g", now=NOW, expected_revision=revision)
    plan.new_entities.append(Entity(uuid=uuid, group_id="g", name=uuid, aliases=aliases, created_at=NOW))
    return plan


# -- writes: the same effects as SQLite's ------------------------------------------
def test_adding_aliases_gives_sqlites_union_distinct_and_in_byte_order(backend: Callable[..., Store]) -> None:
    """SQLite writes the UNION of the aliases (distinct, sorted); PostgreSQL
    appended the new one, and left the list as it was for a known alias."""

    async def check(store: Store) -> None:
        await store.apply(_entity_plan("e1", aliases=("Zed", "Mid")))
        plan = Plan(group_id="g", now=NOW, expected_revision=None)
        plan.entity_aliases.append(("e1", "Zed"))  # known already
        await store.apply(plan)
        assert (await store.entities("g"))[0].aliases == ("Mid", "Zed")
        plan = Plan(group_id="g", now=NOW, expected_revision=None)
        plan.entity_aliases += [("e1", "Alpha"), ("e1", "Émile"), ("e1", "Alpha")]
        await store.apply(plan)
        assert (await store.entities("g"))[0].aliases == ("Alpha", "Mid", "Zed", "Émile")

    on_store(backend, check)


def test_an_embedder_of_more_dimensions_than_hnsw_indexes_works(backend: Callable[..., Store]) -> None:
    """pgvector's HNSW takes at most 2,000 dimensions: with 3,072 (OpenAI's
    text-embedding-3-large) opening the memory failed on building the index."""
    with Memory(backend(), model=None, embedder=HashingEmbedder(3072)) as memory:
        added = memory.add_fact("g", "Alice", "WORKS_AT", "Acme")
        found = memory.search("g", "Alice works at Acme", scopes=["facts"], recipe="cosine")
        assert [hit.item.uuid for hit in found.facts] == [added.fact.uuid]


# -- errors: a kronograph error, nothing reported wrongly ------------------------------
def test_a_unit_of_work_on_an_unreachable_server_is_a_store_error() -> None:
    store = PostgresStore(f"postgresql://kg:s3cret@127.0.0.1:{pg_server.free_port()}/memory", timeout=1)

    async def go() -> None:
        async with store.unit("g"):
            pass

    with pytest.raises(StoreError) as caught:
        asyncio.run(go())
    assert "s3cret" not in str(caught.value)


def test_a_password_given_as_a_url_parameter_is_hidden() -> None:
    store = PostgresStore(f"postgresql://kg@127.0.0.1:{pg_server.free_port()}/memory?password=s3cret", timeout=1)
    assert "s3cret" not in repr(store)
    with pytest.raises(StoreError) as caught:
        asyncio.run(store.open())
    assert "s3cret" not in str(caught.value)


def test_a_statistics_refresh_that_fails_does_not_fail_the_committed_write() -> None:
    """After some commits a store runs ANALYZE; when that failed (here a
    lock_timeout while another session holds a table), apply raised a
    StoreError for a plan it had committed."""
    url = pg_server.databases().fresh()
    store = PostgresStore(url + "?options=-c%20lock_timeout%3D300", min_size=0, max_size=2)

    async def go() -> None:
        await store.open()
        store._commits = 99  # the next commit is the 100th: statistics are refreshed after it
        with psycopg.connect(url) as other:
            other.execute("LOCK TABLE facts IN SHARE UPDATE EXCLUSIVE MODE")  # as a VACUUM would
            await store.apply(_entity_plan("e1", revision=0))
            other.rollback()
        assert [e.uuid for e in await store.entities("g")] == ["e1"]
        await store.close()

    asyncio.run(go())


def test_an_index_of_ones_own_named_like_kronographs_does_not_stop_opening() -> None:
    url = pg_server.databases().fresh()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE INDEX facts_embedding_old ON facts(group_id)")
    with Memory(PostgresStore(url, min_size=0, max_size=2), model=None) as memory:
        memory.add_fact("g", "A", "R", "B")
        assert len(memory.facts("g")) == 1


# -- differences left: each needs a change outside the PostgreSQL store ---------------
def test_text_with_a_nul_character_is_refused_alike(backend: Callable[..., Store]) -> None:
    with Memory(backend(), model=None) as memory, pytest.raises(InvalidInputError):
        memory.add_fact("g", "Ali\x00ce", "KNOWS", "Bob")


def test_metadata_with_nan_is_refused_alike(backend: Callable[..., Store]) -> None:
    with Memory(backend(), model=None) as memory, pytest.raises(InvalidInputError):
        memory.add_episode("g", "Alice works at Acme.", metadata={"score": math.nan})


@pytest.mark.xfail(
    strict=True,
    reason="jsonb keeps numbers as numeric: a float written 1.5e+300 comes back as an int of another value"
    " (1e+20 as the int 10**20); keeping JSON as written needs json columns instead (a schema migration)",
)
def test_json_numbers_come_back_as_sqlite_gives_them() -> None:
    metadata = {"big": 1.5e300, "round": 1e20}
    answers = []
    for store in (SQLiteStore(":memory:"), PostgresStore(pg_server.databases().fresh(), min_size=0, max_size=2)):
        with Memory(store, model=None) as memory:
            memory.add_episode("g", "Alice works at Acme.", metadata=metadata, episode_id="e1")
            found = memory.episodes("g")[0].metadata
            answers.append({k: (type(v).__name__, v) for k, v in found.items()})
    assert answers[0] == answers[1]


def test_a_nul_in_an_episode_or_its_metadata_is_refused_alike(backend: Callable[..., Store]) -> None:
    with Memory(backend(), model=None) as memory:
        with pytest.raises(InvalidInputError, match="content"):
            memory.add_episode("g", "Alice works\x00 at Acme.")
        with pytest.raises(InvalidInputError, match="metadata"):
            memory.add_episode("g", "Alice works at Acme.", metadata={"note": "a\x00b"})
        with pytest.raises(InvalidInputError, match="metadata"):
            memory.add_episode("g", "Alice works at Acme.", metadata={"score": math.inf})
        assert memory.episodes("g") == []


# -- found reviewing the shared plan rows, validation and replicas ---------------------
def test_metadata_with_a_literal_backslash_u0000_is_kept(backend: Callable[..., Store]) -> None:
    """The six characters ``\\u0000`` in a string are not a NUL: the check
    looked for them in the JSON text, where a backslash is escaped."""
    with Memory(backend(), model=None) as memory:
        memory.add_episode("g", "Alice works at Acme.", metadata={"path": "C:\\u0000dir"}, episode_id="e1")
        assert memory.episodes("g")[0].metadata == {"path": "C:\\u0000dir"}


@pytest.mark.parametrize(
    "content",
    [{"name": "Ali\x00ce", "employer": {"name": "Acme"}}, '{"name": "Ali\\u0000ce", "employer": {"name": "Acme"}}'],
    ids=["object", "text"],
)
def test_a_nul_in_a_json_episode_is_refused_alike(backend: Callable[..., Store], content: object) -> None:
    """A NUL inside JSON (escaped as \\u0000 in its text) became an entity's
    name: SQLite stored it, PostgreSQL failed the episode (retryable, forever)."""
    with Memory(backend(), model=None) as memory:
        with pytest.raises(InvalidInputError, match="content"):
            memory.add_episode("g", content, kind="json")
        memory.add_episode("g", '{"name": "Carol\\\\u0000", "employer": {"name": "Acme"}}', kind="json")
        assert memory.episodes("g")[0].status == "complete"


def test_a_nul_in_previous_episode_ids_is_refused_alike(backend: Callable[..., Store]) -> None:
    with Memory(backend(), model=None) as memory, pytest.raises(InvalidInputError, match="previous_episode_ids"):
        memory.add_episode("g", "Alice works at Acme.", previous_episode_ids=["a\x00b"])
