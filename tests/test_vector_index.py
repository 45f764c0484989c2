"""SQLite vector search: exact below the HNSW threshold, the HNSW index's
recall above it, the tables saved beside the file and repaired from the rows
whenever their marker is not the group's (another writer, an older file, a
damaged one), removed items never returned, groups apart, ``:memory:``."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from kronograph import HashingEmbedder, Memory
from kronograph.store import SQLiteStore
from kronograph.store.sqlite import vector_table
from kronograph.store.sqlite.vector_table import VectorTable
from kronograph.store.sqlite.vectors import VectorIndex

from .conftest import StepClock


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    x = rng.normal(size=(n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_exact_below_and_recall_above_the_threshold() -> None:
    rng = np.random.default_rng(3)
    data, queries = _unit(rng, 3000, 32), _unit(rng, 50, 32)
    items = [(f"u{i}", v.tobytes()) for i, v in enumerate(data)]
    exact, approx = VectorTable.empty(32, (1, 1)), VectorTable.empty(32, (1, 1))
    exact.add(items, threshold=10**9)
    approx.add(items, threshold=100)  # past 100 items: an HNSW index
    assert not exact.approximate and approx.approximate and len(approx) == 3000
    found = 0
    for q in queries:
        truth = [f"u{i}" for i in np.argsort(-(data @ q), kind="stable")[:10]]
        assert len({u for u, _ in exact.top(q, 10)} & set(truth)) >= 9  # 16 bits: near ties may swap
        found += len({u for u, _ in approx.top(q, 10)} & set(truth))
    assert found / (10 * len(queries)) >= 0.95
    assert set(approx.rows(["u5", "nope"])) == {"u5"}
    assert np.allclose(approx.rows(["u5"])["u5"], data[5], atol=1e-2)


def test_store_search_is_exact_below_the_threshold(tmp_path: Path) -> None:
    import sqlite3

    memory = _memory(tmp_path / "m.db")
    try:
        _add(memory, "g", 60)
        _add(memory, "g", 30)  # the same texts again: merged, or equal vectors tied
        conn = sqlite3.connect(tmp_path / "m.db")
        stored = conn.execute("SELECT uuid, embedding FROM facts WHERE group_id = 'g'").fetchall()
        conn.close()
        matrix = np.stack([np.frombuffer(b, dtype=np.float32) for _, b in stored])
        for text in ("person 3 likes thing 3", "likes thing", "person 41", "thing 7 person 8"):
            vector = HashingEmbedder().embed_sync([text])[0]
            got = memory._portal.call(memory.store.search_vectors("g", "facts", vector, 20))  # noqa: SLF001
            scores = matrix @ vector.astype(np.float32)
            want = np.sort(scores)[::-1][:20]
            assert np.allclose([s for _, s in got], want, atol=1e-4)  # float32's scores, in order, to 16 bits
            above = {stored[i][0] for i in np.flatnonzero(scores > want[-1] + 1e-4)}
            assert above <= {u for u, _ in got}
    finally:
        memory.close()


def test_sparse_vectors_stay_exact_past_the_threshold() -> None:
    rng = np.random.default_rng(5)
    sparse = np.zeros((300, 64), dtype=np.float32)
    for row in sparse:
        row[rng.choice(64, 6, replace=False)] = 1 / np.sqrt(6)
    table = VectorTable.empty(64, (1, 1))
    table.add([(f"u{i}", v.tobytes()) for i, v in enumerate(sparse)], threshold=10)
    assert not table.approximate and not table.dense


def test_removed_items_never_come_back_from_either_kind() -> None:
    rng = np.random.default_rng(4)
    data = _unit(rng, 800, 16)
    for threshold in (10**9, 50):
        table = VectorTable.empty(16, (1, 1))
        table.add([(f"u{i}", v.tobytes()) for i, v in enumerate(data)], threshold)
        gone = {f"u{i}" for i in range(0, 800, 3)}
        table.remove(gone)
        for q in data[:40]:
            assert not {u for u, _ in table.top(q, 50)} & gone
        assert not set(table.rows(gone))
        table.add([("u0", data[0].tobytes())], threshold)  # added back: found again, once
        assert [u for u, _ in table.top(data[0], 3)].count("u0") == 1
        compact = table.compacted()
        assert {u for u, _ in compact.top(data[0], 1)} == {"u0"} and len(compact) == len(table)


def _memory(path: Path | str) -> Memory:
    return Memory(SQLiteStore(path), model=None, clock=StepClock())


def _near(memory: Memory, group: str, text: str, k: int = 50) -> list[str]:
    vector = HashingEmbedder().embed_sync([text])[0]
    found = memory._portal.call(memory.store.search_vectors(group, "facts", vector, k))  # noqa: SLF001
    return [u for u, _ in found]


def _add(memory: Memory, group: str, n: int, start: int = 0) -> list[str]:
    return [
        memory.add_fact(group, f"person {i}", "LIKES", f"thing {i}", fact=f"person {i} likes thing {i}",
                        valid_at="2020-01-01").fact.uuid
        for i in range(start, start + n)
    ]


def _searched_once(db: Path) -> list[str]:
    """Twelve facts added to group g and searched once (its table loaded), the memory closed."""
    memory = _memory(db)
    try:
        first = _add(memory, "g", 12)
        assert first[3] in _near(memory, "g", "person 3 likes thing 3")[:1]
    finally:
        memory.close()
    return first


@pytest.fixture(params=["exact", "hnsw"])
def threshold(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(VectorIndex, "SAVE_MIN", 1)  # the tables here are small: saved all the same
    if request.param == "hnsw":  # the hashing embedder's sparse vectors taken for dense ones, past 4
        monkeypatch.setattr(vector_table, "ANN_THRESHOLD", 4)
        monkeypatch.setattr(vector_table, "DENSE", 1000)
    return str(request.param)


def test_saved_beside_the_file_and_repaired_when_behind(tmp_path: Path, threshold: str) -> None:
    db = tmp_path / "m.db"
    first = _searched_once(db)
    saved = list((tmp_path / "m.db-vectors").glob("facts-*"))
    assert len(saved) == 3  # uuids, vectors, and the JSON naming them
    older = tmp_path / "older"
    shutil.copytree(tmp_path / "m.db-vectors", older)

    memory, other = _memory(db), _memory(db)
    try:
        assert _near(memory, "g", "person 5 likes thing 5")[0] == first[5]  # read from the file
        table = memory.store._vectors._tables[("facts", "g")]  # noqa: SLF001
        assert table.approximate == (threshold == "hnsw")
        later = _add(other, "g", 3, start=12)  # another connection writes: the held table is behind
        other.remove_fact("g", first[7])
        got = _near(memory, "g", "person 13 likes thing 13")
        assert got[0] == later[1] and first[7] not in _near(memory, "g", "person 7 likes thing 7")
    finally:
        memory.close()
        other.close()

    shutil.rmtree(tmp_path / "m.db-vectors")  # a file left from an older state
    shutil.copytree(older, tmp_path / "m.db-vectors")
    memory = _memory(db)
    try:
        assert _near(memory, "g", "person 14 likes thing 14")[0] == later[2]
        assert first[7] not in _near(memory, "g", "person 7 likes thing 7")
    finally:
        memory.close()

    for path in (tmp_path / "m.db-vectors").glob("facts-*"):  # damaged files: read from the rows again
        if path.suffix != ".json":
            path.write_bytes(b"\x00garbage")
    memory = _memory(db)
    try:
        assert _near(memory, "g", "person 2 likes thing 2")[0] == first[2]
        assert len(set(_near(memory, "g", "likes thing", 100))) == 14
    finally:
        memory.close()


def test_forget_and_groups_apart(tmp_path: Path, threshold: str) -> None:
    memory = _memory(tmp_path / "m.db")
    try:
        a, b = _add(memory, "a", 8), _add(memory, "b", 8)  # the same texts in two groups
        for group, mine, theirs in (("a", a, b), ("b", b, a)):
            got = _near(memory, group, "person 1 likes thing 1", 100)
            assert got[0] == mine[1] and set(got) <= set(mine) and not set(got) & set(theirs)
        memory.forget("a", entity="person 1")
        assert a[1] not in _near(memory, "a", "person 1 likes thing 1", 100)
        assert not list((tmp_path / "m.db-vectors").glob("facts-*")) or a[1] not in "".join(
            p.read_text() for p in (tmp_path / "m.db-vectors").glob("facts-*.uuids"))
    finally:
        memory.close()
    memory = _memory(tmp_path / "m.db")
    try:
        assert a[1] not in _near(memory, "a", "person 1 likes thing 1", 100)
    finally:
        memory.close()


def test_in_memory_store_keeps_no_files(tmp_path: Path, threshold: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    memory = _memory(":memory:")
    try:
        uuids = _add(memory, "g", 6)
        assert _near(memory, "g", "person 4 likes thing 4")[0] == uuids[4]
        memory.remove_fact("g", uuids[4])
        assert uuids[4] not in _near(memory, "g", "person 4 likes thing 4")
    finally:
        memory.close()
    assert list(tmp_path.iterdir()) == []


def test_a_small_table_is_read_from_its_rows_and_never_saved(tmp_path: Path) -> None:
    """A search among many small groups writes no file per group it reads."""
    db = tmp_path / "m.db"
    first = _searched_once(db)
    saved = tmp_path / "m.db-vectors"
    assert not saved.exists() or not any(saved.iterdir())
    memory = _memory(db)
    try:  # read again from the rows: the same answer
        assert first[3] in _near(memory, "g", "person 3 likes thing 3")[:1]
    finally:
        memory.close()
