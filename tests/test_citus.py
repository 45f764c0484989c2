"""The Citus cluster of the test set-up works: its workers are active, and a
distributed table's rows are routed to shards on them."""

from __future__ import annotations

import asyncio
import tarfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from . import citus_build, citus_server


@pytest.fixture(scope="module")
def coordinator() -> str:
    return citus_server.coordinator_url()


@pytest.fixture
def cluster(coordinator: str) -> Iterator[citus_server.CitusCluster]:
    """The tests' own cluster; the databases a test makes on it are dropped after it."""
    cluster = citus_server.cluster()
    if cluster is None:
        pytest.skip("needs the tests' own cluster (a database made on every node)")
    try:
        yield cluster
    finally:
        cluster.drop_databases()


def test_workers_are_active(coordinator: str) -> None:
    with psycopg.connect(coordinator, autocommit=True) as conn:
        workers = conn.execute("SELECT node_name, node_port FROM citus_get_active_worker_nodes()").fetchall()
        extensions = {row[0] for row in conn.execute("SELECT extname FROM pg_extension")}
    assert len(workers) >= 2
    assert {"citus", "vector"} <= extensions
    cluster = citus_server.cluster()
    if cluster is not None:  # our own: exactly its workers
        assert sorted(port for _, port in workers) == sorted(node.port for node in cluster.workers)


def test_distributed_table_routes_to_shards(coordinator: str) -> None:
    table = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(coordinator, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {table} (group_id TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (group_id, n))")
        try:
            conn.execute(f"SELECT create_distributed_table('{table}', 'group_id')")
            groups = [f"g{i}" for i in range(16)]
            with conn.cursor() as cur:
                cur.executemany(f"INSERT INTO {table}(group_id, n) VALUES (%s, %s)",
                                [(g, n) for g in groups for n in range(3)])
            placements = conn.execute(
                "SELECT count(DISTINCT nodeport) FROM citus_shards WHERE table_name = %s::regclass", (table,)
            ).fetchone()
            assert placements is not None and placements[0] >= 2  # shards on more than one worker
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (48,)
            assert conn.execute(f"SELECT sum(n) FROM {table} WHERE group_id = 'g3'").fetchone() == (3,)
            plan = "\n".join(
                row[0] for row in conn.execute(f"EXPLAIN SELECT n FROM {table} WHERE group_id = 'g3'")
            )
            assert "Task Count: 1" in plan  # one group: routed to its one shard
            fanned = "\n".join(row[0] for row in conn.execute(f"EXPLAIN SELECT count(*) FROM {table}"))
            assert "Task Count: 1\n" not in fanned
        finally:
            conn.execute(f"DROP TABLE IF EXISTS {table}")


def _archive_with_configure(path: Path, script: str) -> None:
    """A source archive whose ./configure is ``script`` (a build that fails where we say)."""
    configure = path.parent / "configure"
    configure.write_text(script)
    configure.chmod(0o755)
    with tarfile.open(path, "w:gz") as tar:
        tar.add(configure, arcname="./configure")


def test_failed_build_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(citus_build.CACHE_ENV, str(tmp_path / "cache"))
    source = tmp_path / "vendor" / "citus-broken.tar.gz"
    source.parent.mkdir()
    _archive_with_configure(source, "#!/bin/sh\necho 'checking for a thing that is not here... no'\nexit 3\n")
    with pytest.raises(citus_build.BuildError, match="(?s)configure.*exit 3.*a thing that is not here"):
        citus_build.citus_install(source)
    assert not [p for p in (tmp_path / "cache" / "kronograph-tests").iterdir() if p.is_dir()]  # nothing cached


def test_archive_checked_against_its_sums(tmp_path: Path) -> None:
    source = tmp_path / "citus-x.tar.gz"
    _archive_with_configure(source, "#!/bin/sh\nexit 0\n")
    (tmp_path / "SHA256SUMS").write_text(f"{'0' * 64}  {source.name}\n")
    with pytest.raises(citus_build.BuildError, match="SHA256SUMS"):
        citus_build.checked_sha256(source)


def test_skipped_without_archive_or_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(citus_server.URL_ENV, raising=False)
    monkeypatch.setenv(citus_build.ARCHIVE_ENV, str(tmp_path / "missing.tar.gz"))
    why = citus_server.unavailable()
    assert why is not None and citus_server.URL_ENV in why
    monkeypatch.setenv(citus_server.URL_ENV, "postgresql://somewhere/memory")
    assert citus_server.unavailable() is None


def test_memory_on_the_cluster_distributes_its_schema(coordinator: str) -> None:
    from datetime import UTC, datetime

    from kronograph import Memory
    from kronograph.store.postgres.schema import GROUP_TABLES, STORE_TABLES

    group = f"g-{uuid.uuid4().hex[:12]}"  # the cluster's database is shared by the tests: a group of our own
    with Memory(coordinator, model=None) as memory:
        memory.add_fact(group, "Alice", "LIVES_IN", "Paris", valid_at=datetime(2024, 1, 1, tzinfo=UTC))
        memory.add_episode(group, "Alice moved to Lyon in 2025. Alice works at Acme.",
                           reference_time=datetime(2025, 6, 1, tzinfo=UTC), episode_id="e1").raise_for_status()
        facts = {(f.subject, f.relation, f.object) for f in memory.facts(group, include_retired=True)}
        assert ("Alice", "LIVES_IN", "Paris") in facts
        assert any(f[2] == "Lyon" for f in facts), facts
        assert memory.facts(f"{group}-other") == []
        found = memory.search(group, "Alice Lyon").facts  # vectors and full text, on the group's shard
        assert any(hit.item.subject == "Alice" and hit.item.episodes == ("e1",) for hit in found)
    with psycopg.connect(coordinator, autocommit=True) as conn:
        kinds = dict(conn.execute(
            "SELECT table_name::text, citus_table_type || ':' || coalesce(distribution_column, '-')"
            " || ':' || colocation_id FROM citus_tables"
        ).fetchall())
        groups_kind = kinds["groups"]
        assert groups_kind.startswith("distributed:group_id:")
        for table in GROUP_TABLES:  # distributed by group, all co-located with groups
            assert kinds.get(table) == groups_kind, (table, kinds.get(table))
        for table in STORE_TABLES:
            assert str(kinds.get(table)).startswith("reference:"), table
        assert "schema_migrations" not in kinds  # the coordinator's own bookkeeping
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN SELECT * FROM facts WHERE group_id = %s", (group,)))
        assert "Task Count: 1" in plan
    assert not asyncio.run(_distribute_again(coordinator))  # once distributed, opening changes nothing


async def _distribute_again(url: str) -> bool:
    from kronograph.store.postgres.citus import distribute
    from kronograph.store.postgres.schema import GROUP_TABLES, LOCK_SPACE, STORE_TABLES

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        return await distribute(conn, GROUP_TABLES, STORE_TABLES, (LOCK_SPACE, 0))


def _foreign_keys(url: str) -> set[tuple[str, str]]:
    with psycopg.connect(url) as conn:
        return {(str(t), str(d)) for t, d in conn.execute(
            "SELECT conrelid::regclass::text, pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE contype = 'f' AND connamespace = 'public'::regnamespace"
        )}


def test_a_memory_with_rows_is_distributed_when_citus_comes(cluster: citus_server.CitusCluster) -> None:
    from datetime import UTC, datetime

    from kronograph import Memory

    name = f"kg_{uuid.uuid4().hex[:12]}"
    url = cluster.fresh_database(name, citus=False)  # a plain PostgreSQL memory first
    with Memory(url, model=None) as memory:
        memory.add_fact("g", "Alice", "LIVES_IN", "Paris", valid_at=datetime(2024, 1, 1, tzinfo=UTC))
        memory.add_fact("g", "Alice", "LIVES_IN", "Lyon", valid_at=datetime(2025, 1, 1, tzinfo=UTC))
        memory.add_episode("g", "Bob works at Acme.", reference_time=datetime(2025, 6, 1, tzinfo=UTC),
                           episode_id="e1").raise_for_status()
        before = sorted((f.subject, f.relation, f.object, f.valid_at, f.invalid_at)
                        for f in memory.facts("g", include_retired=True))
    keys = _foreign_keys(url)
    assert keys
    cluster.add_citus(name)
    with Memory(url, model=None) as memory:  # opening distributes the tables, rows and all
        after = sorted((f.subject, f.relation, f.object, f.valid_at, f.invalid_at)
                       for f in memory.facts("g", include_retired=True))
        memory.add_fact("g", "Bob", "LIVES_IN", "Nantes")
        assert any(f.object == "Nantes" for f in memory.facts("g"))
    assert after == before
    assert _foreign_keys(url) == keys  # every key back, as it was
    with psycopg.connect(url) as conn:
        assert conn.execute(
            "SELECT count(*) FROM citus_tables WHERE table_name = 'facts'::regclass"
            " AND citus_table_type = 'distributed'"
        ).fetchone() == (1,)
        assert conn.execute("SELECT count(*) FROM facts").fetchone() == (len(before) + 1,)


def _table_kinds(url: str) -> dict[str, str]:
    with psycopg.connect(url) as conn:
        return {str(t): str(k) for t, k in conn.execute(
            "SELECT table_name::text, citus_table_type || ':' || colocation_id FROM citus_tables"
        )}


def test_an_old_schema_on_citus_migrates_distributed(
    cluster: citus_server.CitusCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kronograph import Memory
    from kronograph.store.postgres import schema

    url = cluster.fresh_database(f"kg_{uuid.uuid4().hex[:12]}")
    latest = list(schema.MIGRATIONS)
    # Version 3: before sagas, communities, group settings and the reply cache keyed by group.
    monkeypatch.setattr(schema, "MIGRATIONS", [m for m in latest if m[0] <= 3])
    asyncio.run(_open(url))
    old = _table_kinds(url)
    assert old["facts"] == old["groups"] and old["groups"].startswith("distributed:")
    assert "model_replies" not in old  # keyed by prompt alone: Citus could not distribute it by group
    monkeypatch.setattr(schema, "MIGRATIONS", latest)
    with Memory(url, model=None) as memory:  # migrates the rest on the distributed tables
        memory.add_fact("g", "Alice", "LIVES_IN", "Paris")
        assert [f.object for f in memory.facts("g")] == ["Paris"]
        memory.add_fact("g", "Zed", "LIVES_IN", "Oslo", data_subject="c1")
        memory.forget("g", data_subject="c1")  # an erasure receipt, on the shard of the group
    kinds = _table_kinds(url)
    assert {t: kinds.get(t) for t in schema.GROUP_TABLES} == {t: old["groups"] for t in schema.GROUP_TABLES}
    import psycopg

    with psycopg.connect(url) as conn, pytest.raises(psycopg.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM erasure_log")  # the trigger went to the shards with the table


async def _open(url: str) -> None:
    from kronograph.store.postgres import PostgresStore

    store = PostgresStore(url, min_size=0, max_size=1)
    await store.open()
    await store.close()


def test_kronograph_migrate_into_citus(cluster: citus_server.CitusCluster, tmp_path: Path) -> None:
    from kronograph.migrate import migrate_memory_sync

    from .test_migrate import build_memory

    source = build_memory(tmp_path / "memory.db")  # four groups, every table used
    target = cluster.fresh_database(f"kg_{uuid.uuid4().hex[:12]}")
    report = migrate_memory_sync(source, target, sample=3)  # copied, counted, and sampled answers compared
    assert report.ok, report.verification
    assert report.groups == 4
    kinds = _table_kinds(target)
    assert kinds["facts"] == kinds["groups"] and kinds["groups"].startswith("distributed:")
