"""The reads behind naming in a query (``kronograph.search.names``): the
entities a query may name, in one bounded query, and which episodes
mention them. Every query is scoped by group_id."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection

from ...model import Entity
from . import rows

__all__ = ["entities_named_in", "mentions_among"]


def _fts(words: Collection[str], prefix: bool) -> str | None:
    """An FTS5 query of entity names holding one of the words (or a word
    starting with one of them); each word quoted, so none is read as syntax."""
    quoted = [f'"{w.replace(chr(34), chr(34) * 2)}"' + ("*" if prefix else "") for w in words if w]
    return f"name : ({' OR '.join(quoted)})" if quoted else None


def entities_named_in(
    conn: sqlite3.Connection, group_id: str, keys: Collection[str], words: Collection[str],
    prefixes: Collection[str], limit: int,
) -> list[Entity]:
    """Entities whose name key, alias key or initials is one of ``keys``
    (first), then whose name holds one of ``words``, then whose name has a
    word starting with one of ``prefixes``: at most ``limit``, one query."""
    if not keys or limit < 1:
        return []
    ids = json.dumps([*keys, *(k.replace(".", "").replace(" ", "") for k in keys)])
    parts = [
        f"SELECT {rows.ENTITY_COLUMNS}, 0 FROM entities e WHERE e.group_id = ?"
        " AND (e.name_key IN (SELECT value FROM json_each(?)) OR e.acronym IN (SELECT value FROM json_each(?)))",
        f"SELECT {rows.ENTITY_COLUMNS}, 0 FROM entity_aliases a JOIN entities e ON e.uuid = a.entity_uuid"
        " WHERE a.group_id = ? AND a.alias_key IN (SELECT value FROM json_each(?))",
    ]
    args: list[object] = [group_id, ids, ids, group_id, ids]
    for rank, query in ((1, _fts(words, False)), (2, _fts(prefixes, True))):
        if query is not None:
            parts.append(
                f"SELECT {rows.ENTITY_COLUMNS}, {rank} FROM entities_fts JOIN entities e ON e.id = entities_fts.rowid"
                " WHERE entities_fts MATCH ? AND e.group_id = ?"
            )
            args += [query, group_id]
    cur = conn.execute(
        f"SELECT * FROM ({' UNION ALL '.join(parts)}) ORDER BY 12, created_at, uuid LIMIT ?", (*args, limit)
    )
    out: dict[str, Entity] = {}
    for row in cur:
        if row[0] not in out:
            out[row[0]] = rows.entity(row[:-1])
    return list(out.values())


def mentions_among(
    conn: sqlite3.Connection, group_id: str, entity_uuids: Collection[str], episode_ids: Collection[str]
) -> dict[str, set[str]]:
    """Of these episodes, each that mentions one of these entities, with the ones it mentions."""
    if not entity_uuids or not episode_ids:
        return {}
    cur = conn.execute(
        "SELECT episode_id, entity_uuid FROM mentions WHERE group_id = ?"
        " AND episode_id IN (SELECT value FROM json_each(?)) AND entity_uuid IN (SELECT value FROM json_each(?))",
        (group_id, json.dumps(list(episode_ids)), json.dumps(list(entity_uuids))),
    )
    out: dict[str, set[str]] = {}
    for episode, entity in cur:
        out.setdefault(episode, set()).add(entity)
    return out
