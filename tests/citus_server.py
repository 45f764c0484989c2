"""A Citus cluster for the tests: a coordinator and two workers, each an
:class:`EmbeddedPostgres` running the private tree that :mod:`.citus_build`
makes, with Citus and pgvector in its ``postgres`` database. One cluster per
test worker process (xdist), started on first use and stopped at the end of
the session (and at exit, whatever happened).

``KRONOGRAPH_TEST_CITUS_URL`` points the tests at a coordinator of your own
instead (its database must have both extensions and its workers added).
Test isolation cannot copy a template database (``CREATE DATABASE …
TEMPLATE`` makes no shards on the workers): each test uses groups or tables
of its own, or, on the tests' own cluster, a database made on every node
(:meth:`CitusCluster.fresh_database`; skipped on a cluster given by URL).
Where there is neither an archive to build nor a URL, the Citus tests are
skipped, saying why; under ``CI=true`` that is a failure.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from kronograph.store.postgres.embedded import EmbeddedPostgres

from . import citus_build

URL_ENV = "KRONOGRAPH_TEST_CITUS_URL"
WORKERS = 2

# Few shards (Citus makes 32 a table by default): a test cluster holds little,
# and every distributed table costs a table per shard on the workers.
SETTINGS = {
    "shared_preload_libraries": "citus",
    "citus.shard_count": "4",
    "wal_level": "logical",  # moving shards (rebalancing, isolating a tenant) replicates them logically
    "max_worker_processes": "32",
    # A background job (citus_rebalance_start) waits for the next check of the task
    # queue to start: every 5 s by default, a fifth of a second here.
    "citus.background_task_queue_interval": "200ms",
}


class CitusCluster:
    """A coordinator and its workers on free ports of 127.0.0.1."""

    def __init__(self, install: Path, workers: int = WORKERS) -> None:
        self.install = install
        self.nodes: list[EmbeddedPostgres] = []
        self.made: list[str] = []  # databases fresh_database made, until dropped
        try:
            self._start(install, 1 + workers)
            for node in self.nodes:
                _admin(node.url, "CREATE EXTENSION IF NOT EXISTS citus", "CREATE EXTENSION IF NOT EXISTS vector")
            coordinator, *rest = self.nodes
            _admin(coordinator.url, f"SELECT citus_set_coordinator_host('127.0.0.1', {coordinator.port})",
                   *(f"SELECT citus_add_node('127.0.0.1', {node.port})" for node in rest))
        except BaseException:
            self.stop()
            raise
        self.url = coordinator.url

    def _start(self, install: Path, count: int) -> None:
        """Start the nodes side by side (initdb and start take a second or two each)."""
        failed: list[BaseException] = []
        lock = threading.Lock()

        def start() -> None:
            try:
                node = EmbeddedPostgres(install=install, settings=SETTINGS)
            except BaseException as exc:  # raised on the caller's thread below
                failed.append(exc)
                return
            with lock:
                self.nodes.append(node)

        threads = [threading.Thread(target=start) for _ in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failed:
            raise failed[0]

    @property
    def workers(self) -> list[EmbeddedPostgres]:
        return self.nodes[1:]

    def fresh_database(self, name: str, *, citus: bool = True, keep: bool = False) -> str:
        """A new database on every node, with both extensions and the workers
        added (about 1.5 s), for a test that needs an empty cluster database
        (a template would make no shards); returns the coordinator's URL of
        it. ``citus=False`` leaves the coordinator's a plain PostgreSQL
        database until :meth:`add_citus` (a memory that moves onto Citus).
        :meth:`drop_databases` drops it after the test, unless ``keep`` (it
        goes with the nodes)."""
        if not keep:
            self.made.append(name)
        for node in self.nodes:
            _admin(node.url, f'CREATE DATABASE "{name}"')
        for node in self.workers:
            _admin(node.database_url(name), "CREATE EXTENSION citus", "CREATE EXTENSION vector")
        if citus:
            self.add_citus(name)
        return self.nodes[0].database_url(name)

    def drop_databases(self) -> None:
        """Drop the databases :meth:`fresh_database` made, on every node: each
        database with Citus keeps a maintenance daemon (a background worker
        and its connections) on every node while it exists."""
        made, self.made = self.made, []
        for name in made:
            for node in self.nodes:
                _admin(node.url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def add_citus(self, name: str) -> None:
        """Citus on the coordinator's database ``name``, with the workers added."""
        coordinator = self.nodes[0]
        _admin(coordinator.database_url(name), "CREATE EXTENSION IF NOT EXISTS citus",
               "CREATE EXTENSION IF NOT EXISTS vector",
               f"SELECT citus_set_coordinator_host('127.0.0.1', {coordinator.port})",
               *(f"SELECT citus_add_node('127.0.0.1', {node.port})" for node in self.workers))

    def extra_node(self, database: str) -> EmbeddedPostgres:
        """A node more, of the same build and settings, with ``database``
        made on it with both extensions: a worker for a test to add to that
        database (``citus_add_node``; Citus keeps its nodes per database).
        It is no node of the cluster's: the caller stops it."""
        node = EmbeddedPostgres(install=self.install, settings=SETTINGS)
        try:
            _admin(node.url, f'CREATE DATABASE "{database}"')
            _admin(node.database_url(database), "CREATE EXTENSION citus", "CREATE EXTENSION vector")
        except BaseException:
            node.stop()
            raise
        return node

    def stop(self) -> None:
        """Stop every node, even when one fails to stop."""
        nodes, self.nodes = self.nodes, []
        errors: list[BaseException] = []
        for node in nodes:
            try:
                node.stop()
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise errors[0]


def _admin(url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)  # type: ignore[arg-type]


_cluster: CitusCluster | None = None
_url: str | None = None
_failed: str | None = None  # why the cluster could not start, once it could not


def unavailable() -> str | None:
    """Why the Citus tests cannot run here, or None when they can."""
    if os.environ.get(URL_ENV) or citus_build.archive() is not None:
        return None
    return (f"no Citus: neither {URL_ENV} nor the source archive"
            f" (../shared/vendor/{citus_build.ARCHIVE_NAME} or ${citus_build.ARCHIVE_ENV})")


def coordinator_url() -> str:
    """The coordinator's URL, building Citus and starting the cluster on
    first use; skips the test where Citus is unavailable (fails it in CI)."""
    global _cluster, _url, _failed
    if _url is None:
        why = unavailable()
        if why is not None:
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(f"{why}, and CI must run the Citus tests")
            pytest.skip(why)
        if _failed is not None:  # tried once in this process: not built nor started again per test
            pytest.fail(f"the Citus cluster did not start: {_failed}")
        url = os.environ.get(URL_ENV)
        if not url:
            source = citus_build.archive()
            assert source is not None
            try:
                _cluster = CitusCluster(citus_build.citus_install(source))
            except Exception as exc:
                _failed = str(exc)
                raise
            url = _cluster.url
        _url = url
    return _url


def cluster() -> CitusCluster | None:
    """The cluster these tests started (None when pointed at one by URL)."""
    return _cluster


def shutdown() -> None:
    global _cluster, _url
    cluster, _cluster, _url = _cluster, None, None
    if cluster is not None:
        cluster.stop()
