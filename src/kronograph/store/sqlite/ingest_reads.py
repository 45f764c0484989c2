"""Queries of the ingestion pipeline on SQLite: the shared ones of
``..sql.episode_queries`` run on a connection, and entity candidates asked
name by name (cheap in process) with FTS5. Scoped by group_id, except the
few store-wide ones named so (resumption, settings)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection
from datetime import datetime
from typing import Any

import numpy as np

from ...model import Entity, Episode, FactSource, acronym, normalise_name
from ...time import from_micros
from ..records import EntityMatch, EpisodeProgress
from ..sql import entity_queries
from ..sql import episode_queries as q
from . import rows
from .rows import DIALECT as D

__all__ = [
    "cached_reply",
    "cached_reply_keys",
    "context_episodes",
    "entities_aliased",
    "entities_by_uuid",
    "entity_matches",
    "episode_progress",
    "episodes",
    "fact_sources",
    "group_settings",
    "setting",
    "unfinished_episodes",
]

_TOKEN = re.compile(r"\w+", re.UNICODE)


def episodes(conn: sqlite3.Connection, group_id: str, status: str | None) -> list[Episode]:
    return [rows.episode(r) for r in conn.execute(*q.episodes(D, group_id, status))]


def episode_progress(conn: sqlite3.Connection, group_id: str, episode_id: str) -> EpisodeProgress | None:
    row = conn.execute(*q.episode_progress(D, group_id, episode_id)).fetchone()
    return None if row is None else q.progress(D, row)


def unfinished_episodes(conn: sqlite3.Connection, statuses: Collection[str]) -> list[tuple[str, str, str, datetime]]:
    """Store-wide: (group_id, episode id, status, last update) of episodes in
    those statuses, oldest reference time first."""
    return [(g, u, s, from_micros(t)) for g, u, s, t in conn.execute(*q.unfinished_episodes(D, statuses))]


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
    """The episodes an extraction sees as context, oldest first (``episode_queries.context_episodes``)."""
    query = q.context_episodes(D, group_id, before=before, exclude=exclude, limit=limit, saga=saga, ids=ids)
    found = conn.execute(*query).fetchall()
    return [rows.episode(r) for r in (found if ids is not None else reversed(found))]


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


def entities_aliased(conn: sqlite3.Connection, group_id: str, alias_keys: Collection[str]) -> list[Entity]:
    return [
        rows.entity(r) for key in alias_keys for r in conn.execute(*entity_queries.entities_aliased(D, group_id, key))
    ]


def entities_by_uuid(conn: sqlite3.Connection, group_id: str, uuids: Collection[str]) -> list[Entity]:
    return [rows.entity(r) for r in conn.execute(*q.entities_by_uuid(D, group_id, uuids))]


def fact_sources(conn: sqlite3.Connection, group_id: str, fact_uuid: str) -> list[FactSource]:
    return [q.fact_source(D, r) for r in conn.execute(*q.fact_sources(D, group_id, fact_uuid))]


def cached_reply(conn: sqlite3.Connection, group_id: str, key: str) -> str | None:
    row = conn.execute(*q.cached_reply(D, group_id, key)).fetchone()
    return None if row is None else str(row[0])


def cached_reply_keys(conn: sqlite3.Connection, group_id: str) -> set[str]:
    return {str(row[0]) for row in conn.execute(*q.cached_reply_keys(D, group_id))}


def setting(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute(*q.setting(D, key)).fetchone()
    return None if row is None else str(row[0])


def group_settings(conn: sqlite3.Connection, group_id: str) -> dict[str, Any]:
    return {str(name): D.json_value(value) for name, value in conn.execute(*q.group_settings(D, group_id))}
