"""Caches are per group: one tenant cannot learn another's text from a cache
hit (``usage.cached``, an embedder cache's counters), from which prompts reached
the model, or from what ``forget`` counts and deletes. Run on every backend."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kronograph import Memory
from kronograph.embed import CachedEmbedder, HashingEmbedder
from kronograph.errors import NotFoundError
from kronograph.store.sqlite.schema import MIGRATIONS as SQLITE_MIGRATIONS

from .ingest_helpers import ScriptedProvider, current_episode

B, A = "tenant-b", "tenant-a"
SECRET = "my door code is 4921"
MakeMemory = Callable[..., Memory]
GUESSES = ("my door code is 1111", SECRET, "my door code is 7777")


def _extraction(system: str, user: str) -> dict[str, Any]:
    text = current_episode(user)
    code = text.rsplit(" ", 1)[-1].rstrip(".")
    return {
        "reasoning": "scripted",
        "entities": [{"name": "Door", "labels": []}, {"name": f"Code {code}", "labels": []}],
        "facts": [{"subject": "Door", "relation": "HAS_CODE", "object": f"Code {code}",
                   "fact": f"the door code is {code}", "valid_at": None}],
    }


def _no_contradictions(system: str, user: str) -> dict[str, Any]:
    return {"reasoning": "scripted", "verdicts": []}


def _summaries(system: str, user: str) -> dict[str, Any]:
    return {"reasoning": "scripted", "summaries": [{"id": "S1", "summary": "A door with a code."}]}


def _provider() -> ScriptedProvider:
    return ScriptedProvider(Extraction=_extraction, JudgeAnswer=_no_contradictions, SummaryAnswer=_summaries)


def test_a_guess_at_another_groups_text_is_never_a_cache_hit(memory_factory: MakeMemory) -> None:
    provider = _provider()
    memory = memory_factory(model=provider, context_episodes=0)
    memory.add_episode(B, SECRET, reference_time="2024-01-01", episode_id="b-secret")
    asked = provider.count("Extraction")

    results = [memory.add_episode(A, guess, reference_time="2024-01-01", episode_id=f"a-{i}")
               for i, guess in enumerate(GUESSES)]

    assert [r.usage.cached for r in results] == [0, 0, 0]  # nothing tells the right guess apart
    assert [r.usage.calls > 0 for r in results] == [True, True, True]
    assert provider.count("Extraction") == asked + 3  # each of A's prompts went to the model
    # Within a group the cache still works: B asking again is answered from it.
    again = memory.add_episode(B, SECRET, reference_time="2024-01-01", episode_id="b-again")
    assert again.usage.cached > 0 and again.usage.calls == 0


def test_forget_neither_counts_nor_drops_another_groups_replies(memory_factory: MakeMemory) -> None:
    provider = _provider()
    memory = memory_factory(model=provider, context_episodes=0)
    memory.add_episode(B, SECRET, reference_time="2024-01-01", episode_id="b-secret")
    memory.add_episode(A, "my door code is 1111", reference_time="2024-01-01", episode_id="a-1")

    for dry_run in (True, False):
        with pytest.raises(NotFoundError):  # "4921" is in B's replies only: A has nothing of that name
            memory.forget(A, entity="Code 4921", dry_run=dry_run)

    store = memory.store
    own = memory.forget(A, entity="Code 1111", dry_run=True)
    assert own.cached_replies_dropped == len(memory._call(store.cached_reply_keys(A)))  # type: ignore[attr-defined]
    b_keys = memory._call(store.cached_reply_keys(B))  # type: ignore[attr-defined]
    assert b_keys
    for key in b_keys:
        assert memory._call(store.cached_reply(A, key)) is None  # type: ignore[attr-defined]
        assert memory._call(store.cached_reply(B, key)) is not None  # type: ignore[attr-defined]


def test_replies_asked_outside_an_episode_are_kept_per_group(memory_factory: MakeMemory) -> None:
    provider = _provider()
    memory = memory_factory(model=provider, context_episodes=0)
    for g in (B, A):
        memory.add_episode(g, SECRET, reference_time="2024-01-01", episode_id="same")

    memory.summarize_entities(B, "Door")
    asked = provider.count("SummaryAnswer")
    memory.summarize_entities(A, "Door")  # the same prompt, in another group: not B's answer

    assert asked == 1 and provider.count("SummaryAnswer") == 2
    memory.forget(A, entity="Door")
    store = memory.store
    keys = memory._call(store.cached_reply_keys(B))  # type: ignore[attr-defined]
    replies = [memory._call(store.cached_reply(B, k)) for k in keys]  # type: ignore[attr-defined]
    assert any(r and "A door with a code." in r for r in replies)  # A's forget left B's summary reply


# -- upgrading a store whose reply cache was store-wide ------------------------
_OLD_ROWS = [("k-b", "m", "B's reply", 0, B, "e1"), ("k-none", "m", "asked outside an episode", 0, None, None)]


def _check_upgraded(memory: Memory) -> None:
    store = memory.store
    assert memory._call(store.cached_reply_keys(B)) == {"k-b"}  # type: ignore[attr-defined]
    assert memory._call(store.cached_reply(B, "k-b")) == "B's reply"  # type: ignore[attr-defined]
    assert memory._call(store.cached_reply(A, "k-b")) is None  # type: ignore[attr-defined]
    assert memory._call(store.cached_reply_keys(A)) == set()  # type: ignore[attr-defined]
    assert memory._call(store.episode_replies(B, ["e1"])) == ["k-b"]  # type: ignore[attr-defined]


def test_a_v9_sqlite_memory_keeps_its_replies_in_their_group(tmp_path: Path) -> None:
    path = tmp_path / "v9.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT)")
    for number, name, apply in SQLITE_MIGRATIONS[:9]:
        apply(conn)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, 'now')", (number, name))
    conn.executemany("INSERT INTO model_replies(key, model, reply, created_at, group_id, episode_id)"
                     " VALUES (?,?,?,?,?,?)", _OLD_ROWS)
    conn.commit()
    conn.close()
    with Memory(path, model=None, resume=False) as memory:
        _check_upgraded(memory)


def test_a_v7_postgres_memory_keeps_its_replies_in_their_group() -> None:
    import uuid

    import psycopg

    from kronograph.store.postgres.schema import MIGRATIONS as PG_MIGRATIONS

    from . import pg_server

    databases = pg_server.databases()
    name = f"kg_v7_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(databases.url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
    url = pg_server._with_database(databases.url, name)
    try:
        with psycopg.connect(url, autocommit=True) as conn:  # a database of version 7, as it was written
            conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                         " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            for number, step, script in PG_MIGRATIONS[:7]:
                conn.execute(script)  # type: ignore[arg-type]
                conn.execute("INSERT INTO schema_migrations(version, name) VALUES (%s, %s)", (number, step))
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO model_replies(key, model, reply, created_at, group_id, episode_id)"
                                " VALUES (%s,%s,%s,%s,%s,%s)", _OLD_ROWS)
        with Memory(url, model=None, resume=False) as memory:
            _check_upgraded(memory)
    finally:
        with psycopg.connect(databases.url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]


# -- the embedder cache ------------------------------------------------------------
class _Counting:
    """An embedder that records every text it is asked to embed."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.name, self.dimension = self.inner.name, self.inner.dimension
        self.asked: list[str] = []

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.asked.extend(texts)
        return await self.inner.embed(texts)


def test_the_embedder_cache_serves_a_group_only_what_it_embedded(memory_factory: MakeMemory) -> None:
    counting = _Counting()
    cached = CachedEmbedder(counting)
    memory = memory_factory(model=None, embedder=cached)
    memory.add_episode(B, SECRET, reference_time="2024-01-01")
    memory.search(B, SECRET)

    for i, guess in enumerate(GUESSES):
        before = (cached.hits, len(counting.asked))
        memory.search(A, guess)
        # each guess is embedded afresh: no hit, whichever text B sent
        assert cached.hits == before[0] and counting.asked[before[1]:] == [guess], i
    assert counting.asked.count(SECRET) == 2  # for B's episode and for A's search: B's vector served only B
    hits = cached.hits
    memory.search([A, B], SECRET)  # a search of both groups is a scope of its own
    memory.search(B, SECRET)  # B's own text, again: a hit
    assert cached.hits == hits + 1
