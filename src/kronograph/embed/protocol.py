"""What the memory asks of an embedder: texts in, unit vectors out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Embedder"]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors of a fixed ``dimension``.

    ``name`` identifies the model (``"hashing-v1"``, ``"openai:text-embedding-3-small"``):
    a store records the name and dimension of the embedder that wrote its
    vectors, and refuses vectors of another dimension. ``embed`` returns a
    float32 array of shape ``(len(texts), dimension)`` whose rows have unit
    length (or are all zero for a text with nothing to embed), so a dot
    product is the cosine similarity.
    """

    name: str
    dimension: int

    async def embed(self, texts: Sequence[str]) -> np.ndarray: ...
