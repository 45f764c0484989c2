"""The search reads every backend writes alike: an entity's neighbours, the
entities known by a moment, and the counts of the mention reranker. Every
query is scoped by the group and every join stays within it. (Full text,
vectors and the graph walk are each engine's own: ``..sqlite.search_reads``,
``..postgres.search_reads``.)
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import datetime
from functools import cache

from ...time import to_micros
from .dialect import Dialect, Query

__all__ = ["entities_known_by", "mention_counts", "neighbour_sets", "neighbours", "valid_at"]


def valid_at(d: Dialect, at: datetime | None, params: dict[str, object], table: str = "") -> str:
    """The condition "valid at ``at``" (nothing without one); its time goes in ``params``."""
    if at is None:
        return ""
    params["t"] = to_micros(at)
    f, t = f"{table}." if table else "", d.p("t")
    return f" AND {f}valid_at <= {t} AND ({f}invalid_at IS NULL OR {f}invalid_at > {t})"


def neighbours(d: Dialect, group_id: str, entity_uuids: Iterable[str], at: datetime | None) -> Query:
    """Rows (source, target) of the unexpired facts (valid at ``at``, when
    given) touching these entities."""
    params: dict[str, object] = {"g": group_id, "ids": d.bind_list(entity_uuids)}
    when, g = valid_at(d, at, params), d.p("g")
    return (
        f"SELECT source_uuid, target_uuid FROM facts WHERE group_id = {g} AND {d.in_list('source_uuid', 'ids')}"
        f" AND expired_at IS NULL{when} UNION SELECT source_uuid, target_uuid FROM facts"
        f" WHERE group_id = {g} AND {d.in_list('target_uuid', 'ids')} AND expired_at IS NULL{when}",
        params,
    )


def neighbour_sets(keys: Iterable[str], found: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    """Each of ``keys``' neighbours, from :func:`neighbours` rows."""
    out: dict[str, set[str]] = {u: set() for u in keys}
    for source, target in found:
        if source in out:
            out[source].add(target)
        if target in out:
            out[target].add(source)
    return out


@cache
def _known_sql(d: Dialect) -> str:
    g, t = d.p("g"), d.p("t")
    return (
        "SELECT m.entity_uuid FROM mentions m JOIN episodes p ON p.group_id = m.group_id AND p.uuid = m.episode_id"
        f" WHERE m.group_id = {g} AND {d.in_list('m.entity_uuid', 'ids')} AND p.reference_time <= {t}"
        f" UNION SELECT source_uuid FROM facts WHERE group_id = {g} AND {d.in_list('source_uuid', 'ids')}"
        f" AND valid_at <= {t} UNION SELECT target_uuid FROM facts WHERE group_id = {g}"
        f" AND {d.in_list('target_uuid', 'ids')} AND valid_at <= {t}"
    )


def entities_known_by(d: Dialect, group_id: str, uuids: Iterable[str], at: datetime) -> Query:
    """Rows (entity) of these entities some fact valid by ``at`` touches, or
    some episode referenced by ``at`` mentions."""
    return _known_sql(d), {"g": group_id, "ids": d.bind_list(uuids), "t": to_micros(at)}


@cache
def _counts_sql(d: Dialect, scope: str) -> str:
    g, ids = d.p("g"), "ids"
    if scope == "entities":
        sources = f"JOIN fact_sources s ON {d.on('s', 'f', 's.fact_uuid = f.uuid')}"
        return (
            "SELECT entity_uuid, COUNT(DISTINCT episode_id) FROM ("
            f" SELECT entity_uuid, episode_id FROM mentions WHERE group_id = {g} AND {d.in_list('entity_uuid', ids)}"
            f" UNION SELECT f.source_uuid, s.episode_id FROM facts f {sources}"
            f" WHERE f.group_id = {g} AND {d.in_list('f.source_uuid', ids)}"
            f" UNION SELECT f.target_uuid, s.episode_id FROM facts f {sources}"
            f" WHERE f.group_id = {g} AND {d.in_list('f.target_uuid', ids)}"
            ") counted GROUP BY entity_uuid"
        )
    column, table = ("fact_uuid", "fact_sources") if scope == "facts" else ("episode_id", "mentions")
    return f"SELECT {column}, COUNT(*) FROM {table} WHERE group_id = {g} AND {d.in_list(column, ids)} GROUP BY {column}"


def mention_counts(d: Dialect, scope: str, group_id: str, uuids: Collection[str]) -> Query:
    """Rows (item, count): an entity by the episodes that mention it or state
    a fact about it, a fact by its source episodes, an episode by the
    entities it mentions."""
    return _counts_sql(d, scope), {"g": group_id, "ids": d.bind_list(uuids)}
