"""What the memory asks of an embedder: texts in, unit vectors out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["FUSION_WEIGHT", "Embedder", "fusion_weight", "is_lexical"]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors of a fixed ``dimension``.

    ``name`` identifies the model (``"hashing-v1"``, ``"openai:text-embedding-3-small"``):
    a store records the name and dimension of the embedder that wrote its
    vectors, and refuses vectors of another dimension. ``embed`` returns a
    float32 array of shape ``(len(texts), dimension)`` whose rows have unit
    length (or are all zero for a text with nothing to embed), so a dot
    product is the cosine similarity.

    Two attributes are optional, and only :func:`fusion_weight` and
    :func:`is_lexical` read them: ``fusion_weight`` (a float, how far search
    fusion trusts the vectors; :data:`FUSION_WEIGHT` when absent) and
    ``lexical`` (True when the vectors are of words, so search embeds only a
    question's content words; False when absent).
    """

    name: str
    dimension: int

    async def embed(self, texts: Sequence[str]) -> np.ndarray: ...


FUSION_WEIGHT = 0.3
"""Search fusion's weight for the cosines of an embedder that declares none (docs/search.md)."""


def fusion_weight(embedder: Embedder) -> float:
    """The embedder's declared ``fusion_weight``, else :data:`FUSION_WEIGHT`."""
    return float(getattr(embedder, "fusion_weight", FUSION_WEIGHT))


def is_lexical(embedder: Embedder) -> bool:
    """Whether the embedder declares its vectors lexical (``lexical = True``)."""
    return bool(getattr(embedder, "lexical", False))
