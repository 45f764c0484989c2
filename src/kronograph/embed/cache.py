"""An in-memory cache in front of any embedder.

Ingestion embeds the same entity names episode after episode; with a paid
or slow embedder those repeats are pure cost. The cache keeps the vectors of
the texts most recently seen, keyed by the groups the call is made for
(:func:`embedding_for`, set by the memory) and the exact text: whether a
text was seen before in another group never shows as a hit.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from ..errors import EmbeddingError, InvalidInputError
from .protocol import Embedder, fusion_weight, is_lexical

__all__ = ["CachedEmbedder", "embedding_for"]

# The groups the embed calls of the running task are for; () outside any group.
_groups: ContextVar[tuple[str, ...]] = ContextVar("kronograph_embedding_groups", default=())


@contextmanager
def embedding_for(group_ids: Iterable[str]) -> Iterator[None]:
    """Embed calls made inside are for these groups (a search may read
    several): a :class:`CachedEmbedder` serves them only what they embedded."""
    token = _groups.set(tuple(sorted(set(group_ids))))
    try:
        yield
    finally:
        _groups.reset(token)


class CachedEmbedder:
    """Wraps ``inner``: the same ``name`` and ``dimension``, the same vectors,
    but each distinct text is sent to ``inner`` once per group (see
    :func:`embedding_for`) while it stays among the ``maxsize`` most recently
    used."""

    def __init__(self, inner: Embedder, maxsize: int = 10_000) -> None:
        if maxsize < 1:
            raise InvalidInputError("maxsize", f"must be at least 1, got {maxsize}")
        self.inner = inner
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._vectors: OrderedDict[tuple[tuple[str, ...], str], np.ndarray] = OrderedDict()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:  # a property: some embedders learn theirs from the first reply
        return self.inner.dimension

    @property
    def fusion_weight(self) -> float:
        """The wrapped embedder's weight in search fusion (see docs/search.md)."""
        return fusion_weight(self.inner)

    @property
    def lexical(self) -> bool:
        """Whether the wrapped embedder's vectors are of words (search then embeds a question's content words)."""
        return is_lexical(self.inner)

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r}, maxsize={self.maxsize})"

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise InvalidInputError("texts", "expected a sequence of strings, got one string")
        groups = _groups.get()
        found: dict[str, np.ndarray] = {}
        for text in texts:
            vector = self._vectors.get((groups, text))
            if vector is not None:
                self._vectors.move_to_end((groups, text))
                found[text] = vector
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        self.hits += len(texts) - len(missing)  # texts answered without asking inner
        self.misses += len(missing)
        if missing:
            fresh = np.asarray(await self.inner.embed(missing), dtype=np.float32)
            if fresh.shape[0] != len(missing):
                raise EmbeddingError(f"{self.name} returned {fresh.shape[0]} vectors for {len(missing)} texts")
            for text, vector in zip(missing, fresh, strict=True):
                vector = vector.copy()
                vector.flags.writeable = False  # shared between callers: nobody may change it
                found[text] = self._vectors[(groups, text)] = vector
            while len(self._vectors) > self.maxsize:
                self._vectors.popitem(last=False)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([found[t] for t in texts])

    def clear(self) -> None:
        self._vectors.clear()
