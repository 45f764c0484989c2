"""forget: a compliance purge of an entity or an episode, on every backend,
checked from the outside: every search scope by every method, facts,
timeline, entities, summaries, audit, the reply cache, and (SQLite) the
database file's bytes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kronograph import InvalidInputError, Memory, NotFoundError
from kronograph.search.engine import SCOPES
from kronograph.store.plan import BuiltSummary, Plan
from kronograph.store.sqlite import SQLiteStore

from .ingest_helpers import ScriptedProvider, current_episode

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
