"""The offline extractor's scores on whole conversations (bench/chat_eval.py),
held at what was measured so that a change to the rules cannot quietly lose
ground. These are floors, not the issue's targets (linked recall >= 0.6, wrong
<= 0.05): the latest blind set is below them, and says so in the README."""

from __future__ import annotations

from pathlib import Path

import pytest

from .bench_modules import load_bench

chat_eval = load_bench("chat_eval")

DATA = Path(__file__).resolve().parent / "data"


# set: (linked recall at least, wrong rate at most), as measured when issue 14's work stopped
FLOORS = {
    "chat_conversations_dev.jsonl": (0.92, 0.03),
    "chat_conversations_heldout.jsonl": (0.91, 0.01),
    "chat_conversations_heldout2.jsonl": (0.629, 0.01),  # 85/135 = 0.6296: 0.63 was rounded up
    "chat_conversations_heldout3.jsonl": (0.70, 0.02),
    "chat_conversations_heldout4.jsonl": (0.73, 0.02),
    "chat_conversations_heldout5.jsonl": (0.66, 0.02),
    "chat_conversations_heldout6.jsonl": (0.66, 0.02),
    "chat_conversations_heldout7.jsonl": (0.79, 0.02),  # 0.393 / 0.075 when scored blind
    "chat_conversations_heldout8.jsonl": (0.58, 0.01),  # 0.338 / 0.111 when scored blind
    "chat_conversations_heldout9.jsonl": (0.32, 0.05),  # blind when scored, never tuned on
}


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_conversations_keep_their_measured_scores(name: str) -> None:
    report = chat_eval.evaluate(DATA / name)
    assert report.ways_in == {"add_messages"}
    recall, wrong = FLOORS[name]
    assert report.recall >= recall, (name, report.recall)
    assert report.wrong <= wrong, (name, report.wrong)
