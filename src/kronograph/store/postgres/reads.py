"""Reads of the PostgreSQL store: the shared queries of ``..sql`` run on a
connection. Every table is filtered by the group and every join stays
within it, so under Citus each query runs on the one shard that holds the
group. A fact record's sources come in its own row (one round trip).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from psycopg import AsyncConnection

from ...model import AuditEvent, Entity, Episode, Fact, FactChange
from ...time import from_micros
from .. import rows
from ..change_rows import ChangeWindow, StoredChange, stored_change
from ..protocol import FactQuery
from ..records import CandidateAsk, FactRecord, Neighbourhood, Source
from ..rows import opt_time
from ..sql import entity_queries, fact_queries, record_queries
from ..sql.dialect import Query
from .columns import DIALECT as D
from .execute import fetch_all, fetch_one, fetch_together

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
    "summary_states",
    "timeline",
]


async def revision(conn: AsyncConnection, group_id: str) -> int:
    row = await fetch_one(conn, entity_queries.revision(D, group_id))
    return int(row[0]) if row else 0


async def episode(conn: AsyncConnection, group_id: str, episode_id: str) -> Episode | None:
    row = await fetch_one(conn, entity_queries.episode(D, group_id, episode_id))
    return rows.episode(row) if row else None


async def entities_named(conn: AsyncConnection, group_id: str, name_keys: Collection[str]) -> list[Entity]:
    return [rows.entity(r) for r in await fetch_all(conn, entity_queries.entities_named(D, group_id, name_keys))]


async def entities(
    conn: AsyncConnection, group_id: str, name_key: str | None, label: str | None
) -> list[Entity]:
    return [rows.entity(r) for r in await fetch_all(conn, entity_queries.entities(D, group_id, name_key, label))]


def _fact_records(found: list[tuple[Any, ...]]) -> list[FactRecord]:
    """Fact records of rows of a ``record_queries`` query, with the sources each row carries."""
    return [
        rows.fact_record(
            r[:-1],
            [Source(e, from_micros(v), opt_time(i), from_micros(a)) for e, v, i, a in r[-1] or ()],
        )
        for r in found
    ]


async def _records(conn: AsyncConnection, query: Query) -> list[FactRecord]:
    return _fact_records(await fetch_all(conn, query))


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
    return await _records(conn, record_queries.fact_candidates(
        D, group_id, subject_uuid, object_uuid, relation_key, sides, either_end, whole_pair, around, limit
    ))


async def fact_candidates_each(
    conn: AsyncConnection, group_id: str, asks: Sequence[CandidateAsk]
) -> list[list[FactRecord]]:
    """Each ask's candidates, all in one round trip."""
    if not asks:
        return []
    found = await fetch_together(conn, *(
        record_queries.fact_candidates(
            D, group_id, a.subject_uuid, a.object_uuid, a.relation_key, a.sides, a.either_end, a.whole_pair,
            a.around, a.limit,
        )
        for a in asks
    ))
    return [_fact_records(rows) for rows in found]


async def conflict_neighbourhood(
    conn: AsyncConnection, group_id: str, seeds: Collection[str], depth: int
) -> Neighbourhood:
    """The records of the seeds and of what they conflict with, ``depth``
    links out. A level's records and its links are read together: one round
    trip per level that finds new facts."""
    hood = Neighbourhood()
    frontier = set(seeds)
    level = 0
    while frontier:
        wanted = [record_queries.listed(D, group_id, frontier)]
        if level < depth:
            wanted.append(record_queries.conflict_links(D, group_id, frontier))
        found = await fetch_together(conn, *wanted)
        for record in _fact_records(found[0]):
            hood.records[record.uuid] = record
        if level == depth:
            break
        links = found[1]
        for uuid in frontier:
            hood.edges.setdefault(uuid, set())
        for a, b in links:
            hood.edges[a].add(b)
            hood.edges.setdefault(b, set()).add(a)
        hood.complete |= frontier
        frontier = {b for _, b in links} - hood.records.keys()
        level += 1
    # Edges of records outside the complete set are partial: keep only those we know.
    return hood


async def conflict_links(conn: AsyncConnection, group_id: str, uuids: Collection[str]) -> dict[str, set[str]]:
    keys = list(dict.fromkeys(uuids))
    out: dict[str, set[str]] = {u: set() for u in keys}
    if not keys:
        return out
    for a, b in await fetch_all(conn, record_queries.conflict_links(D, group_id, keys)):
        out[a].add(b)
    return out


async def facts_citing(conn: AsyncConnection, group_id: str, episode_id: str) -> list[FactRecord]:
    return await _records(conn, record_queries.citing(D, group_id, episode_id))


async def mentioned_entities(conn: AsyncConnection, group_id: str, episode_id: str) -> list[str]:
    return [r[0] for r in await fetch_all(conn, entity_queries.mentioned_entities(D, group_id, episode_id))]


async def entity_references(
    conn: AsyncConnection, group_id: str, entity_uuids: Collection[str]
) -> dict[str, tuple[set[str], set[str]]]:
    """Facts at either end of, and episodes mentioning, each entity: one round trip."""
    found: dict[str, tuple[set[str], set[str]]] = {u: (set(), set()) for u in entity_uuids}
    if not found:
        return found
    for which, entity_uuid, other in await fetch_all(conn, record_queries.entity_references(D, group_id, list(found))):
        found[entity_uuid][which].add(other)
    return found


async def facts(conn: AsyncConnection, group_id: str, q: FactQuery) -> list[Fact]:
    return [rows.fact(r) for r in await fetch_all(conn, fact_queries.facts(D, group_id, q))]


async def timeline(conn: AsyncConnection, group_id: str, entity_key: str, relation_key: str | None) -> list[Fact]:
    return [rows.fact(r) for r in await fetch_all(conn, fact_queries.timeline(D, group_id, entity_key, relation_key))]


async def history(conn: AsyncConnection, group_id: str, fact_uuid: str) -> list[FactChange]:
    """Superseded versions and deletion markers, then the current version."""
    return [rows.fact_change(r) for r in await fetch_all(conn, fact_queries.history(D, group_id, fact_uuid))]


async def changes(conn: AsyncConnection, group_id: str, window: ChangeWindow) -> list[StoredChange]:
    """The versions and entity events recorded in the window (see ``change_rows``)."""
    return [stored_change(r) for r in await fetch_all(conn, fact_queries.changes(D, group_id, window))]


async def audit_events(conn: AsyncConnection, group_id: str) -> list[AuditEvent]:
    return [rows.audit_event(r) for r in await fetch_all(conn, entity_queries.audit_events(D, group_id))]


async def summary_states(
    conn: AsyncConnection, group_id: str, uuids: Collection[str] | None, stale_only: bool, after: str | None,
    limit: int,
) -> list[tuple[Entity, int]]:
    """Entities (these, or the group's) with their summary's stale count, by uuid after ``after``."""
    query = entity_queries.summary_states(D, group_id, uuids, stale_only, after, limit)
    return [(rows.entity(r), int(r[-1])) for r in await fetch_all(conn, query)]
