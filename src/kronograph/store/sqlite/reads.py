"""Queries against the SQLite schema. Every one is scoped by group_id."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Collection, Iterable
from datetime import datetime

from ...model import AuditEvent, Entity, Episode, Fact, FactChange
from ...time import from_micros, to_micros
from ..change_rows import ChangeWindow, StoredChange, changes_sql, stored_change
from ..protocol import FactQuery
from ..records import FactRecord, Neighbourhood, Source
from . import rows
from .rows import opt_time

__all__ = [
    "audit_events",
    "changes",
    "conflict_links",
    "conflict_neighbourhood",
    "entity_references",
    "entities",
    "entities_named",
    "episode",
    "fact_candidates",
    "facts",
    "facts_citing",
    "history",
    "mentioned_entities",
    "revision",
    "timeline",
]

_FROM_FACTS = (
    " FROM facts f JOIN entities s ON s.uuid = f.source_uuid JOIN entities o ON o.uuid = f.target_uuid"
)
# The entities of a name: those so named, or, when none is, those it is an
# alias of (a merged entity's name finds the entity it was merged into).
_BY_NAME = (
    "(SELECT uuid FROM entities WHERE group_id = :g AND name_key = :{0}"
    " UNION SELECT entity_uuid FROM entity_aliases WHERE group_id = :g AND alias_key = :{0}"
    " AND NOT EXISTS (SELECT 1 FROM entities WHERE group_id = :g AND name_key = :{0}))"
)
# Facts touching an entity of that name at either end: a union of two index
# lookups, joined first (CROSS JOIN fixes the order) so that SQLite starts from
# those few facts instead of scanning the group.
_FROM_TOUCHING = (
    " FROM (SELECT uuid FROM facts WHERE group_id = :g AND source_uuid IN {0}"
    " UNION SELECT uuid FROM facts WHERE group_id = :g AND target_uuid IN {0}) t"
    " CROSS JOIN facts f ON f.uuid = t.uuid"
    " JOIN entities s ON s.uuid = f.source_uuid JOIN entities o ON o.uuid = f.target_uuid"
).replace("{0}", _BY_NAME.format("entity"))


def _marks(values: Collection[str]) -> str:
    return ",".join("?" * len(values))


def revision(conn: sqlite3.Connection, group_id: str) -> int:
    """The group's revision: moved by every plan committed to it (0 before any)."""
    row = conn.execute("SELECT revision FROM groups WHERE group_id = ?", (group_id,)).fetchone()
    return int(row[0]) if row else 0


def episode(conn: sqlite3.Connection, group_id: str, episode_id: str) -> Episode | None:
    row = conn.execute(
        f"SELECT {rows.EPISODE_COLUMNS} FROM episodes p WHERE p.group_id = ? AND p.uuid = ?",
        (group_id, episode_id),
    ).fetchone()
    return rows.episode(row) if row else None


def entities_named(conn: sqlite3.Connection, group_id: str, name_keys: Collection[str]) -> list[Entity]:
    keys = list(name_keys)
    cur = conn.execute(
        f"SELECT {rows.ENTITY_COLUMNS} FROM entities e WHERE e.group_id = ? AND e.name_key IN ({_marks(keys)})"
        " ORDER BY e.created_at, e.uuid",
        (group_id, *keys),
    )
    return [rows.entity(r) for r in cur]


def entities(
    conn: sqlite3.Connection, group_id: str, name_key: str | None, label: str | None
) -> list[Entity]:
    sql = f"SELECT {rows.ENTITY_COLUMNS} FROM entities e WHERE e.group_id = :g"
    if name_key is not None:
        sql += " AND e.uuid IN " + _BY_NAME.format("name")
    if label is not None:
        sql += " AND EXISTS (SELECT 1 FROM json_each(e.labels) WHERE lower(value) = lower(:label))"
    sql += " ORDER BY e.created_at, e.uuid"
    return [rows.entity(r) for r in conn.execute(sql, {"g": group_id, "name": name_key, "label": label})]


def _records(
    conn: sqlite3.Connection, group_id: str, uuids_sql: str, params: Iterable[object] | dict[str, object]
) -> list[FactRecord]:
    """Fact records (with their sources) whose uuid ``uuids_sql`` selects.

    ``uuids_sql`` uses ``?`` placeholders (``params`` a sequence) or named ones
    (``params`` a dict with the group as ``g``). The CROSS JOIN makes SQLite
    start from those few uuids instead of scanning the group.
    """
    select = (
        f"WITH wanted(uuid) AS ({uuids_sql}) SELECT {rows.RECORD_COLUMNS} FROM wanted w"
        " CROSS JOIN facts f ON f.uuid = w.uuid"
        " JOIN entities s ON s.uuid = f.source_uuid JOIN entities o ON o.uuid = f.target_uuid"
    )
    if isinstance(params, dict):
        found = conn.execute(select + " WHERE f.group_id = :g", params).fetchall()
    else:
        found = conn.execute(select + " WHERE f.group_id = ?", (*params, group_id)).fetchall()
    if not found:
        return []
    uuids = [r[0] for r in found]
    sources: dict[str, list[Source]] = defaultdict(list)
    for fact_uuid, episode_id, valid_at, stated, added_at in conn.execute(
        "SELECT fact_uuid, episode_id, valid_at, stated_invalid_at, added_at FROM fact_sources"
        f" WHERE fact_uuid IN ({_marks(uuids)}) ORDER BY added_at, episode_id",
        uuids,
    ):
        sources[fact_uuid].append(Source(episode_id, from_micros(valid_at), opt_time(stated), from_micros(added_at)))
    return [rows.fact_record(r, sources[r[0]]) for r in found]


def _values(uuids: Collection[str]) -> str:
    return "VALUES " + ",".join(["(?)"] * len(uuids))


def fact_candidates(
    conn: sqlite3.Connection,
    group_id: str,
    subject_uuid: str,
    object_uuid: str,
    relation_key: str,
    sides: Collection[str],
    either_end: bool,
    whole_pair: bool,
    around: datetime,
    limit: int,
) -> list[FactRecord]:
    params: dict[str, object] = {
        "g": group_id, "s": subject_uuid, "o": object_uuid, "r": relation_key, "t": to_micros(around), "n": limit,
    }
    # The pair, by the pair index: neither entity's other facts are walked.
    # Without ``whole_pair``, only restatements can matter: the same direction
    # and relation.
    if whole_pair:
        parts = [
            "SELECT uuid FROM facts INDEXED BY facts_by_pair WHERE group_id = :g AND source_uuid = :s"
            " AND target_uuid = :o",
            "SELECT uuid FROM facts INDEXED BY facts_by_pair WHERE group_id = :g AND source_uuid = :o"
            " AND target_uuid = :s",
        ]
    else:
        parts = [
            "SELECT uuid FROM facts INDEXED BY facts_by_pair WHERE group_id = :g AND source_uuid = :s"
            " AND target_uuid = :o AND relation_key = :r"
        ]
    for side in sides:
        entity = ":s" if side == "subject" else ":o"
        own = "source_uuid" if side == "subject" else "target_uuid"
        for column in ("source_uuid", "target_uuid") if either_end else (own,):
            # The nearest facts in valid time on each side of the new one, so a
            # late arrival still sees its true predecessor and successor.
            for order in ("valid_at <= :t ORDER BY valid_at DESC", "valid_at > :t ORDER BY valid_at ASC"):
                parts.append(
                    f"SELECT uuid FROM (SELECT uuid FROM facts WHERE group_id = :g AND {column} = {entity}"
                    f" AND relation_key = :r AND {order} LIMIT :n)"
                )
    return _records(conn, group_id, " UNION ".join(parts), params)


def conflict_neighbourhood(
    conn: sqlite3.Connection, group_id: str, seeds: Collection[str], depth: int
) -> Neighbourhood:
    hood = Neighbourhood()
    frontier = set(seeds)
    if not frontier:
        return hood
    for record in _records(conn, group_id, _values(frontier), list(frontier)):
        hood.records[record.uuid] = record
    for _ in range(depth):
        if not frontier:
            break
        marks = _marks(frontier)
        links = conn.execute(
            f"SELECT a, b FROM fact_conflicts WHERE group_id = ? AND a IN ({marks})"
            f" UNION SELECT b, a FROM fact_conflicts WHERE group_id = ? AND b IN ({marks})",
            (group_id, *frontier, group_id, *frontier),
        ).fetchall()
        for uuid in frontier:
            hood.edges.setdefault(uuid, set())
        for a, b in links:
            hood.edges[a].add(b)
            hood.edges.setdefault(b, set()).add(a)
        hood.complete |= frontier
        frontier = {b for _, b in links} - hood.records.keys()
        if frontier:
            for record in _records(conn, group_id, _values(frontier), list(frontier)):
                hood.records[record.uuid] = record
    # Edges of records outside the complete set are partial: keep only those we know.
    return hood


def conflict_links(conn: sqlite3.Connection, group_id: str, uuids: Collection[str]) -> dict[str, set[str]]:
    keys = list(dict.fromkeys(uuids))
    out: dict[str, set[str]] = {u: set() for u in keys}
    if not keys:
        return out
    ids = json.dumps(keys)
    for a, b in conn.execute(
        "SELECT a, b FROM fact_conflicts WHERE group_id = ? AND a IN (SELECT value FROM json_each(?))"
        " UNION SELECT b, a FROM fact_conflicts WHERE group_id = ? AND b IN (SELECT value FROM json_each(?))",
        (group_id, ids, group_id, ids),
    ):
        out[a].add(b)
    return out


def facts_citing(conn: sqlite3.Connection, group_id: str, episode_id: str) -> list[FactRecord]:
    return _records(
        conn,
        group_id,
        "SELECT fact_uuid FROM fact_sources WHERE group_id = ? AND episode_id = ?",
        (group_id, episode_id),
    )


def mentioned_entities(conn: sqlite3.Connection, group_id: str, episode_id: str) -> list[str]:
    cur = conn.execute(
        "SELECT entity_uuid FROM mentions WHERE group_id = ? AND episode_id = ?", (group_id, episode_id)
    )
    return [r[0] for r in cur]


def entity_references(
    conn: sqlite3.Connection, group_id: str, entity_uuids: Collection[str]
) -> dict[str, tuple[set[str], set[str]]]:
    found: dict[str, tuple[set[str], set[str]]] = {u: (set(), set()) for u in entity_uuids}
    if not found:
        return found
    marks = _marks(found)
    uuids = list(found)
    for column in ("source_uuid", "target_uuid"):
        for entity_uuid, fact_uuid in conn.execute(
            f"SELECT {column}, uuid FROM facts WHERE group_id = ? AND {column} IN ({marks})",
            (group_id, *uuids),
        ):
            found[entity_uuid][0].add(fact_uuid)
    for entity_uuid, episode_id in conn.execute(
        f"SELECT entity_uuid, episode_id FROM mentions WHERE group_id = ? AND entity_uuid IN ({marks})",
        (group_id, *uuids),
    ):
        found[entity_uuid][1].add(episode_id)
    return found


def facts(conn: sqlite3.Connection, group_id: str, q: FactQuery) -> list[Fact]:
    if q.known_at is not None:
        return _believed_facts(conn, group_id, q, q.known_at)
    params: dict[str, object] = {
        "g": group_id,
        "subject": q.subject_key,
        "object": q.object_key,
        "entity": q.entity_key,
        "relation": q.relation_key,
        "t": to_micros(q.as_of),
    }
    where = ["f.group_id = :g"]
    if q.uuids is not None:
        params["uuids"] = json.dumps(list(q.uuids))
        where.append("f.uuid IN (SELECT value FROM json_each(:uuids))")
    if q.subject_key is not None:
        where.append("f.source_uuid IN " + _BY_NAME.format("subject"))
    if q.object_key is not None:
        where.append("f.target_uuid IN " + _BY_NAME.format("object"))
    source = _FROM_FACTS if q.entity_key is None else _FROM_TOUCHING
    if q.relation_key is not None:
        where.append("f.relation_key = :relation")
    if not q.include_expired:
        where.append("f.expired_at IS NULL")
    if not q.include_retired:
        where.append("f.valid_at <= :t AND (f.invalid_at IS NULL OR f.invalid_at > :t)")
    where += _kind_and_span(q, params, "f")
    sql = (
        f"SELECT {rows.FACT_COLUMNS_LATER_SOURCES}{source} WHERE {' AND '.join(where)}"
        " ORDER BY f.valid_at, f.created_at, f.uuid"
    )
    if q.limit is not None:
        sql += f" LIMIT {int(q.limit)}"
    return _with_sources(conn, conn.execute(sql, params).fetchall())


_SOURCES_AT_ONCE = 2000  # facts whose source episodes one read asks for


def _with_sources(conn: sqlite3.Connection, found: list[tuple[object, ...]]) -> list[Fact]:
    """Facts from rows of ``FACT_COLUMNS_LATER_SOURCES``, each with its
    source episodes (by when they were added, then id), read for many facts at once."""
    sources: dict[str, list[str]] = {}
    uuids = list(dict.fromkeys(str(r[0]) for r in found))
    for start in range(0, len(uuids), _SOURCES_AT_ONCE):
        for fact_uuid, episode_id in conn.execute(
            "SELECT fact_uuid, episode_id FROM fact_sources WHERE fact_uuid IN (SELECT value FROM json_each(?))"
            " ORDER BY fact_uuid, added_at, episode_id",
            (json.dumps(uuids[start : start + _SOURCES_AT_ONCE]),),
        ):
            sources.setdefault(fact_uuid, []).append(episode_id)
    return [rows.fact((*r[:14], sources.get(str(r[0]), ()), *r[15:])) for r in found]


def _believed_facts(conn: sqlite3.Connection, group_id: str, q: FactQuery, known_at: datetime) -> list[Fact]:
    """What the store believed at ``known_at``: each fact's version recorded by
    then. That is the current version (the fact row) when it was recorded by
    then, else the latest superseded version in the history. The facts to look
    at are found by name through the graph and the record of retracted facts."""
    params: dict[str, object] = {
        "g": group_id,
        "k": to_micros(known_at),
        "t": to_micros(q.as_of),
        "subject": q.subject_key,
        "object": q.object_key,
        "entity": q.entity_key,
        "relation": q.relation_key,
    }
    if q.uuids is not None:
        params["uuids"] = json.dumps(list(q.uuids))
    current = ["f.group_id = :g", "f.recorded_at <= :k"]
    past = [
        "h.group_id = :g",
        "NOT EXISTS (SELECT 1 FROM facts f2 WHERE f2.uuid = w.uuid AND f2.recorded_at <= :k)",
        "h.seq = (SELECT MAX(h2.seq) FROM fact_history h2 WHERE h2.fact_uuid = w.uuid AND h2.recorded_at <= :k)",
        "h.status IN ('live', 'expired')" if q.include_expired else "h.status = 'live'",
    ]
    for key, param in (("subject_key", "subject"), ("object_key", "object")):
        if getattr(q, key) is not None:
            current.append(f"{_NAME_KEY[param]} = :{param}")
            past.append(f"h.{key} = :{param}")
    if q.entity_key is not None:
        current.append("(s.name_key = :entity OR o.name_key = :entity)")
        past.append("(h.subject_key = :entity OR h.object_key = :entity)")
    if q.relation_key is not None:
        current.append("f.relation_key = :relation")
        past.append("h.relation_key = :relation")
    if not q.include_expired:
        current.append("f.expired_at IS NULL")
    if not q.include_retired:
        current.append("f.valid_at <= :t AND (f.invalid_at IS NULL OR f.invalid_at > :t)")
        past.append("h.valid_at <= :t AND (h.invalid_at IS NULL OR h.invalid_at > :t)")
    current += _kind_and_span(q, params, "f")
    past += _kind_and_span(q, params, "h")
    sql = (
        f"WITH wanted(uuid) AS ({_believed_candidates(q)})"
        f" SELECT {rows.FACT_COLUMNS} FROM wanted w CROSS JOIN facts f ON f.uuid = w.uuid"
        " JOIN entities s ON s.uuid = f.source_uuid JOIN entities o ON o.uuid = f.target_uuid"
        f" WHERE {' AND '.join(current)}"
        f" UNION ALL SELECT {rows.HISTORY_FACT_COLUMNS} FROM wanted w CROSS JOIN fact_history h"
        f" ON h.fact_uuid = w.uuid WHERE {' AND '.join(past)}"
        " ORDER BY 9, 11, 1"  # valid_at, created_at, uuid
    )
    if q.limit is not None:
        sql += f" LIMIT {int(q.limit)}"
    return [rows.fact(r) for r in conn.execute(sql, params)]


_NAME_KEY = {"subject": "s.name_key", "object": "o.name_key"}


def _kind_and_span(q: FactQuery, params: dict[str, object], table: str) -> list[str]:
    """The conditions of ``q.event``, ``q.since`` and ``q.until`` on ``table``
    (``f``: facts, ``h``: history), their values put in ``params``."""
    out = []
    if q.event is not None:
        out.append(f"{table}.event = {int(q.event)}")
    if q.since is not None:
        params["since"] = to_micros(q.since)
        out.append(f"{table}.valid_at >= :since")
    if q.until is not None:
        params["until"] = to_micros(q.until)
        out.append(f"{table}.valid_at < :until")
    return out


def _believed_candidates(q: FactQuery) -> str:
    """SQL selecting the uuids of every fact that may match ``q`` at any time."""
    if q.uuids is not None:
        return "SELECT value FROM json_each(:uuids)"
    parts: list[str] = []
    ends = []
    if q.subject_key is not None:
        ends.append(("source_uuid", "subject_key", "subject"))
    elif q.object_key is not None:
        ends.append(("target_uuid", "object_key", "object"))
    elif q.entity_key is not None:
        ends += [("source_uuid", "subject_key", "entity"), ("target_uuid", "object_key", "entity")]
    for column, key, param in ends:
        parts.append(f"SELECT uuid FROM facts WHERE group_id = :g AND {column} IN {_BY_NAME.format(param)}")
        parts.append(f"SELECT fact_uuid FROM retracted_facts WHERE group_id = :g AND {key} = :{param}")
    if parts:
        return " UNION ".join(parts)
    relation = " AND relation_key = :relation" if q.relation_key is not None else ""
    return (
        f"SELECT uuid FROM facts WHERE group_id = :g{relation}"
        f" UNION SELECT fact_uuid FROM fact_history WHERE group_id = :g{relation}"
    )


def timeline(conn: sqlite3.Connection, group_id: str, entity_key: str, relation_key: str | None) -> list[Fact]:
    sql = f"SELECT {rows.FACT_COLUMNS}{_FROM_TOUCHING} WHERE f.group_id = :g AND f.expired_at IS NULL"
    if relation_key is not None:
        sql += " AND f.relation_key = :relation"
    sql += " ORDER BY f.valid_at, f.created_at, f.uuid"
    cur = conn.execute(sql, {"g": group_id, "entity": entity_key, "relation": relation_key})
    return [rows.fact(r) for r in cur]


def history(conn: sqlite3.Connection, group_id: str, fact_uuid: str) -> list[FactChange]:
    """Superseded versions and deletion markers, then the current version."""
    cur = conn.execute(
        "SELECT fact_uuid, recorded_at, cause, episode_id, status, valid_at, invalid_at, invalidated_by, episodes,"
        " 0, seq FROM fact_history WHERE group_id = :g AND fact_uuid = :u"
        " UNION ALL SELECT f.uuid, f.recorded_at, f.cause, f.cause_episode,"
        " CASE WHEN f.expired_at IS NULL THEN 'live' ELSE 'expired' END, f.valid_at, f.invalid_at,"
        " f.invalidated_by, (SELECT json_group_array(episode_id) FROM (SELECT episode_id FROM fact_sources fs"
        "  WHERE fs.fact_uuid = f.uuid ORDER BY fs.added_at, fs.episode_id))"
        ", 1, 0 FROM facts f WHERE f.group_id = :g AND f.uuid = :u"
        " ORDER BY 10, 11",  # superseded versions in the order written, then the current one
        {"g": group_id, "u": fact_uuid},
    )
    return [rows.fact_change(r) for r in cur]


def changes(conn: sqlite3.Connection, group_id: str, window: ChangeWindow) -> list[StoredChange]:
    """The versions and entity events recorded in the window (see ``change_rows``)."""
    sql, params = changes_sql(
        group_id, window, fact_columns=rows.FACT_COLUMNS, history_columns=rows.HISTORY_FACT_COLUMNS,
        mark=lambda name: f":{name}",
    )
    return [stored_change(r) for r in conn.execute(sql, params)]


def audit_events(conn: sqlite3.Connection, group_id: str) -> list[AuditEvent]:
    cur = conn.execute(
        "SELECT group_id, kind, recorded_at, episode_id, detail, actor, on_behalf_of FROM audit_events"
        " WHERE group_id = ? ORDER BY seq",
        (group_id,),
    )
    return [rows.audit_event(r) for r in cur]


def summary_states(
    conn: sqlite3.Connection, group_id: str, uuids: Collection[str] | None, stale_only: bool, after: str | None,
    limit: int,
) -> list[tuple[Entity, int]]:
    """Entities (these, or the group's) with their summary's stale count, by uuid after ``after``."""
    sql = f"SELECT {rows.ENTITY_COLUMNS}, e.summary_stale FROM entities e WHERE e.group_id = ?"
    params: list[object] = [group_id]
    if uuids is not None:
        sql += " AND e.uuid IN (SELECT value FROM json_each(?))"
        params.append(json.dumps(sorted(uuids)))
    if stale_only:
        sql += " AND e.summary_stale > 0"
    if after is not None:
        sql += " AND e.uuid > ?"
        params.append(after)
    sql += " ORDER BY e.uuid LIMIT ?"
    params.append(limit)
    return [(rows.entity(r), int(r[-1])) for r in conn.execute(sql, params)]
