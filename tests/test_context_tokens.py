"""Token counting for context blocks: the estimate's promise (never under
o200k_base or cl100k_base by more than 10% on blocks of English chat),
measured against exact counts on LoCoMo's turns (when the data set is on
this machine) and the repository's chat sets; and the counters' API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kronograph.context.tokens import EstimateCounter, bpe_counter, counter_for, default_counter
from kronograph.errors import InvalidInputError

DATA = Path(__file__).parent / "data"
LOCOMO = Path("/work/shared/data/locomo/locomo10.json")
BLOCK = 20  # turns a block


def chat_sets() -> list[str]:
    turns = []
    for path in sorted(DATA.glob("chat_conversations_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            turns += [f"- {m['content']}" for m in json.loads(line)["messages"]]
    return turns


def locomo() -> list[str]:
    turns = []
    for sample in json.loads(LOCOMO.read_text(encoding="utf-8")):
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [f"- [2023-05-08] {t['speaker']}: {t['text']}" for t in session]
    return turns


def blocks(turns: list[str]) -> list[str]:
    return ["\n".join(turns[i : i + BLOCK]) for i in range(0, len(turns), BLOCK)]


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
@pytest.mark.parametrize("source", ["chat sets", "locomo"])
def test_the_estimate_never_undercounts_a_block_by_more_than_a_tenth(encoding: str, source: str):
    exact = bpe_counter(encoding)
    if exact is None:
        pytest.skip("bpe-openai (the tokens extra) is not installed")
    if source == "locomo" and not LOCOMO.exists():
        pytest.skip("LoCoMo is not on this machine")
    turns = chat_sets() if source == "chat sets" else locomo()
    estimate = EstimateCounter()
    ratios = [estimate.count(b) / exact.count(b) for b in blocks(turns)]
    assert len(ratios) >= 40
    assert min(ratios) >= 0.9
    assert sorted(ratios)[len(ratios) // 2] <= 1.3  # and it does not waste the budget either


def test_counters():
    assert default_counter().name in ("o200k_base", "estimate")
    assert counter_for("estimate").name == "estimate"
    assert counter_for(None).name == default_counter().name

    def words(text: str) -> int:
        return len(text.split())

    assert counter_for(words).count("a b c") == 3 and counter_for(words).name == "words"
    assert EstimateCounter().count("") == 0
    for bad in (3, "gpt2", object()):
        with pytest.raises(InvalidInputError, match="token_counter"):
            counter_for(bad)
    with pytest.raises(InvalidInputError, match="token_counter"):
        counter_for(lambda text: 1.5).count("x")
