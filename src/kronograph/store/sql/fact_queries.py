"""The queries that list facts: by name, relation and time (``facts``), as
believed at a past moment, an entity's timeline and a fact's history.

Every query is scoped by the group; the SQL of each query shape is built once
per dialect and kept.
"""

from __future__ import annotations

from functools import cache, lru_cache

from ...time import to_micros
from ..change_rows import ChangeWindow, changes_sql
from ..protocol import FactQuery
from .dialect import Dialect, Query

__all__ = ["by_name", "changes", "facts", "from_facts", "history", "timeline"]


def by_name(d: Dialect, param: str) -> str:
    """The entities of the name in ``param``: those so named, or, when none
    is, those it is an alias of (a merged entity's name finds the entity it
    was merged into)."""
    g, n = d.p("g"), d.p(param)
    return (
        f"(SELECT uuid FROM entities WHERE group_id = {g} AND name_key = {n}"
        f" UNION SELECT entity_uuid FROM entity_aliases WHERE group_id = {g} AND alias_key = {n}"
        f" AND NOT EXISTS (SELECT 1 FROM entities WHERE group_id = {g} AND name_key = {n}))"
    )


@cache
def from_facts(d: Dialect) -> str:
    """Facts ``f`` with their endpoint entities ``s`` and ``o``."""
    return f" FROM facts f{d.endpoints()}"


@cache
def _from_touching(d: Dialect) -> str:
    """Facts touching an entity of the name ``entity`` at either end: a union
    of two index lookups the facts are then joined to (first, where the
    engine needs telling), so the group's other facts are never walked."""
    g, named = d.p("g"), by_name(d, "entity")
    return (
        f" FROM (SELECT uuid FROM facts WHERE group_id = {g} AND source_uuid IN {named}"
        f" UNION SELECT uuid FROM facts WHERE group_id = {g} AND target_uuid IN {named}) t"
        f" {d.lead_join} facts f ON {d.of_group('f')}f.uuid = t.uuid{d.endpoints()}"
    )


def _order(d: Dialect, table: str) -> str:
    return f"{table}.valid_at, {table}.created_at, {d.bytewise(table + '.uuid')}"


def facts(d: Dialect, group_id: str, q: FactQuery) -> Query:
    """The facts ``q`` asks for (the current versions; see ``believed_facts``
    for ``q.known_at``), in valid-time order, in ``d.columns.fact_list``."""
    params: dict[str, object] = {
        "g": group_id,
        "subject": q.subject_key,
        "object": q.object_key,
        "entity": q.entity_key,
        "relation": q.relation_key,
        "t": to_micros(q.as_of),
    }
    if q.uuids is not None:
        params["uuids"] = d.bind_list(q.uuids)
    _span_params(q, params)
    for i, (key, value) in enumerate(q.qualifiers):
        params[f"qk{i}"], params[f"qv{i}"] = d.field_path(key), value
    if q.known_at is not None:
        params["k"] = to_micros(q.known_at)
        sql = _believed_sql(d, _shape(q))
    else:
        sql = _facts_sql(d, _shape(q))
    if q.limit is not None:
        sql += f" LIMIT {int(q.limit)}"
    return sql, params


_Shape = tuple[bool, bool, bool, bool, bool, bool, bool, "bool | None", bool, bool, int]


def _shape(q: FactQuery) -> _Shape:
    """What of ``q`` decides its SQL (not the values bound)."""
    return (
        q.uuids is not None, q.subject_key is not None, q.object_key is not None, q.entity_key is not None,
        q.relation_key is not None, q.include_expired, q.include_retired,
        None if q.event is None else bool(q.event), q.since is not None, q.until is not None,
        len(q.qualifiers),
    )


def _span_params(q: FactQuery, params: dict[str, object]) -> None:
    if q.since is not None:
        params["since"] = to_micros(q.since)
    if q.until is not None:
        params["until"] = to_micros(q.until)


def _kind_and_span(d: Dialect, shape: _Shape, table: str) -> list[str]:
    """The conditions of the query's event, since, until and qualifiers on
    ``table`` (``f``: facts, ``h``: history)."""
    event, since, until, qualified = shape[7:]
    out = [f"{d.text_field(f'{table}.qualifiers', f'qk{i}')} = {d.p(f'qv{i}')}" for i in range(qualified)]
    if event is not None:
        out.append(d.is_(f"{table}.event", event))
    if since:
        out.append(f"{table}.valid_at >= {d.p('since')}")
    if until:
        out.append(f"{table}.valid_at < {d.p('until')}")
    return out


@lru_cache(maxsize=512)
def _facts_sql(d: Dialect, shape: _Shape) -> str:
    uuids, subject, obj, entity, relation, include_expired, include_retired = shape[:7]
    t = d.p("t")
    where = [d.by_uuid_group("f") if uuids else f"f.group_id = {d.p('g')}"]
    if uuids:
        where.append(d.in_list("f.uuid", "uuids"))
    if subject:
        where.append("f.source_uuid IN " + by_name(d, "subject"))
    if obj:
        where.append("f.target_uuid IN " + by_name(d, "object"))
    source = from_facts(d) if not entity else _from_touching(d)
    if relation:
        where.append(f"f.relation_key = {d.p('relation')}")
    if not include_expired:
        where.append("f.expired_at IS NULL")
    if not include_retired:
        where.append(f"f.valid_at <= {t} AND (f.invalid_at IS NULL OR f.invalid_at > {t})")
    where += _kind_and_span(d, shape, "f")
    return f"SELECT {d.columns.fact_list}{source} WHERE {' AND '.join(where)} ORDER BY {_order(d, 'f')}"


_NAME_KEY = {"subject": "s.name_key", "object": "o.name_key"}


@lru_cache(maxsize=512)
def _believed_sql(d: Dialect, shape: _Shape) -> str:
    """What the store believed at ``known_at``: each fact's version recorded by
    then. That is the current version (the fact row) when it was recorded by
    then, else the latest superseded version in the history. The facts to look
    at are found by name through the graph and the record of retracted facts."""
    _, subject, obj, entity, relation, include_expired, include_retired = shape[:7]
    p = d.p
    k, t = p("k"), p("t")
    current = [*d.group_where("f"), f"f.recorded_at <= {k}"]
    past = [
        *d.group_where("h"),
        f"NOT EXISTS (SELECT 1 FROM facts f2 WHERE {d.of_group('f2')}f2.uuid = w.uuid AND f2.recorded_at <= {k})",
        f"h.seq = (SELECT MAX(h2.seq) FROM fact_history h2"
        f" WHERE {d.of_group('h2')}h2.fact_uuid = w.uuid AND h2.recorded_at <= {k})",
        "h.status IN ('live', 'expired')" if include_expired else "h.status = 'live'",
    ]
    for key, param, asked in (("subject_key", "subject", subject), ("object_key", "object", obj)):
        if asked:
            current.append(f"{_NAME_KEY[param]} = {p(param)}")
            past.append(f"h.{key} = {p(param)}")
    if entity:
        current.append(f"(s.name_key = {p('entity')} OR o.name_key = {p('entity')})")
        past.append(f"(h.subject_key = {p('entity')} OR h.object_key = {p('entity')})")
    if relation:
        current.append(f"f.relation_key = {p('relation')}")
        past.append(f"h.relation_key = {p('relation')}")
    if not include_expired:
        current.append("f.expired_at IS NULL")
    if not include_retired:
        current.append(f"f.valid_at <= {t} AND (f.invalid_at IS NULL OR f.invalid_at > {t})")
        past.append(f"h.valid_at <= {t} AND (h.invalid_at IS NULL OR h.invalid_at > {t})")
    current += _kind_and_span(d, shape, "f")
    past += _kind_and_span(d, shape, "h")
    union = (
        f"SELECT {d.columns.fact} FROM wanted w"
        f" {d.lead_join} facts f ON {d.of_group('f')}f.uuid = w.uuid{d.endpoints()}"
        f" WHERE {' AND '.join(current)}"
        f" UNION ALL SELECT {d.columns.history_fact} FROM wanted w"
        f" {d.lead_join} fact_history h ON {d.of_group('h')}h.fact_uuid = w.uuid WHERE {' AND '.join(past)}"
    )
    return f"WITH wanted(uuid) AS ({_believed_candidates(d, shape)}) " + d.union_ordered(
        union, ((9, "valid_at"), (11, "created_at"), (1, "uuid"))
    )


def _believed_candidates(d: Dialect, shape: _Shape) -> str:
    """SQL selecting the uuids of every fact that may match at any time."""
    uuids, subject, obj, entity, relation = shape[:5]
    if uuids:
        return d.listed("uuids")
    g = d.p("g")
    parts: list[str] = []
    ends = []
    if subject:
        ends.append(("source_uuid", "subject_key", "subject"))
    elif obj:
        ends.append(("target_uuid", "object_key", "object"))
    elif entity:
        ends += [("source_uuid", "subject_key", "entity"), ("target_uuid", "object_key", "entity")]
    for column, key, param in ends:
        parts.append(f"SELECT uuid FROM facts WHERE group_id = {g} AND {column} IN {by_name(d, param)}")
        parts.append(f"SELECT fact_uuid FROM retracted_facts WHERE group_id = {g} AND {key} = {d.p(param)}")
    if parts:
        return " UNION ".join(parts)
    also = f" AND relation_key = {d.p('relation')}" if relation else ""
    return (
        f"SELECT uuid FROM facts WHERE group_id = {g}{also}"
        f" UNION SELECT fact_uuid FROM fact_history WHERE group_id = {g}{also}"
    )


@cache
def _timeline_sql(d: Dialect, relation: bool) -> str:
    where = [*d.group_where("f"), "f.expired_at IS NULL"]
    if relation:
        where.append(f"f.relation_key = {d.p('relation')}")
    return f"SELECT {d.columns.fact}{_from_touching(d)} WHERE {' AND '.join(where)} ORDER BY {_order(d, 'f')}"


def timeline(d: Dialect, group_id: str, entity_key: str, relation_key: str | None) -> Query:
    """The unexpired facts touching the entity of that name, in valid-time order."""
    return _timeline_sql(d, relation_key is not None), {"g": group_id, "entity": entity_key, "relation": relation_key}


@cache
def _history_sql(d: Dialect) -> str:
    g, u = d.p("g"), d.p("u")
    return (
        "SELECT fact_uuid, recorded_at, cause, episode_id, status, valid_at, invalid_at, invalidated_by, episodes,"
        f" 0, seq, tier FROM fact_history WHERE group_id = {g} AND fact_uuid = {u}"
        " UNION ALL SELECT f.uuid, f.recorded_at, f.cause, f.cause_episode,"
        " CASE WHEN f.expired_at IS NULL THEN 'live' ELSE 'expired' END, f.valid_at, f.invalid_at,"
        f" f.invalidated_by, {d.columns.fact_episodes}"
        f", 1, 0, f.tier FROM facts f WHERE f.group_id = {g} AND f.uuid = {u}"
        " ORDER BY 10, 11"  # superseded versions in the order written, then the current one
    )


def history(d: Dialect, group_id: str, fact_uuid: str) -> Query:
    """A fact's superseded versions and deletion markers, then its current version."""
    return _history_sql(d), {"g": group_id, "u": fact_uuid}


def changes(d: Dialect, group_id: str, window: ChangeWindow) -> Query:
    """The versions and entity events recorded in the window (see ``change_rows``)."""
    return changes_sql(
        group_id, window, fact_columns=d.columns.fact, history_columns=d.columns.history_fact,
        mark=d.p, collate=d.bytewise(""),
    )
