"""``AsyncMemory.search`` as a function of the memory's shared services: the
arguments checked, the query embedded (the memory's embedder, never a model
in the read path), the search run and timed.

A function, not a method, so that maintenance (``forget`` proves what no
search returns any longer) searches exactly as a caller does without
reaching into the memory.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Sequence

import numpy as np

from . import checks
from ._arguments import TimeLike, search_arguments
from .errors import InvalidInputError
from .metrics import record_search, span
from .search.engine import SCOPES, SearchRequest, run_search
from .search.question import analyse
from .search.recipes import Recipe
from .search.types import CrossEncoder, SearchFilters, SearchResults
from .services import Services
from .store import Store

__all__ = ["search"]


async def search(
    services: Services,
    ready: Callable[[], Awaitable[Store]],
    cross_encoder: CrossEncoder | None,
    group_ids: str | Iterable[str],
    query: str,
    *,
    scopes: Iterable[str] = SCOPES,
    recipe: str | Recipe = "hybrid",
    limit: int = 10,
    as_of: TimeLike | None = None,
    known_at: TimeLike | None = None,
    include_retired: bool = False,
    include_events: bool = False,
    center_entity: str | Iterable[str] | None = None,
    filters: SearchFilters | None = None,
    query_vector: Sequence[float] | None = None,
) -> SearchResults:
    """See :meth:`kronograph.memory.AsyncMemory.search`; ``ready`` opens the store."""
    checks.flag("include_events", include_events)
    args = search_arguments(
        group_ids, query, scopes=scopes, recipe=recipe, limit=limit, as_of=as_of, known_at=known_at,
        include_retired=include_retired, center_entity=center_entity, filters=filters,
    )
    text, chosen = args.query, args.recipe
    question = analyse(text)  # once: the words that may match, the names, the kind of answer
    store = await ready()
    dimension = services.embedder.dimension
    if query_vector is not None:
        try:
            vector = np.asarray(query_vector, dtype=np.float32)
        except (TypeError, ValueError):
            raise InvalidInputError("query_vector", "expected a list of numbers") from None
        if vector.shape != (dimension,):
            raise InvalidInputError("query_vector", f"expected {dimension} numbers, got shape {vector.shape}")
        if not np.isfinite(vector).all():
            raise InvalidInputError("query_vector", "must hold finite numbers only (no NaN or infinity)")
    elif "cosine" in chosen.methods or chosen.reranker == "mmr":
        embedded = question.terms if services.lexical else text  # its vectors are words: not "who", "is"
        vector = np.frombuffer(await services.embed_one(embedded, args.groups), dtype=np.float32)
    else:
        vector = None
    request = SearchRequest(
        group_ids=args.groups, query=text, vector=vector, scopes=args.scopes, recipe=chosen, limit=args.limit,
        now=services.clock(), as_of=args.as_of, known_at=args.known_at, include_retired=include_retired,
        include_events=include_events,
        centers=args.centers, filters=args.filters, cross_encoder=cross_encoder,
        cosine_weight=services.fusion_weight, question=question,
    )
    started = time.perf_counter()
    with span("search", scopes=",".join(args.scopes), recipe=chosen.name):
        found = await run_search(store, request)
    record_search("all", "all", time.perf_counter() - started)
    return found
