"""A local sentence-transformers cross-encoder, loaded only from disk.

Like the local embedder (:mod:`kronograph.embed.local`), it never downloads:
the model must be a directory path or already in the Hugging Face cache
(fetch it once with ``huggingface-cli download <name>``). Needs
``pip install 'kronograph[local]'``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..embed.local import load_local_model
from ..errors import EmbeddingError, InvalidInputError

__all__ = ["SentenceTransformerCrossEncoder"]


class SentenceTransformerCrossEncoder:
    """Implements :class:`~kronograph.search.types.CrossEncoder` with
    ``sentence_transformers.CrossEncoder``.

    The model loads when this is built, so a missing model fails at
    configuration rather than mid-search, and scores in a worker thread so
    the event loop never waits on it. Load and scoring failures are
    :class:`~kronograph.errors.EmbeddingError`, the error of local models.
    """

    def __init__(self, model_name_or_path: str, *, batch_size: int = 32, device: str | None = None) -> None:
        self._model: Any = load_local_model(
            "CrossEncoder", model_name_or_path, what="a local cross-encoder", device=device, batch_size=batch_size
        )
        self.name = f"local:{model_name_or_path}"
        self.batch_size = batch_size
        self._lock = threading.Lock()  # one predict at a time: a model is not made for concurrent calls

    def __repr__(self) -> str:
        return f"SentenceTransformerCrossEncoder({self.name!r})"

    async def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if isinstance(passages, str):
            raise InvalidInputError("passages", "expected a sequence of strings, got one string")
        if not passages:
            return []
        return await asyncio.to_thread(self._predict, query, list(passages))

    def _predict(self, query: str, passages: list[str]) -> list[float]:
        try:
            with self._lock:
                raw = self._model.predict(
                    [(query, passage) for passage in passages],
                    batch_size=self.batch_size,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
        except Exception as exc:
            raise EmbeddingError(f"{self.name} failed to score {len(passages)} passages: {exc}") from exc
        scores = np.asarray(raw, dtype=np.float64)
        if scores.ndim == 2 and scores.shape[1] == 1:
            scores = scores[:, 0]
        if scores.shape != (len(passages),):
            raise EmbeddingError(
                f"{self.name} returned scores of shape {scores.shape} for {len(passages)} passages; "
                "a reranking cross-encoder has one output label"
            )
        return [float(s) for s in scores]
