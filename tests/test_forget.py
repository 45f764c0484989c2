"""forget: a compliance purge of an entity or an episode, on every backend,
checked from the outside: every search scope by every method, facts,
timeline, entities, summaries, audit, the reply cache, and (SQLite) the
database file's bytes."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kronograph import InvalidInputError, Memory, NotFoundError
from kronograph.cli import app as cli_app
from kronograph.model import AuditEvent
from kronograph.search.engine import SCOPES
from kronograph.store.plan import BuiltSummary, Plan
from kronograph.store.records import ContradictionRecord
from kronograph.store.sqlite import SQLiteStore, purge
from kronograph.store.sqlite.schema import migrate
from kronograph.store.text_scan import NOT_SCANNED, NOT_TEXT, TABLE_KEYS

from .ingest_helpers import ScriptedProvider, current_episode

ON_CITUS = True  # the backend fixture adds the Citus cluster (tests/conftest.py)

G = "g"
NAME = "Zorblax Quentin"
MakeMemory = Callable[..., Memory]
SINGLE_HOME = {"LIVES_IN": {"cardinality": "many_to_one"}}

EPISODES = [
    "Alice works at Acme. Zorblax Quentin is the manager of Alice.",
    "Bob lives in Paris. Bob met Zorblax Quentin at the conference in Paris.",
    "Carol works at Initech. Carol likes hiking.",
    "Zorblax Quentin moved to Berlin in 2021.",
    "Alice moved to Lisbon in 2022.",
    "Dan said that zorblax quentin owes him money.",
]


def _seed(memory: Memory, group: str = G) -> None:
    for i, text in enumerate(EPISODES):
        memory.add_episode(group, text, reference_time=f"2024-01-0{i + 1}T10:00:00Z", episode_id=f"{group}-e{i}",
                           saga="standup" if i % 2 == 0 else "hallway")
    memory.add_fact(group, "Zorblax Quentin", "KNOWS", "Carol", valid_at="2023-05-01")
    memory.add_fact(group, "Erin", "MENTORS", "Frank", fact="Erin mentors Frank, as Zorblax Quentin asked",
                    valid_at="2023-06-01")
    memory.summarize_entities(group, refresh_stale_only=False)
    for saga in ("standup", "hallway"):
        memory.summarize_saga(group, saga)
    memory.build_communities(group)


def _no_contradictions(system: str, user: str) -> dict[str, Any]:
    new = json.loads(user)["new_facts"]
    verdicts = [{"new_fact": n["id"], "contradicts": [], "duplicate_of": None} for n in new]
    return {"reasoning": "scripted", "verdicts": verdicts}


def _texts(value: Any) -> str:
    return value.model_dump_json() if hasattr(value, "model_dump_json") else json.dumps(value, default=str)


def _mentions_name(value: Any) -> bool:
    return "zorblax" in _texts(value).casefold()


def _search_everything(memory: Memory, group: str, query: str) -> list[Any]:
    found: list[Any] = []
    for recipe in ("bm25", "cosine", "hybrid", "hybrid_rrf", "hybrid_mmr", "hybrid_episode_mentions"):
        results = memory.search(group, query, recipe=recipe, limit=100, include_retired=True)
        for scope in SCOPES:
            found += [hit.item for hit in getattr(results, scope)]
    return found


def test_forget_an_entity_leaves_no_trace_anywhere(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _seed(memory)
    _seed(memory, "other")  # the same name in another group is not this group's to forget
    assert any(_mentions_name(f) for f in memory.facts(G))
    assert any(_mentions_name(e) for e in memory.entities(G) if e.name != NAME)  # a neighbour's summary names it
    assert _mentions_name(memory.saga_summary(G, "standup")) and _mentions_name(memory.saga_summary(G, "hallway"))
    assert any(_mentions_name(c) for c in memory.communities(G))

    report = memory.forget(G, entity="zorblax quentin")

    assert report.verified and report.leftovers == []
    assert report.needles == [NAME]
    # Every episode naming it goes (by extraction or by its words, any case), and only those.
    assert {f"{G}-e{i}" for i in (0, 1, 3, 5)} <= set(report.episodes)
    assert f"{G}-e2" not in report.episodes and f"{G}-e4" not in report.episodes
    for query in (NAME, "Zorblax", "quentin", "manager of Alice", "owes him money"):
        leaked = [item for item in _search_everything(memory, G, query) if _mentions_name(item)]
        assert leaked == [], query
    assert not [f for f in memory.facts(G, include_retired=True, include_expired=True) if _mentions_name(f)]
    assert memory.timeline(G, NAME) == []
    assert memory.entities(G, name=NAME) == []
    assert not [e for e in memory.entities(G) if _mentions_name(e)]  # summaries rebuilt without it
    assert not [p for p in memory.episodes(G) if _mentions_name(p)]
    # The running summaries of the sagas it was in are rebuilt from the episodes left.
    for saga in ("standup", "hallway"):
        stored = memory.saga_summary(G, saga)
        assert not _mentions_name(stored) and not stored.stale
    assert "Carol works at Initech" in (memory.saga_summary(G, "standup").summary or "")
    # So are the communities it was in or named: none names it, and what is left is still clustered.
    communities = memory.communities(G)
    assert communities and not [c for c in communities if _mentions_name(c)]
    assert set(report.communities_rebuilt) | set(report.communities_deleted)
    assert all(c.size >= 2 and c.name and c.summary for c in communities)
    # The fact that only named it in its text went too; what did not name it stays.
    assert memory.facts(G, subject="Erin") == []
    assert memory.facts(G, subject="Carol", relation="works at")  # from an episode that never named it
    assert memory.facts(G, subject="Alice", relation="lives in")
    # The audit log says a purge happened, not what it was about.
    events = memory.audit_events(G)
    assert not [e for e in events if _mentions_name(e)]
    last = events[-1]
    assert last.kind == "forgotten" and last.detail["by"] == "entity" and last.detail["episodes"] >= 4
    # Nor does the export, of any kind of record.
    exported = memory.export(G)
    assert exported.episodes and exported.facts and exported.communities and exported.sagas
    assert [kind for kind, item in exported.records() if _mentions_name(item)] == []
    # Another group's memory of the name is untouched.
    assert any(_mentions_name(item) for _, item in memory.export("other").records())
    assert memory.entities("other", name=NAME)
    assert any(_mentions_name(item) for item in _search_everything(memory, "other", NAME))


def test_forget_by_uuid_and_an_alias_found_by_name(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _seed(memory)
    (entity,) = memory.entities(G, name=NAME)
    report = memory.forget(G, entity=entity.uuid)
    assert report.verified and entity.uuid in report.entities and report.needles == [NAME]
    assert memory.entities(G, name=NAME) == []


def test_forget_matches_whole_words_only(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    memory.add_fact(G, "Ann", "LIVES_IN", "Annapolis", valid_at="2020-01-01")
    memory.add_fact(G, "Annabel", "WORKS_AT", "Acme", valid_at="2020-01-01")
    memory.add_fact(G, "Ann Lee", "WORKS_AT", "Initech", valid_at="2020-01-01")
    report = memory.forget(G, entity="Ann")
    assert report.verified
    names = {e.name for e in memory.entities(G)}
    assert "Ann" not in names and "Ann Lee" not in names  # "Ann Lee" names Ann
    # Annapolis and Initech went with the only facts that touched them; Annabel is another name.
    assert names == {"Annabel", "Acme"}
    assert {f.triple for f in memory.facts(G)} == {"Annabel WORKS_AT Acme"}


def test_forget_gives_back_what_a_forgotten_fact_retired(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None, relation_types=SINGLE_HOME)
    memory.add_fact(G, "Alice", "LIVES_IN", "Paris", valid_at="2020-01-01")
    memory.add_fact(G, "Alice", "LIVES_IN", "Zorblax City", valid_at="2022-01-01")
    (now,) = memory.facts(G, subject="Alice")
    assert now.object == "Zorblax City"
    report = memory.forget(G, entity="Zorblax City")
    assert report.verified and len(report.changed_facts) == 1
    (now,) = memory.facts(G, subject="Alice")
    assert now.object == "Paris" and now.invalid_at is None
    # No recorded version of the forgotten fact is left, nor any history naming it.
    for change in memory.history(G, now.uuid):
        assert "Zorblax" not in _texts(change)


def test_forget_an_episode(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    memory.add_episode(G, "Gwen works at Umbrella Corp. Gwen lives in Quebec.", reference_time="2024-01-01",
                       episode_id="keep", saga="s")
    memory.add_episode(G, "Gwen lives in Quebec. Hiro works at Vorpal Swords.", reference_time="2024-01-02",
                       episode_id="secret", saga="s")
    assert "Vorpal" in (memory.summarize_saga(G, "s").summary or "")
    (home,) = memory.facts(G, subject="Gwen", relation="lives in")
    assert len(home.episodes) == 2
    hiro = memory.facts(G, subject="Hiro")
    assert hiro

    report = memory.forget(G, episode_id="secret")

    assert report.verified and report.episodes == ["secret"] and report.needles == []
    assert {f.uuid for f in hiro} <= set(report.facts)
    assert memory.entities(G, name="Hiro") == []  # mentioned nowhere else
    (home,) = memory.facts(G, subject="Gwen", relation="lives in")
    assert list(home.episodes) == ["keep"]
    assert [p.uuid for p in memory.episodes(G)] == ["keep"]
    for fact in hiro:
        assert memory.history(G, fact.uuid) == []
    for item in _search_everything(memory, G, "Hiro works at Vorpal Swords"):
        assert "vorpal" not in _texts(item).casefold()
    assert not [e for e in memory.audit_events(G) if e.episode_id == "secret"]
    saga = memory.saga_summary(G, "s")
    assert "Vorpal" not in (saga.summary or "") and "Umbrella" in (saga.summary or "") and saga.episodes == 1
    assert memory.audit_events(G)[-1].detail == {"by": "episode", "episodes": 1, "facts": len(report.facts),
                                                 "entities": len(report.entities)}


def test_dry_run_changes_nothing(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _seed(memory)
    before = (memory.facts(G), memory.entities(G), memory.episodes(G), memory.audit_events(G))
    report = memory.forget(G, entity=NAME, dry_run=True)
    assert report.dry_run and not report.verified and report.episodes and report.facts and report.entities
    assert (memory.facts(G), memory.entities(G), memory.episodes(G), memory.audit_events(G)) == before


def test_forget_refuses_bad_requests(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _seed(memory)
    with pytest.raises(InvalidInputError, match="exactly one"):
        memory.forget(G)
    with pytest.raises(InvalidInputError, match="exactly one"):
        memory.forget(G, entity=NAME, episode_id=f"{G}-e0")
    with pytest.raises(InvalidInputError, match="too short"):
        memory.forget(G, entity="Z")
    with pytest.raises(NotFoundError, match="Nobody Atall"):
        memory.forget(G, entity="Nobody Atall")
    with pytest.raises(NotFoundError, match="no episode"):
        memory.forget(G, episode_id="missing")
    with pytest.raises(NotFoundError):
        memory.forget("other", entity=NAME)  # it exists only in group g
    assert memory.entities(G, name=NAME)


def test_forget_drops_cached_model_replies_naming_it(memory_factory: MakeMemory) -> None:
    def extraction(system: str, user: str) -> dict[str, Any]:
        text = current_episode(user)
        subject = "Zorblax Quentin" if "Zorblax" in text else "Carol"
        return {
            "reasoning": "scripted",
            "entities": [{"name": subject, "labels": []}, {"name": "Acme", "labels": []}],
            "facts": [{"subject": subject, "relation": "WORKS_AT", "object": "Acme",
                       "fact": f"{subject} works at Acme", "valid_at": None}],
        }

    provider = ScriptedProvider(Extraction=extraction, JudgeAnswer=_no_contradictions)
    memory = memory_factory(model=provider)
    memory.add_episode(G, "Zorblax Quentin joined Acme.", reference_time="2024-01-01")
    memory.add_episode(G, "Carol joined Acme.", reference_time="2024-01-02")
    store = memory.store
    keys = memory._call(store.cached_reply_keys(G))  # type: ignore[attr-defined]
    replies = {k: memory._call(store.cached_reply(G, k)) for k in keys}  # type: ignore[attr-defined]
    naming = {k for k, v in replies.items() if v and "Zorblax" in v}
    assert naming and set(replies) - naming

    report = memory.forget(G, entity=NAME)

    assert report.verified and report.cached_replies_dropped == len(naming)
    for key in keys:
        reply = memory._call(store.cached_reply(G, key))  # type: ignore[attr-defined]
        assert (reply is None) == (key in naming)
    assert {f.triple for f in memory.facts(G)} == {"Carol WORKS_AT Acme"}


def test_forgetting_an_episode_drops_the_replies_its_processing_was_given(memory_factory: MakeMemory) -> None:
    def extraction(system: str, user: str) -> dict[str, Any]:
        person = current_episode(user).split()[0]
        return {
            "reasoning": "scripted",
            "entities": [{"name": person, "labels": []}, {"name": "Acme", "labels": []}],
            "facts": [{"subject": person, "relation": "WORKS_AT", "object": "Acme",
                       "fact": f"{person} works at Acme", "valid_at": None}],
        }

    memory = memory_factory(model=ScriptedProvider(Extraction=extraction, JudgeAnswer=_no_contradictions))
    memory.add_episode(G, "Ivo joined Acme.", reference_time="2024-01-01", episode_id="ivo")
    memory.add_episode(G, "Jun joined Acme.", reference_time="2024-01-02", episode_id="jun")
    store = memory.store
    keys = memory._call(store.episode_replies(G, ["ivo"]))  # type: ignore[attr-defined]
    others = memory._call(store.episode_replies(G, ["jun"]))  # type: ignore[attr-defined]
    assert keys and others and not set(keys) & set(others)
    assert memory._call(store.episode_replies("other", ["ivo"])) == []  # type: ignore[attr-defined]

    report = memory.forget(G, episode_id="ivo")

    assert report.verified and report.cached_replies_dropped == len(keys)
    for key in keys:
        assert memory._call(store.cached_reply(G, key)) is None  # type: ignore[attr-defined]
    for key in others:
        assert memory._call(store.cached_reply(G, key)) is not None  # type: ignore[attr-defined]


def test_forgotten_name_is_gone_from_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Memory(path, model=None) as memory:
        _seed(memory)
        report = memory.forget(G, entity=NAME)
        assert report.verified
    # Even before a VACUUM: freed pages were zeroed, the full-text indexes merged, the log truncated.
    raw = path.read_bytes().lower()
    assert b"zorblax" not in raw
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    conn.close()
    raw = path.read_bytes().lower()
    assert b"zorblax" not in raw and b"quentin" not in raw
    with Memory(SQLiteStore(path), model=None) as memory:  # what was kept still reads back
        assert memory.facts(G, subject="Carol")


def test_a_second_forget_erases_a_trace_the_first_could_not_see(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _seed(memory)
    assert memory.forget(G, entity=NAME).verified
    # A trace written back afterwards (say, by a summariser in another process that read before the purge).
    (carol,) = memory.entities(G, name="Carol")
    plan = Plan(group_id=G, now=carol.created_at, expected_revision=None)
    plan.built_summaries = [BuiltSummary(carol.uuid, "Carol knows Zorblax Quentin.", 0)]
    memory._call(memory.store.apply(plan))  # type: ignore[attr-defined]
    again = memory.forget(G, entity=NAME)
    assert again.verified and again.summaries_rebuilt == [carol.uuid] and again.episodes == []
    assert not _mentions_name(memory.entities(G, name="Carol")[0])


# -- a name kept anywhere but in an entity's name or an episode's text ---------------------------------------------


def _trace_memory(memory: Memory) -> None:
    """A group where the name is in no entity name and no episode text: only
    in a relation, an actor, a saga's name, a label and an audit event's actor."""
    memory.add_fact(G, "Alice", "REPORTS_TO_ZORBLAX_QUENTIN", "Acme", valid_at="2023-01-01")
    memory.add_fact(G, "Bob", "WORKS_AT", "Initech", valid_at="2023-01-01", actor="Zorblax Quentin")
    memory.add_fact(G, "Erin", "WORKS_AT", "Umbrella", valid_at="2023-01-01",
                    subject_labels=["Person", "Friend of Zorblax-Quentin"])
    memory.add_episode(G, "Dan plays chess with Carol.", reference_time="2024-01-01", saga="zorblax quentin 1:1",
                       episode_id="one-on-one")
    memory.add_episode(G, "Carol works at Initech.", reference_time="2024-01-02", saga="standup", episode_id="kept")
    memory.summarize_saga(G, "zorblax quentin 1:1")
    memory.summarize_saga(G, "standup")
    plan = Plan(group_id=G, now=memory.episodes(G)[0].created_at, expected_revision=None)
    plan.audit.append(AuditEvent(group_id=G, kind="note", recorded_at=plan.now, actor="ZORBLAX QUENTIN"))
    memory._call(memory.store.apply(plan))  # type: ignore[attr-defined]


def test_a_name_only_in_a_relation_actor_saga_label_or_audit_actor_is_found_and_erased(
    memory_factory: MakeMemory,
) -> None:
    memory = memory_factory(model=None)
    _trace_memory(memory)
    store = memory.store  # type: ignore[attr-defined]
    assert memory.entities(G, name=NAME) == []  # no entity, no episode text names it

    report = memory.forget(G, entity=NAME)

    assert report.verified, report.leftovers
    assert {"one-on-one"} <= set(report.episodes) and "kept" not in report.episodes
    hits = memory._call(store.text_occurrences(G, [NAME]))  # type: ignore[attr-defined]
    assert [h for h in hits if _mentions_name(h.text)] == []
    assert not [f for f in memory.facts(G, include_retired=True, include_expired=True) if _mentions_name(f)]
    # The relation's fact, and the facts of the episodes it filed or of the saga it named, went.
    assert {f.triple for f in memory.facts(G)} == {"Erin WORKS_AT Umbrella", "Carol WORKS_AT Initech"}
    (erin,) = memory.entities(G, name="Erin")
    assert list(erin.labels) == ["Person"]  # the label naming it went, the other stays
    assert [s.saga for s in memory.sagas(G)] == ["standup"]
    with pytest.raises(NotFoundError):
        memory.saga_summary(G, "zorblax quentin 1:1")
    assert not [e for e in memory.audit_events(G) if _mentions_name(e)]
    assert [kind for kind, item in memory.export(G).records() if _mentions_name(item)] == []
    # Now nothing is left by that name: a second forget says so.
    with pytest.raises(NotFoundError, match="nothing named"):
        memory.forget(G, entity=NAME)


def test_the_forget_audit_event_holds_counts_only(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _trace_memory(memory)
    memory.forget(G, entity=NAME)
    (last,) = [e for e in memory.audit_events(G) if e.kind == "forgotten"]
    assert set(last.detail) == {"by", "episodes", "facts", "entities"}
    assert all(isinstance(v, int) for k, v in last.detail.items() if k != "by") and last.episode_id is None
    redacted = [e for e in memory.audit_events(G) if e.detail == {"redacted": True}]
    assert redacted and all(e.actor is None and e.episode_id is None for e in redacted)


# -- every text column, from the schema ----------------------------------------------------------------------------


def _schema_columns() -> list[tuple[str, str]]:
    conn = sqlite3.connect(":memory:")
    migrate(conn)
    purge.register_functions(conn)
    tables = purge.scanned_tables(conn)
    conn.close()
    return [(t.name, c) for t in tables for c in t.columns]


SCANNED = _schema_columns()
# What the issue named, at least: relations and their folded keys, actors, saga names, labels, metadata.
MUST_SCAN = {
    ("facts", "relation"), ("facts", "relation_key"), ("fact_history", "relation_key"),
    ("fact_history", "subject_key"), ("fact_history", "object_key"), ("retracted_facts", "subject_key"),
    ("episodes", "actor"), ("audit_events", "actor"), ("episodes", "saga"), ("saga_summaries", "saga"),
    ("entities", "labels"), ("entities", "name_key"), ("entity_aliases", "alias_key"), ("episodes", "metadata"),
    ("saga_summaries", "state"), ("model_replies", "reply"), ("audit_events", "detail"),
}


def test_every_text_column_of_every_group_table_is_scanned() -> None:
    """The scan reads the schema: every text column of a table with a group is
    scanned unless it holds identifiers or codes, and every such table has a key
    that forget knows how to erase by (a new table must be taught here)."""
    conn = sqlite3.connect(":memory:")
    migrate(conn)
    every: set[tuple[str, str]] = set()
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
        if any(row[1] == "group_id" for row in info) and table not in NOT_SCANNED:
            every |= {(table, row[1]) for row in info if "TEXT" in (row[2] or "TEXT").upper()}
    conn.close()
    assert MUST_SCAN <= set(SCANNED)
    assert every - set(SCANNED) == {(t, c) for t, c in every if c in NOT_TEXT}
    assert not MUST_SCAN & {(t, c) for t, c in every if c in NOT_TEXT}
    assert {t for t, _ in SCANNED} <= set(TABLE_KEYS)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A group with a row in every table that holds text, and the name nowhere."""
    path = tmp_path_factory.mktemp("template") / "t.db"
    with Memory(path, model=None, relation_types=SINGLE_HOME) as memory:
        memory.add_episode(G, "Carol works at Initech. Carol lives in Oslo.", reference_time="2024-01-01",
                           episode_id="e1", saga="standup", metadata={"channel": "general"})
        memory.add_episode(G, "Dan works at Acme.", reference_time="2024-01-02", episode_id="e2", saga="standup")
        memory.add_fact(G, "Carol", "LIVES_IN", "Bergen", valid_at="2024-06-01", subject_labels=["Person"])
        memory.add_fact(G, "Erin", "MENTORS", "Frank", valid_at="2023-01-01", episode_id="e3")
        memory.remove_episode(G, "e3")  # a retraction: its history and the retraction index
        memory.summarize_entities(G, refresh_stale_only=False)
        memory.summarize_saga(G, "standup")
        memory.build_communities(G)
        memory.configure(G, user_name="Carol")  # a group setting
        store = memory.store  # type: ignore[attr-defined]
        plan = Plan(group_id=G, now=memory.episodes(G)[0].created_at, expected_revision=None)
        plan.cached_replies = [("reply-1", "a-model", '{"answer": "Carol works at Initech"}')]
        plan.replies_episode = "e1"
        (carol,) = memory.entities(G, name="Carol")
        plan.entity_aliases = [(carol.uuid, "Caz")]
        plan.audit.append(AuditEvent(group_id=G, kind="note", recorded_at=plan.now, actor="ops", detail={"k": 1}))
        bergen, oslo = (f.uuid for f in sorted(memory.facts(G, subject="Carol", relation="LIVES_IN",
                                                            include_retired=True), key=lambda f: f.fact))
        plan.contradictions = [ContradictionRecord(  # a recorded link, with its filer's note
            group_id=G, fact_uuid=bergen, target_uuid=oslo, kind="recorded", reason="recorded", target_authority=0.5,
            actor_weight=1.0, score=0.5, similarity=None, note="moved, says HR", actor="agent:hr", episode_id=None,
            created_at=plan.now)]
        memory._call(store.apply(plan))  # type: ignore[attr-defined]
    return path


def _planted(value: object) -> str:
    """``value`` with the name in it, in the same shape (JSON keeps parsing)."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return f"{value} ZORBLAX_QUENTIN"
        if isinstance(parsed, list):
            return json.dumps([*parsed, "Zorblax Quentin"])
        if isinstance(parsed, dict):
            return json.dumps({**parsed, "Zorblax Quentin": "zorblax-quentin"})
        return json.dumps(f"{parsed} Zorblax Quentin")
    return "Zorblax Quentin"


@pytest.mark.parametrize(("table", "column"), SCANNED, ids=[f"{t}.{c}" for t, c in SCANNED])
def test_a_trace_in_any_text_column_is_found_erased_and_gone_from_the_file(
    template: Path, tmp_path: Path, table: str, column: str
) -> None:
    path = tmp_path / "m.db"
    shutil.copy(template, path)
    conn = sqlite3.connect(path)
    key = TABLE_KEYS[table]
    row, value = conn.execute(f'SELECT "{key}", "{column}" FROM "{table}" WHERE group_id = ? LIMIT 1', (G,)).fetchone()
    if column in ("pending", "checkpoint", "result", "qualifiers") and value is None:  # JSON held as text
        value = "{}"
    conn.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE "{key}" = ? AND group_id = ?', (_planted(value), row, G))
    conn.commit()
    conn.close()
    with Memory(SQLiteStore(path), model=None) as memory:
        report = memory.forget(G, entity=NAME)  # found, though no entity and no episode text names it
        assert report.verified, report.leftovers
        memory.facts(G)  # what is left still reads
    raw = path.read_bytes() + (path.with_name("m.db-wal").read_bytes() if path.with_name("m.db-wal").exists() else b"")
    assert b"zorblax" not in raw.lower()


# -- an erasure a reader holds back ------------------------------------------------------------------------------


def _file_bytes(path: Path) -> bytes:
    wal = path.with_name(path.name + "-wal")
    return (path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")).lower()


def _held_back_forget(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Memory, sqlite3.Connection]:
    """A forget while another connection reads a snapshot from before it."""
    monkeypatch.setattr(purge, "CHECKPOINT_WAIT_S", 0.3)
    memory = Memory(path, model=None)
    memory.add_episode("other", "Hiro works at Vorpal.", reference_time="2024-01-01")
    memory.add_episode(G, "Zorblax Quentin works at Acme.", reference_time="2024-01-01")
    memory.add_episode(G, "Carol works at Initech.", reference_time="2024-01-02")
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM episodes").fetchone()[0] == 3  # its snapshot: before the purge
    report = memory.forget(G, entity=NAME)
    assert not report.verified
    assert any("read snapshot" in where and "doctor --repair" in where for where in report.leftovers)
    assert report.episodes and not memory.facts(G, subject=NAME)  # the rows are gone all the same
    assert b"zorblax" in _file_bytes(path)  # but the old pages are still in the files
    assert memory.reconcile(G).pending_erasure and not memory.reconcile(G).ok
    assert not memory.reconcile("other").pending_erasure  # another tenant learns nothing of it
    return memory, reader


def test_a_reader_holding_a_snapshot_makes_forget_unverified_until_doctor_repairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.db"
    memory, reader = _held_back_forget(path, monkeypatch)
    # While the reader is there, a repair cannot finish either, and says so.
    still = memory.reconcile(G, repair=True)
    assert still.repaired.erasure_complete is False and "read snapshot" in (still.repaired.erasure or "")
    reader.execute("ROLLBACK")
    reader.close()
    memory.close()
    result = CliRunner().invoke(cli_app, ["doctor", G, "--repair", "--db", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "erasure" in result.output and "checkpoint complete" in result.output
    assert b"zorblax" not in _file_bytes(path)
    with Memory(path, model=None) as again:
        assert not again.reconcile(G).pending_erasure and again.facts(G, subject="Carol")


def test_the_next_forget_finishes_an_erasure_a_reader_held_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.db"
    memory, reader = _held_back_forget(path, monkeypatch)
    reader.execute("ROLLBACK")
    reader.close()
    # Nothing is left by that name; what is left of the forget is finished, and verified.
    report = memory.forget(G, entity=NAME)
    assert report.verified and report.leftovers == [] and report.episodes == []
    memory.close()
    assert b"zorblax" not in _file_bytes(path)
    with Memory(path, model=None) as again:
        assert not again.reconcile(G).pending_erasure
        with pytest.raises(NotFoundError, match="nothing named"):
            again.forget(G, entity=NAME)  # nothing pending any more: nothing named


def test_postgres_a_snapshot_older_than_the_purge_holds_back_verified_until_repair(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import psycopg

    from kronograph.store.postgres import PostgresStore
    from kronograph.store.postgres import purge as pg_purge

    from . import pg_server

    monkeypatch.setattr(pg_purge, "VACUUM_WAIT_S", 0.3)
    url = pg_server.databases().fresh()
    with Memory(PostgresStore(url, min_size=0, max_size=4), model=None) as memory:
        _trace_memory(memory)
        with psycopg.connect(url, autocommit=True) as reader:
            reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            reader.execute("SELECT count(*) FROM episodes").fetchone()  # a snapshot from before the purge
            report = memory.forget(G, entity=NAME)
            assert not report.verified
            assert any("may still see what the purge deleted" in where for where in report.leftovers)
            assert memory.reconcile(G).pending_erasure and not memory.reconcile("other").pending_erasure
            reader.execute("ROLLBACK")
        repaired = memory.reconcile(G, repair=True)
        assert repaired.pending_erasure and repaired.repaired.erasure_complete
        assert "VACUUM" in (repaired.repaired.erasure or "")
        assert not memory.reconcile(G).pending_erasure
        # No row of any table holds it, by any column the schema has.
        hits = memory._call(memory.store.text_occurrences(G, [NAME]))  # type: ignore[attr-defined]
        assert [h for h in hits if _mentions_name(h.text)] == []
        with psycopg.connect(url) as conn:
            for (table,) in conn.execute(
                "SELECT DISTINCT table_name FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND column_name = 'group_id'"
            ).fetchall():
                rows = conn.execute(f'SELECT t::text FROM "{table}" t').fetchall()  # every column, as text
                assert not [r for r in rows if "zorblax" in r[0].lower()], table


def test_a_name_in_other_encodings_is_found(memory_factory: MakeMemory) -> None:
    """JSON's escapes of a non-ASCII name, another case, separators other than a space."""
    memory = memory_factory(model=None)
    memory.add_episode(G, "Carol works at Initech.", reference_time="2024-01-01", episode_id="meta",
                       metadata={"Zoë Quentin": "yes"})
    memory.add_fact(G, "Dan", "MET_ZOË-QUENTIN_AT", "Acme", valid_at="2023-01-01")
    memory.add_episode(G, "Erin works at Umbrella.", reference_time="2024-01-02", episode_id="kept")
    report = memory.forget(G, entity="zoë quentin")
    assert report.verified, report.leftovers
    assert "meta" in report.episodes and "kept" not in report.episodes
    assert [f.triple for f in memory.facts(G) if "Dan" in f.triple] == []
    hits = memory._call(memory.store.text_occurrences(G, ["Zoë Quentin"]))  # type: ignore[attr-defined]
    assert hits == []


def test_postgres_scans_the_same_text_columns_as_sqlite() -> None:
    """The schemas mirror each other column for column; so must their scans
    (a PostgreSQL type the scan did not know would leave a column out)."""
    from kronograph.store.postgres import PostgresStore
    from kronograph.store.postgres import purge as pg_purge

    from . import pg_server

    with Memory(PostgresStore(pg_server.databases().fresh(), min_size=0, max_size=2), model=None) as memory:
        memory.add_fact(G, "Carol", "KNOWS", "Dan")  # opens (and migrates) the store
        tables = memory._call(memory.store._run(pg_purge.scanned_tables))  # type: ignore[attr-defined]
    assert {(t.name, c) for t in tables for c in t.columns} == set(SCANNED)
