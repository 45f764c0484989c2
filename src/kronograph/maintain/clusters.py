"""The pure part of communities: the weighted entity graph, Louvain
clustering, centrality, names, stable ids and attaching new entities.

Nothing here reads a store or calls a model, so every decision is testable on
a handful of tuples. Louvain comes from networkx (the ``communities`` extra),
imported only when a clustering is asked for.
"""

from __future__ import annotations

import uuid as uuid_module
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ..errors import KronographError

__all__ = [
    "Graph",
    "attach",
    "community_name",
    "community_uuid",
    "louvain",
    "networkx",
    "rank_members",
]

INSTALL_HINT = "pip install 'kronograph[communities]'"
_NAMESPACE = uuid_module.UUID("6b67636f-6d6d-5c75-8e69-746965730000")  # kronograph's communities


def networkx() -> ModuleType:
    """networkx, or a KronographError saying how to install it."""
    try:
        import networkx as nx
    except ImportError:
        raise KronographError(
            f"communities need networkx (for Louvain clustering), which is not installed: {INSTALL_HINT}"
        ) from None
    return nx


@dataclass(slots=True)
class Graph:
    """Entities as nodes; an edge per pair of entities with a current fact
    between them (either direction), weighted by how many facts they share.
    ``links`` keeps each pair's fact uuids, for summaries."""

    weights: dict[tuple[str, str], int] = field(default_factory=dict)
    links: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    adjacency: dict[str, dict[str, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, edges: Iterable[tuple[str, str, str]]) -> Graph:
        """From (fact uuid, source, target) rows; a fact from an entity to
        itself links nothing."""
        graph = cls()
        for fact_uuid, source, target in edges:
            if source == target:
                continue
            pair = (source, target) if source < target else (target, source)
            graph.weights[pair] = graph.weights.get(pair, 0) + 1
            graph.links.setdefault(pair, []).append(fact_uuid)
        for (a, b), w in graph.weights.items():
            graph.adjacency.setdefault(a, {})[b] = w
            graph.adjacency.setdefault(b, {})[a] = w
        return graph

    def internal_pairs(self, members: Collection[str]) -> list[tuple[str, str]]:
        """The pairs of ``members`` with a fact between them."""
        inside = set(members)
        return [
            (a, b) if a < b else (b, a)
            for a in inside
            for b in self.adjacency.get(a, {})
            if b in inside and a < b
        ]


def louvain(graph: Graph, *, resolution: float, seed: int) -> list[list[str]]:
    """Louvain communities of two or more entities, each as sorted uuids;
    deterministic: nodes and edges go in sorted, and the seed is fixed."""
    nx = networkx()
    g = nx.Graph()
    g.add_nodes_from(sorted(graph.adjacency))
    g.add_weighted_edges_from((a, b, w) for (a, b), w in sorted(graph.weights.items()))
    if g.number_of_edges() == 0:
        return []
    found: Sequence[Any] = nx.algorithms.community.louvain_communities(
        g, weight="weight", resolution=resolution, seed=seed
    )
    clusters = [sorted(c) for c in found if len(c) >= 2]
    clusters.sort(key=lambda c: (-len(c), c[0]))
    return clusters


def rank_members(members: Iterable[str], graph: Graph, names: Mapping[str, str]) -> list[str]:
    """Most central first: the most weight on facts with other members, then
    by name and uuid (so two runs over one graph agree)."""
    inside = set(members)

    def key(u: str) -> tuple[int, str, str]:
        degree = sum(w for v, w in graph.adjacency.get(u, {}).items() if v in inside)
        return (-degree, names.get(u, "").casefold(), u)

    return sorted(inside, key=key)


def community_name(names: Sequence[str]) -> str:
    """From the members' names, most central first: "Alice and Bob",
    "Alice, Bob and Carol", "Alice, Bob and 3 more"."""
    if not names:
        return "(empty)"
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    if len(names) == 3:
        return f"{names[0]}, {names[1]} and {names[2]}"
    return f"{names[0]}, {names[1]} and {len(names) - 2} more"


def community_uuid(group_id: str, members: Iterable[str]) -> str:
    """A uuid of the group and the sorted member uuids: the same graph
    clustered again gives the same ids."""
    return str(uuid_module.uuid5(_NAMESPACE, "\x1f".join([group_id, *sorted(members)])))


def attach(
    unassigned: Sequence[str], membership: Mapping[str, str], graph: Graph, sizes: Mapping[str, int]
) -> dict[str, tuple[str, int]]:
    """Each entity of ``unassigned`` that can be placed, with the community
    holding most of its weighted neighbours and that weight. An entity
    attached in one pass counts for its neighbours in the next, so a chain
    of new entities follows its first link; ties go to the larger community,
    then the smaller uuid. Entities with no member among their neighbours
    stay out."""
    where = dict(membership)
    sizes = dict(sizes)
    out: dict[str, tuple[str, int]] = {}
    left = sorted(u for u in unassigned if u not in where)
    while left:
        placed = []
        for entity in left:
            votes: dict[str, int] = {}
            for other, w in graph.adjacency.get(entity, {}).items():
                community = where.get(other)
                if community is not None:
                    votes[community] = votes.get(community, 0) + w
            if not votes:
                continue
            best = min(votes, key=lambda c: (-votes[c], -sizes.get(c, 0), c))
            out[entity] = (best, votes[best])
            where[entity] = best
            sizes[best] = sizes.get(best, 0) + 1
            placed.append(entity)
        if not placed:
            break
        left = [u for u in left if u not in where]
    return out
