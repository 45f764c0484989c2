"""Search: candidates from each method, one reranker, items under a temporal
mode and filters. No model is called here: the query vector comes in ready,
and a cross-encoder, if any, is injected."""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from ..lookahead import known_sources, timeless
from ..metrics import record_search
from ..model import Community, Entity, Episode, Fact, fold_relation, normalise_name
from ..qualifiers import matches
from ..store.protocol import FactQuery, SearchReads
from .fit import entity_fit, episode_fit, fact_fit
from .graph import store_hops
from .names import lookup, named_in
from .question import Question, analyse
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
    include_events: bool = False  # events (moments) are not standing facts: only when asked for
    centers: tuple[str, ...] = ()  # entity names or uuids
    filters: SearchFilters | None = None
    cross_encoder: CrossEncoder | None = None
    cosine_weight: float = 0.3  # the embedder's, when the recipe names none
    question: Question | None = None  # the query's analysis (made from ``query`` when not given)
    scope_limits: tuple[tuple[str, int], ...] = ()  # (scope, limit) where a scope needs fewer than ``limit``
    widening: int = 16  # how many times the candidates a scope may ask for when the mode hides most of them
    # A point-in-time view's search (``AsyncMemory.at``): nothing without a
    # history (aliases, labels, summaries) names, matches or is shown.
    point_in_time: bool = False

    @property
    def asked(self) -> Question:
        return self.question if self.question is not None else analyse(self.query)

    def limit_for(self, scope: str) -> int:
        """The hits wanted of ``scope``: a caller that shows few entities
        need not pay for reading many."""
        return next((n for s, n in self.scope_limits if s == scope), self.limit)


@dataclass(frozen=True, slots=True)
class _Asked:
    """What one group's search works from: hops from the centres, the
    entities the query names (uuid -> how surely) and the words full text matches."""

    question: Question
    hops: dict[str, int]
    named: dict[str, float]
    terms: str


@dataclass(slots=True)
class _Candidates:
    rankings: dict[str, list[str]]  # method -> uuids, best first
    scores: dict[str, dict[str, float]] = field(default_factory=dict)  # method -> uuid -> score
    hidden: int | None = None  # full-text matches the temporal mode hid, when counted at the source
    more: bool = False  # a method may have more candidates than it gave

    def found_by(self, uuid: str) -> tuple[str, ...]:
        return tuple(m for m in self.rankings if uuid in self.scores.get(m, ()))

    def union(self) -> list[str]:
        return list(dict.fromkeys(u for ranked in self.rankings.values() for u in ranked))

    def add(self, method: str, scored: Sequence[tuple[str, float]]) -> None:
        self.rankings[method] = [u for u, _ in scored]
        self.scores[method] = dict(scored)

    def keeping(self, kept: Collection[str]) -> _Candidates:
        return _Candidates(
            {m: [u for u in r if u in kept] for m, r in self.rankings.items()},
            {m: {u: v for u, v in s.items() if u in kept} for m, s in self.scores.items()},
        )


async def run_search(store: SearchReads, request: SearchRequest) -> SearchResults:
    """Search every group asked for; hits of several groups are merged by
    score. A store that can answer many reads in one (SQLite's
    ``in_one_read``: one hand-off to a reader thread and one snapshot, not
    one per read) runs the whole search so, unless a cross-encoder (a model
    call, that must not run there) reranks."""
    at_once = getattr(store, "in_one_read", None)
    if at_once is not None and not (request.recipe.reranker == "cross_encoder" and request.cross_encoder is not None):
        found: SearchResults = await at_once(lambda: _search(store, request))
        return found
    return await _search(store, request)


async def _search(store: SearchReads, request: SearchRequest) -> SearchResults:
    out: dict[str, list[Hit[Any]]] = {scope: [] for scope in SCOPES}
    left_out = 0
    question = request.asked
    for group_id in request.group_ids:
        asked = await _ask(store, group_id, request, question)
        for scope in request.scopes:
            if scope == "communities" and (request.as_of is not None or request.known_at is not None):
                continue  # communities describe the graph of their last build, not another moment
            hits, dropped = await _scope(store, group_id, scope, request, asked)
            out[scope].extend(hits)
            left_out += dropped
    for scope, hits in out.items():
        hits.sort(key=lambda h: -h.score)
        del hits[request.limit_for(scope) :]
    return SearchResults(
        facts=out["facts"], entities=out["entities"], episodes=out["episodes"], communities=out["communities"],
        left_out=0 if request.point_in_time else left_out,  # it would count facts learned later
    )


def _moment(request: SearchRequest) -> datetime | None:
    """The one moment facts must be valid at, when the mode names one: now
    (the default) or ``as_of``. None: every interval, or a past belief."""
    if request.include_retired or request.known_at is not None:
        return None
    return request.as_of or request.now


async def _hops(store: SearchReads, group_id: str, request: SearchRequest) -> dict[str, int]:
    """Hop distances of entities from the centre entities (empty without centres)."""
    if not request.centers:
        return {}
    keys = {normalise_name(c) for c in request.centers}
    found = [*await store.entities_named(group_id, keys), *await store.entities_by_uuid(group_id, request.centers)]
    centers = {e.uuid for e in found if request.known_at is None or e.created_at <= request.known_at}
    if not centers:
        return {}
    # A view walks the facts valid at its moment (as believed now: the walk has no record time).
    at = request.as_of if request.point_in_time else _moment(request)
    return await store_hops(store, group_id, centers, depth=request.recipe.bfs_depth, at=at)


# The rerankers whose scores the fit of an item adds to (see ``fit``): the
# default's, which fuses the methods' scores. The others are orders a caller chose.
_BOOSTED = ("fusion",)


async def _ask(store: SearchReads, group_id: str, request: SearchRequest, question: Question) -> _Asked:
    """The group's side of the question: hops from the centres and the
    entities the query names (one bounded read). An entity named by an alias
    or a near spelling lends full text its own name, so "Mayaa" finds Maya."""
    hops = await _hops(store, group_id, request)
    found = lookup(question)
    candidates = await store.entities_named_in(
        group_id, found.keys, found.words, found.prefixes, found.limit
    ) if found and request.recipe.reranker in _BOOSTED else []
    if request.known_at is not None:  # what the memory did not know of then names nothing
        candidates = [e for e in candidates if e.created_at <= request.known_at]
    named = named_in(question, candidates)
    if request.point_in_time:  # an alias has no time: it may have been learned later
        named = [n for n in named if n.how != "alias"]
    extra = [n.entity.name for n in named if n.how in ("alias", "fuzzy")]
    terms = " ".join([question.terms, *dict.fromkeys(extra)])
    return _Asked(question, hops, {n.entity.uuid: n.strength for n in named}, terms)


async def _candidates(
    store: SearchReads, group_id: str, scope: str, request: SearchRequest, asked: _Asked, n: int
) -> _Candidates:
    recipe = request.recipe
    hops = asked.hops
    found = _Candidates({})
    if "bm25" in recipe.methods:
        started = time.perf_counter()
        moment = _moment(request)
        if scope == "facts" and moment is not None:
            text, found.hidden, found.more = await store.search_current_facts(
                group_id, asked.terms, n, moment, include_events=request.include_events
            )
        else:
            text = await store.search_text(
                group_id, scope, asked.terms, n, episodes_before=request.as_of, episodes_known_at=request.known_at
            )
        found.add("bm25", text)
        record_search(scope, "bm25", time.perf_counter() - started)
    if "cosine" in recipe.methods and request.vector is not None:
        started = time.perf_counter()
        near = await store.search_vectors(group_id, scope, request.vector, n)
        found.add("cosine", [(u, s) for u, s in near if s > 0])
        record_search(scope, "cosine", time.perf_counter() - started)
    if "bfs" in recipe.methods and hops:
        started = time.perf_counter()
        found.add("bfs", await _by_distance(store, group_id, scope, hops, n, _moment(request)))
        record_search(scope, "bfs", time.perf_counter() - started)
    if asked.named and scope in ("facts", "entities"):
        found.add("names", await _by_name(store, group_id, scope, asked.named, n, _moment(request)))
    return found


async def _by_name(
    store: SearchReads, group_id: str, scope: str, named: dict[str, float], n: int, at: datetime | None
) -> list[tuple[str, float]]:
    """The named entities, or the facts touching them (surest name first),
    scored by how surely each is named."""
    order = sorted(named, key=lambda u: -named[u])
    if scope == "entities":
        return [(u, named[u]) for u in order]
    touching = await store.touching_facts(group_id, order, n, at)  # entity by entity, surest first
    return [(fact, max(named.get(source, 0.0), named.get(target, 0.0))) for fact, source, target in touching]


async def _fitted(
    store: SearchReads, group_id: str, scope: str, asked: _Asked, ranked: list[tuple[str, float]],
    items: dict[str, Any], labels_known: bool = True,
) -> list[tuple[str, float]]:
    """Each item's score plus its fit (``fit``) in shares of the best score:
    near matches reorder by what the question asks; a clearly better match stays first."""
    question, named = asked.question, asked.named
    if not ranked or (not named and not question.wants and scope != "facts") or scope == "communities":
        return ranked
    scale = max((s for _, s in ranked), default=0.0) or 1.0
    if scope == "facts":
        labels: dict[str, tuple[str, ...]] = {}
        if question.wants and labels_known:  # a view's: labels have no history
            ends = {u for uid, _ in ranked for u in (items[uid].subject_uuid, items[uid].object_uuid)}
            labels = {e.uuid: e.labels for e in await store.entities_by_uuid(group_id, ends)}
        fit = {u: fact_fit(items[u], question, named, labels) for u, _ in ranked}
    elif scope == "entities":
        fit = {u: entity_fit(items[u], question, named) for u, _ in ranked}
    else:
        if not named:
            return ranked
        mentioned = await store.mentions_among(group_id, list(named), [u for u, _ in ranked])
        fit = {u: episode_fit(mentioned.get(u, ()), named) for u, _ in ranked}
    boosted = [(u, s + scale * fit[u]) for u, s in ranked]
    return sorted(boosted, key=lambda kv: -kv[1])  # stable: ties keep the methods' order


async def _by_distance(
    store: SearchReads, group_id: str, scope: str, hops: dict[str, int], n: int, at: datetime | None
) -> list[tuple[str, float]]:
    """Entities by hops from the centres; facts touching the nearest first;
    scored 1 / (1 + hops)."""
    if scope == "entities":
        ranked = sorted(hops.items(), key=lambda kv: (kv[1], kv[0]))[:n]  # ties: a fixed order
        return [(u, 1.0 / (1 + d)) for u, d in ranked]
    if scope != "facts":
        return []
    out: dict[str, float] = {}
    for level in range(max(hops.values(), default=-1) + 1):
        ring = sorted(u for u, d in hops.items() if d == level)
        for uuid, _, _ in await store.touching_facts(group_id, ring, n - len(out), at):
            out.setdefault(uuid, 1.0 / (1 + level))
        if len(out) >= n:
            break
    return list(out.items())[:n]


async def _rerank(
    store: SearchReads, group_id: str, scope: str, request: SearchRequest, found: _Candidates, asked: _Asked,
    items: dict[str, Any],
) -> list[tuple[str, float]]:
    recipe = request.recipe
    hops = asked.hops
    if recipe.reranker == "fusion":
        weight = recipe.cosine_weight if recipe.cosine_weight is not None else request.cosine_weight
        fused = _fuse(found, weight, scope)
        seen = {u for u, _ in fused}
        fused += [(u, 0.0) for u in found.rankings.get("names", ()) if u not in seen]  # named, but no word matched
        return await _fitted(store, group_id, scope, asked, fused, items, labels_known=not request.point_in_time)
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
    if recipe.reranker == "episode_mentions" and scope != "communities":  # a community has no mentions
        return episode_mentions(ids, await store.mention_counts(group_id, scope, ids))
    if recipe.reranker == "cross_encoder" and request.cross_encoder is not None:
        return await cross_encode(request.cross_encoder, request.query, [(u, _text(items[u])) for u in ids])
    return fused


def _fuse(found: _Candidates, cosine_weight: float, scope: str) -> list[tuple[str, float]]:
    """Each method's scores scaled to [0, 1] over its candidates, weighted and
    added: cosine gets ``cosine_weight``, full text and graph the rest.
    Cosines and the full text of episodes are scaled from the worst candidate
    (0) to the best (1); the full text and graph scores of facts and entities,
    short statements that differ mostly in length, from 0 (no match), so
    that two facts matching the same words stay near equal."""
    total: dict[str, float] = {}
    for method, scores in found.scores.items():
        if not scores or method == "names":
            continue
        weight = cosine_weight if method == "cosine" else 1.0 - cosine_weight
        low, high = min(scores.values()), max(scores.values())
        if method != "cosine" and scope in ("facts", "entities") and low >= 0:
            low = 0.0
        for uuid, score in scores.items():
            scaled = (score - low) / (high - low) if high > low else 1.0
            total[uuid] = total.get(uuid, 0.0) + weight * scaled
    order = {u: i for i, u in enumerate(found.union())}
    return sorted(total.items(), key=lambda kv: (-kv[1], order[kv[0]]))


async def _with_context(
    store: SearchReads, group_id: str, request: SearchRequest, ranked: list[tuple[str, float]], items: dict[str, Any]
) -> tuple[list[tuple[str, float]], dict[str, Any]]:
    """Lend ``context`` of each episode's score to the episodes just before
    and after it in the group: in a conversation the answer is often the
    message next to the one that matches the question."""
    share = request.recipe.context
    head = ranked[: max(request.limit_for("episodes") * 3, 30)]
    neighbours = await store.episode_neighbours(group_id, [u for u, _ in head])
    total = dict(ranked)
    for uuid, score in head:
        for other in neighbours.get(uuid, ()):
            total[other] = total.get(other, 0.0) + share * score
    new = [u for u in total if u not in items]
    if new:
        more, _ = await _items(store, group_id, "episodes", new, request)
        items = {**items, **more}
    return sorted(((u, v) for u, v in total.items() if u in items), key=lambda kv: -kv[1]), items


async def _scope(
    store: SearchReads, group_id: str, scope: str, request: SearchRequest, asked: _Asked
) -> tuple[list[Hit[Any]], int]:
    """The best hits of one scope. When the mode or the filters leave fewer
    than ``limit`` of the candidates while a method was cut short, the
    methods are asked again for more (up to ``request.widening`` times as many)."""
    n, limit = request.recipe.candidates, request.limit_for(scope)
    while True:
        found = await _candidates(store, group_id, scope, request, asked, n)
        union = found.union()
        if not union:
            return [], 0
        items, dropped = await _items(store, group_id, scope, union, request, found)
        cut_short = found.more or any(len(r) >= n for r in found.rankings.values())
        if len(items) >= limit or not cut_short or n >= request.recipe.candidates * request.widening:
            break
        n *= 4
    ranked = await _rerank(store, group_id, scope, request, found.keeping(items), asked, items)
    if scope == "episodes" and request.recipe.reranker == "fusion" and request.recipe.context > 0 and ranked:
        ranked, items = await _with_context(store, group_id, request, ranked, items)
    kept = [(u, score) for u, score in ranked if u in items][:limit]
    return [Hit(items[u], score, found.found_by(u) or ("context",)) for u, score in kept], dropped


def _text(item: Any) -> str:
    if isinstance(item, Fact):
        return item.fact
    if isinstance(item, Entity):
        return f"{item.name}: {item.summary}" if item.summary else item.name
    if isinstance(item, Episode):
        return item.content or item.name
    if isinstance(item, Community):
        return f"{item.name}: {item.summary}" if item.summary else item.name
    return str(item)


async def _items(
    store: SearchReads, group_id: str, scope: str, uuids: list[str], request: SearchRequest,
    found: _Candidates | None = None,
) -> tuple[dict[str, Any], int]:
    """The items behind the candidates that the temporal mode and the filters
    keep, and how many facts that matched the words or the graph (not merely
    a nearby vector) the temporal mode left out."""
    filters = request.filters or SearchFilters()
    if scope == "facts":
        query = FactQuery(
            as_of=request.as_of or request.known_at or request.now,
            known_at=request.known_at,
            include_retired=request.include_retired,
            uuids=tuple(uuids),
            event=None if request.include_events else False,
        )
        read = await store.facts(group_id, query)
        if request.point_in_time and request.known_at is not None:
            read = await known_sources(store, group_id, read, request.known_at)
        facts = {f.uuid: f for f in read}
        kept = await _facts_filtered(store, group_id, list(facts.values()), filters)
        dropped = 0
        if found is not None and found.hidden is not None:
            dropped = found.hidden  # every full-text match the mode hid, counted where they were ranked
        elif found is not None and not request.include_retired:
            matched = {u for m in ("bm25", "bfs") for u in found.rankings.get(m, ())}
            dropped = len(matched - set(facts))
        return {f.uuid: f for f in kept}, dropped
    if scope == "entities":
        entities = await store.entities_by_uuid(group_id, uuids)
        known = await store.entities_known_by(group_id, uuids, request.as_of) if request.as_of else None
        out = {
            e.uuid: e for e in entities
            if (request.known_at is None or e.created_at <= request.known_at)
            and (known is None or e.uuid in known)
            and (not filters.labels or _has_label(e, filters.labels))
        }
        if request.point_in_time:
            out = {u: timeless(e) for u, e in out.items() if _shown_by_name(request, e, found)}
        return out, 0
    if scope == "communities":  # current only (see run_search); filters narrow facts, entities and episodes
        return {c.uuid: c for c in await store.communities(group_id, uuids)}, 0
    episodes = await store.episodes_by_uuid(group_id, uuids)
    kept_episodes = {
        p.uuid: p for p in episodes
        if p.status == "complete" and p.kind != "fact"
        and (request.as_of is None or p.reference_time <= request.as_of)
        and (request.known_at is None or p.created_at <= request.known_at)
        and (not filters.episode_kinds or str(p.kind).casefold() in filters.episode_kinds)
        and (not filters.sagas or p.saga in filters.sagas)
        and (filters.reference_time is None or filters.reference_time.contains(p.reference_time))
    }
    return kept_episodes, 0


def _shown_by_name(request: SearchRequest, entity: Entity, found: _Candidates | None) -> bool:
    """Whether a point-in-time view may show this entity hit: full text
    also reads summaries, written later, so an entity found by full text
    alone must share a word of the query with its name."""
    if found is None or found.found_by(entity.uuid) != ("bm25",):
        return True
    return bool(set(request.asked.terms.casefold().split()) & set(normalise_name(entity.name).split()))


def _has_label(entity: Entity, labels: Sequence[str]) -> bool:
    wanted = {label.casefold() for label in labels}
    return any(label.casefold() in wanted for label in entity.labels)


async def _facts_filtered(store: SearchReads, group_id: str, facts: list[Fact], filters: SearchFilters) -> list[Fact]:
    relations = {fold_relation(r) for r in filters.relations}
    kept = [
        f for f in facts
        if (not relations or fold_relation(f.relation) in relations)
        and (filters.valid_at is None or filters.valid_at.contains(f.valid_at))
        and (filters.invalid_at is None or filters.invalid_at.contains(f.invalid_at))
        and (filters.created_at is None or filters.created_at.contains(f.created_at))
        and (filters.expired_at is None or filters.expired_at.contains(f.expired_at))
        and (not filters.qualifiers or matches(f.qualifiers, filters.qualifiers))
    ]
    if filters.labels and kept:
        ends = {u for f in kept for u in (f.subject_uuid, f.object_uuid)}
        labelled = {e.uuid for e in await store.entities_by_uuid(group_id, ends) if _has_label(e, filters.labels)}
        kept = [f for f in kept if f.subject_uuid in labelled or f.object_uuid in labelled]
    return kept
