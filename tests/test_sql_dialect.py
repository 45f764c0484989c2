"""The read queries written once (``kronograph.store.sql``): each dialect's SQL
speaks only that dialect, and the SQL of a query shape is built once.

What the queries answer is checked on every backend by the store, scenario
and property tests; these only guard the seam a third dialect would use."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kronograph.store.change_rows import ChangeWindow
from kronograph.store.postgres.columns import DIALECT as POSTGRES
from kronograph.store.protocol import FactQuery
from kronograph.store.sql import (
    entity_queries,
    episode_queries,
    fact_queries,
    graph_queries,
    record_queries,
    saga_queries,
    upkeep_queries,
)
from kronograph.store.sql.dialect import Dialect
from kronograph.store.sql.plan_sql import statements
from kronograph.store.sqlite.rows import DIALECT as SQLITE

NOW = datetime(2024, 5, 1, tzinfo=UTC)
QUERIES = [
    FactQuery(as_of=NOW),
    FactQuery(as_of=NOW, subject_key="a", object_key="b", relation_key="r", event=True, since=NOW, until=NOW),
    FactQuery(as_of=NOW, entity_key="a", include_expired=True, include_retired=True, limit=3),
    FactQuery(as_of=NOW, uuids=("x", "y"), known_at=NOW),
    FactQuery(as_of=NOW, entity_key="a", known_at=NOW, event=False),
]


def _all_sql(d: Dialect) -> list[str]:
    out = [fact_queries.facts(d, "g", q)[0] for q in QUERIES]
    out += [
        fact_queries.timeline(d, "g", "a", "r")[0],
        fact_queries.history(d, "g", "f")[0],
        fact_queries.changes(d, "g", ChangeWindow(since=NOW, until=None, after=None, limit=10))[0],
        record_queries.fact_candidates(d, "g", "s", "o", "r", ("subject", "object"), True, True, NOW, 3)[0],
        record_queries.listed(d, "g", ["x"])[0],
        record_queries.citing(d, "g", "e")[0],
        record_queries.conflict_links(d, "g", ["x"])[0],
        record_queries.entity_references(d, "g", ["x"])[0],
        entity_queries.entities(d, "g", "a", "Person")[0],
        entity_queries.entities_named(d, "g", ["a"])[0],
        entity_queries.summary_states(d, "g", ["x"], True, "x", 5)[0],
        entity_queries.mentions_among(d, "g", ["x"], ["e"])[0],
        episode_queries.context_episodes(d, "g", before=NOW, exclude="e", limit=3, saga="s", ids=None)[0],
        episode_queries.context_episodes(d, "g", before=NOW, exclude="e", limit=3, saga=None, ids=["e"])[0],
        episode_queries.unfinished_episodes(d, ["pending"])[0],
        episode_queries.fact_sources(d, "g", "f")[0],
        saga_queries.saga_episodes(d, "g", "s", (NOW, "u"), (NOW, "v"), 5)[0],
        saga_queries.saga_lags(d, "g")[0],
        upkeep_queries.communities(d, "g", ["c"])[0],
        *(query[0] for query in upkeep_queries.health_scan(d, "g")),
        graph_queries.neighbours(d, "g", ["x"], NOW)[0],
        graph_queries.entities_known_by(d, "g", ["x"], NOW)[0],
        *(graph_queries.mention_counts(d, scope, "g", ["x"])[0] for scope in ("entities", "facts", "episodes")),
    ]
    return out


@pytest.mark.parametrize(
    ("dialect", "foreign"),
    [
        (SQLITE, ["%(", "%s", "::", "COLLATE", "ANY(", "jsonb", "IS TRUE", "IS FALSE"]),
        (POSTGRES, ["?", ":g", "json_each", "json_group_array", "INDEXED BY", "CROSS JOIN facts", "INSERT OR"]),
    ],
    ids=["sqlite", "postgres"],
)
def test_each_dialect_speaks_only_its_own_sql(dialect: Dialect, foreign: list[str]) -> None:
    for sql in [*_all_sql(dialect), *statements(dialect).values()]:
        for word in foreign:
            assert word not in sql, (word, sql)


def test_postgres_joins_stay_within_the_group() -> None:
    """Rows keyed by (group_id, uuid): every join names the group, so under
    Citus a query runs on the one shard of its group."""
    for sql in _all_sql(POSTGRES):
        for part in sql.split(" JOIN ")[1:]:
            if part.startswith("LATERAL"):
                continue
            on = part.split(" ON ", 1)[1]
            assert "group_id" in on.split(" WHERE ")[0].split(" JOIN ")[0], (part, sql)


def test_the_sql_of_a_shape_is_built_once() -> None:
    for d in (SQLITE, POSTGRES):
        first, params = fact_queries.facts(d, "g", FactQuery(as_of=NOW, subject_key="a"))
        again, other = fact_queries.facts(d, "h", FactQuery(as_of=NOW, subject_key="b"))
        assert first is again
        assert (params["g"], params["subject"], other["g"], other["subject"]) == ("g", "a", "h", "b")
        assert (
            record_queries.fact_candidates(d, "g", "s", "o", "r", ("subject",), False, False, NOW, 3)[0]
            is record_queries.fact_candidates(d, "h", "t", "p", "q", ("subject",), False, False, NOW, 4)[0]
        )


def test_a_dialect_must_spell_what_the_engines_spell_differently() -> None:
    from kronograph.store.sql.dialect import Dialect

    with pytest.raises(TypeError, match="abstract"):
        Dialect(columns=None)  # type: ignore[abstract,arg-type]
