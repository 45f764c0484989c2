"""The LoCoMo benchmark's pure parts, on tiny hand-made data: evidence ids,
turns and reference times, recall@k and MRR, and the as-of leakage count."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("locomo_bench", BENCH / "locomo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("locomo_bench", module)
    spec.loader.exec_module(module)
    return module


lb = _load()

S1 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
S2 = datetime(2023, 5, 25, 9, 5, tzinfo=UTC)

SAMPLE: dict[str, Any] = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bo!"},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "I went hiking in Oslo."},
            {"speaker": "Ann", "dia_id": "D1:3", "text": "I adopted a cat.", "blip_caption": "a cat"},
        ],
        "session_2_date_time": "9:05 am on 25 May, 2023",
        "session_2": [
            {"speaker": "Bo", "dia_id": "D2:1", "text": "Oslo again next week."},
            {"speaker": "Ann", "dia_id": "D2:2", "text": "The cat is named Tom."},
        ],
        "session_3_date_time": "10:00 am on 1 June, 2023",  # a date with no session: ignored
    },
    "qa": [
        {"question": "Where did Bo hike?", "answer": "Oslo", "evidence": ["D1:2"], "category": 4},
        {"question": "What is Ann's cat called?", "answer": "Tom", "evidence": ["D1:3; D2:2"], "category": 1},
        {"question": "When did Bo go to Oslo?", "answer": "May", "evidence": ["D:1:2", "D1:2"], "category": 2},
        {"question": "Would Ann like dogs?", "answer": "maybe", "evidence": [], "category": 3},
        {"question": "Who is Tom?", "answer": "a cat", "evidence": ["D", "D9:9"], "category": 3},
        {"question": "What did Bo adopt?", "adversarial_answer": "a cat", "evidence": ["D1:3"], "category": 5},
    ],
}


# --- evidence ids ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "ids", "repaired", "malformed"),
    [
        (["D1:3"], ["D1:3"], 0, []),
        (["D1:3", "D2:10"], ["D1:3", "D2:10"], 0, []),
        (["D8:6; D9:17"], ["D8:6", "D9:17"], 1, []),
        (["D9:1 D4:4 D4:6"], ["D9:1", "D4:4", "D4:6"], 1, []),
        (["D:11:26"], ["D11:26"], 1, []),
        (["D"], [], 0, ["D"]),
        ([""], [], 0, [""]),
        (["D1:3", "D1:3", "D1:3, D2:1"], ["D1:3", "D2:1"], 1, []),
        (["D01:03"], ["D1:3"], 1, []),
        ([], [], 0, []),
    ],
)
def test_split_evidence(raw: list[str], ids: list[str], repaired: int, malformed: list[str]) -> None:
    assert lb.split_evidence(raw) == (ids, repaired, malformed)


def test_session_time() -> None:
    assert lb.session_time("1:56 pm on 8 May, 2023") == S1
    assert lb.session_time(" 12:09 am on 13 October, 2023") == datetime(2023, 10, 13, 0, 9, tzinfo=UTC)


def test_turns_get_the_session_time_plus_their_index_in_seconds() -> None:
    conversation, _ = _conversation()
    assert [t.dia_id for t in conversation.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert [t.reference_time for t in conversation.turns] == [
        S1, S1 + timedelta(seconds=1), S1 + timedelta(seconds=2), S2, S2 + timedelta(seconds=1)
    ]
    assert conversation.sessions == 2
    items = lb.episode_items(conversation)
    assert items[1] == {"content": "Bo: I went hiking in Oslo.", "reference_time": S1 + timedelta(seconds=1),
                        "episode_id": "D1:2", "name": "D1:2", "kind": "message"}


def test_questions_map_evidence_to_turn_ids_and_count_what_they_drop() -> None:
    conversation, stats = _conversation()
    assert [(q.category, q.evidence) for q in conversation.questions] == [
        (4, ("D1:2",)), (1, ("D1:3", "D2:2")), (2, ("D1:2",))
    ]
    assert dict(conversation.left_out) == {3: 2, 5: 1}  # one with no evidence, one with only bad ids; adversarial
    assert stats.ids == 4
    assert stats.repaired == 2  # "D1:3; D2:2" and "D:1:2"
    assert stats.malformed == ["D"]
    assert stats.unknown == ["conv-x/D9:9"]
    assert stats.no_evidence == 2


# --- metrics -----------------------------------------------------------------------------------------------------


def test_score_by_hand() -> None:
    ranked = [f"x{i}" for i in range(1, 21)]
    ranked[2], ranked[6], ranked[14] = "e1", "e2", "e3"  # ranks 3, 7 and 15
    s = lb.score(ranked, ["e1", "e2", "e3", "e4"])
    assert s == {"recall@5": 0.25, "recall@10": 0.5, "recall@20": 0.75, "mrr": pytest.approx(1 / 3)}
    assert lb.score(["a", "b"], ["z"]) == {"recall@5": 0.0, "recall@10": 0.0, "recall@20": 0.0, "mrr": 0.0}
    assert lb.score(["z"], ["z"])["mrr"] == 1.0
    with pytest.raises(ValueError):
        lb.score(["a"], [])


def test_aggregate_means_per_category_and_overall() -> None:
    rows = [
        (1, {"recall@5": 0.0, "recall@10": 0.5, "recall@20": 1.0, "mrr": 0.1}),
        (1, {"recall@5": 1.0, "recall@10": 1.0, "recall@20": 1.0, "mrr": 1.0}),
        (4, {"recall@5": 0.0, "recall@10": 0.0, "recall@20": 0.0, "mrr": 0.0}),
    ]
    out = lb.aggregate(rows)
    assert out["multi-hop"] == {"n": 2, "recall@5": 0.5, "recall@10": 0.75, "recall@20": 1.0, "mrr": 0.55}
    assert out["single-hop"]["n"] == 1 and out["single-hop"]["mrr"] == 0.0
    assert out["temporal"] == {"n": 0, "recall@5": 0.0, "recall@10": 0.0, "recall@20": 0.0, "mrr": 0.0}
    assert out["overall"]["n"] == 3
    assert out["overall"]["recall@10"] == pytest.approx(0.5)
    assert out["overall"]["mrr"] == pytest.approx(1.1 / 3)


def test_leaks_counts_evidence_and_episodes_after_as_of() -> None:
    as_of = S1 + timedelta(seconds=1)
    returned = [("D1:1", S1), ("D1:2", as_of), ("D1:3", S1 + timedelta(seconds=2)), ("D2:1", S2)]
    assert lb.leaks(returned, ["D2:1"], as_of) == (1, 2)
    assert lb.leaks(returned[:2], ["D2:1"], as_of) == (0, 0)  # at as_of exactly is not after it
    assert lb.leaks([], ["D1:1"], as_of) == (0, 0)


def test_as_of_is_one_second_before_the_earliest_evidence_turn() -> None:
    conversation, _ = _conversation()
    times = {t.dia_id: t.reference_time for t in conversation.turns}
    multi_hop = conversation.questions[1]
    assert lb.as_of_for(multi_hop, times) == S1 + timedelta(seconds=1)  # D1:3 is at S1 + 2 s


def test_percentile_is_nearest_rank() -> None:
    assert lb.percentile([], 0.95) == 0.0
    assert lb.percentile(list(range(1, 101)), 0.95) == 95
    assert lb.percentile([3.0], 0.5) == 3.0


# --- the harness, over a fake memory ------------------------------------------------------------------------------


class FakeMemory:
    """Returns every episode of the group, newest first; honours ``as_of`` only when told to."""

    def __init__(self, conversation: Any, *, honour_as_of: bool) -> None:
        self.turns = conversation.turns
        self.honour_as_of = honour_as_of
        self.calls: list[dict[str, Any]] = []

    def add_episodes(self, group_id: str, episodes: Iterable[Mapping[str, Any]]) -> list[Any]:
        return [SimpleNamespace(status="complete") for _ in episodes]

    def search(self, group_ids: str | Sequence[str], query: str, **options: Any) -> Any:
        self.calls.append({"group_ids": group_ids, "query": query, **options})
        as_of = options.get("as_of")
        turns = [t for t in reversed(self.turns)
                 if not (self.honour_as_of and as_of is not None and t.reference_time > as_of)]
        items = [SimpleNamespace(item=SimpleNamespace(uuid=t.dia_id, reference_time=t.reference_time))
                 for t in turns[: options["limit"]]]
        return SimpleNamespace(episodes=items)

    def close(self) -> None:
        pass


def test_evaluate_scores_rankings_and_catches_leaks() -> None:
    conversation, _ = _conversation()
    honest = FakeMemory(conversation, honour_as_of=True)
    out = lb.evaluate(honest, [conversation], {"bm25": "bm25", "default": None})
    assert set(out) == {"bm25", "default"}
    # every scored question asked once timed, once as of (plus one untimed warm-up), per recipe
    assert len(honest.calls) == 2 * (1 + 2 * len(conversation.questions))
    assert all(c["scopes"] == ("episodes",) and c["limit"] == 20 for c in honest.calls)
    assert [c.get("recipe") for c in honest.calls[:1]] == ["bm25"]
    assert "recipe" not in honest.calls[-1]  # the default recipe is the one a caller gets by not choosing
    m = out["bm25"]["metrics"]
    # newest first: D2:2 D2:1 D1:3 D1:2 D1:1 -> D1:2 at rank 4, D1:3 at 3 and D2:2 at 1
    assert m["single-hop"] == {"n": 1, "recall@5": 1.0, "recall@10": 1.0, "recall@20": 1.0, "mrr": 0.25}
    assert m["multi-hop"]["mrr"] == 1.0
    assert m["overall"]["n"] == 3
    assert out["bm25"]["leakage"] == {"queries": 3, "evidence_returned": 0, "after_as_of_returned": 0,
                                      "mean_returned": pytest.approx(4 / 3)}

    leaky = lb.evaluate(FakeMemory(conversation, honour_as_of=False), [conversation], {"bm25": "bm25"})
    assert leaky["bm25"]["leakage"]["evidence_returned"] == 4
    assert leaky["bm25"]["leakage"]["after_as_of_returned"] > 0


def _conversation() -> tuple[Any, Any]:
    stats = lb.EvidenceStats()
    return lb.load_conversation(SAMPLE, stats), stats
