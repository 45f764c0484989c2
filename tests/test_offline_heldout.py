"""Held-out measurements of the offline extractor, scored with the same
matching as ``bench/offline_eval.py`` and asserted at the issue's targets
(precision ≥ 0.8, recall ≥ 0.6, dates right ≥ 0.7).

- ``offline_heldout.jsonl`` (71 episodes) was written without looking at the
  rules or the tuning set ``offline_gold.jsonl``. When first scored: 0.977 /
  0.741 / 0.630. Its misses, grouped by cause, then guided general rule
  changes (tested on new sentences of their own, never this file's); it now
  scores 0.981 / 0.879 / 0.926 (the one wrong fact is right but unannotated:
  see bench/offline_eval.md), which is optimistic since the causes came
  from here.
- ``offline_heldout2.jsonl`` (73 episodes) was written afterwards, blind to
  the rules, the tuning set and the first held-out set, and scored once the
  rule changes were done: 1.000 / 0.857 / 0.939. It is the unbiased measure.

Neither file is to be edited to fit the rules.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETS = ["offline_heldout.jsonl", "offline_heldout2.jsonl"]
RELATIONS = {
    "WORKS_AT", "LEFT", "LIVES_IN", "CEO_OF", "FOUNDER_OF", "CAPITAL_OF", "USES", "OWNS", "LIKES",
    "MARRIED_TO", "WORKS_ON", "LEADS", "MANAGES", "HAS_OFFICE_IN", "HAD_LUNCH_WITH", "HAD_DINNER_WITH",
}  # fmt: skip


def _load() -> ModuleType:
    name = "offline_eval_heldout"
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "offline_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


ev = _load()


@pytest.mark.parametrize("name", SETS)
def test_heldout_set_shape(name: str) -> None:
    path = ROOT / "tests" / "data" / name
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 60
    assert len({row["id"] for row in rows}) == len(rows)
    assert sum(not row["facts"] for row in rows) >= 15
    for row in rows:
        assert row["kind"] in {"message", "text"}
        for fact in row["facts"]:
            assert fact["relation"] in RELATIONS


@pytest.mark.parametrize("name", SETS)
def test_heldout_scores(name: str) -> None:
    report = ev.evaluate(ROOT / "tests" / "data" / name, repeat=1)
    detail = "\n".join(report.misses)
    assert report.precision >= ev.TARGETS["precision"], detail
    assert report.recall >= ev.TARGETS["recall"], detail
    assert report.dates >= ev.TARGETS["dates"], detail
