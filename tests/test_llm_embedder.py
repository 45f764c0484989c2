"""OpenAIEmbedder through the real SDK against the fake server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from kronograph.embed.openai import OpenAIEmbedder
from kronograph.embed.protocol import Embedder
from kronograph.errors import EmbeddingError

from .provider_servers import Answer, FakeServer, error, fake_server, openai_embeddings


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with fake_server() as running:
        yield running


async def _no_sleep(seconds: float) -> None:
    pass


def embedder(server: FakeServer, model: str = "text-embedding-3-small", **kwargs: Any) -> OpenAIEmbedder:
    return OpenAIEmbedder(model, api_key="sk-test", base_url=server.url + "/v1", sleep=_no_sleep, **kwargs)


def embed(e: OpenAIEmbedder, texts: list[str]) -> np.ndarray:
    return asyncio.run(e.embed(texts))


def test_unit_float32_rows_in_order_blank_texts_zero(server: FakeServer) -> None:
    e = embedder(server, "local-model", dimension=3)
    answer = openai_embeddings([[3.0, 4.0, 0.0], [0.0, 0.0, 2.0]])
    answer.body["data"].reverse()  # the server may answer out of order; "index" says which is which
    server.push(answer)
    out = embed(e, ["alpha", "  ", "beta"])
    assert isinstance(e, Embedder) and e.name == "openai:local-model" and e.dimension == 3
    assert out.dtype == np.float32 and out.shape == (3, 3)
    np.testing.assert_allclose(out[0], [0.6, 0.8, 0.0], rtol=1e-6)
    np.testing.assert_array_equal(out[1], [0, 0, 0])
    np.testing.assert_allclose(out[2], [0, 0, 1])
    (request,) = server.requests
    assert request.path == "/v1/embeddings"
    assert request.body == {"model": "local-model", "input": ["alpha", "beta"], "encoding_format": "float"}


def test_batches(server: FakeServer) -> None:
    e = embedder(server, "m", dimension=2, batch_size=2)
    server.push(*[openai_embeddings([[1.0, 0.0]] * n) for n in (2, 2, 1)])
    assert embed(e, [f"t{i}" for i in range(5)]).shape == (5, 2)
    assert [len(r.body["input"]) for r in server.requests] == [2, 2, 1]


def test_known_dimensions_and_shortened_vectors(server: FakeServer) -> None:
    assert embedder(server).dimension == 1536
    assert embedder(server, "text-embedding-3-large").dimension == 3072
    short = embedder(server, dimension=4)
    server.push(openai_embeddings([[1.0, 1.0, 1.0, 1.0]]))
    embed(short, ["x"])
    assert server.requests[0].body["dimensions"] == 4
    native = embedder(server, dimension=1536)
    server.push(openai_embeddings([[1.0] * 1536]))
    embed(native, ["x"])
    assert "dimensions" not in server.requests[1].body


def test_a_reply_of_another_dimension_is_refused(server: FakeServer) -> None:
    e = embedder(server, "m", dimension=3)
    server.push(openai_embeddings([[1.0, 0.0, 0.0, 0.0]]))
    with pytest.raises(EmbeddingError, match="dimension 4, expected 3"):
        embed(e, ["x"])


def test_an_unknown_model_learns_its_dimension(server: FakeServer) -> None:
    e = embedder(server, "nomic-embed-text")
    with pytest.raises(EmbeddingError, match="dimension unknown"):
        _ = e.dimension
    server.push(openai_embeddings([[0.0, 2.0]]))
    assert embed(e, ["x"]).shape == (1, 2) and e.dimension == 2
    server.push(openai_embeddings([[1.0, 2.0, 3.0]]))
    with pytest.raises(EmbeddingError, match="dimension 3, expected 2"):
        embed(e, ["y"])


def test_only_blank_texts_with_unknown_dimension_probes(server: FakeServer) -> None:
    e = embedder(server, "nomic-embed-text")
    server.push(openai_embeddings([[1.0, 0.0, 0.0]]))
    assert embed(e, ["", " "]).shape == (2, 3)
    assert len(server.requests) == 1
    assert embed(e, []).shape == (0, 3)
    assert len(server.requests) == 1


def test_transient_errors_are_retried(server: FakeServer) -> None:
    e = embedder(server, "m", dimension=2)
    server.push(error(429, retry_after="1"), error(500), openai_embeddings([[1.0, 0.0]]))
    assert embed(e, ["x"]).shape == (1, 2)
    assert len(server.requests) == 3


def test_failures_are_embedding_errors(server: FakeServer) -> None:
    e = embedder(server, "m", dimension=2, max_attempts=2)
    server.push(error(401, "bad key"))
    with pytest.raises(EmbeddingError, match="401"):
        embed(e, ["x"])
    server.push(error(503), error(503))
    with pytest.raises(EmbeddingError, match="503"):
        embed(e, ["x"])
    server.push(Answer(body={"object": "list", "data": [], "model": "m"}))
    with pytest.raises(EmbeddingError, match="0 vectors for 1 texts"):
        embed(e, ["x"])
