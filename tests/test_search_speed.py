"""The faster paths of SQLite search return what the plain ones did: vectors
scored dimension by dimension for a sparse query, the entities a query names
ranked before their rows are read, and full text whose word counts are the
group's own and kept per group revision (a write, another group and forget
each seen)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from kronograph import Entity, Memory
from kronograph.store import SQLiteStore
from kronograph.store.sqlite.search_reads import QueryWords
from kronograph.store.sqlite.vector_table import VectorTable

from .conftest import StepClock


def _table(matrix: np.ndarray) -> VectorTable:
    table = VectorTable.empty(matrix.shape[1], (1, 1))
    table.add([(f"u{i}", row.astype(np.float32).tobytes()) for i, row in enumerate(matrix)], threshold=10**9)
    return table


def test_a_sparse_query_vector_scores_as_the_full_product() -> None:
    rng = np.random.default_rng(7)
    matrix = rng.normal(size=(500, 64)).astype(np.float32)
    matrix[rng.random(matrix.shape) < 0.8] = 0.0  # mostly zeros, as the hashing embedder's
    table = _table(matrix)
    for nonzero in (1, 5, 16, 64):  # sparse (dimension by dimension) and dense (one product)
        query = np.zeros(64, dtype=np.float32)
        query[rng.choice(64, nonzero, replace=False)] = rng.normal(size=nonzero)
        best = table.top(query, 500)  # every item: 16-bit vectors, scores within their 16-bit rounding
        exact = matrix @ query
        assert np.allclose([s for _, s in best], [exact[int(u[1:])] for u, _ in best], rtol=1e-2, atol=5e-2)
        expected = np.argsort(-exact, kind="stable")[:10]
        assert [u for u, _ in best][:3] == [f"u{i}" for i in expected[:3]]
        assert [s for _, s in best] == sorted((s for _, s in best), reverse=True)


def test_equal_vectors_tie_in_their_order_and_rows_come_back() -> None:
    row = np.zeros(32, dtype=np.float32)
    row[[1, 5, 9]] = [0.5, 0.5, 0.7071]
    other = np.zeros(32, dtype=np.float32)
    other[2] = 1.0
    table = _table(np.stack([other, row, row, row]))
    assert [u for u, _ in table.top(row, 2)] == ["u1", "u2"]  # equal scores: the earlier first
    assert table.top(np.zeros(16, dtype=np.float32), 3) == []  # another dimension: nothing comparable
    got = table.rows(["u2", "u0", "nope"])
    assert set(got) == {"u0", "u2"} and np.allclose(got["u2"], row, atol=1e-3)
    table.add([("u4", other.tobytes())], threshold=10**9)  # a vector added later is searched too
    assert table.top(other, 2)[0] == ("u0", 1.0) and {u for u, _ in table.top(other, 2)} == {"u0", "u4"}


def _memory(tmp_path: Path) -> Memory:
    return Memory(SQLiteStore(tmp_path / "m.db"), model=None, clock=StepClock())


def test_names_limit_and_order_hold_when_a_common_word_matches_many(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    try:
        for i in range(40):
            memory.add_fact("a", f"Smith {i:02d}", "KNOWS", f"Jones {i:02d}", valid_at="2020-01-01")
        memory.add_fact("a", "Smith", "LIVES_IN", "Smithville", valid_at="2020-01-01")
        conn = sqlite3.connect(tmp_path / "m.db")
        from kronograph.store.sqlite.name_reads import entities_named_in

        exact = entities_named_in(conn, "a", ["smith"], ["smith"], ["smi"], 5)
        assert exact[0].name == "Smith" and len(exact) == 5  # the exact name first, then by age
        words = [e.name for e in entities_named_in(conn, "a", ["smith"], ["smith"], ["smi"], 100)]
        assert words[0] == "Smith" and words[1:41] == [f"Smith {i:02d}" for i in range(40)]
        assert words[41:] == ["Smithville"]  # a prefix match only after the whole words
        assert entities_named_in(conn, "b", ["smith"], ["smith"], ["smi"], 100) == []  # another group: none
        conn.close()
    finally:
        memory.close()


def test_full_text_counts_follow_writes_other_groups_and_forget(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QueryWords, "FLOOR", 3)
    monkeypatch.setattr(QueryWords, "SHARE", 4)
    memory = _memory(tmp_path)
    try:
        for i in range(12):
            memory.add_fact("a", f"Ann{i}", "LIKES", f"Tea{i}", fact=f"alpha common words {i}", valid_at="2020-01-01")
        memory.add_fact("a", "Bo", "LIKES", "Rare", fact="beta rare words", valid_at="2020-01-01")

        def found() -> list[str]:
            hits = memory.search("a", "alpha beta gamma", scopes=["facts"], recipe="bm25", limit=50).facts
            return [h.item.fact for h in hits]

        before = found()
        assert len(before) == 13  # two words the group holds: both count
        memory.add_fact("b", "Cy", "LIKES", "Gamma", fact="gamma only in group b", valid_at="2020-01-01")
        assert found() == before  # a word only another group holds changes nothing
        memory.add_fact("a", "Di", "LIKES", "Gamma", fact="gamma now in a too", valid_at="2020-01-01")
        assert set(found()) == {"beta rare words", "gamma now in a too"}  # a write is seen at once: three words,
        memory.forget("a", entity="Bo")  # the common one drops; and forget is seen at once too
        after = found()
        assert "beta rare words" not in after and "gamma now in a too" in after and len(after) == 13
    finally:
        memory.close()


def test_kept_name_matches_follow_writes_groups_and_forget(tmp_path: Path) -> None:
    memory = _memory(tmp_path)

    def named(group: str, limit: int = 10) -> list[str]:
        found = memory._portal.call(memory.store.entities_named_in(group, ["kim"], ["kim"], ["kim"], limit))
        return [e.name for e in found]

    try:
        for i in range(5):
            memory.add_fact("a", f"Kim {i}", "KNOWS", f"Lee {i}", valid_at="2020-01-01")
        assert named("a") == [f"Kim {i}" for i in range(5)]
        assert named("a", 2) == ["Kim 0", "Kim 1"] and named("a", 3) == ["Kim 0", "Kim 1", "Kim 2"]  # a longer ask
        assert named("b") == []
        memory.add_fact("b", "Kim Other", "KNOWS", "Lee", valid_at="2020-01-01")
        assert named("b") == ["Kim Other"] and named("a") == [f"Kim {i}" for i in range(5)]  # each group its own
        memory.add_fact("a", "Kimberly Ray", "KNOWS", "Kim 9", valid_at="2020-01-01")
        assert named("a", 20) == [*(f"Kim {i}" for i in range(5)), "Kim 9", "Kimberly Ray"]  # a write: seen at once
        memory.forget("a", entity="Kim 2")
        assert "Kim 2" not in named("a", 20) and len(named("a", 20)) == 6  # and so is forget
    finally:
        memory.close()


def test_episode_neighbours_in_one_read_keep_time_then_arrival_order(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    try:
        times = ["2024-01-01", "2024-01-02", "2024-01-02", "2024-01-02", "2024-01-03"]
        ids = [memory.add_episode("a", f"message number {i}", reference_time=t).episode_id for i, t in enumerate(times)]
        memory.add_episode("b", "another group's message", reference_time="2024-01-02")

        def around(uuids: list[str], group: str = "a") -> dict[str, tuple[str, ...]]:
            return memory._portal.call(memory.store.episode_neighbours(group, uuids))

        got = around([ids[2], ids[0], "nope", ids[4], ids[2]])
        assert list(got) == [ids[2], ids[0], ids[4]]  # asked order, each once, unknown ones left out
        assert got[ids[2]] == (ids[1], ids[3])  # the same day: by order of arrival
        assert got[ids[0]] == (ids[1],) and got[ids[4]] == (ids[3],)
        assert around(ids, "b") == {}  # never another group's
    finally:
        memory.close()


def test_held_vector_tables_are_bounded_and_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kronograph.store.sqlite.vectors import VectorIndex

    monkeypatch.setattr(VectorIndex, "HELD", 2)
    memory = _memory(tmp_path)
    try:
        for group in ("a", "b", "c"):
            memory.add_fact(group, f"{group} person", "LIKES", "tea", fact=f"{group} likes tea", valid_at="2020-01-01")
        for _ in range(2):  # the third group's table pushes the first out; it comes back, the same
            for group in ("a", "b", "c"):
                hits = memory.search(group, "likes tea", scopes=["facts"], recipe="cosine").facts
                assert [h.item.fact for h in hits] == [f"{group} likes tea"]
        assert len(memory.store._vectors._tables) == 2  # noqa: SLF001
    finally:
        memory.close()


def test_held_entities_follow_writes_groups_and_forget(tmp_path: Path) -> None:
    memory = _memory(tmp_path)

    def read(group: str, uuids: list[str]) -> list[Entity]:
        return memory._portal.call(memory.store.entities_by_uuid(group, uuids))

    try:
        memory.add_fact("a", "Ann Lee", "KNOWS", "Bo", valid_at="2020-01-01")
        ann, bo = (memory.entities("a", name=n)[0] for n in ("Ann Lee", "Bo"))
        assert [e.name for e in read("a", [bo.uuid, ann.uuid, "nope", ann.uuid])] == sorted(
            ["Ann Lee", "Bo"], key=lambda n: ann.uuid if n == "Ann Lee" else bo.uuid)  # by uuid, each once
        assert read("b", [ann.uuid, bo.uuid]) == []  # never another group's
        memory.add_fact("a", "Annie", "KNOWS", "Bo", valid_at="2020-01-01")
        annie = memory.entities("a", name="Annie")[0]
        assert [e.aliases for e in read("a", [annie.uuid])] == [annie.aliases]
        memory.merge_entities("a", annie.uuid, ann.uuid)  # a write changes the rows: read again at once
        after = read("a", [ann.uuid, annie.uuid])
        assert [e.uuid for e in after] == [annie.uuid] and "Ann Lee" in after[0].aliases
        memory.add_fact("a", "Cy", "KNOWS", "Dee", valid_at="2020-01-01")
        cy = memory.entities("a", name="Cy")[0]
        assert [e.name for e in read("a", [cy.uuid])] == ["Cy"]
        memory.search("a", "Bo Annie", scopes=["facts", "entities"])  # search keeps words and entities of a
        store = memory.store
        # the writer's memos and each reader's (a read runs on either)
        memos = [store._memos, *(r.memos for r in (store._pool._readers if store._pool else ()))]  # noqa: SLF001
        assert any("a" in m.entities._groups for m in memos) and any("a" in m.names._groups for m in memos)  # noqa: SLF001
        memory.forget("a", entity="Bo")
        assert not any("a" in m.entities._groups or "a" in m.names._groups for m in memos)  # noqa: SLF001
        assert not any(g == "a" for m in memos for _, g in m.query_words._rows)  # noqa: SLF001
        assert not any(m.query_words._stemmed for m in memos)  # noqa: SLF001
        assert [e.name for e in read("a", [cy.uuid])] == ["Cy"]  # what stays is read and kept anew
        assert read("a", [bo.uuid]) == []  # and so is forget
    finally:
        memory.close()


def test_the_union_of_sorted_row_ids_is_np_unique_of_them() -> None:
    from kronograph.store.sqlite.search_reads import _union

    rng = np.random.default_rng(3)
    for sizes in ([0], [5], [0, 0], [3, 0, 7], [100, 100, 1], [1000, 20, 300, 0]):
        parts = [np.unique(rng.integers(0, 400, size=n)).astype(np.int64) for n in sizes]
        assert np.array_equal(_union(parts), np.unique(np.concatenate(parts)))


def test_token_counts_of_many_rows_at_once_are_each_rows_own() -> None:
    """``_lengths`` (numpy, over a large group's ``_docsize`` blobs in hex)
    sums FTS5's varints as ``_tokens`` does row by row, long varints included."""
    from kronograph.store.sqlite.search_reads import _lengths, _tokens

    def varint(v: int) -> bytes:
        out = [v & 0x7F]
        while v := v >> 7:
            out.append((v & 0x7F) | 0x80)
        return bytes(reversed(out))

    rng = np.random.default_rng(4)
    sizes = [b"".join(varint(int(v)) for v in rng.choice([0, 3, 127, 128, 300, 20000, 70], size=rng.integers(0, 4)))
             for _ in range(500)] + [b"", b"\x05\x06", b"\x81\x00"]
    assert _lengths(",".join(s.hex().upper() for s in sizes)).tolist() == [float(_tokens(s)) for s in sizes]
    assert _tokens(b"\x81\x00") == 128 and _lengths("").tolist() == [0.0]  # one row, no columns


def test_a_scope_limit_caps_that_scope_only(tmp_path: Path) -> None:
    """``SearchRequest.scope_limits``: the context block weighs a few entity
    summaries, so it asks for few, while facts keep the request's limit."""
    from datetime import UTC, datetime

    from kronograph.search.engine import SearchRequest, run_search
    from kronograph.search.recipes import recipe_named

    memory = _memory(tmp_path)
    try:
        for i in range(12):
            memory.add_fact("a", f"Member {i}", "MEMBER_OF", f"Club {i}", valid_at="2020-01-01")

        def search(limits: tuple[tuple[str, int], ...]) -> tuple[int, int]:
            request = SearchRequest(
                group_ids=("a",), query="member club", vector=None, scopes=("facts", "entities"),
                recipe=recipe_named("bm25"), limit=10, now=datetime.now(UTC), scope_limits=limits,
            )
            found = memory._call(run_search(memory._core._store, request))
            return len(found.facts), len(found.entities)

        assert search(()) == (10, 10)
        assert search((("entities", 3),)) == (10, 3)
        assert search((("facts", 4),)) == (4, 10)
    finally:
        memory.close()
