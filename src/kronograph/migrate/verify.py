"""Checking a copy: row counts per table on both sides, then a sample of
queries asked of both backends, answers compared.

The SQLite side is read from the very snapshot that was copied (the read
functions of the SQLite store on the migration's read-only connection), so
a process writing to the file meanwhile cannot make the two disagree. The
PostgreSQL side is a :class:`PostgresStore` over the committed copy: the
answers compared are the ones kronograph will give from now on.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

import numpy as np
from psycopg import AsyncConnection
from pydantic import BaseModel

from ..store.postgres import PostgresStore
from ..store.protocol import FactQuery
from ..store.sqlite.search_reads import query_words
from ..time import from_micros
from .copy import TABLES
from .sample import GroupSample, sample_group
from .snapshot import SnapshotReads
from .source import SqliteSource

__all__ = ["Mismatch", "TableCount", "Verification", "count_tables", "verify_queries"]

_ONE = timedelta(microseconds=1)


@dataclasses.dataclass(frozen=True, slots=True)
class TableCount:
    table: str
    source: int
    target: int

    @property
    def ok(self) -> bool:
        return self.source == self.target


@dataclasses.dataclass(frozen=True, slots=True)
class Mismatch:
    """One query whose answers differ: what was asked, and where they part."""

    group_id: str | None
    query: str
    detail: str


@dataclasses.dataclass(slots=True)
class Verification:
    counts: list[TableCount] = dataclasses.field(default_factory=list)
    queries: int = 0  # queries asked of both backends
    asked: dict[str, int] = dataclasses.field(default_factory=dict)  # by method: facts, history, search_text…
    mismatches: list[Mismatch] = dataclasses.field(default_factory=list)

    def count(self, label: str, mismatch: Mismatch | None = None) -> None:
        """One more query asked of both sides (and how it went)."""
        self.queries += 1
        kind = label.split("(", 1)[0]
        self.asked[kind] = self.asked.get(kind, 0) + 1
        if mismatch is not None:
            self.mismatches.append(mismatch)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.counts) and not self.mismatches


async def count_tables(conn: AsyncConnection, source: dict[str, int]) -> list[TableCount]:
    out = []
    for table, _ in TABLES:
        cur = await conn.execute(f"SELECT COUNT(*) FROM {table}")  # type: ignore[arg-type]
        row = await cur.fetchone()
        out.append(TableCount(table, source[table], int(row[0]) if row else 0))
    return out


def plain(value: Any) -> Any:
    """A value as plain data, so answers from the two backends compare with ==."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", warnings=False)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, set | frozenset) else items
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    return value


def _where(a: Any, b: Any) -> str:
    """Where two plain answers part, in a few words."""
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{len(a)} items from SQLite, {len(b)} from PostgreSQL"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return f"item {i}: {_where(x, y)}"
    if isinstance(a, dict) and isinstance(b, dict):
        keys = [k for k in {**a, **b} if a.get(k) != b.get(k)]
        return "; ".join(f"{k}: {a.get(k)!r:.80} ≠ {b.get(k)!r:.80}" for k in keys[:3])
    return f"{a!r:.120} ≠ {b!r:.120}"


class _Asker:
    """Asks one question of both sides and records a disagreement."""

    def __init__(
        self, source: SnapshotReads, target: PostgresStore, result: Verification, conn: AsyncConnection
    ) -> None:
        self.source, self.target, self.result, self.conn = source, target, result, conn

    async def comparable(self, words: list[str], text: str) -> bool:
        """Whether PostgreSQL's full text finds each of ``text``'s words in
        ``text`` itself. Where it does not, the backends are documented to
        differ (``docs/search.md``, "On PostgreSQL"): stop words are not
        indexed there, and tokens its parser keeps whole (an e-mail address,
        12.5) are not found by their pieces."""
        cur = await self.conn.execute(
            "SELECT coalesce(bool_and(CASE WHEN numnode(q) > 0 THEN to_tsvector('english', %s) @@ q END), false)"
            " FROM unnest(%s::text[]) AS w, phraseto_tsquery('english', w) AS q",
            (text, words),
        )
        row = await cur.fetchone()
        return bool(row and row[0])

    async def same(self, group: str | None, label: str, ask: Callable[[Any], Awaitable[Any]]) -> None:
        mine, theirs = plain(await ask(self.source)), plain(await ask(self.target))
        self.result.count(label, None if mine == theirs else Mismatch(group, label, _where(mine, theirs)))


def _call(method: str, *args: Any, **kwargs: Any) -> Callable[[Any], Awaitable[Any]]:
    """One question, to ask of either side: the store method of that name."""

    def ask(store: Any) -> Awaitable[Any]:
        return getattr(store, method)(*args, **kwargs)  # type: ignore[no-any-return]

    return ask


def _at(micros: int) -> datetime:
    return from_micros(micros)


async def _entity(ask: _Asker, g: str, key: str, s: GroupSample, now: datetime) -> None:
    def facts(label: str, **q: Any) -> Awaitable[None]:
        query = FactQuery(**q)
        return ask.same(g, f"facts({label})", _call("facts", g, query))

    await facts(f"subject={key!r}", as_of=now, subject_key=key)
    await facts(f"entity={key!r}, include_retired, include_expired", as_of=now, entity_key=key,
                include_retired=True, include_expired=True)
    for t in s.valid_times.get(key, ()):
        for when in (_at(t), _at(t) - _ONE):
            await facts(f"entity={key!r}, as_of={when.isoformat()}", as_of=when, entity_key=key)
    known = s.known_times.get(key, ())
    for t in known:
        for when in (_at(t), _at(t) - _ONE):
            await facts(f"entity={key!r}, known_at={when.isoformat()}", as_of=when, entity_key=key, known_at=when)
    if known and s.valid_times.get(key):
        k, v = _at(known[0]), _at(s.valid_times[key][-1])
        await facts(f"entity={key!r}, known_at={k.isoformat()}, as_of={v.isoformat()}",
                    as_of=v, entity_key=key, known_at=k)
    await ask.same(g, f"timeline({key!r})", _call("timeline", g, key, None))
    await ask.same(g, f"entities(name={key!r})", _call("entities", g, name_key=key))


async def _group(ask: _Asker, g: str, s: GroupSample, now: datetime) -> None:
    for key in s.entity_keys:
        await _entity(ask, g, key, s, now)
    for uuid in s.fact_uuids:
        await ask.same(g, f"history({uuid})", _call("history", g, uuid))
        await ask.same(g, f"fact_sources({uuid})", _call("fact_sources", g, uuid))
    for uuid in s.episode_uuids:
        await ask.same(g, f"episode_progress({uuid})", _call("episode_progress", g, uuid))
    if s.audit_small:
        await ask.same(g, "audit_events", _call("audit_events", g))
    await ask.same(g, "communities", _call("communities", g))
    for scope, uuid, vector in s.vectors:
        await _vector_search(ask, g, scope, uuid, vector)
    for scope, text, uuid, rows in s.texts:
        await _text_search(ask, g, scope, text, uuid, rows)


async def _text_search(ask: _Asker, g: str, scope: str, text: str, uuid: str, rows: int) -> None:
    """An item must be found by a search for its own words on both sides.
    Every match is asked for, since BM25 and ``ts_rank`` order them
    differently; and only where each word finds the text on PostgreSQL,
    whose English configuration drops stop words (a person called Will) that
    SQLite keeps. Then any word the pruning of common words keeps finds it."""
    words = query_words(text)
    if not words or not await ask.comparable(words, text):
        return
    found = [
        any(u == uuid for u, _ in await store.search_text(g, scope, text, max(rows, 1)))
        for store in (ask.source, ask.target)
    ]
    label = f"search_text({scope}, {text!r})"
    where = "SQLite only" if found[0] else "PostgreSQL only"
    ask.result.count(label, None if found[0] == found[1] else Mismatch(g, label, f"{uuid} found by {where}"))


async def _vector_search(ask: _Asker, g: str, scope: str, uuid: str, vector: np.ndarray) -> None:
    """An item's own vector must find it first (or tied first) on both sides.
    Only that is compared: SQLite searches exactly, pgvector's HNSW index
    approximately, so the rest of the ranking may differ."""
    unit = vector / (np.linalg.norm(vector) or 1.0)
    for name, store in (("SQLite", ask.source), ("PostgreSQL", ask.target)):
        found = await store.search_vectors(g, scope, unit, 5)
        label = f"search_vectors({scope}, the vector of {uuid}, {name})"
        first = bool(found) and any(u == uuid and s >= found[0][1] - 1e-4 for u, s in found)
        ask.result.count(label, None if first else Mismatch(g, label, f"not found first: {found}"))


async def verify_queries(
    source: SqliteSource, target: PostgresStore, result: Verification, *, sample: int, now: datetime,
    progress: Callable[[str, int, int], None],
) -> None:
    """Ask both sides the sampled questions of every group and the store-wide ones."""
    if sample <= 0:
        return
    async with await AsyncConnection.connect(target.url, autocommit=True) as conn:
        ask = _Asker(SnapshotReads(source.conn), target, result, conn)
        groups = source.groups()
        progress("queries", 0, len(groups))
        for i, g in enumerate(groups, 1):
            s = await asyncio.to_thread(sample_group, source.conn, g, sample)
            await _group(ask, g, s, now)
            progress("queries", i, len(groups))
        for key in await asyncio.to_thread(_settings, source):
            await ask.same(None, f"setting({key!r})", _call("setting", key))
        for g, key in await asyncio.to_thread(_reply_keys, source, sample):
            await ask.same(g, f"cached_reply({key!r})", _call("cached_reply", g, key))


def _settings(source: SqliteSource) -> list[str]:
    return [k for (k,) in source.conn.execute("SELECT key FROM store_settings ORDER BY key")]


def _reply_keys(source: SqliteSource, n: int) -> list[tuple[str, str]]:
    return [(g, k) for g, k in source.conn.execute(
        "SELECT group_id, key FROM model_replies ORDER BY group_id, key LIMIT ?", (n,)
    )]
