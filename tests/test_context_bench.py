"""The context benchmark's pure parts on hand-made data: verbatim evidence
matching, answer-word shares, BM25 and packing, and the harness over a tiny
fake conversation and a fake memory."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import SimpleNamespace
from typing import Any

import pytest

from tests.bench_modules import load_bench

cb = load_bench("context", "context_bench")
lb = load_bench("locomo", "locomo")


# --- verbatim evidence -------------------------------------------------------------------------------------------


def test_normalise_folds_quotes_whitespace_and_case() -> None:
    assert cb.normalise("  It\u2019s  \u201cGreat\u201d\n\tnews\u2026 ") == "it's \"great\" news..."


def test_sentences_keep_four_words_or_more_without_closing_punctuation() -> None:
    text = "Hi Bo! I went hiking in Oslo. It was great. Did you see the fjords?"
    assert cb.sentences(text) == ["i went hiking in oslo", "did you see the fjords"]


@pytest.mark.parametrize(
    ("turn", "block", "found"),
    [
        ("I went hiking in Oslo.", "[2023-05-08] Bo: I went hiking in Oslo.", True),  # the whole turn
        ("Hi Bo! I went hiking in Oslo. It was great.", "Bo: I went hiking in Oslo \u2026", True),  # one sentence
        ("Hi Bo! It was great.", "hi bo! something else. it was great", False),  # no sentence of 4 words, not whole
        ("Hi Bo! It was great.", "Ann: Hi   Bo! It was great.", True),  # whole turn, whitespace folded
        ("It\u2019s my \u201cfavourite\u201d book ever.", "It's my \"favourite\" book ever", True),  # quotes
        ("I adopted a cat today.", "i adopted a cat todays", False),  # whole words only
        ("I adopted a cat today.", "Sam adopted a cat today", False),  # not verbatim
        ("Yes!", "yes, and more", True),  # a short whole turn still counts
        ("Yes!", "eyes", False),
    ],
)
def test_turn_in_block(turn: str, block: str, found: bool) -> None:
    assert cb.turn_in_block(turn, cb.normalise(block)) is found


def test_contains_matches_whole_words_anywhere() -> None:
    assert cb.contains("a cat and a catalogue", "a catalogue")
    assert not cb.contains("a catalogue", "a cat")
    assert cb.contains("x: oslo...", "oslo...")
    assert not cb.contains("anything", "")


def test_evidence_share() -> None:
    block = "Bo: I went hiking in Oslo.\nAnn: The cat is named Tom."
    assert cb.evidence_share(["I went hiking in Oslo.", "I adopted a cat."], block) == 0.5
    assert cb.evidence_share(["The cat is named Tom."], block) == 1.0
    with pytest.raises(ValueError):
        cb.evidence_share([], block)


# --- answer words ------------------------------------------------------------------------------------------------


def test_answer_words_drop_stopwords_keep_numbers_and_months() -> None:
    assert cb.answer_words("The week before 9 June 2023") == {"week", "9", "june", "2023"}
    assert cb.answer_words("7 May 2023") == {"7", "may", "2023"}
    assert cb.answer_words("Melanie's kids, and THE dog") == {"melanie", "kids", "dog"}
    assert cb.answer_words("No") == set()


def test_block_words_read_iso_dates_as_an_answer_writes_them() -> None:
    words = cb.block_words("[2023-05-07] Ann: moved (since 2022-11)")
    assert {"2023", "may", "7", "2022", "november", "ann", "moved"} <= words
    assert cb.block_words("2023-13-01") == {"2023", "13", "01"}  # not a month: only the plain tokens


def test_answer_share() -> None:
    assert cb.answer_share("7 May 2023", "[2023-05-07] Ann: hi") == 1.0
    assert cb.answer_share("pottery, camping, painting", "Mel: I love pottery and painting") == pytest.approx(2 / 3)
    assert cb.answer_share("No", "anything") is None


# --- BM25 and packing --------------------------------------------------------------------------------------------


def test_bm25_ranks_rare_words_higher_and_drops_non_matches() -> None:
    docs = [cb.tokens(t) for t in ("the cat sat", "the dog ran", "a cat and a dog", "nothing here", "cat cat cat")]
    index = cb.BM25(docs)
    ranked = index.rank(cb.tokens("where is the cat?"))
    assert set(ranked) == {0, 2, 4}
    assert ranked[0] == 4  # most occurrences
    assert index.rank(cb.tokens("the")) == []  # stopwords carry nothing
    assert all(v > 0 for v in index.idf.values())


def test_bm25_ties_keep_document_order() -> None:
    index = cb.BM25([["oslo"], ["oslo"], ["oslo"]])
    assert index.rank(["oslo"]) == [0, 1, 2]


def test_pack_fills_in_order_skipping_what_does_not_fit() -> None:
    assert cb.pack(["aaaa", "bbbbbbbbbb", "cc", "aaaa", "d"], 9) == "aaaa\ncc\nd"
    assert len(cb.pack(["x" * 5] * 10, 17)) <= 17
    assert cb.pack(["abc"], 3) == "abc"
    assert cb.pack(["abcd"], 3) == ""


def test_bm25_block_packs_turns_in_rank_order() -> None:
    contents = ["Ann: I love Oslo", "Bo: cats are nice", "Ann: Oslo Oslo Oslo"]
    index = cb.BM25([cb.tokens(c) for c in contents])
    assert cb.bm25_block(index, contents, "Why Oslo?", 40) == "Ann: Oslo Oslo Oslo\nAnn: I love Oslo"
    assert cb.bm25_block(index, contents, "Why Oslo?", 20) == "Ann: Oslo Oslo Oslo"


def _hit(item: Any, score: float = 1.0) -> Any:
    return SimpleNamespace(item=item, score=score, methods=("bm25",))


def test_plain_lines_interleave_by_rank() -> None:
    results = SimpleNamespace(
        facts=[_hit(SimpleNamespace(fact="Ann LIKES Oslo")), _hit(SimpleNamespace(fact="Bo HAS cat"))],
        entities=[_hit(SimpleNamespace(name="Ann", summary="a hiker")),
                  _hit(SimpleNamespace(name="Oslo", summary=None))],
        episodes=[_hit(SimpleNamespace(content="Ann: hi"))],
    )
    assert cb.plain_lines(results) == ["Ann LIKES Oslo", "Ann: a hiker", "Ann: hi", "Bo HAS cat", "Oslo"]


# --- the harness over a fake conversation ------------------------------------------------------------------------

SAMPLE: dict[str, Any] = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bo!"},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "I went hiking in Oslo last week. It was cold."},
            {"speaker": "Ann", "dia_id": "D1:3", "text": "I adopted a cat named Tom yesterday."},
        ],
        "session_2_date_time": "9:05 am on 25 May, 2023",
        "session_2": [
            {"speaker": "Bo", "dia_id": "D2:1", "text": "Oslo again next week."},
            {"speaker": "Ann", "dia_id": "D2:2", "text": "Tom the cat is doing well now."},
        ],
    },
    "qa": [
        {"question": "Where did Bo hike?", "answer": "Oslo", "evidence": ["D1:2"], "category": 4},
        {"question": "What is Ann's cat called?", "answer": "Tom", "evidence": ["D1:3", "D2:2"], "category": 1},
        {"question": "When did Ann adopt a cat?", "answer": 7, "evidence": ["D1:3"], "category": 2},
        {"question": "Would Bo go back?", "answer": "Yes", "evidence": ["D2:1"], "category": 3},
        {"question": "What did Bo adopt?", "adversarial_answer": "a cat", "evidence": ["D1:3"], "category": 5},
    ],
}


class FakeMemory:
    """A memory whose context holds Bo's hike verbatim, a fact citing D1:3, and
    D2:2 cut to a fragment; search returns every episode, newest first."""

    def __init__(self) -> None:
        self.episodes: dict[str, dict[str, Any]] = {}
        self.calls: list[tuple[str, str, int]] = []

    def add_episodes(self, group_id: str, episodes: Iterable[Mapping[str, Any]]) -> list[Any]:
        for e in episodes:
            self.episodes[e["episode_id"]] = dict(e)
        return [SimpleNamespace(status="complete") for _ in self.episodes]

    def _episode(self, uid: str) -> Any:
        return SimpleNamespace(uuid=uid, content=self.episodes[uid]["content"])

    def context(self, group_id: str, query: str | None = None, *, max_tokens: int = 1000) -> Any:
        self.calls.append(("context", group_id, max_tokens))
        text = ("Facts:\n- Ann HAS_PET Tom (since 2023-05-07) [ep D1:3]\n"
                "Episodes:\n[2023-05-08] Bo: I went hiking in Oslo last week.\n[2023-05-25] Ann: Tom the cat")
        fact = SimpleNamespace(uuid="f1", fact="Ann HAS_PET Tom", episodes=("D1:3",))
        return SimpleNamespace(
            text=text, tokens=40, counter="estimate", facts=[_hit(fact)], entities=[],
            episodes=[_hit(self._episode("D1:2")), _hit(self._episode("D2:2"))],
            left_out=[_hit(self._episode("D2:1"))],
        )

    def search(self, group_ids: str, query: str, *, limit: int = 10) -> Any:
        self.calls.append(("search", group_ids, limit))
        return SimpleNamespace(facts=[], entities=[],
                               episodes=[_hit(self._episode(uid)) for uid in reversed(self.episodes)])

    def close(self) -> None:
        pass


def test_questions_carry_their_gold_answer() -> None:
    conversations, _ = lb.load([SAMPLE])
    assert [q.answer for q in conversations[0].questions] == ["Oslo", "Tom", "7", "Yes"]


def test_harness_scores_each_method_and_where_evidence_went() -> None:
    conversations, _ = lb.load([SAMPLE])
    memory = FakeMemory()
    lb.ingest(memory, conversations)
    result = cb.evaluate(memory, conversations, max_tokens=25, progress=False)
    m = result["metrics"]
    assert m["overall"]["n"] == 4
    assert m["single-hop"]["evidence"]["context"] == 1.0  # D1:2's first sentence is in the block
    assert m["multi-hop"]["evidence"]["context"] == 0.0  # D1:3 only through a fact, D2:2 cut
    assert m["temporal"]["evidence"]["context"] == 0.0
    assert m["open-domain"]["evidence"]["context"] == 0.0  # D2:1 ranked but left out
    fates = m["overall"]["evidence_fate"]
    assert fates == {"verbatim": 0.2, "episode_cut": 0.2, "fact_only": 0.4, "left_out": 0.2, "not_ranked": 0.0}
    assert m["single-hop"]["answer"]["context"] == 1.0  # "oslo"
    assert m["multi-hop"]["answer"]["context"] == 1.0  # "tom"
    assert m["temporal"]["answer"]["context"] == 1.0  # "7": the ISO date's day
    assert m["open-domain"]["answer"]["context"] == 0.0  # "yes" is not in the block
    # BM25 gets 25 * 4 = 100 characters: "bo" ranks "Hi Bo!" and Bo's turns (their speaker), shortest first
    # ("hike" is no word of theirs: "hiking"), and all three fit
    assert m["single-hop"]["evidence"]["bm25"] == 1.0
    assert m["single-hop"]["shape"]["tokens"] == 40.0 and m["single-hop"]["shape"]["facts"] == 1.0
    assert result["counter"] == {"estimate": 4}
    assert ("search", "conv-x", cb.PLAIN_LIMIT) in memory.calls
    assert all(call[2] == 25 for call in memory.calls if call[0] == "context")
    assert result["latency_ms"]["context"]["p95"] >= 0.0


def test_harness_baselines_stay_in_their_character_budget() -> None:
    conversations, _ = lb.load([SAMPLE])
    memory = FakeMemory()
    lb.ingest(memory, conversations)
    # the plain pack holds every episode when the budget allows, so all evidence is in it
    wide = cb.evaluate(memory, conversations, max_tokens=100, progress=False)["metrics"]["overall"]
    assert wide["evidence"]["plain"] == 1.0
    narrow = cb.evaluate(memory, conversations, max_tokens=10, progress=False)["metrics"]["overall"]
    assert narrow["evidence"]["plain"] < 1.0


def test_checks_compare_with_bm25_per_category_and_the_target() -> None:
    def metrics(context: float, bm25: float) -> dict[str, Any]:
        cell = {"n": 1, "evidence": {"context": context, "plain": 0.0, "bm25": bm25},
                "answer": {"context": context, "plain": 0.0, "bm25": bm25}}
        return {**{c: cell for c in lb.CATEGORIES.values()}, "overall": cell}

    ok = cb.checks([{"embedder": "hashing", "metrics": metrics(0.85, 0.6)}])
    assert all(ok.values()) and len(ok) == 3
    ok = cb.checks([{"embedder": "hashing", "metrics": metrics(0.75, 0.6)}])
    assert ok == {"hashing: context evidence share above bm25 in every category": True,
                  "hashing: context answer share above bm25 in every category": True,
                  "hashing: context evidence share overall >= 0.80": False}
    ok = cb.checks([{"embedder": "minilm", "metrics": metrics(0.5, 0.6)}])
    assert not any(ok.values()) and len(ok) == 2
