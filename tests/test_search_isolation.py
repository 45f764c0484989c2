"""A group's search answers never depend on another group's rows: the same
ids, order and scores, whatever other groups hold (issue 13, item 1). Full
text ranks with the group's own statistics (row count, average length, how
many of its rows hold each word) and drops common query words by the group's
own counts; cosine search reads the group's vectors exactly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kronograph import Memory
from kronograph.search.recipes import RECIPES
from kronograph.store import SQLiteStore, Store
from kronograph.store.sqlite.search_reads import QueryWords

from . import pg_server
from .conftest import StepClock

EARLIER = "2020-01-01"
SCOPES = ("facts", "entities", "episodes", "communities")
QUERIES = (
    "Alice works",
    "where does Alice work with robots",
    "chess club Oslo music",
    "robot arms chemist Fjord biotech Oslo chess",
    "Bob",
    "foo_bar",
)
FACTS_A = [
    ("Alice", "WORKS_AT", "Acme Robotics", "Alice works at Acme Robotics building robot arms"),
    ("Alice", "LIVES_IN", "Oslo", "Alice lives in Oslo near the fjord"),
    ("Bob", "KNOWS", "Alice", "Bob knows Alice from the chess club"),
    ("Carol", "KNOWS", "Bob", "Carol plays chess with Bob at the club in Oslo"),
    ("Dan", "LIKES", "Music", "Dan likes music and robots"),
    ("Erin", "WORKS_AT", "Fjord Biotech", "Erin works at Fjord Biotech as a chemist"),
    ("Alice", "LIKES", "Chess", "Alice likes chess more than music"),
    ("Frank", "KNOWS", "Erin", "Frank knows Erin from work at the biotech lab foo_bar"),
]
EPISODES_A = [
    "Alice Smith: I started at Acme Robotics this week, building robot arms.",
    "Bob Jones: Alice and I played chess at the club in Oslo.",
    "Erin Lee: the Fjord Biotech lab hired another chemist.",
]


@pytest.fixture(params=["sqlite-file", "postgres"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Store, str | None]]:
    """A fresh store and, on PostgreSQL, its URL (to ANALYZE the tables: the
    planner's statistics are table-wide)."""
    if request.param == "sqlite-file":
        yield SQLiteStore(tmp_path / "isolation.db"), None
        return
    from kronograph.store.postgres import PostgresStore

    url = pg_server.databases().fresh()
    yield PostgresStore(url, min_size=0, max_size=4), url


def answers(memory: Memory) -> dict[tuple[str, str, str], list[tuple[str, float, tuple[str, ...]]]]:
    """Group a's answer to every query, recipe and scope, in both temporal modes."""
    out = {}
    for query in QUERIES:
        for recipe in RECIPES:
            for retired in (False, True):
                found = memory.search(
                    "a", query, scopes=list(SCOPES), recipe=recipe, center_entity="Alice", limit=5,
                    include_retired=retired,
                )
                for scope in SCOPES:
                    hits = getattr(found, scope)
                    out[(query, f"{recipe}{'+retired' if retired else ''}", scope)] = [
                        (h.item.uuid, h.score, h.methods) for h in hits
                    ]
    return out


def fill_other_group(memory: Memory) -> None:
    """Group b: many rows that share a's words (every one of them well past
    any "common word" cutoff) and many that do not, its own episodes and
    communities."""
    words = "Alice works robots chess club Oslo music chemist fjord biotech arms Bob foo_bar"
    for i in range(60):
        memory.add_fact("b", f"Alice{i % 7}", "WORKS_AT", f"Robots{i % 5}",
                        fact=f"{words} {i} Alice works Alice chess", valid_at="2020-01-01")
    for i in range(30):
        memory.add_fact("b", f"Zed{i}", "OWNS", f"Boat{i}", fact=f"Zed owns boat number {i} on the lake",
                        valid_at="2020-01-01")
    for i in range(10):
        memory.add_episode("b", f"Alice Smith: chess and robots in Oslo again, take {i}. {words}",
                           reference_time="2024-01-02")
    memory.build_communities("b")


def test_a_groups_answers_do_not_depend_on_other_groups(
    stores: tuple[Store, str | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Low bars for "common", so a's words cross them (table-wide) once b is filled.
    monkeypatch.setattr(QueryWords, "FLOOR", 3)
    monkeypatch.setattr(QueryWords, "SHARE", 4)
    store, url = stores
    memory = Memory(store, model=None, clock=StepClock())
    try:
        for source, relation, target, text in FACTS_A:
            memory.add_fact("a", source, relation, target, fact=text, valid_at="2021-01-01")
        for i, text in enumerate(EPISODES_A):
            memory.add_episode("a", text, reference_time=f"2024-01-0{i + 1}")
        memory.build_communities("a")
        before = answers(memory)
        assert any(hits for key, hits in before.items() if key[1] == "bm25")  # the queries find things
        assert all(before[(q, "bm25", s)] for q in QUERIES[:2] for s in ("facts", "episodes"))
        fill_other_group(memory)
        if url is not None:
            import psycopg

            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("ANALYZE")
        after = answers(memory)
        changed = sorted(key for key in before if before[key] != after[key])
        assert not changed, f"{len(changed)} answers of group a moved with group b's rows, e.g. {changed[:5]}"
    finally:
        memory.close()


# Full text alone, its scores scaled to [0, 1] (rrf would keep only the order).
BM25_SCORES = RECIPES["bm25"].with_(name="bm25_scores", reranker="fusion")


def _bm25_scores(memory: Memory) -> dict[tuple[str, str, bool], list[tuple[str, float]]]:
    """Group a's full-text hits by their text (uuids differ between stores), every match."""
    out = {}
    for query in QUERIES:
        for retired in (False, True):
            found = memory.search("a", query, scopes=["facts", "entities", "episodes"], recipe=BM25_SCORES,
                                  limit=50, include_retired=retired)
            out[(query, "facts", retired)] = sorted((h.item.fact, h.score) for h in found.facts)
            out[(query, "entities", retired)] = sorted((h.item.name, h.score) for h in found.entities)
            out[(query, "episodes", retired)] = sorted((h.item.content or "", h.score) for h in found.episodes)
    return out


def test_a_group_ranks_as_if_it_were_alone(
    stores: tuple[Store, str | None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Group a written alone in one store, and in another with group b's rows
    written in between (and searches between the writes, so whatever a search
    keeps must follow a's writes): the same full-text scores."""
    monkeypatch.setattr(QueryWords, "FLOOR", 3)
    monkeypatch.setattr(QueryWords, "SHARE", 4)
    alone = Memory(SQLiteStore(tmp_path / "alone.db"), model=None, clock=StepClock())
    mixed = Memory(stores[0], model=None, clock=StepClock())
    try:
        for memory in (alone, mixed):
            for i, (source, relation, target, text) in enumerate(FACTS_A):
                if memory is mixed:
                    memory.add_fact("b", source, relation, target, fact=f"{text} {text} more", valid_at=EARLIER)
                    memory.add_fact("b", f"Zed{i}", "OWNS", f"Boat{i}", fact=f"Zed owns boat {i}", valid_at=EARLIER)
                    _bm25_scores(mixed)
                memory.add_fact("a", source, relation, target, fact=text, valid_at="2021-01-01")
            for i, text in enumerate(EPISODES_A):
                if memory is mixed:
                    memory.add_episode("b", f"{text} {text}", reference_time="2024-01-01")
                    _bm25_scores(mixed)
                memory.add_episode("a", text, reference_time=f"2024-01-0{i + 1}")
        if stores[1] is None:  # the same backend: the same scores
            assert _bm25_scores(mixed) == _bm25_scores(alone)
        else:  # ts_rank: compare with a's own scores before b's rows moved anything
            first = _bm25_scores(mixed)
            for i in range(20):
                mixed.add_fact("b", "Alice", "LIKES", f"Thing{i}", fact="Alice works chess robots Oslo",
                               valid_at="2020-01-01")
            assert _bm25_scores(mixed) == first
    finally:
        alone.close()
        mixed.close()


def test_postgres_common_words_are_the_groups_own() -> None:
    """On PostgreSQL, which query words count as common (and are left out)
    is decided by the group's own rows: past 1,000 rows of another group
    holding a's words, and an ANALYZE, the planner's statistics (table-wide)
    would call them common; a's answers stay as they were."""
    import psycopg

    from kronograph.store.postgres import PostgresStore

    url = pg_server.databases().fresh()
    memory = Memory(PostgresStore(url, min_size=0, max_size=4), model=None, clock=StepClock())
    try:
        for i, text in enumerate([*EPISODES_A, "Chess and music in Oslo with robots", "Oslo music night"]):
            memory.add_episode("a", text, reference_time=f"2024-01-0{i + 1}")
        query = "chess robots Oslo music club"

        def found() -> list[tuple[str, float]]:
            hits = memory.search("a", query, scopes=["episodes", "facts"], recipe=BM25_SCORES, limit=50)
            return [(h.item.uuid, h.score) for h in [*hits.episodes, *hits.facts]]

        before = found()
        assert before
        # One episode of b through the API, then 1,099 copies of its row in
        # SQL: the property is about another group's rows in the same table,
        # and 1,100 ingestions on PostgreSQL would cost the suite a minute.
        memory.add_episode("b", "chess robots Oslo music club take 0", reference_time="2024-01-02")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                "INSERT INTO episodes (group_id, uuid, name, kind, content, content_hash, source_description,"
                " reference_time, created_at, saga, status, metadata, result, updated_at)"
                " SELECT group_id, uuid || '-' || n, name, kind, content || ' take ' || n, content_hash,"
                " source_description, reference_time, created_at + n, saga, status, metadata, result, updated_at"
                " FROM episodes, generate_series(1, 1099) AS n WHERE group_id = 'b'"
            )
            assert conn.execute("SELECT count(*) FROM episodes WHERE group_id = 'b'").fetchone() == (1100,)
            conn.execute("ANALYZE")
        assert found() == before
    finally:
        memory.close()


def test_sqlite_scores_are_fts5_bm25_when_the_group_is_alone(tmp_path: Path) -> None:
    """The group-local BM25 is FTS5's own formula: for a group alone in its
    tables it gives bm25()'s scores and order, over one column and several,
    for words that are phrases (``foo_bar``), and after rows are deleted and
    rewritten."""
    import random
    import sqlite3

    from kronograph.store.sqlite import search_reads

    path = tmp_path / "alone.db"
    memory = Memory(SQLiteStore(path), model=None, clock=StepClock())
    rng = random.Random(7)
    vocab = "alice bob works working chess club oslo robots arms foo_bar fjord biotech plays music red the".split()
    for i in range(120):
        text = " ".join(rng.choice(vocab) for _ in range(rng.randint(2, 14)))
        memory.add_fact("g", f"{rng.choice(vocab)} {i % 9}", "REL", f"Thing {i % 13}", fact=text, valid_at=EARLIER)
    memory.close()
    conn = sqlite3.connect(path, isolation_level=None)
    matched = 0
    try:
        for rewrite in (False, True):
            if rewrite:
                conn.execute("DELETE FROM facts WHERE id % 3 = 0")
                conn.execute("UPDATE facts SET fact = 'alice alice chess' WHERE id % 5 = 1")
            for query in ("alice works", "chess club oslo thing", "foo_bar robots", "the", "music red 3"):
                match = " OR ".join(f'"{w}"' for w in search_reads.query_words(query))
                for scope, table in (("facts", "facts_fts"), ("entities", "entities_fts")):
                    fts5 = conn.execute(
                        f"SELECT rowid, -bm25({table}) FROM {table} WHERE {table} MATCH ?"
                        f" ORDER BY bm25({table}), rowid", (match,),
                    ).fetchall()
                    docs, scores = search_reads.QueryWords().rank(conn, scope, "g", query)
                    matched += len(fts5)
                    assert docs.tolist() == [d for d, _ in fts5], (query, scope)
                    assert scores.tolist() == pytest.approx([s for _, s in fts5], rel=1e-12), (query, scope)
    finally:
        conn.close()
    assert matched > 500
