"""Reads of the SQLite store: the shared queries of ``..sql`` run on a
connection, and what SQLite does its own way (a list of facts, or of fact
records, reads its sources after, in one query for many). Every query is
scoped by group_id."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Collection
from datetime import datetime

from ...model import AuditEvent, Entity, Episode, Fact, FactChange
from ...time import from_micros
from ..change_rows import ChangeWindow, StoredChange, stored_change
from ..protocol import FactQuery
from ..records import FactRecord, Neighbourhood, Source
from ..sql import entity_queries, fact_queries, record_queries
from ..sql.dialect import Query
from . import rows
from .rows import DIALECT as D
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
    "summary_states",
    "timeline",
]


def _marks(values: Collection[str]) -> str:
    return ",".join("?" * len(values))


def revision(conn: sqlite3.Connection, group_id: str) -> int:
    """The group's revision: moved by every plan committed to it (0 before any)."""
    row = conn.execute(*entity_queries.revision(D, group_id)).fetchone()
    return int(row[0]) if row else 0


def episode(conn: sqlite3.Connection, group_id: str, episode_id: str) -> Episode | None:
    row = conn.execute(*entity_queries.episode(D, group_id, episode_id)).fetchone()
    return rows.episode(row) if row else None


def entities_named(conn: sqlite3.Connection, group_id: str, name_keys: Collection[str]) -> list[Entity]:
    return [rows.entity(r) for r in conn.execute(*entity_queries.entities_named(D, group_id, name_keys))]


def entities(
    conn: sqlite3.Connection, group_id: str, name_key: str | None, label: str | None
) -> list[Entity]:
    return [rows.entity(r) for r in conn.execute(*entity_queries.entities(D, group_id, name_key, label))]


def _records(conn: sqlite3.Connection, query: Query) -> list[FactRecord]:
    """Fact records of ``query`` (``record_queries``), each with its sources,
    read after for all of them at once."""
    found = conn.execute(*query).fetchall()
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
    return _records(conn, record_queries.fact_candidates(
        D, group_id, subject_uuid, object_uuid, relation_key, sides, either_end, whole_pair, around, limit
    ))


def conflict_neighbourhood(
    conn: sqlite3.Connection, group_id: str, seeds: Collection[str], depth: int
) -> Neighbourhood:
    hood = Neighbourhood()
    frontier = set(seeds)
    if not frontier:
        return hood
    for record in _records(conn, record_queries.listed(D, group_id, frontier)):
        hood.records[record.uuid] = record
    for _ in range(depth):
        if not frontier:
            break
        links = conn.execute(*record_queries.conflict_links(D, group_id, frontier)).fetchall()
        for uuid in frontier:
            hood.edges.setdefault(uuid, set())
        for a, b in links:
            hood.edges[a].add(b)
            hood.edges.setdefault(b, set()).add(a)
        hood.complete |= frontier
        frontier = {b for _, b in links} - hood.records.keys()
        if frontier:
            for record in _records(conn, record_queries.listed(D, group_id, frontier)):
                hood.records[record.uuid] = record
    # Edges of records outside the complete set are partial: keep only those we know.
    return hood


def conflict_links(conn: sqlite3.Connection, group_id: str, uuids: Collection[str]) -> dict[str, set[str]]:
    keys = list(dict.fromkeys(uuids))
    out: dict[str, set[str]] = {u: set() for u in keys}
    if not keys:
        return out
    for a, b in conn.execute(*record_queries.conflict_links(D, group_id, keys)):
        out[a].add(b)
    return out


def facts_citing(conn: sqlite3.Connection, group_id: str, episode_id: str) -> list[FactRecord]:
    return _records(conn, record_queries.citing(D, group_id, episode_id))


def mentioned_entities(conn: sqlite3.Connection, group_id: str, episode_id: str) -> list[str]:
    return [r[0] for r in conn.execute(*entity_queries.mentioned_entities(D, group_id, episode_id))]


def entity_references(
    conn: sqlite3.Connection, group_id: str, entity_uuids: Collection[str]
) -> dict[str, tuple[set[str], set[str]]]:
    """Facts at either end of, and episodes mentioning, each entity."""
    found: dict[str, tuple[set[str], set[str]]] = {u: (set(), set()) for u in entity_uuids}
    if not found:
        return found
    for which, entity_uuid, other in conn.execute(*record_queries.entity_references(D, group_id, list(found))):
        found[entity_uuid][which].add(other)
    return found


def facts(conn: sqlite3.Connection, group_id: str, q: FactQuery) -> list[Fact]:
    found = conn.execute(*fact_queries.facts(D, group_id, q)).fetchall()
    if q.known_at is not None:  # versions of the past carry their sources
        return [rows.fact(r) for r in found]
    return _with_sources(conn, found)


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


def timeline(conn: sqlite3.Connection, group_id: str, entity_key: str, relation_key: str | None) -> list[Fact]:
    return [rows.fact(r) for r in conn.execute(*fact_queries.timeline(D, group_id, entity_key, relation_key))]


def history(conn: sqlite3.Connection, group_id: str, fact_uuid: str) -> list[FactChange]:
    """Superseded versions and deletion markers, then the current version."""
    return [rows.fact_change(r) for r in conn.execute(*fact_queries.history(D, group_id, fact_uuid))]


def changes(conn: sqlite3.Connection, group_id: str, window: ChangeWindow) -> list[StoredChange]:
    """The versions and entity events recorded in the window (see ``change_rows``)."""
    return [stored_change(r) for r in conn.execute(*fact_queries.changes(D, group_id, window))]


def audit_events(conn: sqlite3.Connection, group_id: str) -> list[AuditEvent]:
    return [rows.audit_event(r) for r in conn.execute(*entity_queries.audit_events(D, group_id))]


def summary_states(
    conn: sqlite3.Connection, group_id: str, uuids: Collection[str] | None, stale_only: bool, after: str | None,
    limit: int,
) -> list[tuple[Entity, int]]:
    """Entities (these, or the group's) with their summary's stale count, by uuid after ``after``."""
    query = entity_queries.summary_states(D, group_id, uuids, stale_only, after, limit)
    return [(rows.entity(r), int(r[-1])) for r in conn.execute(*query)]
