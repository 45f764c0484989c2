"""Queries of the ingestion pipeline: episode progress, context, entity
candidates, the reply cache and store settings. Scoped by group_id, except
the few store-wide ones named so (resumption, cache, settings)."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Collection
from datetime import datetime
from typing import Any

import numpy as np

from ...model import Entity, Episode, FactSource, acronym, normalise_name, trusted
from ...time import from_micros, to_micros
from ..records import EntityMatch, EpisodeProgress
from . import rows
from .rows import opt_time

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


def episodes(conn: sqlite3.Connection, group_id: str, status: str | None) -> list[Episode]:
    sql = f"SELECT {rows.EPISODE_COLUMNS} FROM episodes p WHERE p.group_id = ?"
    args: tuple[str, ...] = (group_id,)
    if status is not None:
        sql += " AND p.status = ?"
        args = (group_id, status)
    sql += " ORDER BY p.reference_time, p.created_at, p.id"
    return [rows.episode(r) for r in conn.execute(sql, args)]


def episode_progress(conn: sqlite3.Connection, group_id: str, episode_id: str) -> EpisodeProgress | None:
    row = conn.execute(
        f"SELECT {rows.EPISODE_COLUMNS}, p.pending, p.checkpoint, p.result,"
        " COALESCE(p.updated_at, p.created_at) FROM episodes p"
        " WHERE p.group_id = ? AND p.uuid = ?",
        (group_id, episode_id),
    ).fetchone()
    if row is None:
        return None
    n = rows.EPISODE_WIDTH
    return EpisodeProgress(
        episode=rows.episode(row[:n]),
        pending=json.loads(row[n]) if row[n] else None,
        checkpoint=json.loads(row[n + 1]) if row[n + 1] else None,
        result=json.loads(row[n + 2]) if row[n + 2] else None,
        updated_at=from_micros(row[n + 3]),
    )


def unfinished_episodes(conn: sqlite3.Connection, statuses: Collection[str]) -> list[tuple[str, str, str, datetime]]:
    """Store-wide: (group_id, episode id, status, last update) of episodes in
    those statuses, oldest reference time first."""
    cur = conn.execute(
        f"SELECT group_id, uuid, status, COALESCE(updated_at, created_at) FROM episodes"
        f" WHERE status IN ({','.join('?' * len(statuses))}) ORDER BY reference_time, created_at, id",
        tuple(statuses),
    )
    return [(g, u, s, from_micros(t)) for g, u, s, t in cur]


def context_episodes(
    conn: sqlite3.Connection,
    group_id: str,
    *,
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
    base = f"SELECT {rows.EPISODE_COLUMNS} FROM episodes p WHERE p.group_id = ? AND p.content IS NOT NULL"
    if ids is not None:
        keys = list(ids)
        cur = conn.execute(
            f"{base} AND p.uuid IN ({','.join('?' * len(keys))}) ORDER BY p.reference_time, p.id",
            (group_id, *keys),
        )
        return [rows.episode(r) for r in cur]
    # Received before this episode (a batch registers in its order), so that a
    # batch's context is what one-by-one ingestion of the same list would see.
    sql = (
        f"{base} AND p.uuid != ? AND p.status != 'quarantined' AND p.kind != 'fact'"
        " AND p.id < COALESCE((SELECT id FROM episodes WHERE group_id = ? AND uuid = ?), 1 << 62)"
    )
    args: list[object] = [group_id, exclude, group_id, exclude]
    if saga is not None:
        sql += " AND p.saga = ?"
        args.append(saga)
    sql += " AND p.reference_time < ? ORDER BY p.reference_time DESC, p.created_at DESC, p.id DESC LIMIT ?"
    args += [to_micros(before), limit]
    return [rows.episode(r) for r in reversed(conn.execute(sql, args).fetchall())]


def _vector(blob: bytes | None) -> np.ndarray | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32)


def entity_matches(
    conn: sqlite3.Connection, group_id: str, names: Collection[str], limit: int
) -> dict[str, list[EntityMatch]]:
    """For each name: entities of that exact normalised name; or, when there
    are none, entities that have it as an alias, entities whose initials it is
    (or whose name is its initials), and up to ``limit`` entities sharing a
    word with it (full text). Each match says how it was found and carries
    the entity's name vector."""
    out: dict[str, list[EntityMatch]] = {}
    cols = f"{rows.ENTITY_COLUMNS}, e.embedding"
    n = len(rows.ENTITY_COLUMNS.split(","))
    for name in names:
        key = normalise_name(name)
        seen: dict[str, EntityMatch] = {}

        def add(cur: sqlite3.Cursor, how: str) -> None:
            for row in cur:
                if row[0] not in seen:
                    seen[row[0]] = EntityMatch(rows.entity(row[:n]), how, _vector(row[n]))

        add(conn.execute(f"SELECT {cols} FROM entities e WHERE e.group_id = ? AND e.name_key = ?"
                         " ORDER BY e.created_at, e.uuid", (group_id, key)), "name")
        if seen:  # the name is known: resolution takes it as it is, so nothing fuzzier is needed
            out[key] = list(seen.values())
            continue
        add(conn.execute(f"SELECT {cols} FROM entity_aliases a JOIN entities e ON e.uuid = a.entity_uuid"
                         " WHERE a.group_id = ? AND a.alias_key = ? ORDER BY e.created_at, e.uuid",
                         (group_id, key)), "alias")
        initials = acronym(name)
        compact = key.replace(".", "").replace(" ", "")
        add(conn.execute(f"SELECT {cols} FROM entities e WHERE e.group_id = ? AND e.acronym = ?"
                         " ORDER BY e.created_at, e.uuid LIMIT ?", (group_id, compact, limit)), "acronym")
        if initials is not None:
            add(conn.execute(f"SELECT {cols} FROM entities e WHERE e.group_id = ? AND e.name_key = ?"
                             " ORDER BY e.created_at, e.uuid", (group_id, initials)), "acronym")
        words = [w for w in _TOKEN.findall(key) if len(w) > 1]
        if words:
            query = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))
            add(conn.execute(
                f"SELECT {cols} FROM entities_fts JOIN entities e ON e.id = entities_fts.rowid"
                " WHERE entities_fts MATCH ? AND e.group_id = ? ORDER BY rank LIMIT ?",
                (f"name : ({query})", group_id, limit),
            ), "text")
        out[key] = list(seen.values())
    return out


def entities_by_uuid(conn: sqlite3.Connection, group_id: str, uuids: Collection[str]) -> list[Entity]:
    keys = list(uuids)
    cur = conn.execute(
        f"SELECT {rows.ENTITY_COLUMNS} FROM entities e"
        f" WHERE e.group_id = ? AND e.uuid IN ({','.join('?' * len(keys))})",
        (group_id, *keys),
    )
    return [rows.entity(r) for r in cur]


def fact_sources(conn: sqlite3.Connection, group_id: str, fact_uuid: str) -> list[FactSource]:
    cur = conn.execute(
        "SELECT episode_id, valid_at, stated_invalid_at, added_at, provenance FROM fact_sources"
        " WHERE group_id = ? AND fact_uuid = ? ORDER BY added_at, episode_id",
        (group_id, fact_uuid),
    )
    return [
        trusted(FactSource, episode_id=e, valid_at=from_micros(v), invalid_at=opt_time(i),
                added_at=from_micros(a), provenance=json.loads(p) if p else {})
        for e, v, i, a, p in cur
    ]


def cached_reply(conn: sqlite3.Connection, group_id: str, key: str) -> str | None:
    row = conn.execute("SELECT reply FROM model_replies WHERE group_id = ? AND key = ?", (group_id, key)).fetchone()
    return None if row is None else str(row[0])


def cached_reply_keys(conn: sqlite3.Connection, group_id: str) -> set[str]:
    return {str(row[0]) for row in conn.execute("SELECT key FROM model_replies WHERE group_id = ?", (group_id,))}


def setting(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM store_settings WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def group_settings(conn: sqlite3.Connection, group_id: str) -> dict[str, Any]:
    rows = conn.execute("SELECT name, value FROM group_settings WHERE group_id = ? ORDER BY name", (group_id,))
    return {str(name): json.loads(value) for name, value in rows}
