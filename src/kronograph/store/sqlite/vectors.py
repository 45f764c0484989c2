"""Stored vectors, held in memory per group for brute-force cosine search.

One table per (scope, group): the uuids and a float32 matrix of unit
vectors (held by dimension, see :class:`_Table`), loaded on first search
and kept in step with the plans this connection commits; a commit by
another connection (``data_version``) empties it. A full product over
100,000 vectors of 256 dimensions reads 100 MB (10-30 ms on one core of a
small VM); a sparse query vector (the hashing embedder's) reads a tenth of
that. Past a few hundred thousand vectors per group an approximate index
(HNSW, or pgvector on the server backend) should take over.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from ..plan import Plan

__all__ = ["VectorIndex"]

SPARSE = 4  # a query vector with at most 1/SPARSE of its values nonzero is scored dimension by dimension

_SQL = {
    "facts": "SELECT uuid, embedding FROM facts WHERE group_id = ? AND embedding IS NOT NULL",
    "entities": "SELECT uuid, embedding FROM entities WHERE group_id = ? AND embedding IS NOT NULL",
    "episodes": "SELECT uuid, embedding FROM episodes WHERE group_id = ? AND embedding IS NOT NULL"
    " AND status = 'complete'",
    "communities": "SELECT uuid, embedding FROM communities WHERE group_id = ? AND embedding IS NOT NULL",
}


@dataclass(slots=True)
class _Table:
    """Held by dimension (one contiguous row of every item's values per
    dimension): a query vector with few nonzero values, as the offline
    hashing embedder's are, is scored from those dimensions' rows alone, a
    tenth of the memory a full product reads."""

    uuids: list[str] = field(default_factory=list)
    columns: np.ndarray | None = None  # dimension x item, float32
    pending: list[tuple[str, bytes]] = field(default_factory=list)

    def _settle(self) -> np.ndarray | None:
        if self.pending:
            rows = np.frombuffer(b"".join(v for _, v in self.pending), dtype=np.float32)
            rows = rows.reshape(len(self.pending), -1).T
            self.columns = np.ascontiguousarray(rows if self.columns is None else np.hstack([self.columns, rows]))
            self.uuids.extend(u for u, _ in self.pending)
            self.pending.clear()
        return self.columns

    def rows(self, uuids: list[str]) -> dict[str, np.ndarray]:
        """The vectors of these uuids (those it holds)."""
        columns = self._settle()
        if columns is None:
            return {}
        wanted = set(uuids)
        return {u: columns[:, i].copy() for i, u in enumerate(self.uuids) if u in wanted}

    def scores(self, vector: np.ndarray) -> np.ndarray | None:
        """The dot product of ``vector`` with every held vector (None when
        their dimensions differ: another embedder's vectors compare to nothing)."""
        columns = self._settle()
        if columns is None or columns.shape[0] != vector.shape[0]:
            return None
        vector = vector.astype(np.float32, copy=False)
        dims = np.flatnonzero(vector)
        if len(dims) * SPARSE > len(vector):  # dense: one matrix product
            return vector @ columns
        out = np.zeros(columns.shape[1], dtype=np.float32)
        term = np.empty_like(out)
        for d in dims.tolist():  # in dimension order: equal vectors get equal scores
            np.multiply(columns[d], vector[d], out=term)
            out += term
        return out

    def top(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        scores = self.scores(vector)
        if scores is None or not len(self.uuids) or k < 1:
            return []
        k = min(k, len(scores))
        best = np.sort(np.argpartition(-scores, k - 1)[:k])  # equal scores: the earlier first
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(self.uuids[i], float(scores[i])) for i in best]


class VectorIndex:
    """The tables of the (scope, group) pairs searched last: at most
    ``HELD`` of them, the least recently searched dropped first (read again
    when next searched), so a process serving many groups stays bounded."""

    HELD = 64

    def __init__(self) -> None:
        self._version: int | None = None
        self._tables: OrderedDict[tuple[str, str], _Table] = OrderedDict()

    def check(self, version: int) -> None:
        """Forget everything if another connection wrote since the last check."""
        if version != self._version:
            self._tables.clear()
            self._version = version

    def table(self, conn: sqlite3.Connection, scope: str, group_id: str) -> _Table:
        key = (scope, group_id)
        found = self._tables.get(key)
        if found is None:
            found = _Table(pending=[(u, v) for u, v in conn.execute(_SQL[scope], (group_id,))])
            self._tables[key] = found
            while len(self._tables) > self.HELD:
                self._tables.popitem(last=False)
        self._tables.move_to_end(key)
        return found

    def applied(self, plan: Plan) -> None:
        """Follow a plan this connection has just committed: new vectors are
        appended; a scope the plan deletes rows from is loaded again when next
        searched."""
        g = plan.group_id
        for scope, vectors, deleted in (
            ("facts", plan.fact_embeddings, plan.delete_facts),
            ("entities", plan.entity_embeddings, plan.delete_entities),
            ("episodes", plan.episode_embeddings, plan.delete_episodes),
        ):
            table = self._tables.get((scope, g))
            if table is None:
                continue
            if deleted:
                del self._tables[(scope, g)]
            elif vectors:
                table.pending.extend(vectors.items())
        if plan.renamed_embeddings:  # an entity's vector rewritten in place: read again when next searched
            self._tables.pop(("entities", g), None)
        # Communities are replaced or rewritten in place: read again when next searched.
        cleared = plan.purge is not None and plan.purge.communities
        if (plan.replace_communities or plan.new_communities or plan.updated_communities or plan.community_embeddings
                or plan.delete_communities or cleared):
            self._tables.pop(("communities", g), None)
