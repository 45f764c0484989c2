"""Named search recipes: which methods find candidates, and how they are
reranked. Recipes are frozen; ``recipe.with_(...)`` makes a changed copy, so
a caller's change never leaks into another call."""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Literal

__all__ = ["RECIPES", "Recipe", "recipe_named"]

Method = Literal["bm25", "cosine", "bfs"]
Reranker = Literal["fusion", "rrf", "mmr", "node_distance", "episode_mentions", "cross_encoder"]


@dataclass(frozen=True, slots=True)
class Recipe:
    """``methods`` find candidates (each up to ``candidates`` per scope);
    ``reranker`` orders their union. ``fusion`` adds each method's scores,
    scaled to [0, 1] over its candidates, with ``cosine_weight`` for cosine
    (None: the embedder's own ``fusion_weight``, see docs/search.md) and the
    rest for full text; ``context`` then lends that share of an episode's
    score to the episodes just before and after it in its group (a message's
    neighbours often hold its answer). ``rrf_k``: reciprocal rank fusion's
    constant; ``mmr_lambda``: relevance against diversity (1 = relevance
    only); ``bfs_depth``: hops from the centre entities for ``bfs`` and
    ``node_distance``."""

    name: str
    methods: tuple[Method, ...] = ("bm25", "cosine")
    reranker: Reranker = "fusion"
    cosine_weight: float | None = None
    context: float = 0.35
    rrf_k: int = 60
    mmr_lambda: float = 0.5
    bfs_depth: int = 2
    candidates: int = 50

    def __post_init__(self) -> None:
        if not self.methods:
            raise ValueError("a recipe needs at least one method")
        for method in self.methods:
            if method not in ("bm25", "cosine", "bfs"):
                raise ValueError(f"unknown search method {method!r}: use bm25, cosine or bfs")
        if self.reranker not in ("fusion", "rrf", "mmr", "node_distance", "episode_mentions", "cross_encoder"):
            raise ValueError(f"unknown reranker {self.reranker!r}")
        if self.cosine_weight is not None and not 0 <= self.cosine_weight <= 1:
            raise ValueError("cosine_weight must be between 0 and 1")
        if not 0 <= self.context <= 1:
            raise ValueError("context must be between 0 and 1")
        if self.rrf_k < 1 or self.candidates < 1 or self.bfs_depth < 1:
            raise ValueError("rrf_k, candidates and bfs_depth must be at least 1")
        if not 0 <= self.mmr_lambda <= 1:
            raise ValueError("mmr_lambda must be between 0 and 1")

    def with_(self, **changes: Any) -> Recipe:
        return replace(self, **changes)


RECIPES = MappingProxyType(
    {
        r.name: r
        for r in (
            Recipe("hybrid"),  # the default: full text and vectors, fused by score, episodes with their context
            Recipe("hybrid_rrf", reranker="rrf", context=0.0),
            Recipe("bm25", methods=("bm25",), reranker="rrf", context=0.0),
            Recipe("cosine", methods=("cosine",), reranker="rrf", context=0.0),
            Recipe("hybrid_mmr", reranker="mmr"),
            Recipe("hybrid_node_distance", methods=("bm25", "cosine", "bfs"), reranker="node_distance"),
            Recipe("hybrid_episode_mentions", reranker="episode_mentions"),
            Recipe("hybrid_cross_encoder", reranker="cross_encoder"),
            Recipe("bfs", methods=("bfs",), reranker="node_distance"),
        )
    }
)


def recipe_named(name: str) -> Recipe:
    try:
        return RECIPES[name]
    except KeyError:
        raise ValueError(f"no recipe named {name!r}; the recipes are {sorted(RECIPES)}") from None
