"""Shared fixtures. ``backend`` parametrises store-level tests over every store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kronograph.store import SQLiteStore, Store

from . import citus_server, pg_server

BACKENDS = ["sqlite-memory", "sqlite-file", "postgres"]


def make_store(backend: str, directory: Path, name: str, *, threaded: bool = False) -> Store:
    """A fresh, empty store of one backend (for PostgreSQL, a new database)."""
    if backend == "sqlite-memory":
        return SQLiteStore(":memory:", threaded=threaded)
    if backend == "sqlite-file":
        return SQLiteStore(directory / f"{name}.db", threaded=threaded)
    from kronograph.store.postgres import PostgresStore

    return PostgresStore(pg_server.databases().fresh(), min_size=0, max_size=4)


def pytest_sessionfinish(session: pytest.Session) -> None:
    try:
        pg_server.shutdown()
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


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., Store]:
    """A factory of fresh, empty stores of one backend (each call: a new store)."""
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
