"""Embeddings from OpenAI or any server speaking its ``/v1/embeddings``
protocol (Azure, Ollama, vLLM, LM Studio...), through the ``openai`` SDK
(``pip install 'kronograph[openai]'``)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import numpy as np

from ..errors import EmbeddingError, ModelError
from ..llm._loop_local import LoopLocal
from ..llm._sdk import require_sdk
from ..llm.backoff import Backoff
from ..llm.openai import openai_error

__all__ = ["KNOWN_DIMENSIONS", "OpenAIEmbedder"]

KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class OpenAIEmbedder:
    """Unit-length float32 vectors from an embeddings endpoint.

    The dimension is known up front for OpenAI's models or given as
    ``dimension`` (for ``text-embedding-3-*`` a smaller one is requested from
    the API); for other models it is learned from the first reply. A reply of
    another dimension raises :class:`~kronograph.errors.EmbeddingError`: a
    store's vectors must never be silently cut or mixed. Blank texts get zero
    rows without a request. Transient failures are retried with backoff."""

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        *,
        dimension: int | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        batch_size: int = 128,
        max_attempts: int = 5,
        base_delay: float = 0.5,
        max_delay: float = 30.0,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        rng: Callable[[], float] = random.random,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._sdk = require_sdk("openai", "openai")
        self.model = model
        self.name = f"openai:{model}"
        native = KNOWN_DIMENSIONS.get(model)
        self._dimension: int | None = dimension or native
        # text-embedding-3 models shorten their vectors on request; others cannot
        self._request_dimensions = dimension if dimension and model.startswith("text-embedding-3") \
            and dimension != native else None
        self.batch_size = batch_size
        self.backoff = Backoff(max_attempts=max_attempts, base_delay=base_delay, max_delay=max_delay,
                               sleep=sleep, rng=rng)
        self._config: dict[str, Any] = {"api_key": api_key, "base_url": base_url, "timeout": timeout,
                                        "max_retries": 0}
        self._clients: LoopLocal[Any] = LoopLocal(self._make_client)

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, dimension={self._dimension!r})"

    @property
    def dimension(self) -> int:
        """The vector size; for an unknown model, known after the first
        :meth:`embed` (or :meth:`probe_dimension`)."""
        if self._dimension is None:
            raise EmbeddingError(f"{self.name}: dimension unknown until the first reply; pass dimension= "
                                 "or await probe_dimension() first")
        return self._dimension

    def _make_client(self) -> Any:
        try:
            return self._sdk.AsyncOpenAI(**self._config)
        except self._sdk.OpenAIError as exc:
            raise EmbeddingError(f"{self.name}: cannot configure the client: {exc}") from exc

    async def probe_dimension(self) -> int:
        """Learn the dimension with one tiny request, if it is not known yet."""
        if self._dimension is None:
            await self._embed_batch(["dimension probe"])
        return self.dimension

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Rows of unit length, one per text (all zero for a blank text)."""
        wanted = [i for i, text in enumerate(texts) if text and text.strip()]
        rows: list[np.ndarray] = []
        for start in range(0, len(wanted), self.batch_size):
            batch = [texts[i] for i in wanted[start:start + self.batch_size]]
            rows.append(await self._embed_batch(batch))
        dimension = await self.probe_dimension()
        out = np.zeros((len(texts), dimension), dtype=np.float32)
        if rows:
            out[wanted] = np.concatenate(rows)
        return out

    async def _embed_batch(self, batch: list[str]) -> np.ndarray:
        async def attempt() -> Any:
            extra = {"dimensions": self._request_dimensions} if self._request_dimensions else {}
            try:
                return await self._clients.get().embeddings.create(
                    model=self.model, input=batch, encoding_format="float", **extra
                )
            except self._sdk.OpenAIError as exc:
                raise openai_error(exc, self.name) from exc

        try:
            response = await self.backoff.run(attempt, what=f"{self.name} embeddings")
        except ModelError as exc:
            raise EmbeddingError(str(exc)) from exc
        items = sorted(response.data, key=lambda item: item.index)
        if len(items) != len(batch):
            raise EmbeddingError(f"{self.name}: {len(items)} vectors for {len(batch)} texts")
        try:
            matrix = np.asarray([item.embedding for item in items], dtype=np.float32)
        except ValueError as exc:
            raise EmbeddingError(f"{self.name}: vectors of unequal length in one reply") from exc
        if matrix.ndim != 2:
            raise EmbeddingError(f"{self.name}: the reply is not a list of vectors")
        if self._dimension is None:
            self._dimension = int(matrix.shape[1])
        elif matrix.shape[1] != self._dimension:
            raise EmbeddingError(f"{self.name}: the server returned vectors of dimension {matrix.shape[1]}, "
                                 f"expected {self._dimension}")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)

    async def aclose(self) -> None:
        """Close the HTTP client this event loop used, if any."""
        client = self._clients.pop_current()
        if client is not None:
            await client.close()
