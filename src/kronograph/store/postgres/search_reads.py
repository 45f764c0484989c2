"""Search queries against PostgreSQL: full text over the generated ``fts``
columns (GIN), cosine exactly over the group's pgvector vectors, the entity
graph walked by one recursive query, and counts for the mention reranker.

The ports of ``..sqlite.search_reads`` (and of SQLite's in-memory vectors),
with the same answers except full-text scores, which come from ``ts_rank``
rather than BM25 (``docs/search.md``, "On PostgreSQL"). Every table is
filtered by the group and every join stays within it, so under Citus each
query runs on the one shard that holds the group.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from datetime import datetime
from typing import Any

import numpy as np
from psycopg import AsyncConnection

from ...model import Episode
from ...time import to_micros
from .. import rows
from ..sql import graph_queries
from ..sqlite.search_reads import QueryWords
from .columns import DIALECT as D
from .columns import EPISODE_COLUMNS
from .execute import fetch_all

__all__ = [
    "current_facts_search",
    "entities_known_by",
    "episode_neighbours",
    "episodes_by_uuid",
    "item_vectors",
    "mention_counts",
    "neighbours",
    "reachable",
    "text_search",
    "touching_facts",
    "vector_search",
]

Params = dict[str, Any]

_TABLES = {"facts": "facts", "entities": "entities", "episodes": "episodes", "communities": "communities"}
_ALIAS = {"facts": "f", "entities": "e", "episodes": "p", "communities": "c"}
# Ties in rank fall back on the uuid, byte by byte (episodes: order of arrival).
_TIES = {
    "facts": 'f.uuid COLLATE "C"', "entities": 'e.uuid COLLATE "C"', "episodes": "p.id",
    "communities": 'c.uuid COLLATE "C"',
}

# The query's words as one OR-ed tsquery, ``match(q)``. Each word goes through
# phraseto_tsquery, so nothing in it is read as tsquery syntax (a word the
# parser splits, like ``foo_bar``, is the phrase of its parts, as a quoted
# FTS5 string is); stop words give no lexeme and drop out.
_ALL_WORDS = """WITH match AS (
  SELECT string_agg('(' || q::text || ')', ' | ')::tsquery AS q
  FROM (SELECT phraseto_tsquery('english', word) AS q FROM unnest(%(words)s::text[]) AS word) w
  WHERE numnode(q) > 0
)"""
# The same, but with more than QueryWords.KEEP words, those in more than
# 1/SHARE of the group's rows (and over FLOOR rows) are left out, as on
# SQLite; the rarest stays when every word is that common. The counts are the
# group's own (never the planner's table-wide statistics, which would let
# another group's rows decide which words count), each stopped one past the
# cutoff; a group of FLOOR rows or fewer keeps every word uncounted.
_RARE_WORDS = """WITH words AS (
  SELECT w.i, phraseto_tsquery('english', w.word) AS q FROM unnest(%(words)s::text[]) WITH ORDINALITY AS w(word, i)
), total AS MATERIALIZED (
  SELECT count(*) AS n FROM {table} t WHERE t.group_id = %(g)s
), cutoff AS MATERIALIZED (
  SELECT n, greatest(%(floor)s, n / %(share)s) AS c FROM total
), counted AS (
  SELECT w.i, w.q, CASE WHEN (SELECT n FROM cutoff) <= %(floor)s THEN 0 ELSE (
    SELECT count(*) FROM (SELECT 1 FROM {table} t WHERE t.group_id = %(g)s AND t.fts @@ w.q
                          LIMIT (SELECT c FROM cutoff) + 1) hits) END AS n
  FROM words w WHERE numnode(w.q) > 0
), ranked AS (
  SELECT q, n <= (SELECT c FROM cutoff) AS ok, row_number() OVER (ORDER BY n, i) AS r FROM counted
), match AS (
  SELECT string_agg('(' || q::text || ')', ' | ')::tsquery AS q FROM ranked
  WHERE ok OR (r = 1 AND NOT EXISTS (SELECT FROM ranked WHERE ok))
)"""


_TOKEN = re.compile(r"\w+", re.UNICODE)


def query_words(text: str) -> list[str]:
    r"""The query's words (``\w+``) as SQLite's full text takes them, one per
    casefolded form, each as written: PostgreSQL lowercases it as it
    lowercased the texts (by the database's locale), where Python's
    casefolding may differ ("Straße" casefolds to "strasse", no text's word)."""
    first: dict[str, str] = {}
    for word in _TOKEN.findall(text):
        first.setdefault(word.casefold(), word)
    return list(first.values())


def _match(scope: str, group_id: str, query: str) -> tuple[str, Params] | None:
    """The ``match`` CTE for the query's words, and its parameters (the
    group's among them); None when the query has no words."""
    words = query_words(query)
    if not words:
        return None
    params: Params = {"g": group_id, "words": words}
    if len(words) <= QueryWords.KEEP:
        return _ALL_WORDS, params
    return _RARE_WORDS.format(table=_TABLES[scope]), params | {"floor": QueryWords.FLOOR, "share": QueryWords.SHARE}


def _rank(scope: str) -> str:
    """ts_rank with length normalisation (rank / (1 + log(lexemes))): of two
    texts with the same matches, the shorter ranks first, as under BM25."""
    return f"ts_rank({_ALIAS[scope]}.fts, match.q, 1)"


async def text_search(
    conn: AsyncConnection,
    scope: str,
    group_id: str,
    query: str,
    limit: int,
    episodes_before: datetime | None,
    episodes_known_at: datetime | None,
) -> list[tuple[str, float]]:
    """Uuids ranked by ``ts_rank`` (best first, higher is better). Episodes:
    complete ones only, and none with a reference time after
    ``episodes_before`` or received after ``episodes_known_at``."""
    found = _match(scope, group_id, query)
    if found is None or limit < 1:
        return []
    match, params = found
    a = _ALIAS[scope]
    where = ""
    if scope == "episodes":
        where = " AND p.status = 'complete' AND p.reference_time <= %(before)s AND p.created_at <= %(known)s"
        params["before"] = to_micros(episodes_before) if episodes_before is not None else 1 << 62
        params["known"] = to_micros(episodes_known_at) if episodes_known_at is not None else 1 << 62
    params |= {"g": group_id, "n": limit}
    cur = await conn.execute(
        f"{match} SELECT {a}.uuid, {_rank(scope)} AS rank FROM {_TABLES[scope]} {a}, match"
        f" WHERE {a}.group_id = %(g)s AND {a}.fts @@ match.q{where}"
        f" ORDER BY rank DESC, {_TIES[scope]} LIMIT %(n)s",
        params,
    )
    return [(uuid, float(rank)) for uuid, rank in await cur.fetchall()]


async def current_facts_search(
    conn: AsyncConnection, group_id: str, query: str, limit: int, at: datetime, include_events: bool = False
) -> tuple[list[tuple[str, float]], int, bool]:
    """The facts valid (and not expired) at ``at`` among the ``4 * limit``
    best full-text matches, best first (at most ``limit``); how many of those
    matches the moment hides (events too, unless ``include_events``); and
    whether there may be more matches."""
    found = _match("facts", group_id, query)
    if found is None or limit < 1:
        return [], 0, False
    match, params = found
    params |= {"g": group_id, "n": 4 * limit, "t": to_micros(at), "events": include_events}
    cur = await conn.execute(
        f"{match} SELECT f.uuid, {_rank('facts')} AS rank, (f.expired_at IS NULL AND f.valid_at <= %(t)s"
        " AND (f.invalid_at IS NULL OR f.invalid_at > %(t)s) AND (%(events)s OR NOT f.event)) FROM facts f, match"
        f" WHERE f.group_id = %(g)s AND f.fts @@ match.q ORDER BY rank DESC, {_TIES['facts']} LIMIT %(n)s",
        params,
    )
    ranked = await cur.fetchall()
    valid = [(uuid, float(rank)) for uuid, rank, ok in ranked if ok]
    return valid[:limit], sum(1 for row in ranked if not row[2]), len(ranked) == 4 * limit


# -- vectors -------------------------------------------------------------------
_VECTOR_ROWS = {"facts": "", "entities": "", "episodes": " AND status = 'complete'", "communities": ""}


async def vector_search(
    conn: AsyncConnection, scope: str, group_id: str, vector: np.ndarray, limit: int
) -> list[tuple[str, float]]:
    """Uuids by cosine similarity (1 - pgvector's cosine distance) to
    ``vector``, best first (ties by uuid), over every vector of the group
    of that dimension: exact, as on SQLite. An HNSW index (approximate, one
    graph over every group's vectors) would let another group's rows decide
    which of this group's are found, so the ordering is an expression no
    index serves (``+ 0``) and the group's rows are read through its
    group_id index. Vectors of another dimension (another embedder) are
    never compared."""
    n = int(vector.shape[0]) if vector.ndim == 1 else 0
    if n < 1 or limit < 1:
        return []
    distance = f"embedding::vector({n}) <=> %(v)s::vector({n})"
    cur = await conn.execute(
        f"SELECT uuid, {distance} FROM {_TABLES[scope]} WHERE group_id = %(g)s AND embedding IS NOT NULL"
        f" AND vector_dims(embedding) = {n}{_VECTOR_ROWS[scope]} ORDER BY ({distance}) + 0, uuid COLLATE \"C\""
        " LIMIT %(k)s",
        {"g": group_id, "v": np.asarray(vector, dtype=np.float32), "k": limit},
    )
    # A zero vector has no direction: pgvector gives NaN, SQLite's dot product 0.
    scored = [(uuid, 0.0 if math.isnan(d) else 1.0 - float(d)) for uuid, d in await cur.fetchall()]
    scored.sort(key=lambda s: -s[1])
    return scored


async def item_vectors(
    conn: AsyncConnection, scope: str, group_id: str, uuids: Collection[str]
) -> dict[str, np.ndarray]:
    """The stored vectors of these items (those that have one), float32."""
    keys = list(uuids)
    if not keys:
        return {}
    cur = await conn.execute(
        f"SELECT uuid, embedding FROM {_TABLES[scope]} WHERE group_id = %s AND uuid = ANY(%s)"
        f" AND embedding IS NOT NULL{_VECTOR_ROWS[scope]}",
        (group_id, keys),
    )
    return {uuid: _array(v) for uuid, v in await cur.fetchall()}


def _array(value: Any) -> np.ndarray:
    """A vector as float32 numpy: pgvector's loader gives a ``Vector`` (0.3+)
    or, in older releases, an array already."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy is not None else value, dtype=np.float32)


# -- the graph -----------------------------------------------------------------
async def neighbours(
    conn: AsyncConnection, group_id: str, entity_uuids: Collection[str], at: datetime | None = None
) -> dict[str, set[str]]:
    """Each entity's neighbours through unexpired facts (valid at ``at``,
    when given), either direction."""
    keys = list(entity_uuids)
    if not keys:
        return {}
    return graph_queries.neighbour_sets(keys, await fetch_all(conn, graph_queries.neighbours(D, group_id, keys, at)))


# One step of the walk from the rows of {0}: the other end of each unexpired
# fact (valid at the moment, when given) touching one of them, looked up
# through the source and the target index in turn.
_STEP = (
    "{0}.hops + 1 FROM {1} {0} CROSS JOIN LATERAL ("
    " SELECT f.target_uuid AS uuid FROM facts f WHERE f.group_id = %(g)s AND f.source_uuid = {0}.uuid"
    " AND f.expired_at IS NULL{2} UNION ALL SELECT f.source_uuid FROM facts f"
    " WHERE f.group_id = %(g)s AND f.target_uuid = {0}.uuid AND f.expired_at IS NULL{2}) n"
    " WHERE {0}.hops {3} %(inner)s"
)


async def reachable(
    conn: AsyncConnection, group_id: str, seeds: Collection[str], depth: int, at: datetime | None = None
) -> dict[str, int]:
    """Fewest hops from the seeds (0) to every entity within ``depth``, through
    unexpired facts (valid at ``at``), either direction, in one query. A
    recursive CTE walks to ``depth - 1``: each iteration is the set of
    (entity, hops) one step from the last (UNION drops repeats, though an
    entity can come back at a later iteration, so the smallest hops is its
    distance); the last step, the one with the most rows, is a plain join,
    its rows never fed back. Every lookup names the group, so under Citus
    the query can run on the group's shard alone."""
    keys = list(dict.fromkeys(seeds))
    if not keys:
        return {}
    params: Params = {"g": group_id, "seeds": keys, "inner": depth - 1}
    when = graph_queries.valid_at(D, at, params, "f")
    cur = await conn.execute(
        "WITH RECURSIVE walk(uuid, hops) AS (SELECT unnest(%(seeds)s::text[]), 0"
        f" UNION SELECT n.uuid, {_STEP.format('w', 'walk', when, '<')})"
        f" SELECT uuid, hops FROM walk UNION ALL SELECT DISTINCT n.uuid, {_STEP.format('x', 'walk', when, '=')}",
        params,
    )
    out: dict[str, int] = {}
    for uuid, hops in await cur.fetchall():
        if hops < out.get(uuid, hops + 1):
            out[uuid] = hops
    return out


_TOUCHING_CHUNK = 64  # entities asked about per query


async def touching_facts(
    conn: AsyncConnection, group_id: str, entity_uuids: Collection[str], limit: int, at: datetime | None = None
) -> list[tuple[str, str, str]]:
    """(fact uuid, source, target) of unexpired facts (valid at ``at``, when
    given) touching these entities: at most ``limit`` in all, entity by entity
    in the order given, each side read through its index up to the room
    left, so a busy entity is never read whole; a few dozen entities a query."""
    keys = list(entity_uuids)
    out: dict[str, tuple[str, str, str]] = {}
    for start in range(0, len(keys), _TOUCHING_CHUNK):
        room = limit - len(out)
        if room <= 0:
            break
        params: Params = {"g": group_id, "ids": keys[start : start + _TOUCHING_CHUNK], "room": room}
        when = graph_queries.valid_at(D, at, params)
        sides = " UNION ALL ".join(
            f"(SELECT uuid, source_uuid, target_uuid, {i} AS side FROM facts WHERE group_id = %(g)s"
            f" AND {column} = e.uuid AND expired_at IS NULL{when} LIMIT %(room)s)"
            for i, column in enumerate(("source_uuid", "target_uuid"))
        )
        cur = await conn.execute(
            "SELECT t.uuid, t.source_uuid, t.target_uuid FROM unnest(%(ids)s::text[]) WITH ORDINALITY AS e(uuid, i)"
            f" CROSS JOIN LATERAL ({sides}) t"
            ' ORDER BY e.i, t.side, t.uuid COLLATE "C" LIMIT 2 * %(room)s',  # a fact comes at most twice
            params,
        )
        for uuid, source, target in await cur.fetchall():
            if len(out) >= limit:
                break
            out.setdefault(uuid, (uuid, source, target))
    return list(out.values())[:limit]


async def entities_known_by(
    conn: AsyncConnection, group_id: str, uuids: Collection[str], at: datetime
) -> set[str]:
    """The entities some fact valid by ``at`` touches, or some episode
    referenced by ``at`` mentions: what the memory could speak of then."""
    keys = list(uuids)
    if not keys:
        return set()
    return {row[0] for row in await fetch_all(conn, graph_queries.entities_known_by(D, group_id, keys, at))}


async def mention_counts(
    conn: AsyncConnection, scope: str, group_id: str, uuids: Collection[str]
) -> dict[str, int]:
    """How often each item is mentioned: an entity by the episodes that
    mention it or state a fact about it, a fact by its source episodes, an
    episode by the entities it mentions."""
    keys = list(uuids)
    if not keys:
        return {}
    return {u: int(n) for u, n in await fetch_all(conn, graph_queries.mention_counts(D, scope, group_id, keys))}

# -- episodes ------------------------------------------------------------------
# The neighbour's group is the query's parameter, not ``p.group_id``: Citus
# routes a lateral subquery to the group's shard only when its group is a
# constant (correlated, it runs on every shard).
_NEXT = (
    "LEFT JOIN LATERAL (SELECT q.uuid FROM episodes q WHERE q.group_id = %(g)s AND q.status = 'complete'"
    " AND q.kind != 'fact' AND (q.reference_time, q.id) {0} (p.reference_time, p.id)"
    " ORDER BY q.reference_time {1}, q.id {1} LIMIT 1) {2} ON true"
)


async def episode_neighbours(
    conn: AsyncConnection, group_id: str, uuids: Collection[str]
) -> dict[str, tuple[str, ...]]:
    """The complete episodes just before and just after each one in its group
    (by reference time, then order of arrival): one query for them all."""
    keys = list(uuids)
    if not keys:
        return {}
    cur = await conn.execute(
        f"SELECT p.uuid, before.uuid, after.uuid FROM episodes p {_NEXT.format('<', 'DESC', 'before')}"
        f" {_NEXT.format('>', 'ASC', 'after')} WHERE p.group_id = %(g)s AND p.uuid = ANY(%(u)s)",
        {"g": group_id, "u": keys},
    )
    found = {uuid: tuple(u for u in (before, after) if u is not None) for uuid, before, after in await cur.fetchall()}
    return {uuid: found[uuid] for uuid in keys if uuid in found}


async def episodes_by_uuid(conn: AsyncConnection, group_id: str, uuids: Collection[str]) -> list[Episode]:
    keys = list(uuids)
    if not keys:
        return []
    cur = await conn.execute(
        f"SELECT {EPISODE_COLUMNS} FROM episodes p WHERE p.group_id = %s AND p.uuid = ANY(%s) ORDER BY p.id",
        (group_id, keys),
    )
    return [rows.episode(r) for r in await cur.fetchall()]
