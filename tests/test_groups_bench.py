"""bench/groups.py's store: copies of template groups under new ids and uuids
are groups of their own (searchable, isolated, every uuid unique)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kronograph import Memory

from .bench_modules import load_bench

groups = load_bench("groups", "bench_groups")


def test_copies_of_the_templates_are_groups_of_their_own(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    groups.load_templates(path, 2, 6, 12, seed=1)
    groups.clone(path, 2, 5, batch=2)
    with sqlite3.connect(path) as conn:
        assert [g for (g,) in conn.execute("SELECT group_id FROM groups ORDER BY 1")] == [
            groups.gid(i) for i in range(5)]
        per_group = dict(conn.execute("SELECT group_id, COUNT(*) FROM facts GROUP BY 1").fetchall())
        assert per_group[groups.gid(4)] == per_group[groups.gid(0)] > 0  # group 4 is template 0's copy
        for table in ("facts", "entities"):  # (an episode id is unique within its group)
            assert conn.execute(f"SELECT COUNT(*) = COUNT(DISTINCT uuid) FROM {table}").fetchone()[0] == 1
        assert conn.execute(  # every fact's ends are entities of its own group
            "SELECT COUNT(*) FROM facts f JOIN entities e ON e.uuid = f.source_uuid AND e.group_id != f.group_id"
        ).fetchone()[0] == 0
    memory = Memory(path)
    try:
        original = memory.facts(groups.gid(0), subject=memory.facts(groups.gid(0))[0].subject)
        copy = memory.facts(groups.gid(4), subject=original[0].subject)
        assert [f.fact for f in copy] == [f.fact for f in original]
        assert not {f.uuid for f in copy} & {f.uuid for f in original}
        found = memory.search(groups.gid(2), original[0].subject, scopes=("facts",))
        assert found.facts and all(h.item.group_id == groups.gid(2) for h in found.facts)
    finally:
        memory.close()
