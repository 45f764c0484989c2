"""Conversions from database rows to kronograph objects, for every backend.

Times are microseconds since the epoch (UTC) on every backend; JSON columns
arrive as text (SQLite) or already decoded (PostgreSQL's jsonb).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..model import AuditEvent, Entity, Episode, EpisodeKind, Fact, FactChange, trusted
from ..qualifiers import decode as decode_qualifiers
from ..time import from_micros
from .records import ContradictionRecord, FactRecord, Source

__all__ = [
    "audit_event",
    "contradiction",
    "entity",
    "episode",
    "fact",
    "fact_change",
    "fact_record",
    "opt_time",
]


def opt_time(value: int | None):  # type: ignore[no-untyped-def]
    return None if value is None else from_micros(value)


def fact(row: tuple) -> Fact:  # type: ignore[type-arg]
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
        episodes=tuple(_json(row[14], ())),
        event=bool(row[15]),
        tier=row[16],
        conflicting=(),
        qualifiers=decode_qualifiers(row[17]),
        data_subject=row[18] if len(row) > 18 else None,
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
        event=bool(row[19]),
        tier=row[20],
        qualifiers=decode_qualifiers(row[21]),
        data_subject=row[22] if len(row) > 22 else None,
    )


def _json(value: Any, empty: Any) -> Any:
    """Decode a JSON column (text, or a value a driver decoded already); the
    common empty values skip the decoder."""
    if not value or value == "[]" or value == "{}":
        return empty
    return json.loads(value) if isinstance(value, str) else value


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
        summary_stale=bool(row[9]),
        summary_built_at=opt_time(row[10]),
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
        actor=row[13],
        on_behalf_of=row[14],
        held_by=row[15],
        held_until=opt_time(row[16]),
        notes=list(_json(row[17], {}).get("notes") or ()),
        speaker=row[18],
        role=row[19],
        data_subject=row[20] if len(row) > 20 else None,
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
        episodes=tuple(_json(row[8], ())),
        tier=row[11] if len(row) > 11 else None,
    )


def audit_event(row: tuple) -> AuditEvent:  # type: ignore[type-arg]
    return trusted(
        AuditEvent,
        group_id=row[0],
        kind=row[1],
        recorded_at=from_micros(row[2]),
        episode_id=row[3],
        detail=_json(row[4], {}),
        actor=row[5],
        on_behalf_of=row[6],
    )


def contradiction(row: tuple) -> ContradictionRecord:  # type: ignore[type-arg]
    """A row of ``sql.contradiction_queries.COLUMNS``."""
    return ContradictionRecord(
        group_id=row[0],
        fact_uuid=row[1],
        target_uuid=row[2],
        kind=row[3],
        reason=row[4],
        target_authority=float(row[5]),
        actor_weight=float(row[6]),
        score=float(row[7]),
        similarity=None if row[8] is None else float(row[8]),
        note=row[9],
        actor=row[10],
        episode_id=row[11],
        created_at=from_micros(row[12]),
        dismissed_at=opt_time(row[13]),
    )
