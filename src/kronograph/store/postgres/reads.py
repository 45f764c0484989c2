"""Queries against the PostgreSQL schema. Every one is scoped by group_id.

The ports of ``..sqlite.reads``, with the same answers. Every table is
filtered by the group and every join stays within it, so under Citus each
query runs on the one shard that holds the group.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from psycopg import AsyncConnection

from ...model import AuditEvent, Entity, Episode, Fact, FactChange
from ...time import from_micros, to_micros
from .. import rows
from ..change_rows import ChangeWindow, StoredChange, changes_sql, stored_change
from ..protocol import FactQuery
from ..records import FactRecord, Neighbourhood, Source
from ..rows import opt_time
from .columns import (
    ENTITY_COLUMNS,
    ENTITY_ORDER,
    EPISODE_COLUMNS,
    FACT_COLUMNS,
    FACT_ORDER,
    FROM_FACTS,
    HISTORY_FACT_COLUMNS,
    RECORD_COLUMNS,
    SOURCE_COLUMN,
)

__all__ = [
    "audit_events",
    "changes",
    "conflict_links",
    "conflict_neighbourhood",
    "entities",
    "entities_named",
    "entity_references",
    "episode",
    "fact_candidates",
    "facts",
    "facts_citing",
    "history",
    "mentioned_entities",
    "revision",
    "timeline",
]

Params = dict[str, Any]

# The entities of a name: those so named, or, when none is, those it is an
# alias of (a merged entity's name finds the entity it was merged into).
_BY_NAME = (
    "(SELECT uuid FROM entities WHERE group_id = %(g)s AND name_key = %({0})s"
    " UNION SELECT entity_uuid FROM entity_aliases WHERE group_id = %(g)s AND alias_key = %({0})s"
    " AND NOT EXISTS (SELECT 1 FROM entities WHERE group_id = %(g)s AND name_key = %({0})s))"
)
# Facts touching an entity of that name at either end: a union of two index
# lookups the facts are then joined to, so the group's other facts are never walked.
_FROM_TOUCHING = (
    " FROM (SELECT uuid FROM facts WHERE group_id = %(g)s AND source_uuid IN {0}"
    " UNION SELECT uuid FROM facts WHERE group_id = %(g)s AND target_uuid IN {0}) t"
    " JOIN facts f ON f.group_id = %(g)s AND f.uuid = t.uuid"
    " JOIN entities s ON s.group_id = f.group_id AND s.uuid = f.source_uuid"
    " JOIN entities o ON o.group_id = f.group_id AND o.uuid = f.target_uuid"
).replace("{0}", _BY_NAME.format("entity"))
# The uuids in a list parameter, as rows to join the facts to.
_LISTED = "SELECT unnest(%(uuids)s::text[])"


async def revision(conn: AsyncConnection, group_id: str) -> int:
    cur = await conn.execute("SELECT revision FROM groups WHERE group_id = %s", (group_id,))
    row = await cur.fetchone()
    return int(row[0]) if row else 0


async def episode(conn: AsyncConnection, group_id: str, episode_id: str) -> Episode | None:
    cur = await conn.execute(
        f"SELECT {EPISODE_COLUMNS} FROM episodes p WHERE p.group_id = %s AND p.uuid = %s", (group_id, episode_id)
    )
    row = await cur.fetchone()
    return rows.episode(row) if row else None


async def entities_named(conn: AsyncConnection, group_id: str, name_keys: Collection[str]) -> list[Entity]:
    cur = await conn.execute(
        f"SELECT {ENTITY_COLUMNS} FROM entities e WHERE e.group_id = %s AND e.name_key = ANY(%s::text[])"
        f" ORDER BY {ENTITY_ORDER}",
        (group_id, list(name_keys)),
    )
    return [rows.entity(r) for r in await cur.fetchall()]


async def entities(
    conn: AsyncConnection, group_id: str, name_key: str | None, label: str | None
) -> list[Entity]:
    sql = f"SELECT {ENTITY_COLUMNS} FROM entities e WHERE e.group_id = %(g)s"
    if name_key is not None:
        sql += " AND e.uuid IN " + _BY_NAME.format("name")
    if label is not None:
        sql += (
            " AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(e.labels) l(v)"
            " WHERE lower(l.v) = lower(%(label)s))"
        )
    cur = await conn.execute(sql + f" ORDER BY {ENTITY_ORDER}", {"g": group_id, "name": name_key, "label": label})
    return [rows.entity(r) for r in await cur.fetchall()]


async def _records(conn: AsyncConnection, wanted: str, params: Params) -> list[FactRecord]:
    """Fact records, with their sources, of the uuids the SQL ``wanted``
    selects (named placeholders, the group as ``g``): one round trip, the
    facts joined to those few uuids rather than the group scanned."""
    cur = await conn.execute(
        f"SELECT {RECORD_COLUMNS}, {SOURCE_COLUMN} FROM ({wanted}) w(uuid)"
        " JOIN facts f ON f.group_id = %(g)s AND f.uuid = w.uuid"
        " JOIN entities s ON s.group_id = f.group_id AND s.uuid = f.source_uuid"
        " JOIN entities o ON o.group_id = f.group_id AND o.uuid = f.target_uuid",
        params,
    )
    found = await cur.fetchall()
    return [
        rows.fact_record(
            r[:-1],
            [Source(e, from_micros(v), opt_time(i), from_micros(a)) for e, v, i, a in r[-1] or ()],
        )
        for r in found
    ]


async def fact_candidates(
    conn: AsyncConnection,
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
    params: Params = {
        "g": group_id, "s": subject_uuid, "o": object_uuid, "r": relation_key, "t": to_micros(around), "n": limit,
    }
    # The pair, by the pair index: neither entity's other facts are walked.
    # Without ``whole_pair``, only restatements can matter: the same direction
    # and relation.
    pair = "SELECT uuid FROM facts WHERE group_id = %(g)s AND source_uuid = {0} AND target_uuid = {1}"
    if whole_pair:
        parts = [pair.format("%(s)s", "%(o)s"), pair.format("%(o)s", "%(s)s")]
    else:
        parts = [pair.format("%(s)s", "%(o)s") + " AND relation_key = %(r)s"]
    for side in sides:
        entity = "%(s)s" if side == "subject" else "%(o)s"
        own = "source_uuid" if side == "subject" else "target_uuid"
        for column in ("source_uuid", "target_uuid") if either_end else (own,):
            # The nearest facts in valid time on each side of the new one, so a
            # late arrival still sees its true predecessor and successor.
            for order in ("valid_at <= %(t)s ORDER BY valid_at DESC", "valid_at > %(t)s ORDER BY valid_at ASC"):
                parts.append(
                    f"(SELECT uuid FROM facts WHERE group_id = %(g)s AND {column} = {entity}"
                    f" AND relation_key = %(r)s AND {order} LIMIT %(n)s)"
                )
    return await _records(conn, " UNION ".join(parts), params)


async def conflict_neighbourhood(
    conn: AsyncConnection, group_id: str, seeds: Collection[str], depth: int
) -> Neighbourhood:
    hood = Neighbourhood()
    frontier = set(seeds)
    if not frontier:
        return hood
    for record in await _records(conn, _LISTED, {"g": group_id, "uuids": list(frontier)}):
        hood.records[record.uuid] = record
    for _ in range(depth):
        if not frontier:
            break
        cur = await conn.execute(
            "SELECT a, b FROM fact_conflicts WHERE group_id = %(g)s AND a = ANY(%(f)s::text[])"
            " UNION SELECT b, a FROM fact_conflicts WHERE group_id = %(g)s AND b = ANY(%(f)s::text[])",
            {"g": group_id, "f": list(frontier)},
        )
        links = await cur.fetchall()
        for uuid in frontier:
            hood.edges.setdefault(uuid, set())
        for a, b in links:
            hood.edges[a].add(b)
            hood.edges.setdefault(b, set()).add(a)
        hood.complete |= frontier
        frontier = {b for _, b in links} - hood.records.keys()
        if frontier:
            for record in await _records(conn, _LISTED, {"g": group_id, "uuids": list(frontier)}):
                hood.records[record.uuid] = record
    # Edges of records outside the complete set are partial: keep only those we know.
    return hood


async def conflict_links(conn: AsyncConnection, group_id: str, uuids: Collection[str]) -> dict[str, set[str]]:
    keys = list(dict.fromkeys(uuids))
    out: dict[str, set[str]] = {u: set() for u in keys}
    if not keys:
        return out
    cur = await conn.execute(
        "SELECT a, b FROM fact_conflicts WHERE group_id = %(g)s AND a = ANY(%(f)s::text[])"
        " UNION SELECT b, a FROM fact_conflicts WHERE group_id = %(g)s AND b = ANY(%(f)s::text[])",
        {"g": group_id, "f": keys},
    )
    for a, b in await cur.fetchall():
        out[a].add(b)
    return out


async def facts_citing(conn: AsyncConnection, group_id: str, episode_id: str) -> list[FactRecord]:
    return await _records(
        conn,
        "SELECT fact_uuid FROM fact_sources WHERE group_id = %(g)s AND episode_id = %(e)s",
        {"g": group_id, "e": episode_id},
    )


async def mentioned_entities(conn: AsyncConnection, group_id: str, episode_id: str) -> list[str]:
    cur = await conn.execute(
        "SELECT entity_uuid FROM mentions WHERE group_id = %s AND episode_id = %s", (group_id, episode_id)
    )
    return [r[0] for r in await cur.fetchall()]


async def entity_references(
    conn: AsyncConnection, group_id: str, entity_uuids: Collection[str]
) -> dict[str, tuple[set[str], set[str]]]:
    """Facts at either end of, and episodes mentioning, each entity: one round trip."""
    found: dict[str, tuple[set[str], set[str]]] = {u: (set(), set()) for u in entity_uuids}
    if not found:
        return found
    cur = await conn.execute(
        "SELECT 0, source_uuid, uuid FROM facts WHERE group_id = %(g)s AND source_uuid = ANY(%(u)s::text[])"
        " UNION ALL SELECT 0, target_uuid, uuid FROM facts WHERE group_id = %(g)s AND target_uuid = ANY(%(u)s::text[])"
        " UNION ALL SELECT 1, entity_uuid, episode_id FROM mentions"
        " WHERE group_id = %(g)s AND entity_uuid = ANY(%(u)s::text[])",
        {"g": group_id, "u": list(found)},
    )
    for which, entity_uuid, other in await cur.fetchall():
        found[entity_uuid][which].add(other)
    return found


async def facts(conn: AsyncConnection, group_id: str, q: FactQuery) -> list[Fact]:
    if q.known_at is not None:
        return await _believed_facts(conn, group_id, q, q.known_at)
    params: Params = {
        "g": group_id,
        "subject": q.subject_key,
        "object": q.object_key,
        "entity": q.entity_key,
        "relation": q.relation_key,
        "t": to_micros(q.as_of),
    }
    where = ["f.group_id = %(g)s"]
    if q.uuids is not None:
        params["uuids"] = list(q.uuids)
        where.append("f.uuid = ANY(%(uuids)s::text[])")
    if q.subject_key is not None:
        where.append("f.source_uuid IN " + _BY_NAME.format("subject"))
    if q.object_key is not None:
        where.append("f.target_uuid IN " + _BY_NAME.format("object"))
    source = FROM_FACTS if q.entity_key is None else _FROM_TOUCHING
    if q.relation_key is not None:
        where.append("f.relation_key = %(relation)s")
    if not q.include_expired:
        where.append("f.expired_at IS NULL")
    if not q.include_retired:
        where.append("f.valid_at <= %(t)s AND (f.invalid_at IS NULL OR f.invalid_at > %(t)s)")
    where += _kind_and_span(q, params, "f")
    sql = f"SELECT {FACT_COLUMNS}{source} WHERE {' AND '.join(where)} ORDER BY {FACT_ORDER}"
    if q.limit is not None:
        sql += f" LIMIT {int(q.limit)}"
    cur = await conn.execute(sql, params)
    return [rows.fact(r) for r in await cur.fetchall()]


_NAME_KEY = {"subject": "s.name_key", "object": "o.name_key"}


def _kind_and_span(q: FactQuery, params: Params, table: str) -> list[str]:
    """The conditions of ``q.event``, ``q.since`` and ``q.until`` on ``table``
    (``f``: facts, ``h``: history), their values put in ``params``."""
    out = []
    if q.event is not None:
        out.append(f"{table}.event IS {'TRUE' if q.event else 'FALSE'}")
    if q.since is not None:
        params["since"] = to_micros(q.since)
        out.append(f"{table}.valid_at >= %(since)s")
    if q.until is not None:
        params["until"] = to_micros(q.until)
        out.append(f"{table}.valid_at < %(until)s")
    return out


async def _believed_facts(conn: AsyncConnection, group_id: str, q: FactQuery, known_at: datetime) -> list[Fact]:
    """What the store believed at ``known_at``: each fact's version recorded by
    then. That is the current version (the fact row) when it was recorded by
    then, else the latest superseded version in the history. The facts to look
    at are found by name through the graph and the record of retracted facts."""
    params: Params = {
        "g": group_id,
        "k": to_micros(known_at),
        "t": to_micros(q.as_of),
        "subject": q.subject_key,
        "object": q.object_key,
        "entity": q.entity_key,
        "relation": q.relation_key,
    }
    if q.uuids is not None:
        params["uuids"] = list(q.uuids)
    current = ["f.recorded_at <= %(k)s"]
    past = [
        "NOT EXISTS (SELECT 1 FROM facts f2"
        " WHERE f2.group_id = %(g)s AND f2.uuid = w.uuid AND f2.recorded_at <= %(k)s)",
        "h.seq = (SELECT MAX(h2.seq) FROM fact_history h2"
        " WHERE h2.group_id = %(g)s AND h2.fact_uuid = w.uuid AND h2.recorded_at <= %(k)s)",
        "h.status IN ('live', 'expired')" if q.include_expired else "h.status = 'live'",
    ]
    for key, param in (("subject_key", "subject"), ("object_key", "object")):
        if getattr(q, key) is not None:
            current.append(f"{_NAME_KEY[param]} = %({param})s")
            past.append(f"h.{key} = %({param})s")
    if q.entity_key is not None:
        current.append("(s.name_key = %(entity)s OR o.name_key = %(entity)s)")
        past.append("(h.subject_key = %(entity)s OR h.object_key = %(entity)s)")
    if q.relation_key is not None:
        current.append("f.relation_key = %(relation)s")
        past.append("h.relation_key = %(relation)s")
    if not q.include_expired:
        current.append("f.expired_at IS NULL")
    if not q.include_retired:
        current.append("f.valid_at <= %(t)s AND (f.invalid_at IS NULL OR f.invalid_at > %(t)s)")
        past.append("h.valid_at <= %(t)s AND (h.invalid_at IS NULL OR h.invalid_at > %(t)s)")
    current += _kind_and_span(q, params, "f")
    past += _kind_and_span(q, params, "h")
    # A union orders by output columns only: the wrapper adds the byte order of uuids.
    sql = (
        f"WITH wanted(uuid) AS ({_believed_candidates(q)})"
        f" SELECT * FROM (SELECT {FACT_COLUMNS} FROM wanted w"
        " JOIN facts f ON f.group_id = %(g)s AND f.uuid = w.uuid"
        " JOIN entities s ON s.group_id = f.group_id AND s.uuid = f.source_uuid"
        " JOIN entities o ON o.group_id = f.group_id AND o.uuid = f.target_uuid"
        f" WHERE {' AND '.join(current)}"
        f" UNION ALL SELECT {HISTORY_FACT_COLUMNS} FROM wanted w"
        f" JOIN fact_history h ON h.group_id = %(g)s AND h.fact_uuid = w.uuid WHERE {' AND '.join(past)}) u"
        ' ORDER BY u.valid_at, u.created_at, u.uuid COLLATE "C"'
    )
    if q.limit is not None:
        sql += f" LIMIT {int(q.limit)}"
    cur = await conn.execute(sql, params)
    return [rows.fact(r) for r in await cur.fetchall()]


def _believed_candidates(q: FactQuery) -> str:
    """SQL selecting the uuids of every fact that may match ``q`` at any time."""
    if q.uuids is not None:
        return _LISTED
    parts: list[str] = []
    ends = []
    if q.subject_key is not None:
        ends.append(("source_uuid", "subject_key", "subject"))
    elif q.object_key is not None:
        ends.append(("target_uuid", "object_key", "object"))
    elif q.entity_key is not None:
        ends += [("source_uuid", "subject_key", "entity"), ("target_uuid", "object_key", "entity")]
    for column, key, param in ends:
        parts.append(f"SELECT uuid FROM facts WHERE group_id = %(g)s AND {column} IN {_BY_NAME.format(param)}")
        parts.append(f"SELECT fact_uuid FROM retracted_facts WHERE group_id = %(g)s AND {key} = %({param})s")
    if parts:
        return " UNION ".join(parts)
    relation = " AND relation_key = %(relation)s" if q.relation_key is not None else ""
    return (
        f"SELECT uuid FROM facts WHERE group_id = %(g)s{relation}"
        f" UNION SELECT fact_uuid FROM fact_history WHERE group_id = %(g)s{relation}"
    )


async def timeline(conn: AsyncConnection, group_id: str, entity_key: str, relation_key: str | None) -> list[Fact]:
    sql = f"SELECT {FACT_COLUMNS}{_FROM_TOUCHING} WHERE f.expired_at IS NULL"
    if relation_key is not None:
        sql += " AND f.relation_key = %(relation)s"
    cur = await conn.execute(
        sql + f" ORDER BY {FACT_ORDER}",
        {"g": group_id, "entity": entity_key, "relation": relation_key},
    )
    return [rows.fact(r) for r in await cur.fetchall()]


async def history(conn: AsyncConnection, group_id: str, fact_uuid: str) -> list[FactChange]:
    """Superseded versions and deletion markers, then the current version."""
    cur = await conn.execute(
        "SELECT fact_uuid, recorded_at, cause, episode_id, status, valid_at, invalid_at, invalidated_by, episodes,"
        " 0, seq FROM fact_history WHERE group_id = %(g)s AND fact_uuid = %(u)s"
        " UNION ALL SELECT f.uuid, f.recorded_at, f.cause, f.cause_episode,"
        " CASE WHEN f.expired_at IS NULL THEN 'live' ELSE 'expired' END, f.valid_at, f.invalid_at,"
        ' f.invalidated_by, (SELECT jsonb_agg(fs.episode_id ORDER BY fs.added_at, fs.episode_id COLLATE "C")'
        "  FROM fact_sources fs WHERE fs.group_id = f.group_id AND fs.fact_uuid = f.uuid)"
        ", 1, 0 FROM facts f WHERE f.group_id = %(g)s AND f.uuid = %(u)s"
        " ORDER BY 10, 11",  # superseded versions in the order written, then the current one
        {"g": group_id, "u": fact_uuid},
    )
    return [rows.fact_change(r) for r in await cur.fetchall()]


async def changes(conn: AsyncConnection, group_id: str, window: ChangeWindow) -> list[StoredChange]:
    """The versions and entity events recorded in the window (see ``change_rows``)."""
    sql, params = changes_sql(
        group_id, window, fact_columns=FACT_COLUMNS, history_columns=HISTORY_FACT_COLUMNS,
        mark=lambda name: f"%({name})s", collate=' COLLATE "C"',
    )
    cur = await conn.execute(sql, params)
    return [stored_change(r) for r in await cur.fetchall()]


async def audit_events(conn: AsyncConnection, group_id: str) -> list[AuditEvent]:
    cur = await conn.execute(
        "SELECT group_id, kind, recorded_at, episode_id, detail, actor, on_behalf_of FROM audit_events"
        " WHERE group_id = %s ORDER BY seq",
        (group_id,),
    )
    return [rows.audit_event(r) for r in await cur.fetchall()]


async def summary_states(
    conn: AsyncConnection, group_id: str, uuids: Collection[str] | None, stale_only: bool, after: str | None,
    limit: int,
) -> list[tuple[Entity, int]]:
    """Entities (these, or the group's) with their summary's stale count, by uuid after ``after``."""
    sql = f"SELECT {ENTITY_COLUMNS}, e.summary_stale FROM entities e WHERE e.group_id = %s"
    params: list[object] = [group_id]
    if uuids is not None:
        sql += " AND e.uuid = ANY(%s::text[])"
        params.append(sorted(uuids))
    if stale_only:
        sql += " AND e.summary_stale > 0"
    if after is not None:
        sql += ' AND e.uuid COLLATE "C" > %s'
        params.append(after)
    sql += ' ORDER BY e.uuid COLLATE "C" LIMIT %s'
    params.append(limit)
    cur = await conn.execute(sql, params)  # type: ignore[arg-type]
    return [(rows.entity(r), int(r[-1])) for r in await cur.fetchall()]
