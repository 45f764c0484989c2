"""Rerankers: pure functions from candidate ids (and what is known of them)
to a ranked list of ``(id, score)``, best first.

They touch no store and call no model, so each one is tested against rankings
worked out by hand; the one that needs a model, :func:`cross_encode`, takes it
as the :class:`~kronograph.search.types.CrossEncoder` protocol. Every function
is deterministic: equal scores keep the order in which the ids first appear
in the inputs, and an id repeated in one input keeps only its first place.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

import numpy as np

from ..errors import InvalidInputError
from .types import CrossEncoder

__all__ = ["cross_encode", "episode_mentions", "mmr", "node_distance", "rrf"]

Ranked = list[tuple[str, float]]
_V = TypeVar("_V")


def _first_seen(ids: Iterable[str]) -> list[str]:
    """The ids without repeats, in the order of their first appearance."""
    return list(dict.fromkeys(ids))


def _first_of_each(pairs: Iterable[tuple[str, _V]]) -> dict[str, _V]:
    """Each id with the value of its first occurrence, in first-occurrence order."""
    out: dict[str, _V] = {}
    for item, value in pairs:
        out.setdefault(item, value)
    return out


def _best_first(scores: Mapping[str, float]) -> Ranked:
    """Highest score first; Python's sort is stable, so ties keep the
    mapping's (first-appearance) order."""
    return sorted(scores.items(), key=lambda pair: -pair[1])


def rrf(rankings: Sequence[Sequence[str]], *, k: int = 60) -> Ranked:
    """Reciprocal rank fusion: each id scores ``sum(1 / (k + rank))`` over the
    rankings it appears in, rank counted from 1.

    Fusing ranks rather than scores is what lets BM25 and cosine, whose
    scores share no scale, be combined without calibration. The terms are
    added smallest rank first, so ids with the same ranks in different
    rankings get bit-identical sums and the tie falls to input order.
    """
    if k < 1:
        raise InvalidInputError("k", f"must be at least 1, got {k}")
    ranks: dict[str, list[int]] = {}
    for ranking in rankings:
        for rank, item in enumerate(_first_seen(ranking), start=1):
            ranks.setdefault(item, []).append(rank)
    return _best_first({item: math.fsum(1.0 / (k + r) for r in sorted(rs)) for item, rs in ranks.items()})


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1; zero rows stay zero (similarity 0 to all)."""
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def mmr(
    query: np.ndarray,
    candidates: Sequence[tuple[str, np.ndarray]],
    *,
    lambda_: float = 0.5,
    limit: int | None = None,
) -> Ranked:
    """Maximal marginal relevance, greedy: repeatedly take the candidate with
    the highest ``lambda_ * sim(query, d) - (1 - lambda_) * max sim(d, s)``
    over those already taken ``s`` (0 while none is), and score it with that
    value at the moment it was taken.

    Relevance alone returns near-duplicates side by side; the penalty makes
    room for facts that say something else. Vectors are normalised here, so
    similarities are cosines. ``limit`` stops the selection early (all by
    default); with ``lambda_ = 1`` the order is pure relevance.
    """
    if not 0.0 <= lambda_ <= 1.0:
        raise InvalidInputError("lambda_", f"must be between 0 and 1, got {lambda_}")
    if limit is not None and limit < 0:
        raise InvalidInputError("limit", f"must not be negative, got {limit}")
    unique = _first_of_each(candidates)
    ids = list(unique)
    count = len(ids) if limit is None else min(limit, len(ids))
    if count == 0:
        return []
    q = np.asarray(query, dtype=np.float64).reshape(-1)
    rows = [np.asarray(vector, dtype=np.float64).reshape(-1) for vector in unique.values()]
    if any(row.shape != q.shape for row in rows):
        raise InvalidInputError("candidates", f"every vector must have the query's dimension {q.shape[0]}")
    vectors = _unit_rows(np.stack(rows))
    relevance = vectors @ _unit_rows(q)
    redundancy = np.zeros(len(ids))  # max similarity to those taken; 0 while none is
    taken = np.zeros(len(ids), dtype=bool)
    ranked: Ranked = []
    for _ in range(count):
        value = lambda_ * relevance - (1.0 - lambda_) * redundancy
        value[taken] = -np.inf
        best = int(np.argmax(value))  # the first of equal maxima: input order breaks ties
        ranked.append((ids[best], float(value[best])))
        taken[best] = True
        # Cosines may be negative, so the first pick replaces the 0 rather than max-ing with it.
        # Only the taken row of the similarity matrix is ever needed: one product per step.
        similar = vectors @ vectors[best]
        redundancy = similar if len(ranked) == 1 else np.maximum(redundancy, similar)
    return ranked


def node_distance(candidates: Sequence[str], hops: Mapping[str, int], *, default: int | None = None) -> Ranked:
    """Nearest to the centre entities first, scored ``1 / (1 + hops)``.

    ``hops`` are shortest-path distances (see :func:`~kronograph.search.graph.
    shortest_hops`). An id missing from it is unreachable within the depth:
    it goes after every reachable one with score 0, or, given ``default``,
    counts as that many hops away.
    """
    if default is not None and default < 0:
        raise InvalidInputError("default", f"must not be negative, got {default}")
    distance: dict[str, float] = {}
    for item in _first_seen(candidates):
        known = hops.get(item, default)
        distance[item] = math.inf if known is None else float(known)
    order = sorted(distance.items(), key=lambda pair: pair[1])
    return [(item, 0.0 if math.isinf(d) else 1.0 / (1.0 + d)) for item, d in order]


def episode_mentions(candidates: Sequence[str], mentions: Mapping[str, int]) -> Ranked:
    """Most mentioned first, scored by the mention count (0 when unknown):
    an entity or fact that many episodes speak of is likely the one meant."""
    return _best_first({item: float(mentions.get(item, 0)) for item in _first_seen(candidates)})


async def cross_encode(encoder: CrossEncoder, query: str, candidates: Sequence[tuple[str, str]]) -> Ranked:
    """Score ``(id, text)`` pairs with a cross-encoder, best first.

    A cross-encoder reads query and passage together, so it ranks better
    than any vector, at a model call per passage; it is therefore only used
    to reorder candidates the other methods already found.
    """
    pairs = list(_first_of_each(candidates).items())
    if not pairs:
        return []
    scores = await encoder.score(query, [text for _, text in pairs])
    name = getattr(encoder, "name", type(encoder).__name__)
    if len(scores) != len(pairs):
        raise ValueError(f"the cross-encoder {name!r} returned {len(scores)} scores for {len(pairs)} passages")
    values = [float(s) for s in scores]
    if any(math.isnan(v) for v in values):
        raise ValueError(f"the cross-encoder {name!r} returned a NaN score")
    return _best_first({item: value for (item, _), value in zip(pairs, values, strict=True)})
