"""Many groups in one SQLite file: a group's reads cost what the group holds.

Structural, not timed: every statement that search, ``facts``, ``timeline``
and ``entities`` run is traced and its query plan read back; none may walk
a whole table of the graph (a SCAN of facts, entities, episodes...), whether
the planner's statistics are a large store's or stale ones from when it held ten
groups.
And a small group's own full-text index (``store.sqlite.group_text``) ranks
exactly as the main index does."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from kronograph import Memory
from kronograph.store.sqlite import group_text

GROUPS = 12
PEOPLE = ("Ann Lee", "Bo Chan", "Cy Moss", "Di Park")
_TABLES = ("facts", "entities", "episodes", "fact_history", "fact_sources", "entity_aliases", "mentions",
           "retracted_facts", "fact_conflicts", "communities", "community_members", "contradictions")


def _fill(path: Path) -> None:
    clock = iter(datetime(2025, 1, 1, tzinfo=UTC) + timedelta(seconds=i) for i in range(10_000))
    memory = Memory(path, clock=lambda: next(clock))
    try:
        for g in range(GROUPS):
            for i, (subject, obj) in enumerate(zip(PEOPLE, PEOPLE[1:] + PEOPLE[:1], strict=True)):
                memory.add_fact(f"g{g}", subject, "KNOWS", obj, valid_at=datetime(2020, 1, 1 + i, tzinfo=UTC))
            memory.add_fact(f"g{g}", PEOPLE[g % 4], "LIVES_IN", f"Town_{g % 3} Square", valid_at="2021-01-01")
            memory.add_fact(f"g{g}", PEOPLE[g % 4], "WORKS_AT", "Acme Works", valid_at="2021-02-01")
    finally:
        memory.close()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("groups") / "groups.db"
    _fill(path)
    return path


def _reads(memory: Memory) -> None:
    for g in ("g3", "g7"):
        for query in ("who does Ann Lee know", "town_1 square", "lives in", "works at acme"):
            memory.search(g, query, scopes=("facts", "entities"))
        memory.facts(g, subject="Ann Lee")
        memory.facts(g, subject="Ann Lee", as_of="2020-01-02")
        memory.facts(g, subject="Ann Lee", known_at=datetime(2025, 1, 1, 0, 0, 30, tzinfo=UTC))
        memory.timeline(g, "Bo Chan")
        memory.entities(g, name="Cy Moss")
        at, store = datetime(2025, 1, 1, tzinfo=UTC), memory.store  # type: ignore[attr-defined]
        memory._call(store.contradictions(g, at=at))  # type: ignore[attr-defined]
        memory._call(store.contradictions(g, fact_uuids=["f1", "f2"], open_only=False, at=at))  # type: ignore[attr-defined]
        memory._call(store.open_contradiction_count(g, at))  # type: ignore[attr-defined]
        memory.overview(g)  # the web view's landing page: counts and the most connected, in the database


def _traced(path: Path, run: Callable[[Memory], None]) -> list[str]:
    seen: list[str] = []
    real = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real(*args, **kwargs)
        conn.set_trace_callback(seen.append)
        return conn

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sqlite3, "connect", connect)
        memory = Memory(path)
        try:
            run(memory)
        finally:
            memory.close()
    # the reads of a group (those of the store's own upkeep at open name none)
    return [s for s in dict.fromkeys(seen) if s.lstrip().upper().startswith(("SELECT", "WITH")) and "'g" in s]


def _walks(plan: list[str], sql: str) -> list[str]:
    """The plan's lines that read a graph table whole (by name or alias), or
    all of a group's rows where the statement asks for rows by uuid."""
    names = set(_TABLES)
    for table in _TABLES:
        names.update(m[1] for m in re.finditer(rf"\b{table}\s+(?:AS\s+)?([a-z]\w*)", sql, re.IGNORECASE))
    walks = [line for line in plan if (m := re.match(r"SCAN (\w+)", line)) and m[1] in names]
    if re.search(r"\buuid IN \(SELECT value FROM json_each", sql):  # rows by uuid: found by uuid, not by group
        walks += [line for line in plan if re.match(r"SEARCH \w+ USING (COVERING )?INDEX \w+ \(group_id=\?\)$", line)]
    return walks


def _with_stats(path: Path, into: Path, per_group: int) -> Path:
    """A copy whose planner statistics are those of a large store (a million
    rows a table): ``per_group`` rows under each group_id, every other column
    selective. Stale statistics, from when the store held ten groups, say
    a tenth of the rows are under each (where ``ORDER BY id`` made the
    planner walk the table in id order rather than read the group's rows)."""
    with sqlite3.connect(path) as src, sqlite3.connect(into) as dst:
        src.backup(dst)
    with sqlite3.connect(into) as conn:
        conn.execute("ANALYZE")
        conn.execute("DELETE FROM sqlite_stat1")
        for table, index in conn.execute(
            "SELECT tbl_name, name FROM sqlite_master WHERE type = 'index' AND tbl_name NOT LIKE '%fts%'"
        ).fetchall():
            cols = [row[2] for row in conn.execute(f"PRAGMA index_info('{index}')")]
            stat = [1_000_000] + [per_group if col == "group_id" else 1 if i == len(cols) - 1 else 10
                                  for i, col in enumerate(cols)]
            conn.execute("INSERT INTO sqlite_stat1(tbl, idx, stat) VALUES (?, ?, ?)",
                         (table, index, " ".join(map(str, stat))))
    return into


@pytest.mark.parametrize("per_group", [100, 100_000], ids=["many groups", "stale: ten groups"])
def test_group_scoped_reads_never_walk_a_whole_table(store: Path, tmp_path: Path, per_group: int) -> None:
    path = _with_stats(store, tmp_path / "large.db", per_group)
    statements = _traced(path, _reads)
    assert len(statements) > 20
    with sqlite3.connect(path) as conn:
        walks = {}
        for sql in statements:
            plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql)] if "temp." not in sql else []
            if bad := _walks(plan, sql):
                walks[sql[:160]] = bad
    assert walks == {}


def _ranked(path: Path) -> list[list[tuple[str, str, float]]]:
    out: list[list[tuple[str, str, float]]] = []
    memory = Memory(path)
    try:
        for g in ("g1", "g4", "g10"):
            for query in ("Ann Lee knows", "town_2 square", "acme", "who lives in town", "works", "bo chan moss"):
                found = memory.search(g, query, scopes=("facts", "entities"), recipe="bm25")
                out.append([(kind, x.item.uuid, round(x.score, 9))
                            for kind, hits in (("fact", found.facts), ("entity", found.entities)) for x in hits])
    finally:
        memory.close()
    return out


def test_a_small_groups_own_index_ranks_as_the_main_index(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    used: list[str | None] = []
    real = group_text.local_index

    def spy(*args: Any, **kwargs: Any) -> str | None:
        used.append(real(*args, **kwargs))
        return used[-1]

    for module in ("search_reads", "name_reads"):
        monkeypatch.setattr(f"kronograph.store.sqlite.{module}.local_index", spy)
    own = _ranked(store)
    assert used and all(u is not None for u in used)  # each small group had its own index
    monkeypatch.setattr(group_text, "LOCAL_MAX", 0)  # every group read from the main index
    used.clear()
    main = _ranked(store)
    assert used and all(u is None for u in used)
    assert own == main
    assert any(own)


def test_forget_empties_the_connections_index_of_the_group(store: Path, tmp_path: Path) -> None:
    path = tmp_path / "copy.db"
    with sqlite3.connect(store) as src, sqlite3.connect(path) as dst:
        src.backup(dst)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        assert group_text.local_index(conn, "facts", "g3") == "temp.kg_local_facts"
        assert conn.execute("SELECT COUNT(*) FROM temp.kg_local_facts_i").fetchone()[0] > 0
        group_text.forget(conn, "g2")  # another group: kept
        assert conn.execute("SELECT COUNT(*) FROM temp.kg_local_facts_i").fetchone()[0] > 0
        group_text.forget(conn, "g3")
        assert conn.execute("SELECT COUNT(*) FROM temp.kg_local_facts_i").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM temp.kg_local_held").fetchone()[0] == 0
    finally:
        conn.close()
