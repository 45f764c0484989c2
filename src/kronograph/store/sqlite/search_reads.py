"""Search queries against SQLite: BM25 over the FTS5 tables, the entity graph
for breadth-first search, and counts for the mention reranker. Every query is
scoped by group_id."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection
from datetime import datetime

from ...model import Episode
from ...time import to_micros
from . import rows

__all__ = ["episodes_by_uuid", "fts_query", "mention_counts", "neighbours", "text_search", "touching_facts"]

_TOKEN = re.compile(r"\w+", re.UNICODE)


def fts_query(text: str) -> str | None:
    """The words of ``text`` as an FTS5 OR-query (each quoted, so no word is
    read as syntax); None when it has no words."""
    words = list(dict.fromkeys(w.casefold() for w in _TOKEN.findall(text)))
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in words)


def _marks(values: Collection[str]) -> str:
    return ",".join("?" * len(values))


def text_search(
    conn: sqlite3.Connection,
    scope: str,
    group_id: str,
    query: str,
    limit: int,
    episodes_before: datetime | None,
    episodes_known_at: datetime | None,
) -> list[tuple[str, float]]:
    """Uuids ranked by BM25 (best first, score = -bm25, higher is better).
    Episodes: complete ones only, and none with a reference time after
    ``episodes_before`` or received after ``episodes_known_at``."""
    match = fts_query(query)
    if match is None:
        return []
    if scope == "facts":
        sql = (
            "SELECT f.uuid, bm25(facts_fts) FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid"
            " WHERE facts_fts MATCH ? AND f.group_id = ? ORDER BY bm25(facts_fts) LIMIT ?"
        )
        args: tuple[object, ...] = (match, group_id, limit)
    elif scope == "entities":
        sql = (
            "SELECT e.uuid, bm25(entities_fts) FROM entities_fts JOIN entities e ON e.id = entities_fts.rowid"
            " WHERE entities_fts MATCH ? AND e.group_id = ? ORDER BY bm25(entities_fts) LIMIT ?"
        )
        args = (match, group_id, limit)
    else:
        sql = (
            "SELECT p.uuid, bm25(episodes_fts) FROM episodes_fts JOIN episodes p ON p.id = episodes_fts.rowid"
            " WHERE episodes_fts MATCH ? AND p.group_id = ? AND p.status = 'complete'"
            " AND p.reference_time <= ? AND p.created_at <= ? ORDER BY bm25(episodes_fts) LIMIT ?"
        )
        before = to_micros(episodes_before) if episodes_before is not None else 1 << 62
        known = to_micros(episodes_known_at) if episodes_known_at is not None else 1 << 62
        args = (match, group_id, before, known, limit)
    return [(uuid, -float(score)) for uuid, score in conn.execute(sql, args)]


def neighbours(conn: sqlite3.Connection, group_id: str, entity_uuids: Collection[str]) -> dict[str, set[str]]:
    """Each entity's neighbours through unexpired facts, either direction."""
    keys = list(entity_uuids)
    out: dict[str, set[str]] = {u: set() for u in keys}
    if not keys:
        return out
    marks = _marks(keys)
    cur = conn.execute(
        f"SELECT source_uuid, target_uuid FROM facts WHERE group_id = ? AND source_uuid IN ({marks})"
        f" AND expired_at IS NULL UNION SELECT source_uuid, target_uuid FROM facts WHERE group_id = ?"
        f" AND target_uuid IN ({marks}) AND expired_at IS NULL",
        (group_id, *keys, group_id, *keys),
    )
    for source, target in cur:
        if source in out:
            out[source].add(target)
        if target in out:
            out[target].add(source)
    return out


def touching_facts(
    conn: sqlite3.Connection, group_id: str, entity_uuids: Collection[str], limit: int
) -> list[tuple[str, str, str]]:
    """(fact uuid, source, target) of unexpired facts touching these entities."""
    keys = list(entity_uuids)
    if not keys:
        return []
    marks = _marks(keys)
    cur = conn.execute(
        f"SELECT uuid, source_uuid, target_uuid FROM facts WHERE group_id = ? AND source_uuid IN ({marks})"
        f" AND expired_at IS NULL UNION SELECT uuid, source_uuid, target_uuid FROM facts WHERE group_id = ?"
        f" AND target_uuid IN ({marks}) AND expired_at IS NULL LIMIT ?",
        (group_id, *keys, group_id, *keys, limit),
    )
    return [(u, s, t) for u, s, t in cur]


def mention_counts(conn: sqlite3.Connection, scope: str, group_id: str, uuids: Collection[str]) -> dict[str, int]:
    """How often each item is mentioned: an entity by the episodes that
    mention it or state a fact about it, a fact by its source episodes, an
    episode by the entities it mentions."""
    keys = list(uuids)
    if not keys:
        return {}
    marks = _marks(keys)
    if scope == "entities":
        sql = (
            "SELECT entity_uuid, COUNT(DISTINCT episode_id) FROM ("
            f" SELECT entity_uuid, episode_id FROM mentions WHERE group_id = ? AND entity_uuid IN ({marks})"
            " UNION SELECT f.source_uuid, s.episode_id FROM facts f JOIN fact_sources s ON s.fact_uuid = f.uuid"
            f" WHERE f.group_id = ? AND f.source_uuid IN ({marks})"
            " UNION SELECT f.target_uuid, s.episode_id FROM facts f JOIN fact_sources s ON s.fact_uuid = f.uuid"
            f" WHERE f.group_id = ? AND f.target_uuid IN ({marks})"
            ") GROUP BY entity_uuid"
        )
        return {u: int(n) for u, n in conn.execute(sql, (group_id, *keys, group_id, *keys, group_id, *keys))}
    column, table = ("fact_uuid", "fact_sources") if scope == "facts" else ("episode_id", "mentions")
    cur = conn.execute(
        f"SELECT {column}, COUNT(*) FROM {table} WHERE group_id = ? AND {column} IN ({marks}) GROUP BY {column}",
        (group_id, *keys),
    )
    return {u: int(n) for u, n in cur}


def episodes_by_uuid(conn: sqlite3.Connection, group_id: str, uuids: Collection[str]) -> list[Episode]:
    keys = list(uuids)
    if not keys:
        return []
    cur = conn.execute(
        f"SELECT {rows.EPISODE_COLUMNS} FROM episodes p WHERE p.group_id = ? AND p.uuid IN ({_marks(keys)})",
        (group_id, *keys),
    )
    return [rows.episode(r) for r in cur]
