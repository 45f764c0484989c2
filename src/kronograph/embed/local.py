"""A local sentence-transformers model, loaded only from disk.

The library promises never to download at run time, so the model must
already be on this machine: a directory path, or a name already in the
Hugging Face cache (fetch it once, beforehand, with
``huggingface-cli download <name>``). Needs ``pip install 'kronograph[local]'``.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..errors import EmbeddingError, InvalidInputError

__all__ = ["SentenceTransformerEmbedder", "load_local_model"]

_OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
_env_lock = threading.Lock()


@contextmanager
def _offline() -> Iterator[None]:
    """Force the Hugging Face libraries offline for the duration of a load,
    as a second guard behind ``local_files_only``. The environment is
    process-wide, hence the lock; earlier values are restored."""
    with _env_lock:
        saved = {name: os.environ.get(name) for name in _OFFLINE_VARS}
        os.environ.update(dict.fromkeys(_OFFLINE_VARS, "1"))
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def load_local_model(
    kind: str, model_name_or_path: str, *, what: str, device: str | None, batch_size: int
) -> Any:
    """``sentence_transformers.<kind>`` loaded from disk only: a missing extra
    is an ImportError naming it, a model not on this machine an EmbeddingError
    saying how to fetch it beforehand. ``what`` names the use in messages."""
    if not model_name_or_path or not model_name_or_path.strip():
        raise InvalidInputError("model_name_or_path", "must name a local model directory or a cached model")
    if batch_size < 1:
        raise InvalidInputError("batch_size", f"must be at least 1, got {batch_size}")
    with _offline():
        # Imported inside the guard: huggingface_hub reads the variables when
        # it is first imported. local_files_only is the guard that always holds.
        try:
            module = importlib.import_module("sentence_transformers")
        except ImportError as exc:
            raise ImportError(
                f"kronograph needs the 'sentence_transformers' package for {what}: pip install 'kronograph[local]'"
            ) from exc
        try:
            return getattr(module, kind)(model_name_or_path, device=device, local_files_only=True)
        except Exception as exc:  # OSError, ValueError, HF errors: all "not here"
            raise EmbeddingError(
                f"the sentence-transformers {kind} {model_name_or_path!r} is not available locally, and kronograph "
                "never downloads models at run time. Pass the path of a model directory, or fetch it once "
                f"beforehand: huggingface-cli download {model_name_or_path} ({exc})"
            ) from exc


class SentenceTransformerEmbedder:
    """Embeds with a sentence-transformers model found locally.

    The model loads when the embedder is built (so a missing model fails at
    configuration, not mid-ingestion) and encodes in a worker thread, one
    batch at a time, so the event loop never blocks on the model.
    """

    def __init__(self, model_name_or_path: str, *, device: str | None = None, batch_size: int = 64) -> None:
        self._model: Any = load_local_model(
            "SentenceTransformer", model_name_or_path, what="local embeddings", device=device, batch_size=batch_size
        )
        named = getattr(self._model, "get_embedding_dimension", None)  # sentence-transformers >= 6.2
        dimension = named() if named is not None else self._model.get_sentence_embedding_dimension()
        if not isinstance(dimension, int) or dimension < 1:
            raise EmbeddingError(f"the model {model_name_or_path!r} does not report its embedding dimension")
        self.dimension = dimension
        self.name = f"local:{model_name_or_path}"
        self.batch_size = batch_size
        self._lock = threading.Lock()  # one encode at a time: a model is not made for concurrent calls

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.name!r}, dimension={self.dimension})"

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise InvalidInputError("texts", "expected a sequence of strings, got one string")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return await asyncio.to_thread(self._encode, list(texts))

    def _encode(self, texts: list[str]) -> np.ndarray:
        try:
            with self._lock:
                raw = self._model.encode(
                    texts,
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
        except Exception as exc:
            raise EmbeddingError(f"{self.name} failed to embed {len(texts)} texts: {exc}") from exc
        vectors = np.asarray(raw, dtype=np.float32).reshape(len(texts), -1)
        if vectors.shape[1] != self.dimension:
            raise EmbeddingError(f"{self.name} returned vectors of dimension {vectors.shape[1]}, not {self.dimension}")
        # The protocol promises unit rows, and all-zero rows for empty texts.
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        np.divide(vectors, norms, out=vectors, where=norms > 0)
        blank = np.fromiter((not t.strip() for t in texts), dtype=bool, count=len(texts))
        vectors[blank] = 0.0
        return vectors
