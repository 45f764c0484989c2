"""The runtime's lifecycle: what the library starts (threads, files, pools,
event loops, HTTP clients) starts on first use, survives the event loop that
used it ending, is closed by ``close()`` and released, with a
``ResourceWarning``, when a memory is dropped open. Hangs fail fast here
(short timeouts): the bug this guards against froze a test worker."""

from __future__ import annotations

import asyncio
import gc
import os
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from kronograph import AsyncMemory, ClosedError, Fact, InvalidInputError, Memory, StoreError, Verdict
from kronograph._portal import Portal
from kronograph.store import SQLiteStore, Store
from kronograph.store.sqlite import store as sqlite_store

from . import pg_server

G = "g1"


def new_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    """Threads started since ``before`` that are still alive, after a moment
    for ones that are ending (asyncio.run's executor, a stopped worker)."""
    for _ in range(100):
        extra = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not extra:
            return []
        time.sleep(0.05)
    return extra


def open_files(path: Path) -> list[str]:
    """This process's file descriptors on the database file (or its WAL)."""
    if not Path("/proc/self/fd").exists():
        pytest.skip("needs /proc")
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(path)):
            found.append(target)
    return found


def collect() -> None:
    for _ in range(3):  # a warning's source keeps an object one round longer
        gc.collect()


def dropped_warnings(drop: Callable[[], None]) -> list[str]:
    """The ResourceWarnings that ``drop`` (and collecting what it let go)
    raised; the warnings themselves, which hold their source, are let go too."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        drop()
        collect()
    messages = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    del caught
    collect()
    return messages


def finish(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what a test left parked on a stopped loop, let it unwind, and
    close the loop (what asyncio.run does at its end)."""
    tasks = asyncio.all_tasks(loop)
    for task in tasks:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
    loop.close()


class BlockingJudge:
    """An async judge that, while ``blocking``, parks the add_fact calling it
    (its group lock held) until the event loop it runs on goes away."""

    def __init__(self) -> None:
        self.blocking = True
        self.entered: asyncio.Event | None = None

    async def __call__(self, new: Fact, candidates: Sequence[Fact]) -> Verdict:
        if self.blocking:
            assert self.entered is not None
            self.entered.set()
            await asyncio.Event().wait()  # never set: the loop ends under it
        return Verdict()


# -- (a) a loop that ends while the store is working ------------------------------


class Parking:
    """Parks the first call of a store method on the worker thread until
    released: the worker is mid-work while the test ends the caller's loop.
    Calls on the test's own thread (a unit of work's, run inline) go by."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
        self.entered, self.release = threading.Event(), threading.Event()
        original, first = getattr(SQLiteStore, name), [True]

        def parked(store: SQLiteStore, *args: Any) -> Any:
            if first[0] and threading.current_thread() is not threading.main_thread():
                first[0] = False
                self.entered.set()
                self.release.wait(30)
            return original(store, *args)

        monkeypatch.setattr(SQLiteStore, name, parked)

    async def wait(self) -> None:
        assert await asyncio.to_thread(self.entered.wait, 30), "the call never reached the worker"


def write_lock_is_free(db: Path) -> bool:
    other = sqlite3.connect(db, timeout=5, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        other.close()


@pytest.mark.timeout(60)
def test_write_in_flight_when_its_loop_closes_leaves_the_sqlite_store_working(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker thread finishes a write whose caller's loop has closed
    (asyncio.run cancelled the caller and returned): it drops the answer and
    goes on; the memory works from a new loop and closes. The worker used to
    die on 'Event loop is closed', and every later call, close() too, waited
    forever."""
    db = tmp_path / "m.db"
    parking = Parking(monkeypatch, "_apply")
    memory = AsyncMemory(db, model=None)

    async def setup() -> str:
        await memory.add_fact(G, "alice", "works_at", "acme")  # a unit of work: on this thread
        return (await memory.add_fact(G, "alice", "works_at", "globex")).fact.uuid

    globex = asyncio.run(setup())

    async def first() -> None:
        asyncio.create_task(memory.remove_fact(G, globex))  # a plain write: on the store's thread
        await parking.wait()
        # returns with the write on the worker: asyncio.run cancels the caller and closes the loop

    asyncio.run(first())
    parking.release.set()  # the worker now finishes the write, for a loop that is gone

    async def second() -> list[str]:
        await memory.add_fact(G, "alice", "works_at", "initech")
        facts = sorted(f.fact for f in await memory.facts(G))
        await memory.aclose()
        return facts

    # the write handed over before the cancellation is whole (one transaction)
    assert asyncio.run(asyncio.wait_for(second(), 30)) == ["alice works_at acme", "alice works_at initech"]
    assert write_lock_is_free(db)


@pytest.mark.timeout(60)
def test_unit_cancelled_while_the_worker_begins_it_is_rolled_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A unit of work cancelled while the worker is still beginning it
    (waiting for another writer, say): once begun, it is rolled back in the
    worker's order, so no transaction is left open for the next loop's calls
    to fall into."""
    db = tmp_path / "s.db"
    parking = Parking(monkeypatch, "_begin")
    store = SQLiteStore(db)

    async def first() -> None:
        async def unit() -> None:
            async with store.unit(G):
                await store.claim_setting("cancelled", "1")

        asyncio.create_task(unit())
        await parking.wait()

    asyncio.run(first())
    parking.release.set()

    async def second() -> tuple[str | None, str | None]:
        async with store.unit(G):  # "cannot start a transaction within a transaction" had it been left open
            await store.claim_setting("later", "2")
        await store.claim_setting("outside", "3")
        found = await store.setting("cancelled"), await store.setting("later")
        await store.close()
        return found

    assert asyncio.run(asyncio.wait_for(second(), 30)) == (None, "2")
    assert write_lock_is_free(db)


@pytest.mark.timeout(60)
def test_unit_left_open_by_a_stopped_loop_is_rolled_back_and_cannot_commit_later(tmp_path: Path) -> None:
    """A task parked inside a unit of work on a loop that stopped (never
    cancelled) can never finish it: the next loop's first call rolls it back,
    and should the parked task ever resume, nothing of it commits alone."""
    store = SQLiteStore(tmp_path / "s.db")
    entered, resume = asyncio.Event(), asyncio.Event()
    outcome: list[BaseException] = []

    async def parked() -> None:
        async with store.unit(G):
            await store.claim_setting("first", "1")
            entered.set()
            await resume.wait()
            try:
                await store.claim_setting("second", "2")
            except StoreError as exc:
                outcome.append(exc)
                raise

    old = asyncio.new_event_loop()
    task = old.create_task(parked())
    old.run_until_complete(entered.wait())  # the loop stops with the unit open

    async def meanwhile() -> tuple[str | None, str | None]:
        async with store.unit(G):  # would fail: "cannot start a transaction within a transaction"
            await store.claim_setting("third", "3")
        return await store.setting("first"), await store.setting("third")

    assert asyncio.run(asyncio.wait_for(meanwhile(), 30)) == (None, "3")

    resume.set()
    with pytest.raises(StoreError, match="abandoned"):
        old.run_until_complete(task)
    old.close()
    assert outcome and isinstance(outcome[0], StoreError)

    async def after() -> tuple[str | None, ...]:
        found = (await store.setting("first"), await store.setting("second"), await store.setting("third"))
        await store.close()
        return found

    assert asyncio.run(after()) == (None, None, "3")


@pytest.mark.timeout(120)
def test_memory_moves_to_a_new_loop_after_a_call_was_cut_off(backend: Callable[..., Store]) -> None:
    """On every backend: an add_fact parked (its group lock held) when
    asyncio.run returned leaves a memory that the next asyncio.run uses and
    closes: the lock, the store's gate or pool of the old loop are not waited on."""
    judge = BlockingJudge()
    memory = AsyncMemory(backend(threaded=True), model=None, judge=judge)

    async def first() -> None:
        judge.entered = asyncio.Event()
        await memory.add_fact(G, "alice", "works_at", "acme")
        asyncio.create_task(memory.add_fact(G, "alice", "works_at", "globex"))
        await judge.entered.wait()

    asyncio.run(first())
    judge.blocking = False

    async def second() -> list[str]:
        await memory.add_fact(G, "alice", "works_at", "initech")
        facts = sorted(f.fact for f in await memory.facts(G))
        await memory.aclose()
        return facts

    assert asyncio.run(asyncio.wait_for(second(), 60)) == ["alice works_at acme", "alice works_at initech"]


# -- (e) a dead loop or a dead thread fails fast ------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the parked task, collected
def test_group_lock_held_by_a_task_of_a_closed_loop_is_not_waited_on(tmp_path: Path) -> None:
    """A loop closed with a task still holding a group's lock (no
    cancellation ran): the next loop's calls on that group do not wait forever."""
    judge = BlockingJudge()
    memory = AsyncMemory(tmp_path / "m.db", model=None, judge=judge)
    old = asyncio.new_event_loop()
    parked: list[asyncio.Task[Any]] = []  # held: a task collected early would release its lock

    async def start() -> None:
        judge.entered = asyncio.Event()
        await memory.add_fact(G, "alice", "works_at", "acme")
        parked.append(old.create_task(memory.add_fact(G, "alice", "works_at", "globex")))
        await judge.entered.wait()

    old.run_until_complete(start())
    old.close()  # the parked task is never cancelled: its lock stays held
    judge.blocking = False

    async def later() -> int:
        await memory.add_fact(G, "alice", "works_at", "initech")
        n = len(await memory.facts(G))
        await memory.aclose()
        return n

    assert asyncio.run(asyncio.wait_for(later(), 30)) == 2
    parked.clear()
    collect()


@pytest.mark.timeout(60)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_dead_worker_thread_fails_calls_fast_and_close_still_works(tmp_path: Path) -> None:
    memory = AsyncMemory(tmp_path / "m.db", model=None)

    async def run() -> None:
        await memory.groups()
        worker = memory.store._executor  # type: ignore[attr-defined]
        assert isinstance(worker, sqlite_store._Worker)

        def die(serving: list[Any]) -> bool:
            serving[0] = worker._queue.get()
            raise SystemExit  # with a call in hand (a thread ends quietly on SystemExit)

        # Armed by the worker itself, from inside a call: the loop's next turn
        # is then surely die's (set from here, the thread might already be
        # waiting inside the old _serve, and serve the next call as usual).
        await memory.store._run(lambda conn: setattr(worker, "_serve", die))  # type: ignore[attr-defined]
        with pytest.raises(StoreError, match="worker thread has died"):
            await asyncio.wait_for(memory.groups(), 10)  # the call it died on is answered
        with pytest.raises(StoreError, match="worker thread has died"):
            await asyncio.wait_for(memory.groups(), 10)  # and later ones at once
        await asyncio.wait_for(memory.aclose(), 10)
        with pytest.raises(ClosedError):
            await memory.groups()

    asyncio.run(run())
    assert not open_files(tmp_path / "m.db")


@pytest.mark.timeout(60)
def test_closed_store_refuses_calls_queued_behind_its_close(tmp_path: Path) -> None:
    """A call waiting at the store's gate when close() stops the worker is
    refused (ClosedError), not queued after the worker's end."""
    store = SQLiteStore(tmp_path / "s.db")

    async def run() -> list[object]:
        inside, release = asyncio.Event(), asyncio.Event()

        async def hold_the_gate() -> None:
            async with store.unit(G):
                await store.claim_setting("k", "v")
                inside.set()
                await release.wait()

        holder = asyncio.create_task(hold_the_gate())
        await inside.wait()
        waiting = asyncio.create_task(store.groups())  # waits at the gate, past the closed check
        await asyncio.sleep(0)
        await asyncio.wait_for(store.close(), 10)
        release.set()
        return await asyncio.wait_for(asyncio.gather(holder, waiting, return_exceptions=True), 10)

    outcomes = asyncio.run(run())
    assert all(isinstance(outcome, ClosedError) for outcome in outcomes), outcomes


def test_sync_memory_closed_refuses_calls_and_its_portal_too() -> None:
    memory = Memory(":memory:", model=None)
    memory.groups()
    memory.close()
    with pytest.raises(ClosedError):
        memory.groups()
    portal = Portal()
    portal.close()

    async def nothing() -> int:
        return 1

    with pytest.raises(ClosedError):
        portal.call(nothing())


# -- (b) refused arguments start nothing --------------------------------------------

BAD_ARGUMENTS = [
    {"context_episodes": -1},
    {"max_concurrency": 0},
    {"candidate_limit": 0},
    {"model": 42},
    {"embedder": "not an embedder"},
    {"judge": "not callable"},
    {"cross_encoder": object()},
]


@pytest.mark.parametrize("kind", [AsyncMemory, Memory], ids=["async", "sync"])
def test_refused_arguments_leave_no_thread_file_or_loop(kind: type, tmp_path: Path) -> None:
    before = set(threading.enumerate())
    db = tmp_path / "m.db"
    for arguments in BAD_ARGUMENTS * 3:
        with pytest.raises(InvalidInputError):
            kind(db, **arguments)
    with pytest.raises(InvalidInputError, match="store"):
        kind(123)  # type: ignore[arg-type]
    collect()
    assert new_threads(before) == []
    assert not db.exists()  # not even created
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a half-built memory does not warn when collected
        collect()


def test_stores_start_nothing_until_first_used(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    SQLiteStore(tmp_path / "a.db")
    asyncio.run(AsyncMemory(tmp_path / "b.db", model=None).aclose())  # made and closed, never used
    store = SQLiteStore(tmp_path / "c.db")
    assert new_threads(before) == [] and not any(tmp_path.iterdir())

    async def use() -> None:
        await store.groups()
        assert len(new_threads(before)) == 2  # the worker and the checkpointer, on first use
        await store.close()

    asyncio.run(use())
    assert new_threads(before) == []


# -- (d) a memory dropped open warns and lets go -------------------------------------


@pytest.mark.timeout(60)
def test_async_memory_dropped_open_warns_and_releases_thread_and_file(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    db = tmp_path / "m.db"
    memory = AsyncMemory(db, model=None)
    asyncio.run(memory.add_fact(G, "alice", "works_at", "acme"))
    assert open_files(db) and new_threads(before)
    held = [memory]
    del memory
    assert any("unclosed AsyncMemory" in m for m in dropped_warnings(held.clear))
    assert new_threads(before) == []
    assert open_files(db) == []
    with Memory(db, model=None) as again:  # what was written is there
        assert len(again.facts(G)) == 1


@pytest.mark.timeout(60)
def test_sync_memory_dropped_open_warns_and_releases_loop_and_file(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    db = tmp_path / "m.db"
    memory = Memory(db, model=None)
    memory.add_fact(G, "alice", "works_at", "acme")
    loop = memory._portal._loop
    assert loop is not None and open_files(db)
    held = [memory]
    del memory
    assert any("unclosed Memory" in m for m in dropped_warnings(held.clear))
    assert loop.is_closed()
    assert new_threads(before) == []
    assert open_files(db) == []


def test_closed_memories_do_not_warn(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        with Memory(tmp_path / "a.db", model=None) as memory:
            memory.groups()

        async def run() -> None:
            async with AsyncMemory(tmp_path / "b.db", model=None) as memory:
                await memory.groups()

        asyncio.run(run())
        del memory
        collect()


# -- model clients ---------------------------------------------------------------------


class ClosableProvider:
    name = "closable"
    model = "closable-test"
    small_model = None
    native_schema = True

    def __init__(self) -> None:
        self.closed = 0

    async def complete(self, **kwargs: Any) -> Any:
        raise AssertionError("not called: the episodes here are JSON")

    async def aclose(self) -> None:
        self.closed += 1


def test_memory_closes_the_model_client_it_made_and_not_one_passed_in(monkeypatch: pytest.MonkeyPatch) -> None:
    made = ClosableProvider()
    monkeypatch.setattr("kronograph.services.choose_provider", lambda settings=None: made)
    passed = ClosableProvider()

    async def run() -> None:
        for memory in (AsyncMemory(":memory:", model="auto"), AsyncMemory(":memory:", model=passed)):
            async with memory:
                await memory.add_episode(G, {"name": "Alice"}, kind="json")

    asyncio.run(run())
    assert (made.closed, passed.closed) == (1, 0)


# -- PostgreSQL: pools -------------------------------------------------------------------


def _pg_url() -> str:
    pytest.importorskip("psycopg_pool")
    return pg_server.databases().fresh()


def _connections(url: str, expected: int) -> int:
    """Server sessions on ``url``'s database, waiting a little for ones that
    are ending to go (a closed socket ends its backend soon, not at once)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for _ in range(200):
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
            assert row is not None
            if row[0] == expected:
                break
            time.sleep(0.05)
        return int(row[0])


@pytest.fixture
def pg_url() -> Iterator[str]:
    yield _pg_url()


@pytest.mark.timeout(120)
def test_postgres_pool_of_an_ended_loop_is_closed_when_replaced_and_on_close(pg_url: str) -> None:
    from kronograph.store.postgres import PostgresStore

    store = PostgresStore(pg_url, min_size=2, max_size=4)
    memory = AsyncMemory(store, model=None)
    pools = []  # held, so that only closing them (not collecting them) can end their sessions
    for _ in range(3):  # each asyncio.run: a new loop, a new pool; the last one's closed
        asyncio.run(memory.groups())
        pools.append(store._pool)
        assert _connections(pg_url, 2) == 2
    asyncio.run(memory.aclose())  # from yet another loop: the pool is still closed
    assert _connections(pg_url, 0) == 0


@pytest.mark.timeout(120)
def test_postgres_refused_arguments_open_nothing_and_a_dropped_memory_lets_go(pg_url: str) -> None:
    for arguments in BAD_ARGUMENTS:
        with pytest.raises(InvalidInputError):
            AsyncMemory(pg_url, **arguments)
        with pytest.raises(InvalidInputError):
            Memory(pg_url, **arguments)
    assert _connections(pg_url, 0) == 0

    memory = AsyncMemory(pg_url, model=None)
    asyncio.run(memory.groups())
    assert _connections(pg_url, 1) == 1
    held = [memory]
    del memory
    assert any("unclosed AsyncMemory" in m for m in dropped_warnings(held.clear))
    assert _connections(pg_url, 0) == 0


@pytest.mark.timeout(60)
def test_postgres_pool_that_fails_to_open_is_closed() -> None:
    pytest.importorskip("psycopg_pool")
    from psycopg_pool import PoolTimeout

    from kronograph.store.postgres.connection import Pool

    url = f"postgresql://nobody@127.0.0.1:{pg_server.free_port()}/none?connect_timeout=1"

    async def left_over() -> set[asyncio.Task[Any]]:
        await asyncio.sleep(0)
        return asyncio.all_tasks() - {asyncio.current_task()}  # type: ignore[operator]

    async def timed_out() -> set[asyncio.Task[Any]]:
        with pytest.raises(PoolTimeout):
            await Pool.open(url, 1, 1, timeout=0.5)
        return await left_over()

    async def cancelled() -> set[asyncio.Task[Any]]:
        opening = asyncio.create_task(Pool.open(url, 1, 1, timeout=30))
        for _ in range(20):  # let it start its connection attempts
            await asyncio.sleep(0.01)
        opening.cancel()
        with pytest.raises(asyncio.CancelledError):
            await opening
        return await left_over()

    # no task left retrying the connection
    assert asyncio.run(timed_out()) == set()
    assert asyncio.run(cancelled()) == set()


@pytest.mark.timeout(120)
def test_postgres_unit_left_open_by_a_stopped_loop_does_not_hold_the_group(pg_url: str) -> None:
    """A task parked inside a unit of work (its transaction holding the
    group's advisory lock) on a loop that stopped: the next loop's pool
    replaces that loop's, whose connections, the lent one too, are closed, so
    the lock is released and writers to the group (in any process) go on."""
    from kronograph.store.postgres import PostgresStore

    store = PostgresStore(pg_url, min_size=0, max_size=2)
    entered = asyncio.Event()
    old = asyncio.new_event_loop()

    async def parked() -> None:
        async with store.unit(G):
            entered.set()
            await asyncio.Event().wait()

    task = old.create_task(parked())  # held: collecting it would end its session anyway
    old.run_until_complete(entered.wait())

    async def later() -> int:
        async with store.unit(G):  # waits on the advisory lock while the parked unit holds it
            await store.claim_setting("later", "1")
        revision = await store.revision(G)
        await store.close()
        return revision

    asyncio.run(asyncio.wait_for(later(), 30))
    assert _connections(pg_url, 0) == 0
    finish(old)
    assert task.done()


def test_a_memory_left_open_at_exit_prints_nothing(tmp_path: Path) -> None:
    """A script that never closes its file-backed memory (whose lease
    heartbeat waits on the memory's loop) ends without asyncio's "Task was
    destroyed but it is pending!" on stderr."""
    import subprocess
    import sys

    script = (
        "from kronograph import Memory\n"
        f"m = Memory({str(tmp_path / 'kg.db')!r}, model=None)\n"
        "m.add_messages('g', [{'role': 'user', 'content': 'I live in Paris.'}], user_name='Sam Lee', thread='t')\n"
        "assert m.facts('g')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "destroyed" not in done.stderr and "Traceback" not in done.stderr, done.stderr
