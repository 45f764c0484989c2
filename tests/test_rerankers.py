"""Rerankers and the graph walk, against rankings worked out by hand."""

from __future__ import annotations

import asyncio
import importlib.util
import math
import os
import sys
import types
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from kronograph.errors import EmbeddingError
from kronograph.search.cross_encoder import SentenceTransformerCrossEncoder
from kronograph.search.graph import shortest_hops, shortest_hops_async
from kronograph.search.rerankers import cross_encode, episode_mentions, mmr, node_distance, rrf
from kronograph.search.types import CrossEncoder


def ids(ranked: Sequence[tuple[str, float]]) -> list[str]:
    return [item for item, _ in ranked]


# -- rrf ----------------------------------------------------------------------------


def test_rrf_hand_computed() -> None:
    # k = 1, rankings [a, b, c] and [b, c, a]:
    #   a: ranks 1, 3 -> 1/2 + 1/4 = 0.75
    #   b: ranks 2, 1 -> 1/3 + 1/2 = 0.8333...
    #   c: ranks 3, 2 -> 1/4 + 1/3 = 0.5833...
    ranked = rrf([["a", "b", "c"], ["b", "c", "a"]], k=1)
    assert ids(ranked) == ["b", "a", "c"]
    assert [s for _, s in ranked] == pytest.approx([5 / 6, 3 / 4, 7 / 12])


def test_rrf_default_k_is_60() -> None:
    # a: rank 1 twice -> 2/61; b: rank 2 once -> 1/62.
    assert rrf([["a", "b"], ["a"]]) == [("a", pytest.approx(2 / 61)), ("b", pytest.approx(1 / 62))]


def test_rrf_id_in_only_one_ranking() -> None:
    # k = 1, [a] and [b, a]: a = 1/2 + 1/3 = 5/6, b = 1/2.
    assert rrf([["a"], ["b", "a"]], k=1) == [("a", pytest.approx(5 / 6)), ("b", pytest.approx(1 / 2))]


def test_rrf_ties_keep_first_appearance_with_identical_scores() -> None:
    # Each of a, b, c holds ranks {1, 2, 3} once: 1/61 + 1/62 + 1/63 for all three,
    # bit-identical whatever order the rankings list them in.
    ranked = rrf([["b", "c", "a"], ["a", "b", "c"], ["c", "a", "b"]])
    assert ids(ranked) == ["b", "c", "a"]
    assert ranked[0][1] == ranked[1][1] == ranked[2][1]
    # Two-way tie, other way round: first appearance is a.
    assert ids(rrf([["a", "b"], ["b", "a"]])) == ["a", "b"]


def test_rrf_repeat_in_one_ranking_counts_once() -> None:
    # [a, a, b] is read as [a, b]: k = 1 gives a = 1/2, b = 1/3.
    assert rrf([["a", "a", "b"]], k=1) == [("a", 0.5), ("b", pytest.approx(1 / 3))]


def test_rrf_empty_and_bad_k() -> None:
    assert rrf([]) == []
    assert rrf([[], []]) == []
    with pytest.raises(ValueError, match="k"):
        rrf([["a"]], k=0)


# -- mmr ----------------------------------------------------------------------------
#
# query q = (3, 4) -> unit (0.6, 0.8)
#   a = (0, 1): sim(q, a) = 0.8
#   b = (0, 2): sim(q, b) = 0.8, a duplicate of a (sim(a, b) = 1)
#   c = (1, 0): sim(q, c) = 0.6, orthogonal to a and b

Q = np.array([3.0, 4.0])
A, B, C = np.array([0.0, 1.0]), np.array([0.0, 2.0]), np.array([1.0, 0.0])
ABC = [("a", A), ("b", B), ("c", C)]


def test_mmr_lambda_one_is_relevance_order() -> None:
    # Scores are 1 * relevance: a 0.8, b 0.8 (tie, input order), c 0.6.
    ranked = mmr(Q, ABC, lambda_=1.0)
    assert ids(ranked) == ["a", "b", "c"]
    assert [s for _, s in ranked] == pytest.approx([0.8, 0.8, 0.6])


def test_mmr_half_lambda_hand_computed() -> None:
    # step 1: 0.5 * rel: a 0.4, b 0.4, c 0.3          -> a (0.4)
    # step 2: b 0.4 - 0.5 * 1 = -0.1, c 0.3 - 0 = 0.3 -> c (0.3)
    # step 3: b 0.4 - 0.5 * max(1, 0) = -0.1          -> b (-0.1)
    ranked = mmr(Q, ABC, lambda_=0.5)
    assert ids(ranked) == ["a", "c", "b"]
    assert [s for _, s in ranked] == pytest.approx([0.4, 0.3, -0.1])


def test_mmr_lambda_zero_picks_diverse_items() -> None:
    # step 1: every value is 0; the first in input order wins -> a (0)
    # step 2: b -1 (same as a), c 0 (orthogonal)             -> c (0)
    # step 3: b -max(1, 0) = -1                              -> b (-1)
    ranked = mmr(Q, ABC, lambda_=0.0)
    assert ids(ranked) == ["a", "c", "b"]
    assert [s for _, s in ranked] == pytest.approx([0.0, 0.0, -1.0])


def test_mmr_negative_similarity_counts() -> None:
    # lambda 0, x = (1, 0), w = (0, 1), y = (-1, 0). After x: w scores -0 = 0,
    # y scores -(-1) = +1, so y comes before w (a clipped max would tie them).
    ranked = mmr(Q, [("x", np.array([1.0, 0.0])), ("w", np.array([0.0, 1.0])), ("y", np.array([-1.0, 0.0]))], lambda_=0)
    assert ids(ranked) == ["x", "y", "w"]
    assert [s for _, s in ranked] == pytest.approx([0.0, 1.0, 0.0])


def test_mmr_zero_vectors_have_similarity_zero() -> None:
    # z = (0, 0): rel 0, similar to nothing. lambda 0.5, after a and c (as above):
    # b -0.1, z 0 -> z (0), then b (-0.1).
    ranked = mmr(Q, [*ABC, ("z", np.zeros(2))], lambda_=0.5)
    assert ids(ranked) == ["a", "c", "z", "b"]
    assert [s for _, s in ranked] == pytest.approx([0.4, 0.3, 0.0, -0.1])
    # A zero query makes every relevance 0: with lambda 1 all tie, input order stays.
    assert mmr(np.zeros(2), ABC, lambda_=1.0) == [("a", 0.0), ("b", 0.0), ("c", 0.0)]


def test_mmr_limit_empty_and_errors() -> None:
    assert ids(mmr(Q, ABC, lambda_=0.5, limit=2)) == ["a", "c"]
    assert mmr(Q, ABC, limit=0) == []
    assert mmr(Q, []) == []
    assert ids(mmr(Q, [*ABC, ("a", C)], lambda_=1.0)) == ["a", "b", "c"]  # a repeat keeps the first vector
    with pytest.raises(ValueError, match="dimension"):
        mmr(Q, [("a", np.ones(3))])
    with pytest.raises(ValueError, match="lambda_"):
        mmr(Q, ABC, lambda_=1.5)
    with pytest.raises(ValueError, match="limit"):
        mmr(Q, ABC, limit=-1)


def _mmr_by_loops(query: np.ndarray, vectors: list[np.ndarray], lambda_: float) -> list[tuple[int, float]]:
    """The textbook definition, one pair at a time, to check the vectorised one."""

    def cos(u: np.ndarray, v: np.ndarray) -> float:
        nu, nv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
        return 0.0 if nu == 0 or nv == 0 else float(u @ v) / (nu * nv)

    left, out = list(range(len(vectors))), list[tuple[int, float]]()
    while left:
        chosen = [i for i, _ in out]
        values = [
            lambda_ * cos(query, vectors[i])
            - (1 - lambda_) * max((cos(vectors[i], vectors[j]) for j in chosen), default=0)
            for i in left
        ]
        best = max(range(len(left)), key=lambda n: (values[n], -n))
        out.append((left[best], values[best]))
        del left[best]
    return out


@pytest.mark.parametrize("lambda_", [0.0, 0.3, 0.7, 1.0])
def test_mmr_agrees_with_the_definition(lambda_: float) -> None:
    rng = np.random.default_rng(7)
    query, vectors = rng.normal(size=8), list(rng.normal(size=(40, 8)))
    expected = _mmr_by_loops(query, vectors, lambda_)
    ranked = mmr(query, [(str(i), v) for i, v in enumerate(vectors)], lambda_=lambda_)
    assert ids(ranked) == [str(i) for i, _ in expected]
    assert [s for _, s in ranked] == pytest.approx([s for _, s in expected])


# -- shortest hops ----------------------------------------------------------------
#
#   c1 - a - b - c1   (a triangle: a cycle)
#             b - d - e - f

EDGES = [("c1", "a"), ("a", "b"), ("b", "c1"), ("b", "d"), ("d", "e"), ("e", "f")]


class Graph:
    """Answers one level per call, recording each frontier it was asked about."""

    def __init__(self) -> None:
        self.adjacent: dict[str, list[str]] = {}
        for x, y in EDGES:
            self.adjacent.setdefault(x, []).append(y)
            self.adjacent.setdefault(y, []).append(x)
        self.calls: list[list[str]] = []

    def __call__(self, frontier: Collection[str]) -> Mapping[str, Collection[str]]:
        self.calls.append(sorted(frontier))
        return {node: self.adjacent[node] for node in frontier if node in self.adjacent}

    async def level(self, frontier: Collection[str]) -> Mapping[str, Collection[str]]:
        await asyncio.sleep(0)
        return self(frontier)


def test_hops_with_a_cycle_and_a_depth_cut() -> None:
    # Level 1 from c1: a, b (the cycle closes back on c1, already at 0).
    # Level 2: d (from b); e is 3 hops away, past the cut.
    graph = Graph()
    assert shortest_hops({"c1"}, graph, depth=2) == {"c1": 0, "a": 1, "b": 1, "d": 2}
    assert graph.calls == [["c1"], ["a", "b"]]  # one call per level, none past the depth


def test_hops_stop_when_nothing_new_is_reached() -> None:
    # Levels: c1 | a b | d | e | f; f's only neighbour e is known, so the walk ends.
    graph = Graph()
    assert shortest_hops(["c1"], graph, depth=10) == {"c1": 0, "a": 1, "b": 1, "d": 2, "e": 3, "f": 4}
    assert graph.calls == [["c1"], ["a", "b"], ["d"], ["e"], ["f"]]


def test_hops_are_from_the_nearest_centre() -> None:
    # d is 2 hops from c1 (via b) but 1 from e: the shortest counts.
    # f is 1 from e; a and b 1 from c1.
    assert shortest_hops(["c1", "e"], Graph(), depth=2) == {"c1": 0, "e": 0, "a": 1, "b": 1, "d": 1, "f": 1}


def test_hops_edge_cases() -> None:
    graph = Graph()
    assert shortest_hops({"c1"}, graph, depth=0) == {"c1": 0}
    assert shortest_hops([], graph, depth=3) == {}
    assert shortest_hops(["lonely"], graph, depth=3) == {"lonely": 0}  # unknown to the graph: no neighbours
    assert graph.calls == [["lonely"]]
    with pytest.raises(ValueError, match="one string"):
        shortest_hops("c1", graph, depth=1)
    with pytest.raises(ValueError, match="depth"):
        shortest_hops(["c1"], graph, depth=-1)


@pytest.mark.parametrize("centres,depth", [(["c1"], 2), (["c1"], 10), (["c1", "e"], 2), (["f"], 1), ([], 1)])
def test_hops_async_agrees_with_sync(centres: list[str], depth: int) -> None:
    sync_graph, async_graph = Graph(), Graph()
    expected = shortest_hops(centres, sync_graph, depth=depth)
    assert asyncio.run(shortest_hops_async(centres, async_graph.level, depth=depth)) == expected
    assert async_graph.calls == sync_graph.calls


# -- node distance and episode mentions -------------------------------------------


def test_node_distance_hand_computed() -> None:
    # b 0 hops -> 1/1; d 1 -> 1/2; a, c 2 -> 1/3 (a first: input order); x unreachable -> last, 0.
    ranked = node_distance(["x", "a", "b", "c", "d"], {"a": 2, "b": 0, "c": 2, "d": 1, "other": 0})
    assert ids(ranked) == ["b", "d", "a", "c", "x"]
    assert [s for _, s in ranked] == pytest.approx([1.0, 0.5, 1 / 3, 1 / 3, 0.0])


def test_node_distance_default_for_unreachable() -> None:
    # default 1: x counts as 1 hop, ties with d and comes first (it is first in the input).
    ranked = node_distance(["x", "a", "b", "c", "d"], {"a": 2, "b": 0, "c": 2, "d": 1}, default=1)
    assert ids(ranked) == ["b", "x", "d", "a", "c"]
    assert [s for _, s in ranked] == pytest.approx([1.0, 0.5, 0.5, 1 / 3, 1 / 3])


def test_node_distance_edge_cases() -> None:
    assert node_distance([], {"a": 1}) == []
    assert node_distance(["y", "x"], {}) == [("y", 0.0), ("x", 0.0)]
    assert node_distance(["a", "b", "a"], {"a": 1, "b": 1}) == [("a", 0.5), ("b", 0.5)]
    with pytest.raises(ValueError, match="default"):
        node_distance(["a"], {}, default=-1)


def test_episode_mentions_most_mentioned_first() -> None:
    # c 5; b and d 3 each (b first in input); a unknown -> 0.
    ranked = episode_mentions(["a", "b", "c", "d"], {"b": 3, "c": 5, "d": 3})
    assert ranked == [("c", 5.0), ("b", 3.0), ("d", 3.0), ("a", 0.0)]
    assert episode_mentions([], {"a": 1}) == []


# -- cross_encode --------------------------------------------------------------------


class WordOverlap:
    """A stand-in cross-encoder: the number of query words in the passage."""

    name = "word-overlap"

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []

    async def score(self, query: str, passages: Sequence[str]) -> list[float]:
        self.calls.append((query, list(passages)))
        words = set(query.lower().split())
        return [float(len(words & set(p.lower().split()))) for p in passages]


def test_cross_encode_hand_computed() -> None:
    # "alice paris": f1 0 words, f2 2, f3 1, f4 2 -> f2, f4 (tie, input order), f3, f1.
    encoder = WordOverlap()
    assert isinstance(encoder, CrossEncoder)
    candidates = [
        ("f1", "Bob lives in Rome"),
        ("f2", "Alice moved to Paris"),
        ("f3", "Alice likes tea"),
        ("f4", "Alice in Paris again"),
        ("f2", "a repeat is not scored twice"),
    ]
    ranked = asyncio.run(cross_encode(encoder, "alice paris", candidates))
    assert ranked == [("f2", 2.0), ("f4", 2.0), ("f3", 1.0), ("f1", 0.0)]
    assert encoder.calls == [("alice paris", [text for _, text in candidates[:4]])]


def test_cross_encode_empty_makes_no_call() -> None:
    encoder = WordOverlap()
    assert asyncio.run(cross_encode(encoder, "q", [])) == []
    assert encoder.calls == []


class Broken:
    name = "broken"

    def __init__(self, scores: list[float]) -> None:
        self.scores = scores

    async def score(self, query: str, passages: Sequence[str]) -> list[float]:
        return self.scores


def test_cross_encode_wrong_count_or_nan_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"'broken' returned 1 scores for 2 passages"):
        asyncio.run(cross_encode(Broken([1.0]), "q", [("a", "x"), ("b", "y")]))
    with pytest.raises(ValueError, match="NaN"):
        asyncio.run(cross_encode(Broken([1.0, math.nan]), "q", [("a", "x"), ("b", "y")]))


# -- SentenceTransformerCrossEncoder, against a stand-in library -------------------


class _FakeCrossEncoder:
    """Stands in for sentence_transformers.CrossEncoder: scores passage length."""

    calls: list[dict[str, Any]] = []

    def __init__(self, name: str, *, device: str | None = None, local_files_only: bool = False) -> None:
        _FakeCrossEncoder.calls.append(
            {
                "name": name,
                "device": device,
                "local_files_only": local_files_only,
                "offline": os.environ.get("HF_HUB_OFFLINE"),
            }
        )
        if name == "missing/model":
            raise OSError("not found in the cache")
        self.shape_2d = False

    def predict(self, pairs: list[tuple[str, str]], **kwargs: Any) -> np.ndarray:
        assert kwargs["batch_size"] == 4 and kwargs["show_progress_bar"] is False
        scores = np.array([float(len(p)) for _, p in pairs], dtype=np.float32)
        return scores.reshape(-1, 1) if self.shape_2d else scores


@pytest.fixture
def fake_st(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    module = types.ModuleType("sentence_transformers")
    module.CrossEncoder = _FakeCrossEncoder  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", module)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    _FakeCrossEncoder.calls = []
    return _FakeCrossEncoder.calls


def test_local_cross_encoder_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # makes the import fail
    with pytest.raises(ImportError, match=r"kronograph\[local\]"):
        SentenceTransformerCrossEncoder("cross-encoder/ms-marco-MiniLM-L-6-v2")


def test_local_cross_encoder_loads_offline_only(fake_st: list[dict[str, Any]]) -> None:
    encoder = SentenceTransformerCrossEncoder("some/model", device="cpu", batch_size=4)
    assert fake_st == [{"name": "some/model", "device": "cpu", "local_files_only": True, "offline": "1"}]
    assert "HF_HUB_OFFLINE" not in os.environ  # restored after the load
    assert encoder.name == "local:some/model"
    assert isinstance(encoder, CrossEncoder)


def test_local_cross_encoder_missing_model(fake_st: list[dict[str, Any]]) -> None:
    with pytest.raises(EmbeddingError, match="not available locally.*never downloads"):
        SentenceTransformerCrossEncoder("missing/model")
    with pytest.raises(ValueError, match="batch_size"):
        SentenceTransformerCrossEncoder("some/model", batch_size=0)


def test_local_cross_encoder_scores_through_cross_encode(fake_st: list[dict[str, Any]]) -> None:
    encoder = SentenceTransformerCrossEncoder("some/model", batch_size=4)
    candidates = [("a", "xx"), ("b", "xxxx"), ("c", "x")]  # lengths 2, 4, 1
    assert asyncio.run(cross_encode(encoder, "q", candidates)) == [("b", 4.0), ("a", 2.0), ("c", 1.0)]
    encoder._model.shape_2d = True  # a (n, 1) answer is read as n scores
    assert asyncio.run(encoder.score("q", ["xx", "x"])) == [2.0, 1.0]
    assert asyncio.run(encoder.score("q", [])) == []


def test_local_cross_encoder_failure_is_an_embedding_error(
    fake_st: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    encoder = SentenceTransformerCrossEncoder("some/model", batch_size=4)

    def boom(pairs: list[tuple[str, str]], **kwargs: Any) -> np.ndarray:
        raise RuntimeError("CUDA out of memory")

    monkeypatch.setattr(encoder._model, "predict", boom)
    with pytest.raises(EmbeddingError, match="out of memory"):
        asyncio.run(encoder.score("q", ["x"]))
    monkeypatch.setattr(encoder._model, "predict", lambda pairs, **kw: np.ones((len(pairs), 3)))
    with pytest.raises(EmbeddingError, match="one output label"):
        asyncio.run(encoder.score("q", ["x"]))


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None or not os.environ.get("KRONOGRAPH_TEST_CROSS_ENCODER"),
    reason="needs sentence-transformers and a local model in KRONOGRAPH_TEST_CROSS_ENCODER",
)
def test_local_cross_encoder_real_model() -> None:
    encoder = SentenceTransformerCrossEncoder(os.environ["KRONOGRAPH_TEST_CROSS_ENCODER"])
    ranked = asyncio.run(
        cross_encode(
            encoder,
            "Where does Alice live?",
            [("tea", "Bob likes green tea."), ("home", "Alice lives in Paris."), ("job", "Carol is a nurse.")],
        )
    )
    assert ranked[0][0] == "home"
