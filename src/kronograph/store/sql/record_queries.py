"""The reads resolution makes of facts: whole records (with their sources)
of the facts a statement may touch, conflict links and what refers to an
entity. Every query is scoped by the group.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from functools import cache, lru_cache

from ...time import to_micros
from .dialect import Dialect, Query

__all__ = ["citing", "conflict_links", "entity_references", "fact_candidates", "listed", "records"]


@lru_cache(maxsize=64)
def records(d: Dialect, wanted: str) -> str:
    """Fact records of the uuids the SQL ``wanted`` selects (named parameters,
    the group as ``g``), in ``d.columns.record`` then ``record_sources``: the
    facts joined to those few uuids (first, where the engine needs telling)
    rather than the group scanned."""
    return (
        f"WITH wanted(uuid) AS ({wanted}) SELECT {d.columns.record}{d.columns.record_sources} FROM wanted w"
        f" {d.lead_join} facts f ON {d.of_group('f')}f.uuid = w.uuid{d.endpoints()}"
        + "".join(f" WHERE {w}" for w in d.group_where("f"))
    )


def listed(d: Dialect, group_id: str, uuids: Collection[str]) -> Query:
    """The records of these facts."""
    return records(d, d.listed("uuids")), {"g": group_id, "uuids": d.bind_list(uuids)}


def citing(d: Dialect, group_id: str, episode_id: str) -> Query:
    """The records of the facts the episode is a source of."""
    wanted = f"SELECT fact_uuid FROM fact_sources WHERE group_id = {d.p('g')} AND episode_id = {d.p('e')}"
    return records(d, wanted), {"g": group_id, "e": episode_id}


def fact_candidates(
    d: Dialect,
    group_id: str,
    subject_uuid: str,
    object_uuid: str,
    relation_key: str,
    sides: Collection[str],
    either_end: bool,
    whole_pair: bool,
    around: datetime,
    limit: int,
) -> Query:
    """The records of the facts a new statement may restate or contradict."""
    params: dict[str, object] = {
        "g": group_id, "s": subject_uuid, "o": object_uuid, "r": relation_key, "t": to_micros(around), "n": limit,
    }
    return _candidates_sql(d, tuple(sides), either_end, whole_pair), params


@lru_cache(maxsize=64)
def _candidates_sql(d: Dialect, sides: tuple[str, ...], either_end: bool, whole_pair: bool) -> str:
    p = d.p
    # The pair, by the pair index: neither entity's other facts are walked.
    # Without ``whole_pair``, only restatements can matter: the same direction
    # and relation.
    pair = f"SELECT uuid FROM facts{d.indexed('facts_by_pair')} WHERE group_id = {p('g')} AND source_uuid = {{0}}" \
        " AND target_uuid = {1}"
    if whole_pair:
        parts = [pair.format(p("s"), p("o")), pair.format(p("o"), p("s"))]
    else:
        parts = [pair.format(p("s"), p("o")) + f" AND relation_key = {p('r')}"]
    for side in sides:
        entity = p("s") if side == "subject" else p("o")
        own = "source_uuid" if side == "subject" else "target_uuid"
        for column in ("source_uuid", "target_uuid") if either_end else (own,):
            # The nearest facts in valid time on each side of the new one, so a
            # late arrival still sees its true predecessor and successor.
            for order in (f"valid_at <= {p('t')} ORDER BY valid_at DESC", f"valid_at > {p('t')} ORDER BY valid_at ASC"):
                parts.append(d.limited(
                    f"SELECT uuid FROM facts WHERE group_id = {p('g')} AND {column} = {entity}"
                    f" AND relation_key = {p('r')} AND {order} LIMIT {p('n')}"
                ))
    return records(d, " UNION ".join(parts))


@cache
def _links_sql(d: Dialect) -> str:
    g = d.p("g")
    return (
        f"SELECT a, b FROM fact_conflicts WHERE group_id = {g} AND {d.in_list('a', 'f')}"
        f" UNION SELECT b, a FROM fact_conflicts WHERE group_id = {g} AND {d.in_list('b', 'f')}"
    )


def conflict_links(d: Dialect, group_id: str, uuids: Collection[str]) -> Query:
    """Rows (one of these facts, a fact it conflicts with)."""
    return _links_sql(d), {"g": group_id, "f": d.bind_list(uuids)}


@cache
def _references_sql(d: Dialect) -> str:
    g = d.p("g")
    return (
        f"SELECT 0, source_uuid, uuid FROM facts WHERE group_id = {g} AND {d.in_list('source_uuid', 'u')}"
        f" UNION ALL SELECT 0, target_uuid, uuid FROM facts WHERE group_id = {g} AND {d.in_list('target_uuid', 'u')}"
        f" UNION ALL SELECT 1, entity_uuid, episode_id FROM mentions WHERE group_id = {g}"
        f" AND {d.in_list('entity_uuid', 'u')}"
    )


def entity_references(d: Dialect, group_id: str, entity_uuids: Collection[str]) -> Query:
    """Rows (0, entity, fact at either end) and (1, entity, episode mentioning it)."""
    return _references_sql(d), {"g": group_id, "u": d.bind_list(entity_uuids)}
