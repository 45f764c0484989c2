"""The reads behind naming in a query (``kronograph.search.names``), ports
of ``..sqlite.name_reads``: the entities a query may name, in one bounded
query, and which episodes mention them. Every table is filtered by the group."""

from __future__ import annotations

from collections.abc import Collection

from psycopg import AsyncConnection

from ...model import Entity
from .. import rows
from ..sql import entity_queries
from .columns import DIALECT as D
from .columns import ENTITY_COLUMNS
from .execute import fetch_all

__all__ = ["entities_named_in", "mentions_among"]


def _tsquery(words: Collection[str], prefix: bool) -> str | None:
    """A tsquery of entity names (weight A) holding one of the words, or a
    word starting with one (``'ma':*A``); each word quoted, so none is read
    as query syntax."""
    quoted = [w.replace("\\", "\\\\").replace("'", "''") for w in words if w]
    return " | ".join(f"'{w}':{'*' if prefix else ''}A" for w in quoted) or None


async def entities_named_in(
    conn: AsyncConnection, group_id: str, keys: Collection[str], words: Collection[str],
    prefixes: Collection[str], limit: int,
) -> list[Entity]:
    """Entities whose name key, alias key or initials is one of ``keys``
    (first), then whose name holds one of ``words``, then whose name has a
    word starting with one of ``prefixes``: at most ``limit``, one query."""
    if not keys or limit < 1:
        return []
    exact = list(keys)
    params = {
        "g": group_id, "keys": exact, "compact": [k.replace(".", "").replace(" ", "") for k in exact],
        "words": _tsquery(words, False), "prefixes": _tsquery(prefixes, True), "n": limit,
    }
    cur = await conn.execute(
        f"SELECT * FROM (SELECT {ENTITY_COLUMNS}, 0 AS how FROM entities e WHERE e.group_id = %(g)s"
        " AND (e.name_key = ANY(%(keys)s::text[]) OR e.acronym = ANY(%(compact)s::text[]))"
        f" UNION ALL SELECT {ENTITY_COLUMNS}, 0 FROM entity_aliases a"
        " JOIN entities e ON e.group_id = a.group_id AND e.uuid = a.entity_uuid"
        " WHERE a.group_id = %(g)s AND a.alias_key = ANY(%(keys)s::text[])"
        f" UNION ALL SELECT {ENTITY_COLUMNS}, 1 FROM entities e WHERE %(words)s::text IS NOT NULL"
        " AND e.group_id = %(g)s AND e.fts @@ to_tsquery('english', %(words)s)"
        f" UNION ALL SELECT {ENTITY_COLUMNS}, 2 FROM entities e WHERE %(prefixes)s::text IS NOT NULL"
        " AND e.group_id = %(g)s AND e.fts @@ to_tsquery('english', %(prefixes)s)"
        ') u ORDER BY u.how, u.created_at, u.uuid COLLATE "C" LIMIT %(n)s',
        params,
    )
    out: dict[str, Entity] = {}
    for row in await cur.fetchall():
        if row[0] not in out:
            out[row[0]] = rows.entity(row[:-1])
    return list(out.values())


async def mentions_among(
    conn: AsyncConnection, group_id: str, entity_uuids: Collection[str], episode_ids: Collection[str]
) -> dict[str, set[str]]:
    """Of these episodes, each that mentions one of these entities, with the ones it mentions."""
    if not entity_uuids or not episode_ids:
        return {}
    found = await fetch_all(conn, entity_queries.mentions_among(D, group_id, entity_uuids, episode_ids))
    out: dict[str, set[str]] = {}
    for episode, entity in found:
        out.setdefault(episode, set()).add(entity)
    return out
