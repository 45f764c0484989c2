"""Embedders: the hashing default, the local-model wrapper (without the real
library), lazy exports and the dimension check."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import subprocess
import sys
import types
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import kronograph.embed as embed
from kronograph.embed import CachedEmbedder, Embedder, HashingEmbedder, check_dimension
from kronograph.embed.local import SentenceTransformerEmbedder
from kronograph.errors import EmbeddingError, InvalidInputError


def vectors(*texts: str, dimension: int = 256) -> np.ndarray:
    return asyncio.run(HashingEmbedder(dimension).embed(list(texts)))


# -- HashingEmbedder -------------------------------------------------------------


def test_hashing_is_an_embedder_with_a_versioned_name() -> None:
    e = HashingEmbedder(128)
    assert isinstance(e, Embedder)
    assert e.name == "hashing-v1:128" and e.dimension == 128
    assert HashingEmbedder().name == "hashing-v1:256"


def test_hashing_shape_dtype_and_unit_rows() -> None:
    m = vectors("Acme Robotics", "Alice moved to Berlin in 2021.", "Zürich café ☕ 東京")
    assert m.shape == (3, 256) and m.dtype == np.float32
    assert np.allclose(np.linalg.norm(m, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("text", ["", "   ", "!!! ... ---"])
def test_hashing_zero_row_for_nothing_to_embed(text: str) -> None:
    m = vectors(text, "Acme")
    assert not m[0].any()
    assert m[1].any()


def test_hashing_empty_batch() -> None:
    assert vectors().shape == (0, 256)


def test_hashing_similar_names_score_higher_than_unrelated() -> None:
    a, inc, berlin = vectors("Acme Robotics", "Acme Robotics Inc.", "Berlin")
    assert a @ inc > a @ berlin
    assert a @ inc > 0.7


def test_hashing_similar_sentences_score_higher_than_unrelated() -> None:
    a, b, c = vectors("Alice works at Acme Robotics", "Alice started working at Acme Robotics", "The weather is cold")
    assert a @ b > a @ c


def test_hashing_case_and_spacing_do_not_matter() -> None:
    a, b = vectors("Acme Robotics", "  ACME   robotics ")
    assert np.allclose(a, b)


def test_hashing_word_order_matters_through_bigrams() -> None:
    a, b = vectors("dog bites man", "man bites dog")
    assert 0.5 < a @ b < 0.999


def test_hashing_is_deterministic_within_and_across_processes() -> None:
    texts = ["Acme Robotics", "Alice moved to Berlin", "Zürich"]
    here = vectors(*texts)
    assert np.array_equal(here, vectors(*texts))
    code = (
        "import asyncio,sys; from kronograph.embed import HashingEmbedder;"
        f"sys.stdout.buffer.write(asyncio.run(HashingEmbedder().embed({texts!r})).tobytes())"
    )
    for seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, check=True, env={**os.environ, "PYTHONHASHSEED": seed}
        ).stdout
        assert np.array_equal(np.frombuffer(out, dtype=np.float32).reshape(here.shape), here)


PINNED = [0.3015, -0.603, 0, 0.3015, 0, 0, 0.3015, -0.3015, 0, -0.3015, -0.3015, 0, -0.3015, 0, 0, 0]


def test_hashing_pinned_values() -> None:
    """A changed vector would silently break stored embeddings: bump the name's
    version instead of changing what hashing-v1 computes."""
    (v,) = vectors("Acme Robotics", dimension=16)
    assert np.allclose(v, PINNED, atol=1e-4)


def test_hashing_batches_larger_than_a_chunk_match_single_embeds() -> None:
    texts = [f"entity number {i} of the batch" for i in range(5_000)]
    batch = asyncio.run(HashingEmbedder().embed(texts))  # also goes through the worker thread
    assert np.allclose(batch[4_321], vectors(texts[4_321])[0])
    assert np.allclose(batch[17], vectors(texts[17])[0])


def test_hashing_short_batches_hashed_in_python_match_the_numpy_path_bit_for_bit() -> None:
    # Stored vectors must not change: the Python path for short batches is the numpy one, exactly.
    import random

    rng = random.Random(7)
    alphabet = "abcdefghij klmnop éüß Ωж 中文 😀 ABC 123 _-.,"
    words = ["acme", "robotics", "Straße", "ΣΊΣΥΦΟΣ", "İstanbul", "00123", "the", "a"]
    texts = ["", "  ", "a", "a " * 40, "x" * 300]
    texts += [" ".join(rng.choice(words) for _ in range(rng.randint(0, 25))) for _ in range(150)]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 120))) for _ in range(150)]
    for dimension in (3, 256):
        e = HashingEmbedder(dimension)
        by_numpy = e._chunk(texts)
        by_python = np.concatenate([e._small(texts[i : i + 5]) for i in range(0, len(texts), 5)])
        assert by_numpy.tobytes() == by_python.tobytes()


@pytest.mark.parametrize("bad", [0, 1, -5, 2.5, True])
def test_hashing_rejects_bad_dimensions(bad: Any) -> None:
    with pytest.raises(InvalidInputError):
        HashingEmbedder(bad)


def test_hashing_rejects_a_bare_string() -> None:
    with pytest.raises(InvalidInputError):
        HashingEmbedder().embed_sync("Acme")


# -- SentenceTransformerEmbedder, against a stand-in library ---------------------


class _FakeModel:
    """Stands in for sentence_transformers.SentenceTransformer."""

    calls: list[dict[str, Any]] = []

    def __init__(self, name: str, *, device: str | None = None, local_files_only: bool = False) -> None:
        _FakeModel.calls.append(
            {
                "name": name,
                "device": device,
                "local_files_only": local_files_only,
                "offline": os.environ.get("HF_HUB_OFFLINE"),
            }
        )
        if name == "missing/model":
            raise OSError("not found in the cache")

    def get_sentence_embedding_dimension(self) -> int:
        return 3

    def encode(self, texts: Sequence[str], **kwargs: Any) -> np.ndarray:
        assert kwargs["normalize_embeddings"] is True
        # Deliberately not unit length: the wrapper must normalise.
        return np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float64)


@pytest.fixture
def fake_st(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    module = types.ModuleType("sentence_transformers")
    module.SentenceTransformer = _FakeModel  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", module)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    _FakeModel.calls = []
    return _FakeModel.calls


def test_local_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # makes the import fail
    with pytest.raises(ImportError, match=r"kronograph\[local\]"):
        SentenceTransformerEmbedder("all-MiniLM-L6-v2")


def test_local_loads_offline_only(fake_st: list[dict[str, Any]]) -> None:
    e = SentenceTransformerEmbedder("some/model", device="cpu")
    assert fake_st == [{"name": "some/model", "device": "cpu", "local_files_only": True, "offline": "1"}]
    assert "HF_HUB_OFFLINE" not in os.environ  # restored after the load
    assert e.name == "local:some/model" and e.dimension == 3
    assert isinstance(e, Embedder)


def test_local_missing_model_is_an_embedding_error(fake_st: list[dict[str, Any]]) -> None:
    with pytest.raises(EmbeddingError, match="not available locally.*never downloads"):
        SentenceTransformerEmbedder("missing/model")


def test_local_embeds_unit_float32_rows_and_zero_for_blank(fake_st: list[dict[str, Any]]) -> None:
    e = SentenceTransformerEmbedder("some/model")
    m = asyncio.run(e.embed(["abc", "", "hello"]))
    assert m.dtype == np.float32 and m.shape == (3, 3)
    assert np.allclose(np.linalg.norm(m[[0, 2]], axis=1), 1.0)
    assert not m[1].any()
    assert asyncio.run(e.embed([])).shape == (0, 3)


def test_local_encode_failure_is_an_embedding_error(
    fake_st: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    e = SentenceTransformerEmbedder("some/model")

    def boom(texts: Sequence[str], **kwargs: Any) -> np.ndarray:
        raise RuntimeError("CUDA out of memory")

    monkeypatch.setattr(e._model, "encode", boom)
    with pytest.raises(EmbeddingError, match="out of memory"):
        asyncio.run(e.embed(["x"]))


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None, reason="sentence-transformers not installed"
)
def test_local_real_library_refuses_an_uncached_model(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path))  # an empty cache: nothing can be found, nothing may be fetched
    with pytest.raises(EmbeddingError, match="not available locally"):
        SentenceTransformerEmbedder("sentence-transformers/all-MiniLM-L6-v2")


# -- package surface and check_dimension -----------------------------------------


def test_public_names() -> None:
    assert set(embed.__all__) == {
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
    }
    assert embed.SentenceTransformerEmbedder is SentenceTransformerEmbedder
    with pytest.raises(AttributeError):
        embed.NoSuchEmbedder  # noqa: B018


class _Named:
    def __init__(self, name: str, dimension: int) -> None:
        self.name, self.dimension = name, dimension

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.zeros((len(texts), self.dimension), dtype=np.float32)


def test_check_dimension_accepts_a_fresh_store_and_the_same_embedder(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        check_dimension(HashingEmbedder(), None)
        check_dimension(HashingEmbedder(), ("hashing-v1:256", 256))
    assert not caplog.records


def test_check_dimension_refuses_another_dimension() -> None:
    with pytest.raises(EmbeddingError) as info:
        check_dimension(_Named("openai:text-embedding-3-small", 1536), ("hashing-v1:256", 256))
    assert str(info.value).startswith(
        "this store's embeddings were written by hashing-v1:256 with dimension 256; "
        "the configured embedder openai:text-embedding-3-small makes 1536"
    )


def test_check_dimension_warns_about_mixing_models(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="kronograph.embed"):
        check_dimension(_Named("local:bge-small", 256), ("hashing-v1:256", 256))
    assert "hashing-v1:256" in caplog.text and "local:bge-small" in caplog.text


# -- CachedEmbedder --------------------------------------------------------------


class _Counting:
    def __init__(self) -> None:
        self.inner = HashingEmbedder(32)
        self.name, self.dimension = self.inner.name, self.inner.dimension
        self.batches: list[list[str]] = []

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return await self.inner.embed(texts)


def test_cache_sends_each_text_once_and_returns_the_same_vectors() -> None:
    inner = _Counting()
    cached = CachedEmbedder(inner, maxsize=3)
    assert isinstance(cached, Embedder) and cached.name == "hashing-v1:32" and cached.dimension == 32
    first = asyncio.run(cached.embed(["Acme", "Alice", "Acme"]))
    again = asyncio.run(cached.embed(["Alice", "Berlin"]))
    assert inner.batches == [["Acme", "Alice"], ["Berlin"]]
    assert np.array_equal(first, inner.inner.embed_sync(["Acme", "Alice", "Acme"]))
    assert np.array_equal(again[0], first[1])
    assert (cached.hits, cached.misses) == (2, 3)
    assert asyncio.run(cached.embed([])).shape == (0, 32)


def test_cache_evicts_the_least_recently_used() -> None:
    inner = _Counting()
    cached = CachedEmbedder(inner, maxsize=2)
    for batch in (["a"], ["b"], ["a"], ["c"], ["a", "b"]):
        asyncio.run(cached.embed(batch))
    assert inner.batches == [["a"], ["b"], ["c"], ["b"]]  # "b" was evicted by "c"; "a" stayed, being used


def test_cache_batch_larger_than_the_cache() -> None:
    cached = CachedEmbedder(_Counting(), maxsize=1)
    assert asyncio.run(cached.embed(["x", "y", "z"])).shape == (3, 32)


def test_cache_vectors_cannot_be_changed_by_a_caller() -> None:
    cached = CachedEmbedder(_Counting())
    out = asyncio.run(cached.embed(["Acme"]))
    out[0, :] = 0.0  # the returned array is the caller's own
    assert asyncio.run(cached.embed(["Acme"])).any()
