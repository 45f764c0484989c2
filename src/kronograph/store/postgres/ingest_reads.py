"""Queries of the ingestion pipeline against PostgreSQL: episode progress,
context, entity candidates, the reply cache and store settings. Scoped by
group_id, except the few store-wide ones named so (resumption, cache,
settings).

The ports of ``..sqlite.ingest_reads``, with the same answers; where SQLite
asks name by name (cheap in process), these ask for every name at once, since
each round trip to a server costs more than the query.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection
from datetime import datetime
from typing import Any

import numpy as np
from psycopg import AsyncConnection

from ...model import Entity, Episode, FactSource, acronym, normalise_name, trusted
from ...time import from_micros, to_micros
from .. import rows
from ..records import EntityMatch, EpisodeProgress
from ..rows import opt_time
from .columns import ENTITY_COLUMNS, ENTITY_ORDER, EPISODE_COLUMNS

__all__ = [
    "cached_reply",
    "cached_reply_keys",
    "context_episodes",
    "entities_by_uuid",
    "entity_matches",
    "episode_progress",
    "episodes",
    "fact_sources",
    "setting",
    "unfinished_episodes",
]

_TOKEN = re.compile(r"\w+", re.UNICODE)
_EPISODE_WIDTH = len(EPISODE_COLUMNS.split(","))
_ENTITY_WIDTH = len(ENTITY_COLUMNS.split(","))
# Past any identity value: an episode not registered yet came after all others.
_LAST = 1 << 62


async def episodes(conn: AsyncConnection, group_id: str, status: str | None) -> list[Episode]:
    sql = f"SELECT {EPISODE_COLUMNS} FROM episodes p WHERE p.group_id = %(g)s"
    if status is not None:
        sql += " AND p.status = %(s)s"
    cur = await conn.execute(sql + " ORDER BY p.reference_time, p.created_at, p.id", {"g": group_id, "s": status})
    return [rows.episode(r) for r in await cur.fetchall()]


async def episode_progress(conn: AsyncConnection, group_id: str, episode_id: str) -> EpisodeProgress | None:
    cur = await conn.execute(
        f"SELECT {EPISODE_COLUMNS}, p.pending, p.checkpoint, p.result, COALESCE(p.updated_at, p.created_at)"
        " FROM episodes p WHERE p.group_id = %s AND p.uuid = %s",
        (group_id, episode_id),
    )
    row = await cur.fetchone()
    if row is None:
        return None
    n = _EPISODE_WIDTH
    # jsonb arrives decoded; SQL NULL is None, an empty object stays one.
    return EpisodeProgress(
        episode=rows.episode(row[:n]),
        pending=row[n],
        checkpoint=row[n + 1],
        result=row[n + 2],
        updated_at=from_micros(row[n + 3]),
    )


async def unfinished_episodes(
    conn: AsyncConnection, statuses: Collection[str]
) -> list[tuple[str, str, str, datetime]]:
    """Store-wide: (group_id, episode id, status, last update) of episodes in
    those statuses, oldest reference time first."""
    cur = await conn.execute(
        "SELECT group_id, uuid, status, COALESCE(updated_at, created_at) FROM episodes"
        " WHERE status = ANY(%s::text[]) ORDER BY reference_time, created_at, id",
        (list(statuses),),
    )
    return [(g, u, s, from_micros(t)) for g, u, s, t in await cur.fetchall()]


async def context_episodes(
    conn: AsyncConnection,
    group_id: str,
    before: datetime,
    exclude: str,
    limit: int,
    saga: str | None,
    ids: Collection[str] | None,
) -> list[Episode]:
    """The episodes an extraction sees as context: the given ids, or the
    ``limit`` latest of the group (or saga) before ``before`` that were
    received before ``exclude``, oldest first. Only episodes with content,
    never quarantined ones."""
    base = f"SELECT {EPISODE_COLUMNS} FROM episodes p WHERE p.group_id = %(g)s AND p.content IS NOT NULL"
    if ids is not None:
        cur = await conn.execute(
            f"{base} AND p.uuid = ANY(%(ids)s::text[]) ORDER BY p.reference_time, p.id",
            {"g": group_id, "ids": list(ids)},
        )
        return [rows.episode(r) for r in await cur.fetchall()]
    # Received before this episode (a batch registers in its order), so that a
    # batch's context is what one-by-one ingestion of the same list would see.
    sql = (
        f"{base} AND p.uuid != %(x)s AND p.status != 'quarantined' AND p.kind != 'fact'"
        " AND p.id < COALESCE((SELECT id FROM episodes WHERE group_id = %(g)s AND uuid = %(x)s), %(last)s)"
    )
    if saga is not None:
        sql += " AND p.saga = %(saga)s"
    sql += " AND p.reference_time < %(t)s ORDER BY p.reference_time DESC, p.created_at DESC, p.id DESC LIMIT %(n)s"
    cur = await conn.execute(
        sql, {"g": group_id, "x": exclude, "last": _LAST, "saga": saga, "t": to_micros(before), "n": limit}
    )
    return [rows.episode(r) for r in reversed(await cur.fetchall())]


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
    the entity's name vector. Two round trips whatever the number of names."""
    n = _ENTITY_WIDTH
    by_key: dict[str, str] = {}  # key -> the last name given for it, as SQLite's loop leaves it
    for name in names:
        by_key[normalise_name(name)] = name
    out: dict[str, list[EntityMatch]] = {key: [] for key in by_key}
    if not out:
        return out
    cur = await conn.execute(
        f"SELECT {ENTITY_COLUMNS}, e.embedding, e.name_key FROM entities e"
        f" WHERE e.group_id = %s AND e.name_key = ANY(%s::text[]) ORDER BY {ENTITY_ORDER}",
        (group_id, list(out)),
        binary=True,  # vectors as packed floats, not text to parse
    )
    for row in await cur.fetchall():
        out[row[n + 1]].append(EntityMatch(rows.entity(row[:n]), "name", _vector(row[n])))
    # A known name is taken as it is by resolution: nothing fuzzier is needed.
    unknown = [key for key, found in out.items() if not found]
    if not unknown:
        return out
    cur = await conn.execute(
        _FUZZY,
        {
            "g": group_id,
            "n": limit,
            "i": list(range(len(unknown))),
            "keys": unknown,
            "compacts": [key.replace(".", "").replace(" ", "") for key in unknown],
            "initials": [acronym(by_key[key]) for key in unknown],
            "words": [_words_query(key) for key in unknown],
        },
        binary=True,
    )
    seen: dict[int, set[str]] = defaultdict(set)
    for row in await cur.fetchall():
        i, how, entity_row = row[0], row[1], row[3:]
        if entity_row[0] not in seen[i]:
            seen[i].add(entity_row[0])
            out[unknown[i]].append(EntityMatch(rows.entity(entity_row[:n]), _HOW[how], _vector(entity_row[n])))
    return out


async def entities_by_uuid(conn: AsyncConnection, group_id: str, uuids: Collection[str]) -> list[Entity]:
    cur = await conn.execute(
        f"SELECT {ENTITY_COLUMNS} FROM entities e WHERE e.group_id = %s AND e.uuid = ANY(%s::text[])",
        (group_id, list(uuids)),
    )
    return [rows.entity(r) for r in await cur.fetchall()]


async def fact_sources(conn: AsyncConnection, group_id: str, fact_uuid: str) -> list[FactSource]:
    cur = await conn.execute(
        "SELECT episode_id, valid_at, stated_invalid_at, added_at, provenance FROM fact_sources"
        ' WHERE group_id = %s AND fact_uuid = %s ORDER BY added_at, episode_id COLLATE "C"',
        (group_id, fact_uuid),
    )
    return [
        trusted(FactSource, episode_id=e, valid_at=from_micros(v), invalid_at=opt_time(i),
                added_at=from_micros(a), provenance=p or {})
        for e, v, i, a, p in await cur.fetchall()
    ]


async def cached_reply(conn: AsyncConnection, group_id: str, key: str) -> str | None:
    cur = await conn.execute("SELECT reply FROM model_replies WHERE group_id = %s AND key = %s", (group_id, key))
    row = await cur.fetchone()
    return None if row is None else str(row[0])


async def cached_reply_keys(conn: AsyncConnection, group_id: str) -> set[str]:
    cur = await conn.execute("SELECT key FROM model_replies WHERE group_id = %s", (group_id,))
    return {str(row[0]) for row in await cur.fetchall()}


async def setting(conn: AsyncConnection, key: str) -> str | None:
    cur = await conn.execute("SELECT value FROM store_settings WHERE key = %s", (key,))
    row = await cur.fetchone()
    return None if row is None else str(row[0])


async def group_settings(conn: AsyncConnection, group_id: str) -> dict[str, Any]:
    cur = await conn.execute(
        'SELECT name, value FROM group_settings WHERE group_id = %s ORDER BY name COLLATE "C"', (group_id,)
    )
    return {str(name): value for name, value in await cur.fetchall()}
