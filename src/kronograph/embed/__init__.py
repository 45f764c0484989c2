"""Embedders: texts in, unit vectors out.

:class:`HashingEmbedder` is the offline default (numpy only);
:class:`CachedEmbedder` puts a cache in front of any embedder. The others are
imported on first use, so a missing optional SDK or model library breaks
only the embedder that needs it, never this package.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

from ..errors import EmbeddingError
from .cache import CachedEmbedder, embedding_for
from .hashing import HashingEmbedder
from .protocol import FUSION_WEIGHT, Embedder, fusion_weight, is_lexical

if TYPE_CHECKING:
    from .local import SentenceTransformerEmbedder
    from .openai import OpenAIEmbedder

__all__ = [
    "FUSION_WEIGHT",
    "CachedEmbedder",
    "Embedder",
    "HashingEmbedder",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "check_dimension",
    "embedding_for",
    "fusion_weight",
    "is_lexical",
]

_log = logging.getLogger(__name__)
_LAZY = {"SentenceTransformerEmbedder": ".local", "OpenAIEmbedder": ".openai"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def check_dimension(embedder: Embedder, recorded: tuple[str, int] | None) -> None:
    """Refuse an embedder whose vectors could not be compared with the ones a
    store already holds. ``recorded`` is the store's (name, dimension), or
    ``None`` for a store with no embeddings yet.

    Another embedder of the *same* dimension is let through with a warning:
    its vectors fit, but cosine between two models' vectors means little, so
    search quality degrades until the store is re-embedded.
    """
    if recorded is None:
        return
    name, dimension = recorded
    if dimension != embedder.dimension:
        raise EmbeddingError(
            f"this store's embeddings were written by {name} with dimension {dimension}; "
            f"the configured embedder {embedder.name} makes {embedder.dimension}. "
            "Configure the original embedder, or re-embed the store."
        )
    if name != embedder.name:
        _log.warning(
            "this store's embeddings were written by %s; the configured embedder %s has the same dimension (%d) "
            "but its vectors are not comparable with the stored ones: similarity search will mix two models",
            name,
            embedder.name,
            dimension,
        )
