"""The reads sagas make: a saga's summary row, its episodes in cursor order
(``(created_at, uuid)``, uuids byte by byte) and every saga's lag.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from ...time import from_micros, to_micros
from ..records import SagaCount, SagaState
from ..rows import opt_time
from .dialect import Dialect, Query

__all__ = ["Key", "bound", "lags", "saga_bound", "saga_episodes", "saga_lags", "saga_state", "state"]

Key = tuple[datetime, str]


def saga_state(d: Dialect, group_id: str, saga: str) -> Query:
    """A saga's summary row; rows for :func:`state`."""
    return (
        "SELECT saga, summary, version, cursor_at, cursor_uuid, covered_from, covered_to, episodes, without_text,"
        f" method, state, built_at, stale FROM saga_summaries WHERE group_id = {d.p('g')} AND saga = {d.p('s')}",
        {"g": group_id, "s": saga},
    )


def state(d: Dialect, row: Sequence[Any]) -> SagaState:
    return SagaState(
        saga=row[0], summary=row[1], version=int(row[2]), cursor_at=opt_time(row[3]), cursor_uuid=row[4],
        covered_from=opt_time(row[5]), covered_to=opt_time(row[6]), episodes=int(row[7]),
        without_text=int(row[8]), method=row[9], state=d.json_value(row[10]),
        built_at=opt_time(row[11]), stale=int(row[12]),
    )


def saga_bound(d: Dialect, group_id: str, saga: str) -> Query:
    """The key of the saga's last episode; a row for :func:`bound`."""
    return (
        f"SELECT created_at, uuid FROM episodes WHERE group_id = {d.p('g')} AND saga = {d.p('s')}"
        f" ORDER BY created_at DESC, {d.bytewise('uuid')} DESC LIMIT 1",
        {"g": group_id, "s": saga},
    )


def bound(row: Sequence[Any]) -> Key:
    return from_micros(row[0]), row[1]


@cache
def _episodes_sql(d: Dialect, after: bool) -> str:
    key = f"(p.created_at, {d.bytewise('p.uuid')})"

    def at(prefix: str) -> str:
        return f"({d.typed(d.p(prefix + '_at'), 'bigint')}, {d.typed(d.p(prefix + '_uuid'), 'text')})"

    sql = f"SELECT {d.columns.episode} FROM episodes p WHERE p.group_id = {d.p('g')} AND p.saga = {d.p('s')}"
    if after:
        sql += f" AND {key} > {at('after')}"
    return sql + f" AND {key} <= {at('upto')} ORDER BY p.created_at, {d.bytewise('p.uuid')} LIMIT {d.p('n')}"


def saga_episodes(d: Dialect, group_id: str, saga: str, after: Key | None, upto: Key, limit: int) -> Query:
    """The saga's episodes past ``after`` up to ``upto``, in cursor order."""
    params: dict[str, object] = {
        "g": group_id, "s": saga, "upto_at": to_micros(upto[0]), "upto_uuid": upto[1], "n": limit,
    }
    if after is not None:
        params.update(after_at=to_micros(after[0]), after_uuid=after[1])
    return _episodes_sql(d, after is not None), params


def saga_lags(d: Dialect, group_id: str) -> Query:
    """Rows for :func:`lags`: each saga's episodes, those past its cursor, and its summary's state."""
    g = d.p("g")
    return (
        "SELECT p.saga, COUNT(*), SUM(CASE WHEN s.cursor_at IS NULL OR p.created_at > s.cursor_at"
        f" OR (p.created_at = s.cursor_at AND {d.bytewise('p.uuid')} > s.cursor_uuid) THEN 1 ELSE 0 END),"
        " MAX(s.version), MAX(s.stale), MAX(s.built_at)"
        " FROM episodes p LEFT JOIN saga_summaries s ON s.group_id = p.group_id AND s.saga = p.saga"
        f" WHERE p.group_id = {g} AND p.saga IS NOT NULL GROUP BY p.saga"
        " UNION ALL SELECT s.saga, 0, 0, s.version, s.stale, s.built_at FROM saga_summaries s"
        f" WHERE s.group_id = {g} AND NOT EXISTS"
        " (SELECT 1 FROM episodes p WHERE p.group_id = s.group_id AND p.saga = s.saga)",
        {"g": group_id},
    )


def lags(found: Sequence[Sequence[Any]]) -> list[SagaCount]:
    """Saga counts from :func:`saga_lags` rows, by saga."""
    counts = [
        SagaCount(saga, int(n), int(lag), int(v or 0), int(st or 0), opt_time(at))
        for saga, n, lag, v, st, at in found
    ]
    return sorted(counts, key=lambda c: c.saga)
