"""Held-out measurement of the offline extractor.

``tests/data/offline_heldout.jsonl`` was written without looking at the
extractor's rules or at the tuning set ``offline_gold.jsonl``, and is not to be
edited to fit the rules. It is scored with the same matching as
``bench/offline_eval.py``.

Measured when the set was written: precision 0.977 (43/44), recall 0.741
(43/58), dates right 0.630 (17/27). Its misses, grouped by cause, then guided
general rule changes (new sentences of their own, never this file's), after
which it measures 1.000 / 0.879 / 0.926: optimistic, since the causes came
from here. ``offline_heldout2.jsonl`` was written afterwards and never shown
to anyone working on the rules: it is the unbiased measure. All three
targets are asserted here.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = ROOT / "tests" / "data" / "offline_heldout.jsonl"
RELATIONS = {
    "WORKS_AT", "LEFT", "LIVES_IN", "CEO_OF", "FOUNDER_OF", "CAPITAL_OF", "USES", "OWNS", "LIKES",
    "MARRIED_TO", "WORKS_ON", "LEADS", "MANAGES", "HAS_OFFICE_IN", "HAD_LUNCH_WITH", "HAD_DINNER_WITH",
}  # fmt: skip
DATES_FLOOR = 0.70  # the target


def _load() -> ModuleType:
    name = "offline_eval_heldout"
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "offline_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


ev = _load()


def test_heldout_set_shape() -> None:
    rows = [json.loads(line) for line in HELDOUT.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 60
    assert len({row["id"] for row in rows}) == len(rows)
    assert sum(not row["facts"] for row in rows) >= 15
    for row in rows:
        assert row["kind"] in {"message", "text"}
        for fact in row["facts"]:
            assert fact["relation"] in RELATIONS


def test_heldout_scores() -> None:
    report = ev.evaluate(HELDOUT, repeat=1)
    detail = "\n".join(report.misses)
    assert report.precision >= ev.TARGETS["precision"], detail
    assert report.recall >= ev.TARGETS["recall"], detail
    assert report.dates >= DATES_FLOOR, detail
