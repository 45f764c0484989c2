"""Operations a Citus cluster needs, on the tests' own cluster (issue 18,
item 4): a worker added and the shards rebalanced onto it while reads go on;
a large group isolated to a shard of its own and moved to another worker;
per-group locking and revisions across two writer processes.

The first two change the cluster's shard layout, and Citus keeps its nodes
and shards per database: each runs in a database of its own
(:meth:`CitusCluster.fresh_database`), so they are skipped on a cluster given
by ``KRONOGRAPH_TEST_CITUS_URL`` (no database can be made on its workers).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from kronograph import Memory
from kronograph.store.postgres.embedded import EmbeddedPostgres

from . import citus_server, citus_stores
from .test_postgres import _episodes, _graph

NOW = datetime(2025, 1, 1, tzinfo=UTC)
LIVES = {"LIVES_IN": {"cardinality": "many_to_one"}, "WORKS_AT": {"cardinality": "many_to_one"}}
CITIES = ["Paris", "Lyon", "Berlin", "Madrid", "Lisbon", "Vienna", "Prague", "Warsaw", "Dublin", "Oslo"]
FIRMS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Wonka"]
PEOPLE = ["Alice", "Bruno"]
AS_OF = datetime(2002, 6, 1, tzinfo=UTC)  # in the middle of every history (from 2000, four years or more)


@pytest.fixture
def cluster() -> Iterator[citus_server.CitusCluster]:
    """The tests' own cluster; the databases a test makes on it are dropped after it."""
    citus_server.coordinator_url()  # starts it, or skips (fails in CI) where Citus is unavailable
    cluster = citus_server.cluster()
    if cluster is None:
        pytest.skip("needs the tests' own cluster: a database made on every node, a worker added")
    try:
        yield cluster
    finally:
        cluster.drop_databases()


def _clock() -> Callable[[], datetime]:
    """A second a call from NOW: transaction times that known_at can tell apart."""
    ticks = iter(range(1_000_000))
    return lambda: NOW + timedelta(seconds=next(ticks))


def _history(memory: Memory, group: str, index: int, years: range) -> None:
    """Where each person lived and worked over ``years``: each move supersedes the last."""
    for year in years:
        for p, person in enumerate(PEOPLE):
            when = datetime(year, 1 + p, 1, tzinfo=UTC)
            memory.add_fact(group, person, "LIVES_IN", CITIES[(index + year + p) % len(CITIES)], valid_at=when)
            if year % 2 == 0:
                memory.add_fact(group, person, "WORKS_AT", FIRMS[(index + year) % len(FIRMS)], valid_at=when)


def _ingested(url: str, groups: list[str], years: int = 4) -> datetime:
    """Histories in every group, in two rounds; returns a moment between them
    (for known_at: what the memory knew after the first round)."""
    clock = _clock()
    with Memory(url, model=None, clock=clock, relation_types=LIVES) as memory:
        for i, group in enumerate(groups):
            _history(memory, group, i, range(2000, 2000 + years // 2))
        between = clock()
        for i, group in enumerate(groups):
            _history(memory, group, i, range(2000 + years // 2, 2000 + years))
    return between


def _reads(group: str, between: datetime) -> list[tuple[str, Callable[[Memory], Any]]]:
    """Every read the tests compare, by name: current, as-of, known-at and both, timeline, search."""
    def hits(memory: Memory) -> list[tuple[str, float]]:
        return [(h.item.uuid, round(h.score, 9)) for h in memory.search(group, "Alice Paris Acme").facts]

    return [
        (f"{group} facts", lambda m: m.facts(group)),
        (f"{group} history", lambda m: m.facts(group, include_retired=True)),
        (f"{group} as_of", lambda m: m.facts(group, as_of=AS_OF)),
        (f"{group} known_at", lambda m: m.facts(group, known_at=between)),
        (f"{group} as_of known_at", lambda m: m.facts(group, as_of=AS_OF, known_at=between)),
        (f"{group} timeline", lambda m: m.timeline(group, "Alice")),
        (f"{group} search", hits),
    ]


def _answers(memory: Memory, groups: list[str], between: datetime) -> dict[str, Any]:
    return {name: read(memory) for group in groups for name, read in _reads(group, between)}


def _rows(url: str, query: str, *args: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query, args).fetchall()  # type: ignore[arg-type]


class _Reader(threading.Thread):
    """Reads the groups over and over on a memory of its own, until stopped,
    keeping every answer that differs from ``expected`` and every error;
    ``during`` counts the reads made while ``moving`` was set."""

    def __init__(self, url: str, groups: list[str], between: datetime, expected: dict[str, Any]) -> None:
        super().__init__(daemon=True)
        self.url, self.groups, self.between, self.expected = url, groups, between, expected
        self.stop, self.moving, self.started_reading = threading.Event(), threading.Event(), threading.Event()
        self.reads = self.during = 0
        self.wrong: list[str] = []

    def run(self) -> None:
        try:
            with Memory(self.url, model=None, relation_types=LIVES) as memory:
                while not self.stop.is_set():
                    for group in self.groups:
                        for name, read in _reads(group, self.between):
                            self._read(memory, name, read)
                    self.started_reading.set()
        except Exception as exc:  # the memory itself failed: reported by the test
            self.wrong.append(f"reader: {exc!r}")
        finally:
            self.started_reading.set()

    def _read(self, memory: Memory, name: str, read: Callable[[Memory], Any]) -> None:
        moving = self.moving.is_set()
        try:
            answer = read(memory)
        except Exception as exc:
            self.wrong.append(f"{name}: {exc!r}")
            return
        self.reads += 1
        self.during += moving and self.moving.is_set()  # the whole read inside the move
        if answer != self.expected[name]:
            self.wrong.append(f"{name}: differs")


class _Started(threading.Thread):
    """``start()`` on a thread of its own, from now; ``result()`` waits for it (raising what it raised)."""

    def __init__(self, start: Callable[[], EmbeddedPostgres]) -> None:
        super().__init__(daemon=True)
        self._start_node = start
        self._node: EmbeddedPostgres | None = None
        self._failed: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            self._node = self._start_node()
        except BaseException as exc:  # raised on the caller's thread by result()
            self._failed = exc

    def result(self) -> EmbeddedPostgres:
        self.join()
        if self._failed is not None:
            raise self._failed
        assert self._node is not None
        return self._node


def test_a_worker_added_and_rebalanced_while_reads_go_on(cluster: citus_server.CitusCluster) -> None:
    name = f"kg_ops_{uuid.uuid4().hex[:10]}"
    extra = _Started(lambda: cluster.extra_node(name))  # a few seconds: while the groups are written
    try:
        url = cluster.fresh_database(name)
        groups = [f"tenant-{i}" for i in range(8)]
        between = _ingested(url, groups)
        with Memory(url, model=None, relation_types=LIVES) as memory:
            before = _answers(memory, groups, between)
        assert all(before[f"{g} history"] and before[f"{g} as_of"] != before[f"{g} facts"] for g in groups)
        assert all(before[f"{g} known_at"] != before[f"{g} facts"] for g in groups)
        port = extra.result().port
        _rows(url, "SELECT citus_add_node('127.0.0.1', %s)", port)
        reader = _Reader(url, groups, between, before)
        try:
            reader.start()
            assert reader.started_reading.wait(60)  # a first round read before anything moves
            reader.moving.set()
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("SELECT citus_rebalance_start()")  # a background job, by logical replication
                conn.execute("SELECT citus_rebalance_wait()")
                status = conn.execute("SELECT state::text FROM citus_rebalance_status()").fetchone()
            reader.moving.clear()
        finally:
            reader.stop.set()
            if reader.is_alive():
                reader.join(60)
        assert status == ("finished",)
        assert not reader.wrong, reader.wrong[:10]
        assert reader.during >= len(groups), reader.during  # reads went on while the shards moved
        on_extra = _rows(url, "SELECT DISTINCT table_name::text FROM citus_shards WHERE nodeport = %s"
                         " AND citus_table_type = 'distributed'", port)
        assert {"groups", "facts"} <= {row[0] for row in on_extra}  # a shard group moved onto the new worker
        moved = _rows(url, "SELECT g FROM unnest(%s::text[]) AS g JOIN citus_shards s"
                      " ON s.shardid = get_shard_id_for_distribution_column('groups', g) WHERE s.nodeport = %s",
                      groups, port)
        assert moved  # with some of the groups read all along
        with Memory(url, model=None, relation_types=LIVES) as memory:
            assert _answers(memory, groups, between) == before
    finally:
        cluster.drop_databases()  # the coordinator's first: its daemon holds connections to the extra node
        extra.result().stop()


def _shard_of(url: str, table: str, group: str) -> tuple[int, int, int, int]:
    """The shard of ``group``'s rows of ``table``: its id, hash range and node's port."""
    rows = _rows(url, "SELECT s.shardid, s.shardminvalue::bigint, s.shardmaxvalue::bigint, p.nodeport"
                 " FROM pg_dist_shard s JOIN citus_shards p USING (shardid)"
                 " WHERE s.shardid = get_shard_id_for_distribution_column(%s, %s::text)", table, group)
    assert len(rows) == 1, rows
    shard, low, high, port = rows[0]
    return int(shard), int(low), int(high), int(port)


def test_a_large_group_isolated_and_moved_keeps_its_answers(cluster: citus_server.CitusCluster) -> None:
    url = cluster.fresh_database(f"kg_ops_{uuid.uuid4().hex[:10]}")
    others = [f"small-{i}" for i in range(4)]
    between = _ingested(url, others)
    big_between = _ingested(url, ["big"], years=12)
    with Memory(url, model=None, relation_types=LIVES) as memory:
        before = _answers(memory, others, between) | _answers(memory, ["big"], big_between)
        assert len(before["big history"]) >= 3 * len(before[f"{others[0]} history"])
    revision = _revision(url, "big")

    # Writes blocked while it splits: a split by logical replication (the default,
    # 'auto') decodes with Citus's own output plugin, and the PostgreSQL 18.6 here
    # refuses it ('library "citus" may not be used as an output plugin') unless the
    # nodes list it in output_plugin_libraries. Moves decode with pgoutput, allowed.
    shard = _rows(url, "SELECT isolate_tenant_to_new_shard('groups', 'big', 'CASCADE', 'block_writes')")[0][0]
    isolated, low, high, source = _shard_of(url, "groups", "big")
    assert isolated == shard and low == high  # a shard of one hash value: the group's alone
    for table in ("facts", "entities", "episodes"):  # every co-located table's rows with it
        assert _shard_of(url, table, "big")[1:3] == (low, high)
    target = next(node.port for node in cluster.workers if node.port != source)
    _rows(url, "SELECT citus_move_shard_placement(%s, '127.0.0.1', %s, '127.0.0.1', %s)", shard, source, target)

    assert _shard_of(url, "groups", "big") == (shard, low, high, target)
    assert _shard_of(url, "facts", "big")[3] == target
    assert all(_shard_of(url, "groups", g)[0] != shard for g in others)
    with Memory(url, model=None, relation_types=LIVES) as memory:
        after = _answers(memory, others, between) | _answers(memory, ["big"], big_between)
        assert after == before
        memory.add_fact("big", "Alice", "LIVES_IN", "Reykjavik", valid_at=datetime(2020, 1, 1, tzinfo=UTC))
        assert [f.object for f in memory.facts("big", subject="Alice", relation="LIVES_IN")] == ["Reykjavik"]
        assert [f.object for f in memory.facts("big", subject="Alice", relation="LIVES_IN", as_of=AS_OF)] == [
            f.object for f in before["big as_of"] if f.subject == "Alice" and f.relation == "LIVES_IN"
        ]
    assert _revision(url, "big") == revision + 1  # the write counted, on the group's new shard


# -- two writer processes on the coordinator -----------------------------------
def _write(url: str, episodes: list[tuple[str, str, datetime]], writer: int) -> None:
    """Ingest ``episodes`` into group "g" and, after each, add a fact of the
    writer's own to group "shared": both groups written all along."""
    clock = _clock()
    with Memory(url, model=None, clock=clock) as memory:
        for i, (episode_id, text, when) in enumerate(episodes):
            memory.add_episode("g", text, reference_time=when, episode_id=episode_id).raise_for_status()
            memory.add_fact("shared", f"Person {writer}-{i}", "LIKES", f"Thing {i}")


def _revision(url: str, group: str) -> int:
    from kronograph.store.postgres import PostgresStore

    async def read() -> int:
        store = PostgresStore(url, min_size=0, max_size=1)
        try:
            return await store.revision(group)
        finally:
            await store.close()

    return asyncio.run(read())


def _shared(url: str) -> tuple[set[tuple[str, str, str]], list[str], list[str]]:
    """Group "shared"'s facts, their ids, and the ids of the facts its change feed says were learned."""
    with Memory(url, model=None) as memory:
        facts = memory.facts("shared")
        learned = [c.fact.uuid for c in memory.changes("shared", since=NOW - timedelta(days=1))
                   if c.kind == "learned" and c.fact is not None]
    return {(f.subject, f.relation, f.object) for f in facts}, sorted(f.uuid for f in facts), sorted(learned)


def test_two_writer_processes_on_one_group_match_the_sequential_writes() -> None:
    """Two processes ingest interleaved halves of one group's episodes (both
    keep touching the same entities) and add facts to a second group between
    them: the graph is the one the same writes make one after the other, and
    each group's revision counts every write once."""
    episodes = [e for e in _episodes() if int(e[0].rsplit("-", 1)[1]) < 4]  # three people, four episodes each
    halves = [(episodes[k::2], k + 1) for k in (0, 1)]
    sequential, concurrent = citus_stores.fresh(), citus_stores.fresh()
    for half, writer in halves:
        _write(sequential, half, writer)
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_write, args=(concurrent, half, writer)) for half, writer in halves]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    expected = _graph(sequential)
    assert len(expected[0]) == 2 * len(episodes)
    assert _graph(concurrent) == expected
    assert _revision(concurrent, "g") == _revision(sequential, "g") > 0
    assert _revision(concurrent, "shared") == _revision(sequential, "shared") == len(episodes)  # a fact, a move
    triples, facts, learned = _shared(concurrent)
    assert triples == _shared(sequential)[0] and len(triples) == len(episodes)
    assert learned == facts  # each write once in the change feed too
