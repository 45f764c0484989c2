"""Every group-scoped statement of the PostgreSQL store routes to one shard
on Citus (issue 18, item 3).

A workload of the public API runs on the test cluster while every statement
the store sends (``psycopg.AsyncCursor.execute`` and ``executemany``, patched
for the test only) is recorded with its parameters. Each distinct statement
is then ``EXPLAIN``-ed on the coordinator with those parameters bound, and
its plan must not fan out: every ``Task Count`` in it is 1 (a router plan,
or one task on a reference table), or it has no distributed scan at all
(the catalog, ``schema_migrations``, a function call), or it is an
``INSERT ... SELECT`` of one group's rows that Citus writes through the
coordinator to that group's shard (see :attr:`Verdict.via_coordinator`).
The exceptions are :data:`CROSS_GROUP`, the closed list of operations that
read every group on purpose, each with why (``docs/scaling.md``, "Which
queries cross shards"); a new fan-out fails the test, and so does an entry
that no longer fans out or that the workload no longer reaches. Statements
that cannot be explained as they are (transaction control, session
settings, DDL, ANALYZE, forget's VACUUM) are classified by
:data:`UNEXPLAINED`.
"""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql as pgsql

from . import citus_server

# The operations that read every group on purpose: name -> (what the
# statement looks like, why it may). Closed: a fan-out not listed here fails.
CROSS_GROUP: dict[str, tuple[str, str]] = {
    "resuming unfinished episodes": (
        r"^SELECT group_id, uuid, status, .* FROM episodes WHERE status = ANY\(",
        "resume (Memory opened with resume=True, Memory.resume, kronograph resume) looks for episodes of any"
        " group left unfinished: once per process start, not per request",
    ),
    "held episodes": (
        r"FROM episodes p WHERE p\.lease_owner IS NOT NULL",
        "Memory.held_episodes and kronograph resume list the episodes of any group whose lease is live:"
        " an operator's view, never per request",
    ),
    "the queue's scan for groups with work": (
        r"^SELECT group_id FROM episodes WHERE status = 'queued' GROUP BY group_id",
        "the queue's scan for groups with work: a worker asks which groups have queued episodes, then"
        " takes each group's in one shard",
    ),
    "`groups()`": (
        r"^SELECT group_id FROM groups ORDER BY",
        "Memory.groups() lists every group of the store",
    ),
    "queue statistics": (
        r"^SELECT status, COUNT\(\*\) FROM episodes GROUP BY status",
        "Memory.queue_stats counts the episodes of every group by status",
    ),
}

# Statements that EXPLAIN cannot take, by their first word: what they are.
UNEXPLAINED: dict[str, str] = {
    "BEGIN": "transaction control (a unit's pipelined transaction)",
    "COMMIT": "transaction control",
    "ROLLBACK": "transaction control",
    "SET": "a session setting (hnsw.iterative_scan; citus.multi_shard_modify_mode while distributing)",
    "CREATE": "schema: a migration or a vector index, on the coordinator, which propagates it to every shard",
    "ALTER": "schema: a migration, or a foreign key dropped and added back while distributing",
    "DROP": "schema: a migration",
    "ANALYZE": "statistics after a store's 100th, 1,000th... commit, on every shard",
    "VACUUM": "forget's erasure: every group table vacuumed so that the erased rows leave its pages;"
    " on Citus it runs on every shard of the table (every group's): forget is rare and store-wide by nature",
}

_TASKS = re.compile(r"Task Count: (\d+)")


@dataclass(frozen=True)
class Sent:
    text: str
    params: Any
    step: str


@dataclass
class Recorder:
    """Every statement the store's connections send, with the step of the
    workload that sent it."""

    sent: list[Sent] = field(default_factory=list)
    step: str = "open"

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        execute, executemany = psycopg.AsyncCursor.execute, psycopg.AsyncCursor.executemany
        recorder = self

        def text(cur: Any, query: Any) -> str:
            if isinstance(query, pgsql.Composable):
                return query.as_string(cur)
            return query.decode() if isinstance(query, bytes) else str(query)

        async def traced_execute(cur: Any, query: Any, params: Any = None, **kw: Any) -> Any:
            recorder.sent.append(Sent(text(cur, query), params, recorder.step))
            return await execute(cur, query, params, **kw)

        async def traced_executemany(cur: Any, query: Any, params_seq: Any, **kw: Any) -> Any:
            rows = list(params_seq)
            recorder.sent.extend(Sent(text(cur, query), row, recorder.step) for row in rows)
            return await executemany(cur, query, rows, **kw)

        monkeypatch.setattr(psycopg.AsyncCursor, "execute", traced_execute)
        monkeypatch.setattr(psycopg.AsyncCursor, "executemany", traced_executemany)


@dataclass
class Verdict:
    """One distinct statement: its plan's task counts, or why it has no plan."""

    text: str
    steps: list[str]
    tasks: list[int] = field(default_factory=list)
    unexplained: str | None = None  # the UNEXPLAINED kind
    cross_group: str | None = None  # the CROSS_GROUP entry it matched
    error: str | None = None
    plan: str = ""

    @property
    def fans_out(self) -> bool:
        return any(n > 1 for n in self.tasks)

    @property
    def via_coordinator(self) -> bool:
        """An INSERT ... SELECT whose rows Citus collects on the coordinator
        and writes to the shards of their own ``group_id``: routed row by
        row, so one group's rows (the store writes a plan's rows, all of its
        group) go to one shard; its SELECT's own tasks are counted too."""
        return "INSERT/SELECT method: pull to coordinator" in self.plan

    @property
    def unrouted(self) -> bool:
        """A distributed plan of neither shape: no task count to read."""
        return "Custom Scan (Citus" in self.plan and not self.tasks and not self.via_coordinator


def _first_word(text: str) -> str:
    body = re.sub(r"--[^\n]*", "", text).strip()
    return body.split(None, 1)[0].upper() if body else ""


def classify(
    conn: psycopg.Connection[Any], sent: list[Sent], cross_group: dict[str, tuple[str, str]] = CROSS_GROUP
) -> list[Verdict]:
    """Each distinct statement, explained with the first parameters it was sent with."""
    first: dict[str, Sent] = {}
    steps: dict[str, list[str]] = {}
    for s in sent:
        first.setdefault(s.text, s)
        if s.step not in steps.setdefault(s.text, []):
            steps[s.text].append(s.step)
    verdicts = []
    literal = psycopg.ClientCursor(conn)
    for text, s in first.items():
        v = Verdict(text, steps[text])
        verdicts.append(v)
        word = _first_word(text)
        if word in UNEXPLAINED:
            v.unexplained = UNEXPLAINED[word]
            continue
        try:
            # Bound as literals, as Citus sees the values of a statement it plans.
            query = literal.mogrify(text, s.params)  # type: ignore[arg-type]
            v.plan = "\n".join(row[0] for row in conn.execute(f"EXPLAIN {query}"))  # type: ignore[arg-type]
        except psycopg.Error as exc:
            v.error = f"{type(exc).__name__}: {exc}"
        finally:
            conn.rollback()
        v.tasks = [int(n) for n in _TASKS.findall(v.plan)]
        for name, (pattern, _) in cross_group.items():
            if re.search(pattern, text):
                v.cross_group = name
    return verdicts


def problems(verdicts: list[Verdict]) -> list[str]:
    """What breaks the rule: a fan-out outside the list, a statement that
    could not be explained, a listed operation that routes after all."""
    out = []
    for v in verdicts:
        if v.error is not None:
            out.append(f"cannot EXPLAIN (from {v.steps}): {v.error}\n  {v.text}")
        elif v.unrouted:
            out.append(f"a distributed plan with no task count (from {v.steps}):\n  {v.text}\n{v.plan}")
        elif v.fans_out and v.cross_group is None:
            out.append(f"fans out to {max(v.tasks)} shards (from {v.steps}):\n  {v.text}\n{v.plan}")
        elif v.cross_group is not None and not v.fans_out:
            out.append(f"listed as cross-group ({v.cross_group}) but routed to one shard:\n  {v.text}")
    return out


@pytest.fixture(scope="module")
def coordinator() -> str:
    """The coordinator's database, its schema created (distributed) before
    anything is recorded: a migration's statements are one-offs of the
    schema's, and whether this test or another opened the database first
    must not change what it sees."""
    from kronograph import Memory

    url = citus_server.coordinator_url()
    with Memory(url, model=None, resume=False) as memory:
        memory.groups()  # the store opens (and migrates) on first use
    return url


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    r = Recorder()
    r.install(monkeypatch)
    yield r


def _explainer(url: str) -> psycopg.Connection[Any]:
    from pgvector.psycopg import register_vector

    conn = psycopg.connect(url)
    register_vector(conn)  # the store's vectors, bound as literals
    return conn


def _workload(memory: Any, recorder: Recorder, group: str) -> None:
    """The public API on one group: writes, reads, search, removal, forget,
    sagas, settings, the queue; each call recorded under its name."""
    t0 = datetime(2024, 1, 1, tzinfo=UTC)

    def step(name: str) -> None:
        recorder.step = name

    step("add_fact")
    fact = memory.add_fact(group, "Alice", "LIVES_IN", "Paris", valid_at=t0).fact
    memory.add_fact(group, "Bob", "KNOWS", "Alice", valid_at=t0)
    step("add_episode")
    for i, text in enumerate([
        "Alice moved to Lyon in 2025. Alice works at Acme.",
        "Bob met Alice in Lyon. Bob works at Initech.",
    ]):
        memory.add_episode(group, text, reference_time=t0 + timedelta(days=400 + i), episode_id=f"e{i}",
                           saga="trip").raise_for_status()
    step("facts")
    memory.facts(group)
    memory.facts(group, include_retired=True, include_expired=True)
    memory.facts(group, subject="Alice", relation="LIVES_IN")
    memory.facts(group, entity="Alice", as_of=t0 + timedelta(days=1))
    memory.facts(group, entity="Alice", known_at=t0 + timedelta(days=500))
    memory.facts(group, known_at=datetime.now(UTC))
    memory.events(group)
    step("fact")
    memory.fact(group, fact.uuid)
    step("timeline")
    memory.timeline(group, "Alice")
    step("history")
    memory.history(group, fact.uuid)
    memory.fact_sources(group, fact.uuid)
    memory.conflicts(group, fact.uuid)
    step("add_episodes")
    batch = [{"content": "Erin lives in Oslo.", "episode_id": "b0", "reference_time": t0},
             {"content": "Erin works at Acme.", "episode_id": "b1", "reference_time": t0}]
    memory.check_episodes(group, batch)
    for result in memory.add_episodes(group, batch):
        result.raise_for_status()
    step("add_messages")
    memory.add_messages(group, [{"role": "user", "content": "I live in Paris."}], user_name="Dana", thread="t")
    step("search")
    memory.search(group, "where does Alice live")
    memory.search(group, "Acme", center_entity="Alice")  # the graph walk (one recursive query)
    memory.search([group, f"{group}-other"], "Acme Lyon work")
    for recipe in ("hybrid_mmr", "hybrid_episode_mentions", "hybrid_node_distance", "bfs"):
        memory.search(group, "Alice Acme", recipe=recipe, center_entity="Alice")
    memory.search(group, "Alice", as_of=t0 + timedelta(days=500))
    memory.search(group, "Alice", known_at=datetime.now(UTC), include_retired=True)
    step("entities")
    entities = memory.entities(group)
    memory.entities(group, name="Alice")
    memory.entity(group, entities[0].uuid)
    step("episodes")
    memory.episodes(group)
    memory.episode(group, "e0")
    memory.audit_events(group)
    step("changes")
    memory.changes(group, t0)
    step("context")
    memory.context(group, "Alice")
    step("maintenance")
    memory.summarize_entities(group, "Alice", refresh_stale_only=False)
    memory.build_communities(group)
    memory.communities(group)
    memory.update_communities(group)
    memory.audit(group)
    memory.reconcile(group)
    memory.export(group)
    step("sagas")
    memory.sagas(group)
    memory.summarize_saga(group, "trip")
    memory.saga_summary(group, "trip")
    step("settings")
    memory.configure(group, user_name="Alice")
    memory.settings(group)
    memory.user(group)
    step("merge")
    memory.add_fact(group, "Al", "WORKS_AT", "Acme", valid_at=t0)
    merged = memory.merge_entities(group, "Alice", "Al")
    memory.split_entity(group, merged.merge_id)
    step("remove_fact")
    memory.remove_fact(group, fact.uuid)
    step("remove_episode")
    memory.remove_episode(group, "e1")
    step("forget")
    memory.forget(group, entity="Bob")
    memory.forget(group, episode_id="e0")
    # Data subjects and the erasure log (issue 20): filed under a key, erased by it, receipts listed.
    memory.add_fact(group, "Zed", "LIVES_IN", "Oslo", valid_at=t0, data_subject="cust-9")
    memory.forget(group, data_subject="cust-9", request_id="REQ-9", reason="erasure request")
    memory.erasures(group)
    memory.erasures(group, request_id="REQ-9")
    memory.verify_erasure_log(group)
    step("queue")
    memory.enqueue_episode(group, "Carol joined Acme in 2023.", reference_time=t0, episode_id="q1")
    memory.enqueue_messages(group, [{"role": "user", "content": "I moved to Rome."}], thread="t")
    memory.process_queue()
    memory.queue_stats()
    memory.held_episodes()
    step("resume")
    memory.resume()
    step("groups")
    memory.groups()


def _scripted_provider() -> Any:
    """The benchmarks' scripted model (bench/scripted_model.py): extraction,
    dedupe and judgments from rules, so ingestion asks a model and caches
    its replies."""
    module = sys.modules.get("scripted_model")  # loaded already (test_scripted_model.py does too)
    if module is None:
        spec = importlib.util.spec_from_file_location(
            "scripted_model", Path(__file__).resolve().parent.parent / "bench" / "scripted_model.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["scripted_model"] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
    return module.ScriptedProvider()


def _model_workload(memory: Any, recorder: Recorder, group: str) -> None:
    """Ingestion with a model: its judgments of candidates, the reply cache
    (a removed episode ingested again asks the same prompts)."""
    recorder.step = "model"
    t0 = datetime(2024, 3, 1, tzinfo=UTC)
    for i, text in enumerate(["Maya works at Globex.", "Maya left Globex and joined Initech."]):
        memory.add_episode(group, text, reference_time=t0 + timedelta(days=i), episode_id=f"m{i}").raise_for_status()
    memory.remove_episode(group, "m1")
    memory.add_episode(group, "Maya left Globex and joined Initech.", reference_time=t0 + timedelta(days=1),
                       episode_id="m2").raise_for_status()


async def _store_calls(url: str, recorder: Recorder, group: str) -> None:
    """The store's calls the public workload does not reach, made directly:
    a lease taken over and extended, the graph walked level by level, a
    reply cached outside an episode, a store setting read, contradiction
    rows written, dismissed and read."""
    from kronograph.store.plan import Plan
    from kronograph.store.postgres import PostgresStore
    from kronograph.store.records import ContradictionRecord

    recorder.step = "store calls"
    store = PostgresStore(url)
    now = datetime.now(UTC)
    try:
        await store.open()
        await store.claim_episode(group, "e0", ("retryable",), "owner", now + timedelta(minutes=1), now)
        await store.extend_leases(group, ["e0", "q1"], "owner", now + timedelta(minutes=2))
        await store.neighbours(group, ["a", "b"], now)
        await store.cache_reply(group, "key", "model", "{}", now)
        await store.setting("embedder")
        plan = Plan(group_id=group, now=now, expected_revision=None)
        plan.contradictions = [ContradictionRecord(
            group_id=group, fact_uuid="e0", target_uuid="f", kind="candidate", reason="similar_meaning",
            target_authority=1.0, actor_weight=0.5, score=0.5, similarity=0.9, note=None, actor=None,
            episode_id="e0", created_at=now)]
        plan.dismiss_contradictions = [("e0", "f", "candidate")]
        await store.apply(plan)
        await store.contradictions(group, at=now)
        await store.contradictions(group, fact_uuids=["e0", "f"], open_only=False, at=now)
        await store.open_contradiction_count(group, now)
        await store.overview_counts(group, now)
        await store.most_connected(group, now, 10)
    finally:
        await store.close()


def test_every_group_statement_routes_to_one_shard(coordinator: str, recorder: Recorder) -> None:
    from kronograph import Memory

    group = f"g-{uuid.uuid4().hex[:12]}"  # the cluster is shared by the tests: a group of our own
    with Memory(coordinator, model=None) as memory:  # opening (schema check, resume) recorded too
        _workload(memory, recorder, group)
    with Memory(coordinator, model=_scripted_provider(), resume=False) as memory:
        _model_workload(memory, recorder, f"{group}-model")
    asyncio.run(_store_calls(coordinator, recorder, group))
    assert recorder.sent
    with _explainer(coordinator) as conn:
        shards = conn.execute("SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'groups'::regclass").fetchone()
        if shards is None or shards[0] < 2:  # a cluster of one's own (KRONOGRAPH_TEST_CITUS_URL) may have one
            pytest.skip("the groups are in one shard: nothing can fan out")
        verdicts = classify(conn, recorder.sent)
    assert not problems(verdicts), "\n\n".join(problems(verdicts))
    seen = {v.cross_group for v in verdicts if v.cross_group is not None}
    assert seen == set(CROSS_GROUP), f"listed but not reached by the workload: {set(CROSS_GROUP) - seen}"
    kinds = {_first_word(v.text) for v in verdicts if v.unexplained is not None}
    assert kinds <= set(UNEXPLAINED)
    # Every step of the workload sent group-scoped statements that were explained and routed.
    routed = {step for v in verdicts if v.tasks and not v.fans_out for step in v.steps}
    assert routed >= {"add_fact", "add_episode", "facts", "search", "forget", "queue", "sagas", "settings",
                      "maintenance", "merge", "add_messages", "add_episodes", "model", "store calls"}


def test_a_fan_out_outside_the_list_fails(coordinator: str) -> None:
    """The check itself: an unlisted statement over every group's rows is
    caught, a listed one that routes is too, and a routed one passes."""
    sent = [
        Sent("SELECT count(*) FROM facts", None, "rogue"),
        Sent("SELECT revision FROM groups WHERE group_id = %s", ("g",), "listed, routed"),
        Sent("SELECT uuid FROM facts WHERE group_id = %s", ("g",), "facts"),
        Sent("SELECT group_id FROM groups ORDER BY group_id COLLATE \"C\"", None, "groups"),
        Sent("BEGIN", None, "unit"),
        Sent("INSERT INTO mentions(group_id, episode_id, entity_uuid) SELECT %s::text, x.e, x.u"
             " FROM unnest(%s::text[], %s::text[]) AS x(e, u) ON CONFLICT DO NOTHING",
             ("g", ["e"], ["u"]), "mentions"),
    ]
    listed = {**CROSS_GROUP, "revision": (r"^SELECT revision FROM groups", "a test's")}
    _create_schema(coordinator)
    with _explainer(coordinator) as conn:
        verdicts = classify(conn, sent, listed)
    found = problems(verdicts)
    assert len(found) == 2, found
    assert "fans out" in found[0] and "rogue" in found[0]
    assert "listed as cross-group (revision) but routed" in found[1]
    assert verdicts[2].tasks == [1] and verdicts[3].cross_group == "`groups()`" and verdicts[3].fans_out
    assert verdicts[4].unexplained == UNEXPLAINED["BEGIN"]
    assert verdicts[5].via_coordinator and not verdicts[5].unrouted


def _create_schema(url: str) -> None:
    """The store's schema on the cluster (opening a memory creates it)."""
    from kronograph import Memory

    with Memory(url, model=None, resume=False) as memory:
        memory.groups()


def _doc_table(heading: str) -> list[str]:
    """The first cells of the table under ``heading`` in docs/scaling.md's
    "Which queries cross shards" section."""
    doc = (Path(__file__).parent.parent / "docs" / "scaling.md").read_text()
    section = doc[doc.index("### Which queries cross shards"):]
    section = section[: section.index("\n## ")]
    table = section[section.index(heading):].split("\n\n")[1]
    return [line.split("|")[1].strip() for line in table.splitlines()[2:]]


def test_the_doc_lists_what_the_test_allows() -> None:
    """docs/scaling.md names the same cross-group operations and the same
    statements without a plan as this test allows."""
    assert sorted(_doc_table("The cross-group operations")) == sorted(CROSS_GROUP)
    words = {w.strip("`") for cell in _doc_table("Statements `EXPLAIN` cannot take") for w in cell.split(", ")}
    assert words == set(UNEXPLAINED)
