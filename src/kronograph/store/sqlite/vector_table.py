"""One (scope, group)'s vectors held in memory: exact below a size, an HNSW
index (usearch) above it.

Items are numbered in the order they were added (the number is the key in
the HNSW index); a removed item keeps its number with an empty uuid, so
nothing removed is ever returned. Small tables are held in 16 bits a value
by dimension (a sparse query vector, as the hashing embedder's, is scored
from its few dimensions' rows); large ones only in the HNSW index (float16,
SIMD distances), which serves their vectors too.

The 16 bits of an exact table are fixed point (int16 of value / ``scale``,
``scale`` 1 for unit vectors): for the components of unit vectors they hold
about 30 times float16's precision (an absolute error under 2e-5, against
float16's relative 5e-4), numpy widens them at float32's speed (its float16
conversion is ten times slower), and equal vectors still score equally.

Thread safety: ``top``, ``rows`` and ``__len__`` may run on several threads
at once; ``add``, ``remove`` and ``compacted`` change the table and must not
run beside anything else on it (the caller's lock).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from usearch.index import Index

__all__ = ["ANN_THRESHOLD", "EXPANSION", "VectorTable", "new_index"]

# Items from which a table is searched through the HNSW index rather than
# exactly. Measured on the hashing embedder's sparse 256-dimension vectors (see
# bench/README.md, "Vector search"): exact 16-bit search stays under ~10 ms up
# to a few hundred thousand items, and building the index costs ~1 ms a vector.
ANN_THRESHOLD = 250_000
DENSE = 4  # vectors with more than 1/DENSE of their values nonzero are dense (a model's): HNSW past the threshold
CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION = 256  # candidates the HNSW search keeps (at least 4 per result asked): recall@10 >= 0.95


def new_index(dim: int) -> Index:
    """An empty HNSW index of float16 unit vectors (inner product: 1 - cosine)."""
    return Index(
        ndim=dim, metric="ip", dtype="f16", connectivity=CONNECTIVITY, expansion_add=EXPANSION_ADD,
        expansion_search=EXPANSION,
    )


_ONE = 32767  # int16 of a value equal to the scale


def narrowed(vectors: np.ndarray, scale: float) -> np.ndarray:
    """float32 values in [-scale, scale] -> int16 fixed point."""
    scaled: np.ndarray = np.rint(np.asarray(vectors, dtype=np.float32) * np.float32(_ONE / scale))
    return scaled.astype(np.int16)


def widened(values: np.ndarray, scale: float) -> np.ndarray:
    """int16 fixed point -> float32."""
    return np.asarray(values).astype(np.float32) * np.float32(scale / _ONE)


def as_matrix(blobs: list[bytes], dim: int) -> np.ndarray:
    """float32 vectors (as stored) as an item x dimension matrix."""
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)


class VectorTable:
    """The vectors of one (scope, group); ``marker`` is the group's (created_at,
    revision) its content stands for, kept in step by the store (see vectors.py)."""

    def __init__(self, dim: int, marker: tuple[int, int], uuids: list[str], *, columns: np.ndarray | None = None,
                 index: Index | None = None, scale: float = 1.0, dense: bool | None = None) -> None:
        self.dim = dim
        self.marker = marker
        self.uuids = uuids  # by item number; "" for a removed item
        self.columns = columns  # exact: int16 of value / scale, dimension x capacity (past len(uuids): unused)
        self.scale = scale
        self.index = index  # HNSW: keys are item numbers
        self.dirty = False  # changed since last saved
        self._dead = [i for i, u in enumerate(uuids) if not u]  # removed item numbers (never used again)
        self._live = len(uuids) - len(self._dead)
        # Whether the vectors are dense (a model's) rather than sparse (the
        # hashing embedder's): only dense ones move into an HNSW index.
        self.dense = index is not None if dense is None else dense
        self._nonzero = 0  # values added, nonzero and all, while the density was being learned
        self._values = 0
        self._numbers: dict[str, int] | None = None  # uuid -> item number, built when first needed

    @classmethod
    def empty(cls, dim: int, marker: tuple[int, int]) -> VectorTable:
        return cls(dim, marker, [], columns=np.zeros((dim, 0), dtype=np.int16))

    def __len__(self) -> int:
        return self._live

    @property
    def approximate(self) -> bool:
        return self.index is not None

    def _number(self) -> dict[str, int]:
        if self._numbers is None:
            self._numbers = {u: i for i, u in enumerate(self.uuids) if u}
        return self._numbers

    # -- reads (any thread) -------------------------------------------------------
    def rows(self, uuids: Iterable[str]) -> dict[str, np.ndarray]:
        """The float32 vectors of these uuids (those it holds)."""
        numbers = self._number()
        found = [(u, numbers[u]) for u in dict.fromkeys(uuids) if u in numbers]
        if not found:
            return {}
        keys = np.array([n for _, n in found], dtype=np.int64)
        if self.index is not None:
            vectors = np.asarray(self.index.get(keys.astype(np.uint64), dtype="f32")).reshape(len(keys), -1)
        else:
            assert self.columns is not None
            vectors = widened(self.columns[:, keys].T, self.scale)
        return {u: vectors[i].copy() for i, (u, _) in enumerate(found)}

    def top(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """The ``k`` items most similar to ``vector`` (dot product of unit
        vectors), best first; none when the dimensions differ (another
        embedder's vectors compare to nothing)."""
        if k < 1 or not self._live or vector.shape[0] != self.dim:
            return []
        vector = vector.astype(np.float32, copy=False)
        if self.index is not None:
            return self._approximate(vector, k)
        return self._exact(vector, k)

    def _exact(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        n = len(self.uuids)  # a snapshot: items added meanwhile lie past it
        assert self.columns is not None
        columns = self.columns
        # Dimension by dimension, in order (equal vectors get equal scores): a
        # sparse query reads its few dimensions' rows only; a dense one all of
        # them, without a BLAS call (whose threads stall on a busy machine).
        # Summed negated, so that the k best are the k smallest without a
        # negated copy of a million scores.
        negated = np.zeros(n, dtype=np.float32)
        term = np.empty(n, dtype=np.float32)
        weights = vector * np.float32(-self.scale / _ONE)
        for d in np.flatnonzero(vector).tolist():
            np.multiply(columns[d, :n], weights[d], out=term)
            negated += term
        if self._live < n:  # removed items: their numbers, not a walk of every uuid
            dead = np.array(self._dead, dtype=np.int64)
            negated[dead[dead < n]] = np.inf
        k = min(k, self._live)
        best = np.sort(np.argpartition(negated, k - 1)[:k])  # equal scores: the earlier first
        best = best[np.argsort(negated[best], kind="stable")]
        return [(self.uuids[i], -float(negated[i])) for i in best if self.uuids[i]]

    def _approximate(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        assert self.index is not None
        want = min(k, self._live)
        matches = self.index.search(vector, want, threads=1)
        found = [(int(key), 1.0 - float(d)) for key, d in zip(matches.keys, matches.distances, strict=True)]
        uuids = self.uuids
        hits = [(uuids[key], s) for key, s in found if key < len(uuids) and uuids[key]]  # removed: never returned
        hits.sort(key=lambda h: -h[1])
        return hits[:k]

    # -- changes (exclusive) ------------------------------------------------------
    def add(self, items: list[tuple[str, bytes]], threshold: int) -> None:
        """Add these (uuid, float32 blob) items (one already held is replaced);
        past ``threshold`` items a table of dense vectors moves into an HNSW
        index. Sparse vectors (at most 1/DENSE of the values nonzero, as the
        hashing embedder's) stay exact: scored from the query's few
        dimensions they cost a fraction of a full product, and an HNSW graph
        over them finds too few of the true neighbours (recall@10 0.82 at
        100,000 of the search benchmark's facts with 256 candidates)."""
        items = [(u, b) for u, b in items if len(b) == 4 * self.dim]
        if not items:
            return
        self.remove([u for u, _ in items])
        vectors = as_matrix([b for _, b in items], self.dim)
        start = len(self.uuids)
        if self.index is not None:
            self.index.add(np.arange(start, start + len(items), dtype=np.uint64), vectors)
        else:
            assert self.columns is not None
            if start + len(items) > self.columns.shape[1]:  # grow by half at least: appends stay cheap
                grown = np.zeros((self.dim, max(start + len(items), start * 3 // 2, 64)), dtype=np.int16)
                grown[:, :start] = self.columns[:, :start]
                self.columns = grown  # readers holding the old matrix read on in it
            top = float(np.abs(vectors).max(initial=0.0))
            if top > self.scale:  # a vector longer than a unit one: every value held on a wider scale
                self.columns = narrowed(widened(self.columns, self.scale), top)
                self.scale = top
            self.columns[:, start : start + len(items)] = narrowed(vectors, self.scale).T
        numbers = self._numbers
        for i, (u, _) in enumerate(items, start):
            if numbers is not None:
                numbers[u] = i
        self.uuids.extend(u for u, _ in items)
        self._live += len(items)
        self.dirty = True
        if self._values < 1 << 22:  # the first few million values tell
            self._nonzero += int(np.count_nonzero(vectors))
            self._values += vectors.size
            self.dense = self._nonzero * DENSE > self._values
        if self.index is None and self.dense and self._live >= threshold:
            self.to_index()

    def remove(self, uuids: Iterable[str]) -> None:
        numbers = self._number()
        gone = [numbers.pop(u) for u in uuids if u in numbers]
        if not gone:
            return
        for i in gone:
            self.uuids[i] = ""
        self._dead.extend(gone)
        self._live -= len(gone)
        if self.index is not None:
            self.index.remove(np.array(gone, dtype=np.uint64))
        else:
            assert self.columns is not None
            self.columns[:, gone] = 0
        self.dirty = True

    def to_index(self) -> None:
        """Move the held vectors into a new HNSW index (all cores)."""
        assert self.columns is not None
        live = np.array([i for i, u in enumerate(self.uuids) if u], dtype=np.int64)
        index = new_index(self.dim)
        step = 65_536  # bounded temporary float32 copies
        for at in range(0, len(live), step):
            part = live[at : at + step]
            index.add(part.astype(np.uint64), widened(self.columns[:, part].T, self.scale))
        self.index, self.columns = index, None
        self.dense = self.dirty = True

    def compacted(self) -> VectorTable:
        """This table without its removed items (renumbered), exact or not as it was."""
        live = [i for i, u in enumerate(self.uuids) if u]
        uuids = [self.uuids[i] for i in live]
        if self.index is None:
            assert self.columns is not None
            table = VectorTable(self.dim, self.marker, uuids, columns=self.columns[:, live].copy(), scale=self.scale,
                                dense=self.dense)
            table.dirty = True
            return table
        table = VectorTable.empty(self.dim, self.marker)
        table.to_index()
        keys = np.array(live, dtype=np.int64)
        step = 65_536
        assert table.index is not None
        for at in range(0, len(keys), step):
            part = keys[at : at + step]
            vectors = np.asarray(self.index.get(part.astype(np.uint64), dtype="f32")).reshape(len(part), -1)
            table.index.add(np.arange(at, at + len(part), dtype=np.uint64), vectors)
        table.uuids, table._live, table.dirty = uuids, len(uuids), True
        return table
