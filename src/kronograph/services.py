"""What ingestion, search and maintenance share: the store, the clock, the
model and the embedder, built once by the memory (see ``_lifecycle``).

Why one object: each of them needs the same four, and before it they took
them from the ingestion (which chose the model, checked the embedder and
embedded search queries). The model is chosen on first use, since ``"auto"``
may probe a local server; everything else is fixed at construction.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from .embed import protocol as embedding
from .embed.cache import embedding_for
from .embed.protocol import Embedder
from .errors import EmbeddingError, InvalidInputError
from .ingest.contradiction_check import Policies
from .ingest.replies import StoreReplyCache
from .llm.client import ModelClient
from .llm.config import ModelSettings, choose_provider
from .llm.protocol import Provider
from .store.protocol import Store
from .time import Clock

__all__ = ["ModelArg", "Models", "Services"]

_log = logging.getLogger("kronograph")

ModelArg = Provider | ModelClient | ModelSettings | str | None


class Models:
    """The memory's model: as given, or chosen on first use (``"auto"`` or
    settings), with this store's reply cache unless the client has its own."""

    def __init__(self, arg: ModelArg, store: Store, clock: Clock) -> None:
        if not (arg is None or arg == "auto" or isinstance(arg, Provider | ModelClient | ModelSettings)):
            raise InvalidInputError(
                "model", 'expected a provider, a ModelClient, ModelSettings, "auto" or None, '
                f"not {arg!r}"
            )
        self._arg = arg
        self._store = store
        self._clock = clock
        self._client: ModelClient | None = None
        self._chosen = False
        self._choosing = asyncio.Lock()

    async def client(self) -> ModelClient | None:
        """The model (None: the offline extractor). Once chosen, this does not
        suspend: callers keep their order."""
        if not self._chosen:
            async with self._choosing:
                if not self._chosen:
                    await self._choose()
        return self._client

    async def _choose(self) -> None:
        arg = self._arg
        if isinstance(arg, ModelClient):
            if arg.cache is None:  # a client without a cache of its own uses this store's
                arg = copy.copy(arg)  # (a copy: the caller's client may serve other memories)
                arg.cache = StoreReplyCache(self._store, self._clock)
            self._client = arg
        else:
            provider: Provider | None
            if arg == "auto" or isinstance(arg, ModelSettings):
                # May probe a local Ollama server (up to its timeout): on a worker
                # thread, so the event loop runs on. Settings without a provider
                # fall back to the environment.
                settings = arg if isinstance(arg, ModelSettings) else None
                provider = await asyncio.to_thread(choose_provider, settings)
            else:
                provider = arg  # type: ignore[assignment]  # a Provider or None, checked above
            cache = StoreReplyCache(self._store, self._clock)
            self._client = ModelClient(provider, cache=cache) if provider is not None else None
        if self._client is None:
            _log.info("kronograph: no model configured: episodes are read by the offline extractor")
        self._chosen = True

    async def aclose(self) -> None:
        """Close the HTTP client of a provider chosen here (from ``"auto"`` or
        settings); a provider or client passed in is its owner's."""
        made_here = self._arg == "auto" or isinstance(self._arg, ModelSettings)
        if self._client is not None and made_here:
            close = getattr(self._client.provider, "aclose", None)
            if close is not None:
                await close()


@dataclass(frozen=True, slots=True)
class Services:
    """The store, clock, model and embedder of one memory."""

    store: Store
    clock: Clock  # timezone-aware UTC
    models: Models
    embedder: Embedder
    policies: Policies = field(default_factory=Policies)  # each group's contradiction policy, kept a few seconds

    async def model(self) -> ModelClient | None:
        """The memory's model, chosen on first use; None: none (offline)."""
        return await self.models.client()

    @property
    def lexical(self) -> bool:
        """Whether the embedder's vectors are words (search then embeds a query's terms, not "who", "is")."""
        return embedding.is_lexical(self.embedder)

    @property
    def fusion_weight(self) -> float:
        """The weight of cosine similarity beside full text in fused search, as the embedder advises."""
        return embedding.fusion_weight(self.embedder)

    async def check_embedder(self) -> None:
        """Record the embedder with the store's first vectors; refuse another dimension."""
        embedder = self.embedder
        mine = json.dumps({"name": embedder.name, "dimension": embedder.dimension})
        kept = json.loads(await self.store.claim_setting("embedder", mine))
        from .embed import check_dimension

        try:
            check_dimension(embedder, (str(kept["name"]), int(kept["dimension"])))
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f"this store's embedder record is unreadable: {kept!r}") from exc

    async def embed_one(self, text: str, group_ids: Iterable[str]) -> bytes:
        """One text's vector, as stored (float32 bytes), for those groups."""
        with embedding_for(group_ids):
            matrix = await self.embedder.embed([text])
        if matrix.shape != (1, self.embedder.dimension):
            raise EmbeddingError(f"{self.embedder.name} returned vectors of shape {matrix.shape}")
        return np.asarray(matrix[0], dtype=np.float32).tobytes()

    def embed_for(self, group_id: str) -> Callable[[list[str]], Awaitable[list[bytes]]]:
        """Embeds several texts for one group (see :meth:`embed_many`)."""
        return functools.partial(self.embed_many, group_id=group_id)

    async def embed_many(self, texts: list[str], *, group_id: str) -> list[bytes]:
        """Several texts' vectors, as stored (float32 bytes), in one call, for the group."""
        if not texts:
            return []
        with embedding_for((group_id,)):
            matrix = await self.embedder.embed(texts)
        if matrix.shape != (len(texts), self.embedder.dimension):
            raise EmbeddingError(f"{self.embedder.name} returned vectors of shape {matrix.shape}")
        return [np.asarray(row, dtype=np.float32).tobytes() for row in matrix]
