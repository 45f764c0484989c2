"""The reads of data subjects and of the erasure log, for every backend:
what a group holds filed under a data subject's key, and the group's erasure
receipts in order. Each names its group as a constant, so Citus routes it to
the group's shard.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...erasure import ErasureReceipt
from ...time import from_micros
from .dialect import Dialect, Query

__all__ = ["COLUMNS", "erasures", "receipt", "subject_episodes", "subject_facts"]

# receipt() reads them in this order.
COLUMNS = (
    "group_id, seq, receipt_id, entry, target, request_id, reason, actor, on_behalf_of, recorded_at, counts,"
    " verified, leftovers, previous, digest"
)


def subject_episodes(d: Dialect, group_id: str, key: str) -> Query:
    """The uuids of the group's episodes filed under ``key``."""
    return (
        f"SELECT uuid FROM episodes WHERE group_id = {d.p('g')} AND data_subject = {d.p('k')}"
        f" ORDER BY {d.bytewise('uuid')}",
        {"g": group_id, "k": key},
    )


def subject_facts(d: Dialect, group_id: str, key: str) -> Query:
    """The uuids of the group's facts filed under ``key``."""
    return (
        f"SELECT uuid FROM facts WHERE group_id = {d.p('g')} AND data_subject = {d.p('k')}"
        f" ORDER BY {d.bytewise('uuid')}",
        {"g": group_id, "k": key},
    )


def erasures(d: Dialect, group_id: str, request_id: str | None, last_only: bool = False) -> Query:
    """The group's erasure log, oldest first (only ``request_id``'s entries
    when given; only the latest entry with ``last_only``)."""
    also = f" AND request_id = {d.p('r')}" if request_id is not None else ""
    order = "seq DESC LIMIT 1" if last_only else "seq"
    return (
        f"SELECT {COLUMNS} FROM erasure_log WHERE group_id = {d.p('g')}{also} ORDER BY {order}",
        {"g": group_id, "r": request_id},
    )


def receipt(d: Dialect, row: Sequence[Any]) -> ErasureReceipt:
    """An entry from a row of :data:`COLUMNS`."""
    counts = d.json_value(row[10]) or {}
    return ErasureReceipt(
        group_id=row[0], seq=int(row[1]), receipt_id=row[2], entry=row[3], by=row[4], request_id=row[5],
        reason=row[6], actor=row[7], on_behalf_of=row[8], recorded_at=from_micros(row[9]),
        counts=dict(counts),  # type: ignore[call-overload]
        verified=None if row[11] is None else bool(row[11]), leftovers=row[12], previous=row[13], digest=row[14],
    )
