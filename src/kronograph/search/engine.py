"""Search: candidates from each method, one reranker, items under a temporal
mode and filters. No model is called here: the query vector comes in ready,
and a cross-encoder, if any, is injected."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from ..model import Entity, Episode, Fact, fold_relation, normalise_name
from ..store.protocol import FactQuery, Store
from .graph import shortest_hops_async
from .recipes import Recipe
from .rerankers import cross_encode, episode_mentions, mmr, node_distance, rrf
from .types import CrossEncoder, Hit, SearchFilters, SearchResults

__all__ = ["SCOPES", "SearchRequest", "run_search"]

SCOPES = ("facts", "entities", "episodes", "communities")


@dataclass(frozen=True, slots=True)
class SearchRequest:
    group_ids: tuple[str, ...]
    query: str
    vector: np.ndarray | None
    scopes: tuple[str, ...]
    recipe: Recipe
    limit: int
    now: datetime
    as_of: datetime | None = None
    known_at: datetime | None = None
    include_retired: bool = False
    centers: tuple[str, ...] = ()  # entity names or uuids
    filters: SearchFilters | None = None
    cross_encoder: CrossEncoder | None = None


@dataclass(slots=True)
class _Candidates:
    rankings: dict[str, list[str]]  # method -> uuids, best first

    def found_by(self, uuid: str) -> tuple[str, ...]:
        return tuple(m for m, ranked in self.rankings.items() if uuid in ranked)

    def union(self) -> list[str]:
        return list(dict.fromkeys(u for ranked in self.rankings.values() for u in ranked))


async def run_search(store: Store, request: SearchRequest) -> SearchResults:
    """Search every group asked for; hits of several groups are merged by score."""
    out: dict[str, list[Hit[Any]]] = {scope: [] for scope in SCOPES}
    left_out = 0
    for group_id in request.group_ids:
        hops = await _hops(store, group_id, request)
        for scope in request.scopes:
            if scope == "communities":
                continue  # communities are built by maintenance; none exist to search yet
            hits, dropped = await _scope(store, group_id, scope, request, hops)
            out[scope].extend(hits)
            left_out += dropped
    for hits in out.values():
        hits.sort(key=lambda h: -h.score)
        del hits[request.limit :]
    return SearchResults(
        facts=out["facts"], entities=out["entities"], episodes=out["episodes"], communities=out["communities"],
        left_out=left_out,
    )


async def _hops(store: Store, group_id: str, request: SearchRequest) -> dict[str, int]:
    """Hop distances of entities from the centre entities (empty without centres)."""
    if not request.centers:
        return {}
    keys = {normalise_name(c) for c in request.centers}
    centers = {e.uuid for e in await store.entities_named(group_id, keys)}
    centers |= {e.uuid for e in await store.entities_by_uuid(group_id, request.centers)}
    if not centers:
        return {}

    async def neighbours(frontier: Collection[str]) -> dict[str, set[str]]:
        return await store.neighbours(group_id, frontier)

    return await shortest_hops_async(centers, neighbours, depth=request.recipe.bfs_depth)


async def _candidates(
    store: Store, group_id: str, scope: str, request: SearchRequest, hops: dict[str, int]
) -> _Candidates:
    recipe, n = request.recipe, request.recipe.candidates
    rankings: dict[str, list[str]] = {}
    if "bm25" in recipe.methods:
        found = await store.search_text(
            group_id, scope, request.query, n, episodes_before=request.as_of, episodes_known_at=request.known_at
        )
        rankings["bm25"] = [u for u, _ in found]
    if "cosine" in recipe.methods and request.vector is not None:
        found = await store.search_vectors(group_id, scope, request.vector, n)
        rankings["cosine"] = [u for u, s in found if s > 0]
    if "bfs" in recipe.methods and hops:
        rankings["bfs"] = await _by_distance(store, group_id, scope, hops, n)
    return _Candidates(rankings)


async def _by_distance(store: Store, group_id: str, scope: str, hops: dict[str, int], n: int) -> list[str]:
    """Entities by hops from the centres; facts touching the nearest first."""
    if scope == "entities":
        return [u for u, _ in sorted(hops.items(), key=lambda kv: (kv[1], kv[0]))][:n]  # ties: a fixed order
    if scope != "facts":
        return []
    out: list[str] = []
    for level in range(max(hops.values(), default=-1) + 1):
        ring = sorted(u for u, d in hops.items() if d == level)
        for uuid, _, _ in await store.touching_facts(group_id, ring, n - len(out)):
            if uuid not in out:
                out.append(uuid)
        if len(out) >= n:
            break
    return out[:n]


async def _rerank(
    store: Store, group_id: str, scope: str, request: SearchRequest, found: _Candidates, hops: dict[str, int],
    items: dict[str, Any],
) -> list[tuple[str, float]]:
    recipe = request.recipe
    fused = rrf(list(found.rankings.values()), k=recipe.rrf_k)
    ids = [u for u, _ in fused]
    if recipe.reranker == "mmr" and request.vector is not None:
        vectors = await store.item_vectors(group_id, scope, ids)
        ranked = mmr(request.vector, [(u, vectors[u]) for u in ids if u in vectors], lambda_=recipe.mmr_lambda)
        seen = {u for u, _ in ranked}
        return ranked + [(u, 0.0) for u in ids if u not in seen]
    if recipe.reranker == "node_distance" and hops:
        if scope == "entities":
            return node_distance(ids, hops)
        if scope == "facts":
            far = 1 << 20
            distance = {
                u: min(hops.get(items[u].subject_uuid, far), hops.get(items[u].object_uuid, far)) for u in ids
            }
            return node_distance(ids, {u: d for u, d in distance.items() if d < far})
        return fused
    if recipe.reranker == "episode_mentions":
        return episode_mentions(ids, await store.mention_counts(group_id, scope, ids))
    if recipe.reranker == "cross_encoder" and request.cross_encoder is not None:
        return await cross_encode(request.cross_encoder, request.query, [(u, _text(items[u])) for u in ids])
    return fused


async def _scope(
    store: Store, group_id: str, scope: str, request: SearchRequest, hops: dict[str, int]
) -> tuple[list[Hit[Any]], int]:
    found = await _candidates(store, group_id, scope, request, hops)
    union = found.union()
    if not union:
        return [], 0
    items, dropped = await _items(store, group_id, scope, union, request)
    kept = _Candidates({m: [u for u in r if u in items] for m, r in found.rankings.items()})
    ranked = await _rerank(store, group_id, scope, request, kept, hops, items)
    hits = [Hit(items[u], score, found.found_by(u)) for u, score in ranked if u in items]
    return hits[: request.limit], dropped


def _text(item: Any) -> str:
    if isinstance(item, Fact):
        return item.fact
    if isinstance(item, Entity):
        return f"{item.name}: {item.summary}" if item.summary else item.name
    if isinstance(item, Episode):
        return item.content or item.name
    return str(item)


async def _items(
    store: Store, group_id: str, scope: str, uuids: list[str], request: SearchRequest
) -> tuple[dict[str, Any], int]:
    """The items behind the candidates that the temporal mode and the filters
    keep, and how many facts the temporal mode left out."""
    filters = request.filters or SearchFilters()
    if scope == "facts":
        query = FactQuery(
            as_of=request.as_of or request.known_at or request.now,
            known_at=request.known_at,
            include_retired=request.include_retired,
            uuids=tuple(uuids),
        )
        facts = {f.uuid: f for f in await store.facts(group_id, query)}
        dropped = len(set(uuids) - set(facts))
        kept = await _facts_filtered(store, group_id, list(facts.values()), filters)
        return {f.uuid: f for f in kept}, dropped
    if scope == "entities":
        entities = await store.entities_by_uuid(group_id, uuids)
        out = {
            e.uuid: e for e in entities
            if (request.known_at is None or e.created_at <= request.known_at)
            and (not filters.labels or _has_label(e, filters.labels))
        }
        return out, 0
    episodes = await store.episodes_by_uuid(group_id, uuids)
    kept_episodes = {
        p.uuid: p for p in episodes
        if p.status == "complete"
        and (request.as_of is None or p.reference_time <= request.as_of)
        and (request.known_at is None or p.created_at <= request.known_at)
        and (not filters.episode_kinds or str(p.kind) in filters.episode_kinds)
        and (not filters.sagas or p.saga in filters.sagas)
        and (filters.reference_time is None or filters.reference_time.contains(p.reference_time))
    }
    return kept_episodes, 0


def _has_label(entity: Entity, labels: Sequence[str]) -> bool:
    wanted = {label.casefold() for label in labels}
    return any(label.casefold() in wanted for label in entity.labels)


async def _facts_filtered(store: Store, group_id: str, facts: list[Fact], filters: SearchFilters) -> list[Fact]:
    relations = {fold_relation(r) for r in filters.relations}
    kept = [
        f for f in facts
        if (not relations or fold_relation(f.relation) in relations)
        and (filters.valid_at is None or filters.valid_at.contains(f.valid_at))
        and (filters.invalid_at is None or filters.invalid_at.contains(f.invalid_at))
        and (filters.created_at is None or filters.created_at.contains(f.created_at))
        and (filters.expired_at is None or filters.expired_at.contains(f.expired_at))
    ]
    if filters.labels and kept:
        ends = {u for f in kept for u in (f.subject_uuid, f.object_uuid)}
        labelled = {e.uuid for e in await store.entities_by_uuid(group_id, ends) if _has_label(e, filters.labels)}
        kept = [f for f in kept if f.subject_uuid in labelled or f.object_uuid in labelled]
    return kept
