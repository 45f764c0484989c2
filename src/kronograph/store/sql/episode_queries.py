"""The reads of the ingestion pipeline that every backend writes alike:
episodes and their progress, an extraction's context, entities by uuid, a
fact's sources, the reply cache and settings. Scoped by group_id, except the
few store-wide ones named so (resumption, settings).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from functools import cache
from typing import Any

from ...model import FactSource, trusted
from ...time import from_micros, to_micros
from .. import rows
from ..records import EpisodeProgress
from .dialect import Dialect, Query

__all__ = [
    "cached_reply",
    "cached_reply_keys",
    "context_episodes",
    "entities_by_uuid",
    "episode_progress",
    "episodes",
    "fact_source",
    "fact_sources",
    "group_settings",
    "progress",
    "setting",
    "unfinished_episodes",
]

# Past any identity value: an episode not registered yet came after all others.
_LAST = 1 << 62


@cache
def _episodes_sql(d: Dialect, by_status: bool) -> str:
    sql = f"SELECT {d.columns.episode} FROM episodes p WHERE p.group_id = {d.p('g')}"
    if by_status:
        sql += f" AND p.status = {d.p('s')}"
    return sql + " ORDER BY p.reference_time, p.created_at, p.id"


def episodes(d: Dialect, group_id: str, status: str | None) -> Query:
    """The group's episodes (in that status), by reference time then arrival."""
    return _episodes_sql(d, status is not None), {"g": group_id, "s": status}


@cache
def _progress_sql(d: Dialect) -> str:
    return (
        f"SELECT {d.columns.episode}, p.pending, p.checkpoint, p.result, COALESCE(p.updated_at, p.created_at)"
        f" FROM episodes p WHERE p.group_id = {d.p('g')} AND p.uuid = {d.p('u')}"
    )


def episode_progress(d: Dialect, group_id: str, episode_id: str) -> Query:
    """An episode with its pipeline state; rows for :func:`progress`."""
    return _progress_sql(d), {"g": group_id, "u": episode_id}


def progress(d: Dialect, row: Sequence[Any]) -> EpisodeProgress:
    """An episode's progress from a row of :func:`episode_progress`."""
    n = len(row) - 4
    return EpisodeProgress(
        episode=rows.episode(tuple(row[:n])),
        pending=d.json_value(row[n]),  # type: ignore[arg-type]
        checkpoint=d.json_value(row[n + 1]),  # type: ignore[arg-type]
        result=d.json_value(row[n + 2]),  # type: ignore[arg-type]
        updated_at=from_micros(row[n + 3]),
    )


def unfinished_episodes(d: Dialect, statuses: Collection[str]) -> Query:
    """Store-wide: (group_id, episode id, status, last update) of episodes in
    those statuses, oldest reference time first."""
    return (
        "SELECT group_id, uuid, status, COALESCE(updated_at, created_at) FROM episodes"
        f" WHERE {d.in_list('status', 'statuses')} ORDER BY reference_time, created_at, id",
        {"statuses": d.bind_list(statuses)},
    )


def context_episodes(
    d: Dialect, group_id: str, *, before: datetime, exclude: str, limit: int, saga: str | None,
    ids: Collection[str] | None,
) -> Query:
    """The episodes an extraction sees as context: the given ids, or the
    ``limit`` latest of the group (or saga) before ``before`` that were
    received before ``exclude``, newest first (the caller turns them). Only
    episodes with content, never quarantined ones."""
    p = d.p
    base = f"SELECT {d.columns.episode} FROM episodes p WHERE p.group_id = {p('g')} AND p.content IS NOT NULL"
    if ids is not None:
        return (
            f"{base} AND {d.in_list('p.uuid', 'ids')} ORDER BY p.reference_time, p.id",
            {"g": group_id, "ids": d.bind_list(ids)},
        )
    # Received before this episode (a batch registers in its order), so that a
    # batch's context is what one-by-one ingestion of the same list would see.
    sql = (
        f"{base} AND p.uuid != {p('x')} AND p.status != 'quarantined' AND p.kind != 'fact'"
        f" AND p.id < COALESCE((SELECT id FROM episodes WHERE group_id = {p('g')} AND uuid = {p('x')}), {p('last')})"
    )
    if saga is not None:
        sql += f" AND p.saga = {p('saga')}"
    sql += (
        f" AND p.reference_time < {p('t')}"
        f" ORDER BY p.reference_time DESC, p.created_at DESC, p.id DESC LIMIT {p('n')}"
    )
    return sql, {"g": group_id, "x": exclude, "last": _LAST, "saga": saga, "t": to_micros(before), "n": limit}


def entities_by_uuid(d: Dialect, group_id: str, uuids: Collection[str]) -> Query:
    return (
        f"SELECT {d.columns.entity} FROM entities e WHERE {d.by_uuid_group('e')} AND {d.in_list('e.uuid', 'u')}",
        {"g": group_id, "u": d.bind_list(uuids)},
    )


def fact_sources(d: Dialect, group_id: str, fact_uuid: str) -> Query:
    """A fact's sources, by when they were added; rows for :func:`fact_source`."""
    return (
        "SELECT episode_id, valid_at, stated_invalid_at, added_at, provenance FROM fact_sources"
        f" WHERE group_id = {d.p('g')} AND fact_uuid = {d.p('u')} ORDER BY added_at, {d.bytewise('episode_id')}",
        {"g": group_id, "u": fact_uuid},
    )


def fact_source(d: Dialect, row: Sequence[Any]) -> FactSource:
    e, v, i, a, provenance = row
    return trusted(
        FactSource, episode_id=e, valid_at=from_micros(v), invalid_at=rows.opt_time(i), added_at=from_micros(a),
        provenance=d.json_value(provenance) or {},
    )


def cached_reply(d: Dialect, group_id: str, key: str) -> Query:
    return (
        f"SELECT reply FROM model_replies WHERE group_id = {d.p('g')} AND key = {d.p('k')}",
        {"g": group_id, "k": key},
    )


def cached_reply_keys(d: Dialect, group_id: str) -> Query:
    return f"SELECT key FROM model_replies WHERE group_id = {d.p('g')}", {"g": group_id}


def setting(d: Dialect, key: str) -> Query:
    """Store-wide: a store setting."""
    return f"SELECT value FROM store_settings WHERE key = {d.p('k')}", {"k": key}


def group_settings(d: Dialect, group_id: str) -> Query:
    """The group's settings, (name, JSON value) rows."""
    return (
        f"SELECT name, value FROM group_settings WHERE group_id = {d.p('g')} ORDER BY {d.bytewise('name')}",
        {"g": group_id},
    )
