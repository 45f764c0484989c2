"""Queries of the ingestion pipeline on PostgreSQL: the shared ones of
``..sql.episode_queries`` run on a connection, and entity candidates with
tsvector ranking. Where SQLite asks name by name (cheap in process), these
ask for every name at once, since each round trip to a server costs more
than the query. Scoped by group_id, except the few store-wide ones named so
(resumption, settings).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection
from datetime import datetime
from typing import Any

import numpy as np
from psycopg import AsyncConnection

from ...model import Entity, Episode, FactSource, acronym, normalise_name
from ...time import from_micros
from .. import rows
from ..records import EntityMatch, EpisodeProgress
from ..sql import entity_queries
from ..sql import episode_queries as q
from .columns import DIALECT as D
from .columns import ENTITY_COLUMNS, ENTITY_ORDER
from .execute import fetch_all, fetch_one, fetch_together
from .reads import entities_named

__all__ = [
    "cached_reply",
    "cached_reply_keys",
    "context_episodes",
    "entities_aliased",
    "entities_by_uuid",
    "entities_named_and_listed",
    "entity_matches",
    "episode_progress",
    "episodes",
    "fact_sources",
    "group_settings",
    "setting",
    "unfinished_episodes",
]

_TOKEN = re.compile(r"\w+", re.UNICODE)
_ENTITY_WIDTH = len(ENTITY_COLUMNS.split(","))


async def episodes(conn: AsyncConnection, group_id: str, status: str | None) -> list[Episode]:
    return [rows.episode(r) for r in await fetch_all(conn, q.episodes(D, group_id, status))]


async def episode_progress(conn: AsyncConnection, group_id: str, episode_id: str) -> EpisodeProgress | None:
    row = await fetch_one(conn, q.episode_progress(D, group_id, episode_id))
    return None if row is None else q.progress(D, row)


async def unfinished_episodes(
    conn: AsyncConnection, statuses: Collection[str]
) -> list[tuple[str, str, str, datetime]]:
    """Store-wide: (group_id, episode id, status, last update) of episodes in
    those statuses, oldest reference time first."""
    return [(g, u, s, from_micros(t)) for g, u, s, t in await fetch_all(conn, q.unfinished_episodes(D, statuses))]


async def context_episodes(
    conn: AsyncConnection,
    group_id: str,
    before: datetime,
    exclude: str,
    limit: int,
    saga: str | None,
    ids: Collection[str] | None,
) -> list[Episode]:
    """The episodes an extraction sees as context, oldest first (``episode_queries.context_episodes``)."""
    query = q.context_episodes(D, group_id, before=before, exclude=exclude, limit=limit, saga=saga, ids=ids)
    found = await fetch_all(conn, query)
    return [rows.episode(r) for r in (found if ids is not None else reversed(found))]


def _vector(value: Any) -> np.ndarray | None:
    """pgvector's loader gives a ``Vector`` (an ndarray in some versions)."""
    if value is None:
        return None
    return value.to_numpy() if hasattr(value, "to_numpy") else np.asarray(value, dtype=np.float32)


def _words_query(key: str) -> str | None:
    """A tsquery of the name's words, each asked of entity names only (weight
    A): ``'new':A | 'york':A``. Words are ``\\w+`` runs, quoted, so nothing in
    a name is read as query syntax."""
    words = [w for w in _TOKEN.findall(key) if len(w) > 1]
    if not words:
        return None
    quoted = (w.replace("\\", "\\\\").replace("'", "''") for w in dict.fromkeys(words))
    return " | ".join(f"'{w}':A" for w in quoted)


_HOW = {1: "alias", 2: "acronym", 3: "acronym", 4: "text"}
# Every fuzzier way to a name, for many names at once (``q`` numbers them):
# aliases (1), entities whose initials it is (2), entities named by its
# initials (3), and up to ``n`` entities sharing a word with it (4, best
# ranked first; rank normalisation 1 prefers shorter names, as SQLite's bm25
# does). Each part keeps SQLite's per-name order and limits; a union orders by
# output columns only, so the wrapper adds the byte order of uuids.
_FUZZY = f"""
WITH q(i, key, compact, initials, words) AS (
    SELECT * FROM unnest(%(i)s::int[], %(keys)s::text[], %(compacts)s::text[], %(initials)s::text[], %(words)s::text[])
    AS k(i, key, compact, initials, words)
    WHERE NOT EXISTS (SELECT 1 FROM entities n WHERE n.group_id = %(g)s AND n.name_key = k.key)
)
SELECT * FROM (
SELECT q.i, 1 AS how, 0::real AS rank, {ENTITY_COLUMNS}, e.embedding FROM q
    JOIN entity_aliases a ON a.group_id = %(g)s AND a.alias_key = q.key
    JOIN entities e ON e.group_id = a.group_id AND e.uuid = a.entity_uuid
UNION ALL
SELECT q.i, 2, 0::real, x.* FROM q CROSS JOIN LATERAL (
    SELECT {ENTITY_COLUMNS}, e.embedding FROM entities e WHERE e.group_id = %(g)s AND e.acronym = q.compact
    ORDER BY {ENTITY_ORDER} LIMIT %(n)s) x
UNION ALL
SELECT q.i, 3, 0::real, {ENTITY_COLUMNS}, e.embedding FROM q
    JOIN entities e ON e.group_id = %(g)s AND e.name_key = q.initials
UNION ALL
SELECT q.i, 4, x.* FROM q CROSS JOIN LATERAL (
    SELECT ts_rank(e.fts, to_tsquery('english', q.words), 1) AS rank, {ENTITY_COLUMNS}, e.embedding FROM entities e
    WHERE q.words IS NOT NULL AND e.group_id = %(g)s AND e.fts @@ to_tsquery('english', q.words)
    ORDER BY 1 DESC, {ENTITY_ORDER} LIMIT %(n)s) x
) u ORDER BY u.i, u.how, u.rank DESC, u.created_at, u.uuid COLLATE "C"
"""


async def entity_matches(
    conn: AsyncConnection, group_id: str, names: Collection[str], limit: int
) -> dict[str, list[EntityMatch]]:
    """For each name: entities of that exact normalised name; or, when there
    are none, entities that have it as an alias, entities whose initials it is
    (or whose name is its initials), and up to ``limit`` entities sharing a
    word with it (full text). Each match says how it was found and carries
    the entity's name vector. One round trip whatever the number of names."""
    n = _ENTITY_WIDTH
    by_key: dict[str, str] = {}  # key -> the last name given for it, as SQLite's loop leaves it
    for name in names:
        by_key[normalise_name(name)] = name
    out: dict[str, list[EntityMatch]] = {key: [] for key in by_key}
    if not out:
        return out
    keys = list(out)
    exact = (
        f"SELECT {ENTITY_COLUMNS}, e.embedding, e.name_key FROM entities e"
        f" WHERE e.group_id = %s AND e.name_key = ANY(%s::text[]) ORDER BY {ENTITY_ORDER}",
        (group_id, keys),
    )
    # A known name is taken as it is by resolution: nothing fuzzier is asked
    # for it (the server skips it), and both queries go in one round trip.
    fuzzy = (_FUZZY, {
        "g": group_id,
        "n": limit,
        "i": list(range(len(keys))),
        "keys": keys,
        "compacts": [key.replace(".", "").replace(" ", "") for key in keys],
        "initials": [acronym(by_key[key]) for key in keys],
        "words": [_words_query(key) for key in keys],
    })
    named, fuzzier = await fetch_together(conn, exact, fuzzy, binary=True)  # vectors as packed floats
    for row in named:
        out[row[n + 1]].append(EntityMatch(rows.entity(row[:n]), "name", _vector(row[n])))
    seen: dict[int, set[str]] = defaultdict(set)
    for row in fuzzier:
        i, how, entity_row = row[0], row[1], row[3:]
        if entity_row[0] not in seen[i]:
            seen[i].add(entity_row[0])
            out[keys[i]].append(EntityMatch(rows.entity(entity_row[:n]), _HOW[how], _vector(entity_row[n])))
    return out


async def entities_aliased(conn: AsyncConnection, group_id: str, alias_keys: Collection[str]) -> list[Entity]:
    return [
        rows.entity(r) for key in alias_keys
        for r in await fetch_all(conn, entity_queries.entities_aliased(D, group_id, key))
    ]


async def entities_by_uuid(conn: AsyncConnection, group_id: str, uuids: Collection[str]) -> list[Entity]:
    return [rows.entity(r) for r in await fetch_all(conn, q.entities_by_uuid(D, group_id, uuids))]


async def entities_named_and_listed(
    conn: AsyncConnection, group_id: str, name_keys: Collection[str], uuids: Collection[str]
) -> tuple[list[Entity], list[Entity]]:
    """Entities by name and by uuid, in one round trip (see ``..protocol``)."""
    if not uuids:
        return await entities_named(conn, group_id, name_keys), []
    named, listed = await fetch_together(
        conn, entity_queries.entities_named(D, group_id, name_keys), q.entities_by_uuid(D, group_id, uuids)
    )
    return [rows.entity(r) for r in named], [rows.entity(r) for r in listed]


async def fact_sources(conn: AsyncConnection, group_id: str, fact_uuid: str) -> list[FactSource]:
    return [q.fact_source(D, r) for r in await fetch_all(conn, q.fact_sources(D, group_id, fact_uuid))]


async def cached_reply(conn: AsyncConnection, group_id: str, key: str) -> str | None:
    row = await fetch_one(conn, q.cached_reply(D, group_id, key))
    return None if row is None else str(row[0])


async def cached_reply_keys(conn: AsyncConnection, group_id: str) -> set[str]:
    return {str(row[0]) for row in await fetch_all(conn, q.cached_reply_keys(D, group_id))}


async def setting(conn: AsyncConnection, key: str) -> str | None:
    row = await fetch_one(conn, q.setting(D, key))
    return None if row is None else str(row[0])


async def group_settings(conn: AsyncConnection, group_id: str) -> dict[str, Any]:
    return {str(name): D.json_value(value) for name, value in await fetch_all(conn, q.group_settings(D, group_id))}
