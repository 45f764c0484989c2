"""Conversions between SQLite rows and kronograph objects."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from ...model import AuditEvent, Entity, Episode, EpisodeKind, Fact, FactChange, trusted
from ...time import from_micros
from ..records import FactRecord, Source

__all__ = [
    "ENTITY_COLUMNS",
    "EPISODE_COLUMNS",
    "FACT_COLUMNS",
    "HISTORY_FACT_COLUMNS",
    "audit_event",
    "entity",
    "episode",
    "fact",
    "fact_change",
    "fact_record",
    "opt_time",
]

ENTITY_COLUMNS = (
    "e.uuid, e.group_id, e.name, e.labels, e.aliases, e.summary, e.attributes, e.created_at, e.provenance"
)
EPISODE_COLUMNS = (
    "p.uuid, p.group_id, p.name, p.kind, p.content, p.content_hash, p.source_description,"
    " p.reference_time, p.created_at, p.saga, p.status, p.metadata, p.error"
)
# Public facts: the stored columns, the endpoint names and the sources in order.
FACT_COLUMNS = (
    "f.uuid, f.group_id, s.name, f.source_uuid, f.relation, o.name, f.target_uuid, f.fact,"
    " f.valid_at, f.invalid_at, f.created_at, f.expired_at, f.invalidated_by, f.attributes,"
    " (SELECT json_group_array(episode_id) FROM (SELECT episode_id FROM fact_sources fs"
    "  WHERE fs.fact_uuid = f.uuid ORDER BY fs.added_at, fs.episode_id))"
)
# The same shape, read from a history snapshot.
HISTORY_FACT_COLUMNS = (
    "h.fact_uuid, h.group_id, h.subject, h.source_uuid, h.relation, h.object, h.target_uuid, h.fact,"
    " h.valid_at, h.invalid_at, h.created_at, h.expired_at, h.invalidated_by, '{}', h.episodes"
)


def opt_time(value: int | None):  # type: ignore[no-untyped-def]
    return None if value is None else from_micros(value)


def fact(row: sqlite3.Row | tuple) -> Fact:  # type: ignore[type-arg]
    return trusted(
        Fact,
        uuid=row[0],
        group_id=row[1],
        subject=row[2],
        subject_uuid=row[3],
        relation=row[4],
        object=row[5],
        object_uuid=row[6],
        fact=row[7],
        valid_at=from_micros(row[8]),
        invalid_at=opt_time(row[9]),
        created_at=from_micros(row[10]),
        expired_at=opt_time(row[11]),
        invalidated_by=row[12],
        attributes=_json(row[13], {}),
        episodes=tuple(json.loads(row[14])) if row[14] else (),
    )


RECORD_COLUMNS = (
    "f.uuid, f.group_id, f.source_uuid, f.target_uuid, s.name, o.name, f.relation, f.relation_key,"
    " f.fact, f.valid_at, f.invalid_at, f.stated_invalid_at, f.created_at, f.expired_at,"
    " f.invalidated_by, f.attributes, f.recorded_at, f.cause, f.cause_episode"
)


def fact_record(row: tuple, sources: Iterable[Source]) -> FactRecord:  # type: ignore[type-arg]
    return FactRecord(
        uuid=row[0],
        group_id=row[1],
        source_uuid=row[2],
        target_uuid=row[3],
        subject=row[4],
        object=row[5],
        relation=row[6],
        relation_key=row[7],
        fact=row[8],
        valid_at=from_micros(row[9]),
        invalid_at=opt_time(row[10]),
        stated_invalid_at=opt_time(row[11]),
        created_at=from_micros(row[12]),
        expired_at=opt_time(row[13]),
        invalidated_by=row[14],
        sources=tuple(sources),
        attributes=_json(row[15], {}),
        recorded_at=from_micros(row[16]),
        cause=row[17],
        cause_episode=row[18],
    )


def _json(text: str | None, empty: Any) -> Any:
    """Decode a JSON column; the common empty values skip the decoder."""
    if not text or text == "[]" or text == "{}":
        return empty
    return json.loads(text)


def entity(row: tuple) -> Entity:  # type: ignore[type-arg]
    return trusted(
        Entity,
        uuid=row[0],
        group_id=row[1],
        name=row[2],
        labels=tuple(_json(row[3], ())),
        aliases=tuple(_json(row[4], ())),
        summary=row[5],
        attributes=_json(row[6], {}),
        created_at=from_micros(row[7]),
        provenance=_json(row[8], {}),
    )


def episode(row: tuple) -> Episode:  # type: ignore[type-arg]
    return trusted(
        Episode,
        uuid=row[0],
        group_id=row[1],
        name=row[2],
        kind=EpisodeKind(row[3]),
        content=row[4],
        content_hash=row[5],
        source_description=row[6],
        reference_time=from_micros(row[7]),
        created_at=from_micros(row[8]),
        saga=row[9],
        status=row[10],
        metadata=_json(row[11], {}),
        error=row[12],
    )


def fact_change(row: tuple) -> FactChange:  # type: ignore[type-arg]
    return trusted(
        FactChange,
        fact_uuid=row[0],
        recorded_at=from_micros(row[1]),
        cause=row[2],
        episode_id=row[3],
        status=row[4],
        valid_at=from_micros(row[5]),
        invalid_at=opt_time(row[6]),
        invalidated_by=row[7],
        episodes=tuple(json.loads(row[8])),
    )


def audit_event(row: tuple) -> AuditEvent:  # type: ignore[type-arg]
    return trusted(
        AuditEvent,
        group_id=row[0],
        kind=row[1],
        recorded_at=from_micros(row[2]),
        episode_id=row[3],
        detail=json.loads(row[4]),
    )
