"""Second held-out measurement of the offline extractor.

``tests/data/offline_heldout2.jsonl`` (73 episodes: 55 with 63 gold facts, 33
of them dated, and 18 negatives; ids ``h2p..``/``h2n..``) was written without
looking at the extractor's rules, at the tuning set ``offline_gold.jsonl``
(beyond its JSONL format) or at the first held-out set, and is not to be edited
to fit the rules. It is scored with the same matching as
``bench/offline_eval.py``.

Measured when the set was first scored: precision 1.000 (54/54), recall 0.857
(54/63), dates right 0.939 (31/33, 31/31 of those found). All three meet the
issue's targets (0.8, 0.6, 0.7) and are asserted at those.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = ROOT / "tests" / "data" / "offline_heldout2.jsonl"
RELATIONS = {
    "WORKS_AT", "LEFT", "LIVES_IN", "CEO_OF", "FOUNDER_OF", "CAPITAL_OF", "USES", "OWNS", "LIKES",
    "MARRIED_TO", "WORKS_ON", "LEADS", "MANAGES", "HAS_OFFICE_IN", "HAD_LUNCH_WITH", "HAD_DINNER_WITH",
}  # fmt: skip


def _load() -> ModuleType:
    name = "offline_eval_heldout2"
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "offline_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


ev = _load()


def test_heldout2_set_shape() -> None:
    rows = [json.loads(line) for line in HELDOUT.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 60
    assert len({row["id"] for row in rows}) == len(rows)
    assert sum(not row["facts"] for row in rows) >= 15
    for row in rows:
        assert row["kind"] in {"message", "text"}
        for fact in row["facts"]:
            assert fact["relation"] in RELATIONS


def test_heldout2_scores() -> None:
    report = ev.evaluate(HELDOUT, repeat=1)
    detail = "\n".join(report.misses)
    assert report.precision >= ev.TARGETS["precision"], detail
    assert report.recall >= ev.TARGETS["recall"], detail
    assert report.dates >= ev.TARGETS["dates"], detail
