"""The services a memory's ingestion, search and maintenance share: one
store, clock, model (chosen once, on first use) and embedder."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from kronograph import AsyncMemory, InvalidInputError
from kronograph.embed.hashing import HashingEmbedder
from kronograph.errors import EmbeddingError
from kronograph.services import Models, Services

from .test_lifecycle import ClosableProvider


def test_one_services_object_is_built_once_and_shared() -> None:
    embedder = HashingEmbedder()
    memory = AsyncMemory(":memory:", model=None, embedder=embedder)

    async def run() -> None:
        async with memory:
            services = memory._services
            assert services.store is memory.store and services.embedder is embedder
            assert memory._ingestion.services is services  # the ingestion's, not one of its own
            pipeline = await memory._ingestion._pipeline()
            assert pipeline.services is services and pipeline.model is None
            assert await services.model() is None
            assert services.clock().tzinfo is not None

    asyncio.run(run())


def test_the_model_is_chosen_once_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen: list[Any] = []
    made = ClosableProvider()

    def choose(settings: Any = None) -> ClosableProvider:
        chosen.append(settings)
        return made

    monkeypatch.setattr("kronograph.services.choose_provider", choose)

    async def run() -> None:
        async with AsyncMemory(":memory:", model="auto") as memory:
            assert chosen == []  # not before it is needed
            first, second = await asyncio.gather(memory._services.model(), memory._services.model())
            assert first is second and first is not None and first.provider is made
            await memory.summarize_entities("g")  # maintenance asks the same services
        assert len(chosen) == 1 and made.closed == 1

    asyncio.run(run())


def test_bad_models_and_embedders_are_refused_by_name() -> None:
    with pytest.raises(InvalidInputError, match="model"):
        Models(42, None, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="embedder"):
        AsyncMemory(":memory:", embedder=object())  # type: ignore[arg-type]


class _Short(HashingEmbedder):
    async def embed(self, texts: list[str]) -> np.ndarray:
        return np.zeros((len(texts), 3), dtype=np.float32)


def test_an_embedder_answering_the_wrong_shape_is_an_embedding_error() -> None:
    async def run() -> None:
        async with AsyncMemory(":memory:", model=None) as memory:
            services = Services(memory.store, memory._now, memory._services.models, _Short())
            assert await services.embed_many([], group_id="g") == []
            with pytest.raises(EmbeddingError, match="shape"):
                await services.embed_one("text", ("g",))
            with pytest.raises(EmbeddingError, match="shape"):
                await services.embed_for("g")(["a", "b"])
            good = await memory._services.embed_many(["a", "b"], group_id="g")
            assert len(good) == 2 and len(good[0]) == 4 * memory._services.embedder.dimension

    asyncio.run(run())
