"""What the memory recorded in a window of transaction time, for every backend.

Every version of a fact is recorded once: the current one in its fact row,
each superseded one (and the marker of a deletion) in ``fact_history``, each
with the time it took over (``recorded_at``) and why (``cause``). So the
changes of a window are the versions recorded in it, wherever they are now,
each read with the version it superseded (the fact's history row before it),
plus the entity merges and splits of the audit log. The SQL is written once
here; a backend supplies its fact columns, its parameter markers and its byte
order of text, and runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..model import Fact
from ..time import to_micros
from . import rows
from .rows import _json

__all__ = ["ENTITY_EVENTS", "ChangeKey", "ChangeWindow", "Prior", "StoredChange", "changes_sql", "stored_change"]

# The audit events that are changes of the graph's entities (maintain.merging's names).
ENTITY_EVENTS = ("entities_merged", "entities_split")

# Where a change stands in the feed: (recorded_at in microseconds, 0 for an entity
# event and 1 for a fact version, the fact's uuid or "", 1 for a current row
# and 0 otherwise, the row's sequence number or 0). Unique, and the order.
ChangeKey = tuple[int, int, str, int, int]


@dataclass(frozen=True, slots=True)
class ChangeWindow:
    """Versions recorded at or after ``since``, before ``until`` (None: no
    end), past ``after`` (a key: paging), at most ``limit`` of them."""

    since: datetime
    until: datetime | None
    after: ChangeKey | None
    limit: int


@dataclass(frozen=True, slots=True)
class Prior:
    """The version a fact version superseded: what it was before the change."""

    status: str
    subject: str
    subject_uuid: str
    object: str
    object_uuid: str
    valid_at: datetime
    invalid_at: datetime | None
    expired_at: datetime | None
    episodes: tuple[str, ...]
    tier: str | None = None


@dataclass(frozen=True, slots=True)
class StoredChange:
    """One recorded version of a fact (``fact`` its state, ``status`` live,
    expired or deleted, ``prior`` the version it superseded, None for a
    fact's first) or one entity event (``fact`` None, ``cause`` the event's
    kind, ``detail`` its record)."""

    key: ChangeKey
    recorded_at: datetime
    cause: str
    episode_id: str | None
    status: str | None
    fact: Fact | None
    prior: Prior | None
    detail: dict[str, Any] | None


_PRIOR = (
    "p.status, p.subject, p.source_uuid, p.object, p.target_uuid, p.valid_at, p.invalid_at, p.expired_at,"
    " p.episodes, p.tier"
)
_NO_FACT = ", ".join(["NULL"] * 29)  # the 19 fact columns and the 10 of the prior version
# The history row just before a version: of the same fact, the last one written before it.
_PRIOR_OF = (
    " LEFT JOIN fact_history p ON p.group_id = {g} AND p.seq = (SELECT MAX(p2.seq) FROM fact_history p2"
    " WHERE p2.group_id = {g} AND p2.fact_uuid = {uuid}{before})"
)


def changes_sql(
    group_id: str, window: ChangeWindow, *, fact_columns: str, history_columns: str,
    mark: Callable[[str], str], collate: str = "",
) -> tuple[str, dict[str, Any]]:
    """The query of ``window`` in the group and its parameters, for one
    backend: its public fact columns (over ``f`` with its endpoint entities
    ``s`` and ``o``, and over a history row ``h``), its parameter marker for
    a name, and the collation that orders text byte by byte.

    Each source (entity events, history rows, fact rows) picks its first
    ``limit`` keys in the window by an index in key order, and only those
    are read whole: a page costs its own size, wherever it starts. The entity
    events come first in the union: its columns are named there, and typed by
    the branches after (PostgreSQL types a NULL so)."""
    m = {name: mark(name) for name in ("g", "since", "until", "at", "rank", "key", "cur", "seq")}
    params: dict[str, Any] = {"g": group_id, "since": to_micros(window.since)}
    where = f"group_id = {m['g']} AND recorded_at >= {m['since']}"
    if window.until is not None:
        params["until"] = to_micros(window.until)
        where += f" AND recorded_at < {m['until']}"
    if window.after is not None:
        params.update(zip(("at", "rank", "key", "cur", "seq"), window.after, strict=True))
        where += (f" AND recorded_at >= {m['at']} AND (recorded_at, {{rank}}, {{key}}{collate}, {{cur}}, {{seq}})"
                  f" > ({m['at']}, {m['rank']}, CAST({m['key']} AS TEXT){collate}, {m['cur']}, {m['seq']})")
    limit = f" LIMIT {int(window.limit)}"
    kinds = ", ".join(repr(k) for k in ENTITY_EVENTS)
    entity_events = (
        "SELECT a.recorded_at AS at, 0 AS rank, CAST('' AS TEXT) AS fact_key, 0 AS cur, a.seq AS seq,"
        f" a.kind AS cause, a.episode_id AS episode_id, NULL AS status, a.detail AS detail, {_NO_FACT}"
        f" FROM (SELECT seq FROM audit_events WHERE kind IN ({kinds}) AND "
        + where.format(rank=0, key="CAST('' AS TEXT)", cur=0, seq="seq")
        + f" ORDER BY recorded_at, seq{limit}) w"
        f" JOIN audit_events a ON a.group_id = {m['g']} AND a.seq = w.seq"
    )
    history = (
        f"SELECT h.recorded_at, 1, h.fact_uuid, 0, h.seq, h.cause, h.episode_id, h.status, NULL,"
        f" {history_columns}, {_PRIOR}"
        " FROM (SELECT seq FROM fact_history WHERE "
        + where.format(rank=1, key="fact_uuid", cur=0, seq="seq")
        + f" ORDER BY recorded_at, fact_uuid{collate}, seq{limit}) w"
        f" JOIN fact_history h ON h.group_id = {m['g']} AND h.seq = w.seq"
        + _PRIOR_OF.format(g=m["g"], uuid="h.fact_uuid", before=" AND p2.seq < h.seq")
    )
    current = (
        "SELECT f.recorded_at, 1, f.uuid, 1, 0, f.cause, f.cause_episode,"
        " CASE WHEN f.expired_at IS NULL THEN 'live' ELSE 'expired' END, NULL,"
        f" {fact_columns}, {_PRIOR}"
        " FROM (SELECT uuid FROM facts WHERE "
        + where.format(rank=1, key="uuid", cur=1, seq=0)
        + f" ORDER BY recorded_at, uuid{collate}{limit}) w"
        f" JOIN facts f ON f.group_id = {m['g']} AND f.uuid = w.uuid"
        " JOIN entities s ON s.group_id = f.group_id AND s.uuid = f.source_uuid"
        " JOIN entities o ON o.group_id = f.group_id AND o.uuid = f.target_uuid"
        + _PRIOR_OF.format(g=m["g"], uuid="f.uuid", before="")
    )
    sql = (
        f"SELECT * FROM ({entity_events} UNION ALL {history} UNION ALL {current}) u"
        f" ORDER BY u.at, u.rank, u.fact_key{collate}, u.cur, u.seq{limit}"
    )
    return sql, params


def stored_change(row: tuple[Any, ...]) -> StoredChange:  # type: ignore[type-arg]
    """A row of :func:`changes_sql` as a :class:`StoredChange`."""
    key: ChangeKey = (int(row[0]), int(row[1]), row[2], int(row[3]), int(row[4]))
    fact = rows.fact(row[9:28]) if row[9] is not None else None
    p = row[28:]  # the prior version's columns
    prior = None
    if p[0] is not None:
        prior = Prior(
            status=p[0], subject=p[1], subject_uuid=p[2], object=p[3], object_uuid=p[4],
            valid_at=rows.opt_time(p[5]), invalid_at=rows.opt_time(p[6]), expired_at=rows.opt_time(p[7]),
            episodes=tuple(_json(p[8], ())), tier=p[9],
        )
    detail = _json(row[8], {}) if row[1] == 0 else None
    return StoredChange(
        key=key, recorded_at=rows.opt_time(row[0]), cause=row[5], episode_id=row[6], status=row[7], fact=fact,
        prior=prior, detail=detail,
    )
