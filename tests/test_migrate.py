"""``kronograph migrate``: a SQLite memory copied into PostgreSQL, checked, and refused when it should be."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("psycopg")
pytest.importorskip("pgvector")

import psycopg  # noqa: E402

from kronograph import Memory  # noqa: E402
from kronograph.demo_conversation import CONVERSATION  # noqa: E402
from kronograph.llm.client import ModelClient  # noqa: E402
from kronograph.migrate import MigrationError, migrate_memory_sync  # noqa: E402
from kronograph.migrate.copy import TABLES  # noqa: E402
from kronograph.store.plan import HistoryEntry, Plan  # noqa: E402
from kronograph.store.records import ContradictionRecord  # noqa: E402
from kronograph.store.sqlite.schema import MIGRATIONS  # noqa: E402
from kronograph.time import parse_time  # noqa: E402

from . import pg_server  # noqa: E402
from .conftest import StepClock  # noqa: E402
from .ingest_helpers import ScriptedProvider, current_episode, transient  # noqa: E402

RELATIONS = {"LIVES_IN": {"cardinality": "many_to_one"}, "CEO_OF": {"cardinality": "one_to_many"}}
NOW = datetime(2026, 6, 1, tzinfo=UTC)


def _works_at(system: str, user: str) -> Any:
    """A model's extraction of "NAME works at ORG."; anything else is a reply that cannot be used."""
    text = current_episode(user).removesuffix(".")
    if " works at " not in text:
        return "not json at all"
    name, org = text.split(" works at ")
    return {
        "reasoning": "scripted",
        "entities": [{"name": name, "labels": ["Person"]}, {"name": org, "labels": ["Organization"]}],
        "facts": [{"subject": name, "relation": "WORKS_AT", "object": org, "fact": f"{name} works at {org}"}],
    }


def _people(memory: Memory, clock: StepClock) -> None:
    """Moves and a change of CEO (history, conflicts), then a correction retracted."""
    for city, year, episode in (("Paris", 2020, "e1"), ("Berlin", 2022, "e2"), ("Munich", 2022, "e3"),
                                ("Rome", 2024, "e4")):
        memory.add_fact("people", "Alice", "LIVES_IN", city, valid_at=f"{year}-01-01", episode_id=episode)
        clock.tick(hours=1)
    memory.add_fact("people", "Sarah", "CEO_OF", "Acme", valid_at="2024-01-15", episode_id="c1", actor="agent:hr")
    clock.tick(hours=1)
    memory.add_fact("people", "Mike", "CEO_OF", "Acme", valid_at="2024-03-03", episode_id="c2",
                    subject_labels=["Person"])
    clock.tick(hours=1)
    memory.add_fact("people", "Acme", "EMPLOYS", "Alice", valid_at="2023-05-01", invalid_at="2025-01-01")
    clock.tick(hours=1)
    memory.remove_episode("people", "e3", actor="key:ops", on_behalf_of="user:ann")
    clock.tick(hours=1)
    _tier_and_contradiction(memory, clock())


def _tier_and_contradiction(memory: Memory, now: datetime) -> None:
    """Sarah's CEO fact made a decision (a new version), and Mike's contradicting it, with a note."""
    (sarah,) = memory._call(memory.store.facts_citing("people", "c1"))  # type: ignore[attr-defined]
    (mike,) = memory._call(memory.store.facts_citing("people", "c2"))  # type: ignore[attr-defined]
    plan = Plan(group_id="people", now=now, expected_revision=None)
    plan.updated_facts.append(sarah.with_(tier="decision", recorded_at=now, cause="tier"))
    plan.history.append(HistoryEntry(sarah, "live"))
    plan.contradictions.append(ContradictionRecord(
        group_id="people", fact_uuid=mike.uuid, target_uuid=sarah.uuid, kind="recorded", reason="recorded",
        target_authority=0.8, actor_weight=0.5, score=0.4, similarity=None, note="the board changed its mind",
        actor="agent:hr", episode_id="c2", created_at=now))
    memory._call(memory.store.apply(plan))  # type: ignore[attr-defined]


def _chat(memory: Memory, clock: StepClock) -> None:
    """The demo's conversation through the offline extractor, one message arriving late."""
    for message in CONVERSATION:
        clock.set(parse_time(message.arrival))
        memory.add_episode("chat", message.text, reference_time=message.sent)


def _names(memory: Memory, clock: StepClock) -> None:
    """An alias learned by a fuzzy match, fragments no one could confirm, a JSON episode."""
    memory.add_episode("names", "Ann Lee: I work at Fjord Biotech.", reference_time="2024-01-01", actor="user:ann",
                       on_behalf_of="team:hr")
    clock.tick(hours=1)
    memory.add_episode("names", "Bo Chen: I joined Fjord last week.", reference_time="2024-02-01", saga="hires")
    clock.tick(hours=1)
    memory.add_fact("names", "Dee Park", "WORKS_AT", "Acme Robotics")
    clock.tick(hours=1)
    memory.add_fact("names", "Eli Ross", "WORKS_AT", "Acme Bank")
    clock.tick(hours=1)
    memory.add_episode("names", "Cy Diaz: I work at Acme.", reference_time="2024-03-01")
    memory.add_episode("names", {"name": "SR-2023-053", "owner": {"name": "Bo Chen"}}, kind="json",
                       reference_time="2024-04-01")
    clock.tick(hours=1)  # a message with its speaker and role, and the group's settings (its user)
    memory.add_messages("names", [{"role": "user", "content": "I live in Oslo.", "created_at": "2024-05-01"}],
                        user_name="Ann Lee", thread="intro")
    clock.tick(hours=1)
    memory.summarize_saga("names", "hires")  # a saga summary row
    clock.tick(hours=1)  # a data subject's fact erased: the erasure log's entries
    memory.add_fact("names", "Zed Quill", "LIVES_IN", "Reykjavik", data_subject="cust-1")
    memory.forget("names", data_subject="cust-1", request_id="REQ-1")


def _scripted(path: Path, clock: StepClock) -> None:
    """A model: replies cached, one episode retryable (a 503), one quarantined (a reply that is not JSON)."""
    provider = ScriptedProvider(Extraction=_works_at)
    model = ModelClient(provider, base_delay=0.001, max_delay=0.002, max_attempts=2)  # type: ignore[arg-type]
    with Memory(path, model=model, clock=clock) as memory:
        memory.add_episode("scripted", "Ann works at Acme.", reference_time="2024-01-01", episode_id="ok")
        clock.tick(hours=1)
        memory.add_episode("scripted", "Bo works at Initech.", reference_time="2024-02-01", episode_id="ok2")
        clock.tick(hours=1)
        provider.fail = [transient(), transient()]
        memory.add_episode("scripted", "Cy works at Hooli.", reference_time="2024-03-01", episode_id="later")
        clock.tick(hours=1)
        memory.add_episode("scripted", "Nothing to see here.", reference_time="2024-04-01", episode_id="bad")


def build_memory(path: Path) -> Path:
    """A SQLite memory of four groups that uses every table."""
    clock = StepClock(datetime(2025, 1, 1, tzinfo=UTC))
    with Memory(path, model=None, clock=clock, relation_types=RELATIONS) as memory:
        _people(memory, clock)
        _names(memory, clock)
    _chat_clock = StepClock(datetime(2024, 1, 1, tzinfo=UTC))
    with Memory(path, model=None, clock=_chat_clock) as memory:
        _chat(memory, _chat_clock)
        assert memory.build_communities("chat").communities  # communities and their members, with vectors
    _scripted(path, clock)
    return path


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_memory(tmp_path_factory.mktemp("migrate") / "memory.db")


@pytest.fixture
def target() -> str:
    return pg_server.databases().fresh()


def _counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t, _ in TABLES}  # type: ignore[index]


def _sqlite_counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t, _ in TABLES}


# -- the copy ----------------------------------------------------------------------


def test_every_table_is_copied_and_counted(source: Path, target: str) -> None:
    expected = _sqlite_counts(source)
    assert all(expected[t] > 0 for t, _ in TABLES), expected  # the memory exercises every table
    report = migrate_memory_sync(f"sqlite:///{source}", target, sample=0)
    assert report.ok, report.verification
    assert report.groups == 4 and report.rows == sum(expected.values())
    assert {c.table: (c.source, c.target) for c in report.verification.counts} == {
        t: (n, n) for t, n in expected.items()
    }
    assert _counts(target) == expected
    with psycopg.connect(target) as conn:
        copied = dict(conn.execute("SELECT group_id, revision FROM groups").fetchall())
        with sqlite3.connect(source) as lite:
            assert copied == dict(lite.execute("SELECT group_id, revision FROM groups").fetchall())  # carried over
        indexes = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE '%embedding%'")}
        assert indexes == {
            "facts_embedding_256", "entities_embedding_256", "episodes_embedding_256", "communities_embedding_256"
        }
        # arrival order kept: the same ids, and the sequences continue after them
        ids = [r[0] for r in conn.execute("SELECT id FROM episodes ORDER BY id")]
        seqs = [r[0] for r in conn.execute("SELECT seq FROM fact_history ORDER BY seq")]
    with sqlite3.connect(source) as conn:
        assert ids == [r[0] for r in conn.execute("SELECT id FROM episodes ORDER BY id")]
        assert seqs == [r[0] for r in conn.execute("SELECT seq FROM fact_history ORDER BY seq")]
        row = conn.execute("SELECT embedding FROM facts ORDER BY id LIMIT 1").fetchone()
    with psycopg.connect(target) as conn:
        from pgvector.psycopg import register_vector

        register_vector(conn)
        stored = conn.execute("SELECT embedding FROM facts WHERE embedding IS NOT NULL LIMIT 1").fetchone()
        assert stored is not None and len(stored[0].to_numpy()) == len(row[0]) // 4


def test_vectors_and_json_arrive_unchanged(source: Path, target: str) -> None:
    import numpy as np
    from pgvector.psycopg import register_vector

    migrate_memory_sync(source, target, sample=0)  # a plain path works too
    with sqlite3.connect(source) as lite:
        facts = dict(lite.execute("SELECT uuid, embedding FROM facts WHERE embedding IS NOT NULL"))
        progress = lite.execute(
            "SELECT uuid, pending, checkpoint, result, metadata FROM episodes WHERE status != 'complete' ORDER BY id"
        ).fetchall()
    with psycopg.connect(target) as conn:
        register_vector(conn)
        copied: dict[str, Any] = dict(
            conn.execute("SELECT uuid, embedding FROM facts WHERE embedding IS NOT NULL").fetchall()
        )
        assert copied.keys() == facts.keys()
        for uuid, blob in facts.items():
            assert np.array_equal(copied[uuid].to_numpy(), np.frombuffer(blob, dtype=np.float32))
        rows = conn.execute(
            "SELECT uuid, pending, checkpoint, result, metadata FROM episodes WHERE status != 'complete' ORDER BY id"
        ).fetchall()
    import json

    assert [(u, *(json.loads(v) if v else None for v in rest)) for u, *rest in progress] == [tuple(r) for r in rows]
    assert {r[0] for r in rows} == {"later", "bad"}


def test_tiers_and_contradictions_arrive(source: Path, target: str) -> None:
    assert migrate_memory_sync(source, target, sample=0).ok
    read = "SELECT uuid, tier FROM facts ORDER BY uuid"
    rows = ("SELECT group_id, fact_uuid, target_uuid, kind, reason, target_authority, actor_weight, score, similarity,"
            " note, actor, episode_id, created_at, dismissed_at FROM contradictions"
            " ORDER BY fact_uuid, target_uuid, kind")
    history = "SELECT fact_uuid, seq, tier FROM fact_history ORDER BY seq"
    with sqlite3.connect(source) as lite, psycopg.connect(target) as conn:
        assert [r for r in lite.execute(read) if r[1]] != []  # the memory has a tier to copy
        for query in (read, rows, history):
            assert [tuple(r) for r in conn.execute(query).fetchall()] == lite.execute(query).fetchall()  # type: ignore[arg-type]


def test_speakers_roles_and_group_settings_arrive(source: Path, target: str) -> None:
    assert migrate_memory_sync(source, target, sample=0).ok
    with Memory(source, model=None, resume=False) as before, Memory(target, model=None, resume=False) as after:
        for memory in (before, after):
            said = [(e.speaker, e.role, e.saga) for e in memory.episodes("names") if e.role is not None]
            assert said == [("Ann Lee", "user", "intro")]
            assert memory.settings("names").user_name == "Ann Lee"
            assert memory.settings("chat").user_name is None


def test_answers_match_and_the_copy_is_a_working_memory(source: Path, target: str) -> None:
    report = migrate_memory_sync(f"sqlite:///{source}", target, sample=10, now=NOW)
    assert report.ok, report.verification.mismatches[:5]
    asked = report.verification.asked
    assert report.verification.queries == sum(asked.values()) > 100
    for kind in ("facts", "timeline", "history", "fact_sources", "episode_progress", "audit_events", "entities",
                 "search_text", "search_vectors", "setting", "cached_reply"):
        assert asked.get(kind, 0) > 0, (kind, asked)
    lite = Memory(source, model=None, resume=False)
    server = Memory(target, model=None, resume=False, relation_types=RELATIONS)
    try:
        for group in ("people", "chat", "names", "scripted"):
            for when in (None, "2022-06-01", "2024-02-01"):
                assert server.facts(group, as_of=when) == lite.facts(group, as_of=when)
            for known in ("2025-01-01T01:30", "2025-01-01T04:30", "2025-01-01T06:00"):
                assert server.facts(group, known_at=known) == lite.facts(group, known_at=known)
            assert server.facts(group, include_retired=True, include_expired=True) == lite.facts(
                group, include_retired=True, include_expired=True
            )
            assert server.episodes(group) == lite.episodes(group)
            assert server.entities(group) == lite.entities(group)
            assert server.audit_events(group) == lite.audit_events(group)
        assert {e.actor for e in server.episodes("names")} == {"user:ann", None}
        assert {e.on_behalf_of for e in server.episodes("names")} == {"team:hr", None}
        assert ("key:ops", "user:ann") in {(e.actor, e.on_behalf_of) for e in server.audit_events("people")}
        assert {e.actor for e in server.episodes("people") if e.uuid == "c1"} == {"agent:hr"}
        assert server.timeline("people", "alice") == lite.timeline("people", "alice")
        (rome,) = lite.facts("people", subject="alice")
        assert server.history("people", rome.uuid) == lite.history("people", rome.uuid)
        assert server.conflicts("people", rome.uuid) == lite.conflicts("people", rome.uuid)
        assert [e.status for e in server.episodes("scripted")] == ["complete", "complete", "retryable", "quarantined"]
        # it keeps working: new rows follow the copied ones
        server.add_fact("people", "Alice", "LIVES_IN", "Oslo", valid_at="2025-06-01", episode_id="after")
        assert [f.object for f in server.facts("people", subject="alice", as_of="2026-01-01")] == ["Oslo"]
    finally:
        lite.close()
        server.close()
    with sqlite3.connect(source) as lite_conn:
        (copied_max,) = lite_conn.execute("SELECT MAX(id) FROM episodes").fetchone()
    with psycopg.connect(target) as conn:
        assert conn.execute("SELECT MAX(id) FROM episodes").fetchone() > (copied_max,)  # type: ignore[operator]
        assert conn.execute("SELECT revision FROM groups WHERE group_id = 'people'").fetchone() > (1,)  # type: ignore[operator]


def test_store_settings_equal_to_the_sources_are_no_obstacle(source: Path, target: str) -> None:
    with Memory(target, model=None, resume=False) as memory:  # opening records the embedder
        memory.entities("elsewhere")
    assert _counts(target)["store_settings"] == 1
    assert migrate_memory_sync(source, target, sample=0).ok


def test_an_empty_memory_copies_its_settings_only(tmp_path: Path, target: str) -> None:
    path = tmp_path / "empty.db"
    with Memory(path, model=None) as memory:
        memory.entities("g")
    report = migrate_memory_sync(path, target, sample=3)
    assert report.ok and report.groups == 0 and _counts(target)["store_settings"] == 1


def test_a_copy_that_differs_is_reported(source: Path, target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from kronograph.migrate import copy

    real = copy._text
    monkeypatch.setattr(copy, "_text", lambda value: "Roma" if value == "Rome" else real(value))
    report = migrate_memory_sync(source, target, sample=5)
    assert not report.ok
    assert all(c.ok for c in report.verification.counts)  # the same rows, one of them wrong
    wrong = [m for m in report.verification.mismatches if m.group_id == "people"]
    assert wrong and any("Rome" in m.detail and "Roma" in m.detail for m in wrong), wrong


# -- refusals ----------------------------------------------------------------------


def _refused(source: object, target: str, *words: str) -> str:
    with pytest.raises(MigrationError) as caught:
        migrate_memory_sync(source, target, sample=0)  # type: ignore[arg-type]
    message = str(caught.value)
    for word in words:
        assert word in message, message
    return message


def test_a_target_holding_the_sources_groups_is_refused_and_left_alone(source: Path, target: str) -> None:
    migrate_memory_sync(source, target, sample=0)
    before = _counts(target)
    _refused(source, target, "already holds groups", "'chat'", "'people'", "empty database")
    assert _counts(target) == before


def test_a_target_holding_other_data_is_refused(source: Path, target: str) -> None:
    with Memory(target, model=None, resume=False) as memory:
        memory.add_fact("other", "Zed", "LIKES", "Tea")
    before = _counts(target)
    _refused(source, target, "not empty", "groups: 1")
    assert _counts(target) == before


def test_a_target_with_another_embedder_is_refused(source: Path, target: str) -> None:
    with psycopg.connect(target) as conn:
        conn.execute("INSERT INTO store_settings(key, value) VALUES ('embedder', '{\"name\": \"other\"}')")
    _refused(source, target, "store settings differ", "embedder")


def test_a_failure_half_way_writes_nothing(source: Path, tmp_path: Path, target: str) -> None:
    broken = tmp_path / "broken.db"
    with sqlite3.connect(source) as src, sqlite3.connect(broken) as dst:
        src.backup(dst)
    with sqlite3.connect(broken) as conn:  # PostgreSQL text cannot hold a NUL: the last table fails
        conn.execute("INSERT INTO store_settings(key, value) VALUES ('bad', 'a' || char(0) || 'b')")
    _refused(broken, target, "copying table store_settings failed", "nothing was written")
    assert set(_counts(target).values()) == {0}
    with psycopg.connect(target) as conn:  # and no index was left behind
        assert not conn.execute("SELECT 1 FROM pg_indexes WHERE indexname LIKE '%embedding%'").fetchall()
    assert migrate_memory_sync(source, target, sample=0).ok  # the target is still usable


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("postgresql://localhost/db", ["--from", "cannot be a source"]),
        ("sqlite://:memory:", ["--from", "not a SQLite file URL"]),
        ("sqlite://relative.db", ["--from", "not a SQLite file URL", "sqlite:///relative.db"]),
        (":memory:", ["--from", "in-memory"]),
    ],
)
def test_a_source_url_of_the_wrong_kind_is_refused(url: str, words: list[str], target: str) -> None:
    _refused(url, target, *words)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("sqlite:///other.db", ["--to", "not a PostgreSQL URL"]),
        ("other.db", ["--to", "not a PostgreSQL URL"]),
        ("mysql://localhost/db", ["--to", "mysql://", "postgresql://"]),
    ],
)
def test_a_target_url_of_the_wrong_kind_is_refused(source: Path, url: str, words: list[str]) -> None:
    _refused(source, url, *words)


def test_a_source_that_is_no_kronograph_memory_is_refused(tmp_path: Path, target: str) -> None:
    _refused(tmp_path / "missing.db", target, "no SQLite database at")
    text = tmp_path / "notes.txt"
    text.write_text("not a database, just words " * 100)
    _refused(text, target, "is not a SQLite database")
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE things (id INTEGER)")
    _refused(other, target, "not a kronograph memory")
    assert set(_counts(target).values()) == {0}


def _at_version(path: Path, version: int) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT)")
    for number, name, apply in MIGRATIONS[:version]:
        apply(conn)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, 'now')", (number, name))
    conn.commit()
    conn.close()
    return path


def test_a_source_of_an_older_schema_is_refused_until_opened_once(tmp_path: Path, target: str) -> None:
    old = _at_version(tmp_path / "old.db", len(MIGRATIONS) - 1)
    message = _refused(old, target, f"schema version {len(MIGRATIONS) - 1}", "open it once")
    assert "kronograph episodes" in message
    with Memory(old, model=None) as memory:  # opening migrates it
        memory.add_fact("g", "Ann", "KNOWS", "Bo")
    assert migrate_memory_sync(old, target, sample=3).ok


def test_a_source_of_a_newer_schema_is_refused(tmp_path: Path, target: str) -> None:
    newer = _at_version(tmp_path / "newer.db", len(MIGRATIONS))
    with sqlite3.connect(newer) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (99, 'future', 'now')")
    _refused(newer, target, "schema version 99", "upgrade kronograph")


def test_an_unreachable_target_is_refused(source: Path) -> None:
    missing = pg_server.databases().url.rsplit("/", 1)[0] + "/kronograph_no_such_database"
    _refused(source, missing, "--to", "cannot open")


# -- the library seam ---------------------------------------------------------------


def test_progress_reports_every_table_then_the_indexes_and_queries(source: Path, target: str) -> None:
    seen: dict[str, tuple[int, int]] = {}

    def progress(step: str, done: int, total: int) -> None:
        seen[step] = (done, total)

    migrate_memory_sync(source, target, sample=2, progress=progress)
    counts = _sqlite_counts(source)
    assert [s for s in seen if s in counts] == [t for t, _ in TABLES]
    assert all(seen[t] == (n, n) for t, n in counts.items())
    assert seen["vector indexes"] == (1, 1) and seen["queries"] == (4, 4)


def test_the_async_function_runs_in_a_running_loop(source: Path, target: str) -> None:
    from kronograph.migrate import migrate_memory

    report = asyncio.run(migrate_memory(source, target, sample=1, now=NOW + timedelta(days=1)))
    assert report.ok


# -- the command -------------------------------------------------------------------


def _cli(*args: str, expect: int) -> Any:
    from typer.testing import CliRunner

    from kronograph import cli

    assert cli.app is not None
    result = CliRunner().invoke(cli.app, ["migrate", *args], env={"COLUMNS": "200"})
    assert result.exit_code == expect, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    return result


def test_the_command_copies_and_prints_the_check(source: Path, target: str) -> None:
    result = _cli("--from", f"sqlite:///{source}", "--to", target, expect=0)
    counts = _sqlite_counts(source)
    assert f"copied {sum(counts.values()):,} rows (4 groups) from {source}" in result.stdout
    for table, n in counts.items():
        assert re.search(rf"{table}\s+│\s+{n:,}\s+│\s+{n:,}\s+│ ✓", result.stdout), table
    assert "✓ verified: row counts equal" in result.stdout and "asked of both with the same answers" in result.stdout
    assert "copying facts" in result.stderr and "vector indexes" in result.stderr  # progress, on stderr
    again = _cli("--from", f"sqlite:///{source}", "--to", target, expect=2)
    assert again.stderr.startswith("error: --to: the target already holds groups")


def test_the_command_with_counts_only(source: Path, target: str) -> None:
    result = _cli("--from", str(source), "--to", target, "--sample", "0", expect=0)
    assert "✓ verified: row counts equal (no queries asked)" in result.stdout


def test_the_command_exits_1_when_the_copy_does_not_check_out(
    source: Path, target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kronograph.migrate import copy

    real = copy._text
    monkeypatch.setattr(copy, "_text", lambda value: "Roma" if value == "Rome" else real(value))
    result = _cli("--from", str(source), "--to", target, expect=1)
    assert "answered differently" in result.stdout and "people / " in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--from", "postgresql://localhost/db", "--to", "postgresql://localhost/db"], "--from: a postgresql://"),
        (["--from", "memory.db", "--to", "sqlite:///other.db"], "--to: 'sqlite:///other.db' is not a PostgreSQL URL"),
    ],
)
def test_the_command_refuses_urls_of_the_wrong_kind(args: list[str], words: str) -> None:
    assert words in _cli(*args, expect=2).stderr


def test_the_command_refuses_a_missing_source(tmp_path: Path, target: str) -> None:
    assert "no SQLite database at" in _cli("--from", str(tmp_path / "none.db"), "--to", target, expect=2).stderr
