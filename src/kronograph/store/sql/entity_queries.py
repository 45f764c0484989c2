"""The plain reads of a group's graph: its revision, an episode, entities by
name or label, summary states, mentions and the audit trail. Every query is
scoped by the group.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cache

from .dialect import Dialect, Query
from .fact_queries import by_name

__all__ = [
    "audit_events",
    "entities",
    "entities_aliased",
    "entities_named",
    "entity_order",
    "episode",
    "mentioned_entities",
    "mentions_among",
    "revision",
    "summary_states",
]


def entity_order(d: Dialect) -> str:
    """Entities ``e`` in the order they were created, ties by uuid."""
    return f"e.created_at, {d.bytewise('e.uuid')}"


def revision(d: Dialect, group_id: str) -> Query:
    """The group's revision (no row before any plan)."""
    return f"SELECT revision FROM groups WHERE group_id = {d.p('g')}", {"g": group_id}


@cache
def _episode_sql(d: Dialect) -> str:
    return f"SELECT {d.columns.episode} FROM episodes p WHERE p.group_id = {d.p('g')} AND p.uuid = {d.p('u')}"


def episode(d: Dialect, group_id: str, episode_id: str) -> Query:
    return _episode_sql(d), {"g": group_id, "u": episode_id}


@cache
def _named_sql(d: Dialect) -> str:
    return (
        f"SELECT {d.columns.entity} FROM entities e WHERE e.group_id = {d.p('g')} AND {d.in_list('e.name_key', 'keys')}"
        f" ORDER BY {entity_order(d)}"
    )


def entities_named(d: Dialect, group_id: str, name_keys: Collection[str]) -> Query:
    """Entities of exactly these name keys."""
    return _named_sql(d), {"g": group_id, "keys": d.bind_list(name_keys)}


@cache
def _aliased_sql(d: Dialect) -> str:
    return (
        f"SELECT {d.columns.entity} FROM entity_aliases a JOIN entities e ON {d.on('e', 'a', 'e.uuid = a.entity_uuid')}"
        f" WHERE a.group_id = {d.p('g')} AND a.alias_key = {d.p('key')} ORDER BY {entity_order(d)}"
    )


def entities_aliased(d: Dialect, group_id: str, alias_key: str) -> Query:
    """Entities that bear this normalised name as an alias."""
    return _aliased_sql(d), {"g": group_id, "key": alias_key}


@cache
def _entities_sql(d: Dialect, named: bool, labelled: bool) -> str:
    sql = f"SELECT {d.columns.entity} FROM entities e WHERE e.group_id = {d.p('g')}"
    if named:
        sql += " AND e.uuid IN " + by_name(d, "name")
    if labelled:
        sql += (
            f" AND EXISTS (SELECT 1 FROM {d.json_texts('e.labels', 'l')}"
            f" WHERE lower(l.value) = lower({d.p('label')}))"
        )
    return sql + f" ORDER BY {entity_order(d)}"


def entities(d: Dialect, group_id: str, name_key: str | None, label: str | None) -> Query:
    """Entities of the name (or merged under it) and with the label (any case), each if given."""
    return (
        _entities_sql(d, name_key is not None, label is not None),
        {"g": group_id, "name": name_key, "label": label},
    )


@cache
def _summary_sql(d: Dialect, listed: bool, stale_only: bool, after: bool) -> str:
    sql = f"SELECT {d.columns.entity}, e.summary_stale FROM entities e WHERE e.group_id = {d.p('g')}"
    if listed:
        sql += f" AND {d.in_list('e.uuid', 'uuids')}"
    if stale_only:
        sql += " AND e.summary_stale > 0"
    if after:
        sql += f" AND {d.bytewise('e.uuid')} > {d.p('after')}"
    return sql + f" ORDER BY {d.bytewise('e.uuid')} LIMIT {d.p('n')}"


def summary_states(
    d: Dialect, group_id: str, uuids: Collection[str] | None, stale_only: bool, after: str | None, limit: int
) -> Query:
    """Entities (these, or the group's) with their summary's stale count, by uuid after ``after``."""
    params: dict[str, object] = {"g": group_id, "after": after, "n": limit}
    if uuids is not None:
        params["uuids"] = d.bind_list(sorted(uuids))
    return _summary_sql(d, uuids is not None, stale_only, after is not None), params


def mentioned_entities(d: Dialect, group_id: str, episode_id: str) -> Query:
    return (
        f"SELECT entity_uuid FROM mentions WHERE group_id = {d.p('g')} AND episode_id = {d.p('e')}",
        {"g": group_id, "e": episode_id},
    )


def audit_events(d: Dialect, group_id: str) -> Query:
    return (
        "SELECT group_id, kind, recorded_at, episode_id, detail, actor, on_behalf_of FROM audit_events"
        f" WHERE group_id = {d.p('g')} ORDER BY seq",
        {"g": group_id},
    )


def mentions_among(d: Dialect, group_id: str, entity_uuids: Collection[str], episode_ids: Collection[str]) -> Query:
    """Rows (episode, entity) of these episodes' mentions of these entities."""
    return (
        f"SELECT episode_id, entity_uuid FROM mentions WHERE group_id = {d.p('g')}"
        f" AND {d.in_list('episode_id', 'episodes')} AND {d.in_list('entity_uuid', 'entities')}",
        {"g": group_id, "episodes": d.bind_list(episode_ids), "entities": d.bind_list(entity_uuids)},
    )
