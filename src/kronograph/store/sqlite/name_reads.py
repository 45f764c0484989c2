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
    word starting with one of ``prefixes``: at most ``limit``. The matches
    are ranked by their ids and sort keys alone, and only the rows that make
    the limit are read whole (a common word such as a shared surname can
    match thousands); prefixes are looked up only when the rest fall short."""
    if not keys or limit < 1:
        return []
    ids = json.dumps([*keys, *(k.replace(".", "").replace(" ", "") for k in keys)])
    parts = [
        "SELECT e.id, 0, e.created_at, e.uuid FROM entities e WHERE e.group_id = ?"
        " AND (e.name_key IN (SELECT value FROM json_each(?)) OR e.acronym IN (SELECT value FROM json_each(?)))",
        "SELECT e.id, 0, e.created_at, e.uuid FROM entity_aliases a JOIN entities e ON e.uuid = a.entity_uuid"
        " WHERE a.group_id = ? AND a.alias_key IN (SELECT value FROM json_each(?))",
    ]
    args: list[object] = [group_id, ids, ids, group_id, ids]
    found: list[int] = []
    for rank, query in ((1, _fts(words, False)), (2, _fts(prefixes, True))):
        if query is not None:
            parts.append(
                f"SELECT e.id, {rank}, e.created_at, e.uuid FROM entities_fts"
                " JOIN entities e ON e.id = entities_fts.rowid WHERE entities_fts MATCH ? AND e.group_id = ?"
            )
            args += [query, group_id]
        if rank == 1 or query is not None:  # the parts of rank <= 1 first, then those of rank 2 (if still short)
            cur = conn.execute(
                f"SELECT * FROM ({' UNION ALL '.join(parts)}) ORDER BY 2, 3, 4 LIMIT ?", (*args, limit - len(found))
            )
            found += [int(row[0]) for row in cur]
        parts, args = [], []
        if len(found) >= limit:
            break
    if not found:
        return []
    read = {
        int(row[-1]): row[:-1] for row in conn.execute(
            f"SELECT {rows.ENTITY_COLUMNS}, e.id FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))",
            (json.dumps(found),),
        )
    }
    out: dict[str, Entity] = {}
    for i in found:
        row = read.get(i)  # None: deleted between the two reads
        if row is not None and row[0] not in out:
            out[row[0]] = rows.entity(row)
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
