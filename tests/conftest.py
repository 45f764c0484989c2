"""Shared fixtures. ``backend`` parametrises store-level tests over every
store: the three of :data:`BACKENDS` everywhere, and the Citus cluster too in
the modules that set ``ON_CITUS = True`` (the conformance suite, the shared
scenarios, the properties, search, the queue, forget, the service restart): the
cluster costs more per test than the CI budget would allow for every module."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kronograph.store import SQLiteStore, Store

from . import citus_server, citus_stores, pg_server

BACKENDS = ["sqlite-memory", "sqlite-file", "postgres"]
CITUS = "citus"  # the fourth backend: a coordinator and two workers (tests/citus_server.py)


def make_store(backend: str, directory: Path, name: str, *, threaded: bool = False) -> Store:
    """A fresh, empty store of one backend (for PostgreSQL, a new database)."""
    if backend == "sqlite-memory":
        return SQLiteStore(":memory:", threaded=threaded)
    if backend == "sqlite-file":
        return SQLiteStore(directory / f"{name}.db", threaded=threaded)
    from kronograph.store.postgres import PostgresStore

    return PostgresStore(store_url(backend), min_size=0, max_size=4)


def store_url(backend: str) -> str:
    """A fresh, empty PostgreSQL store's URL: a new database, or on Citus an emptied schema."""
    if backend == CITUS:
        return citus_stores.fresh()
    assert backend == "postgres", backend
    return pg_server.databases().fresh()


def _parametrized_by_hand(metafunc: pytest.Metafunc, name: str) -> bool:
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0]
        if name in ([n.strip() for n in names.split(",")] if isinstance(names, str) else names):
            return True
    return False


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames and not _parametrized_by_hand(metafunc, "backend"):
        on_citus = getattr(metafunc.module, "ON_CITUS", False)
        metafunc.parametrize("backend", [*BACKENDS, *([CITUS] if on_citus else [])], indirect=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every Citus test in one xdist group (``make test`` runs ``--dist
    loadgroup``): one test process starts the cluster, not each."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_citus = "citus" in item.path.name or (callspec is not None and callspec.params.get("backend") == CITUS)
        if on_citus or item.name.endswith("_on_citus"):
            item.add_marker(pytest.mark.xdist_group("citus"))


def pytest_sessionfinish(session: pytest.Session) -> None:
    try:
        pg_server.shutdown()
    finally:
        try:
            citus_stores.shutdown()
        finally:
            citus_server.shutdown()


class StepClock:
    """A clock tests move by hand."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def set(self, when: datetime) -> None:
        self.now = when

    def tick(self, **delta: float) -> datetime:
        self.now += timedelta(**delta) if delta else timedelta(seconds=1)
        return self.now


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., Store]:
    """A factory of fresh, empty stores of one backend (each call: a new store)."""
    if request.param == CITUS:  # skip (or fail, in CI) here, not inside a test that catches exceptions
        citus_server.coordinator_url()
    counter = iter(range(1_000_000))

    def make(*, threaded: bool = False) -> Store:
        return make_store(request.param, tmp_path, f"memory-{next(counter)}", threaded=threaded)

    return make


@pytest.fixture
def memory_factory(backend: Callable[..., Store], clock: StepClock) -> Iterator[Callable[..., object]]:
    """Build ``Memory`` objects on the parametrised backend; closed at teardown."""
    from kronograph import Memory

    made: list[Memory] = []

    def make(**options: object) -> Memory:
        options.setdefault("clock", clock)
        memory = Memory(backend(), **options)  # type: ignore[arg-type]
        made.append(memory)
        return memory

    yield make
    for memory in made:
        memory.close()
