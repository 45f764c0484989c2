"""Every shared temporal scenario, run through the public API on every backend."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from kronograph import Fact, Memory, Verdict
from kronograph.model import fold_relation, normalise_name
from kronograph.time import parse_time

ON_CITUS = True  # the backend fixture adds the Citus cluster (tests/conftest.py)

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.json"))


def triple_key(text: str) -> tuple[str, str, str]:
    """'Alice LIVES_IN Beijing' -> normalised (subject, relation, object).
    The relation is the first all-caps word-ish token between two names."""
    words = text.split()
    for i, word in enumerate(words):
        if i > 0 and i < len(words) - 1 and word.upper() == word and any(c.isalpha() for c in word):
            return (normalise_name(" ".join(words[:i])), fold_relation(word), normalise_name(" ".join(words[i + 1 :])))
    raise ValueError(f"cannot read a triple from {text!r}")


def fact_key(fact: Fact) -> tuple[str, str, str]:
    return (normalise_name(fact.subject), fold_relation(fact.relation), normalise_name(fact.object))


class ScriptedJudge:
    """Answers what the scenario says the judge answers, naming facts by uuid,
    whether or not it was shown them (a wrong judge is part of the test)."""

    def __init__(self) -> None:
        self.uuids: dict[tuple[str, str, str], list[str]] = defaultdict(list)
        self.answer: dict[str, Any] | None = None
        self.calls: list[tuple[Fact, list[Fact]]] = []

    def __call__(self, new: Fact, candidates: Sequence[Fact]) -> Verdict:
        self.calls.append((new, list(candidates)))
        if not self.answer:
            return Verdict()
        contradicts = [u for t in self.answer.get("contradicts") or [] for u in self.uuids[triple_key(t)]]
        dup = self.answer.get("duplicate_of")
        duplicate = self.uuids[triple_key(dup)][0] if dup else None
        return Verdict(contradicts=contradicts, duplicate_of=duplicate)


def run_scenario(spec: dict[str, Any], make_memory: Callable[..., Memory], clock: Any) -> None:
    judge = ScriptedJudge()
    memory = make_memory(judge=judge, relation_types=spec.get("relation_types"))
    for number, step in enumerate(spec["steps"], 1):
        clock.set(parse_time(step["at"]))
        group = step.get("group_id", spec["group_id"])
        where = f"{spec['name']} step {number}"
        if "add_fact" in step:
            args = dict(step["add_fact"])
            judge.answer = step.get("judge")
            result = memory.add_fact(
                group,
                args.pop("subject"),
                args.pop("relation"),
                args.pop("object"),
                episode_id=args.pop("episode", None),
                **args,
            )
            judge.uuids[fact_key(result.fact)].append(result.fact.uuid)
            for shown in (c for _, cands in judge.calls for c in cands):
                assert shown.group_id == group
        elif "remove_episode" in step:
            memory.remove_episode(group, step["remove_episode"])
        elif "expect_entities" in step:
            want = step["expect_entities"]
            found = memory.entities(group, name=want["name"])
            assert len(found) == want["count"], f"{where}: {found}"
        elif "expect" in step:
            query = dict(step["expect"]["query"])
            got = memory.facts(group, **query)
            check_facts(got, step["expect"]["facts"], where)
        else:
            raise AssertionError(f"{where}: unknown step {step}")


def check_facts(got: list[Fact], want: list[dict[str, Any]], where: str) -> None:
    described = [f"{f.triple} [{f.valid_at} .. {f.invalid_at}]" for f in got]
    assert sorted(fact_key(f) for f in got) == sorted(triple_key(w["triple"]) for w in want), (
        f"{where}: got {described}"
    )
    by_key = {fact_key(f): f for f in got}
    for w in want:
        fact = by_key[triple_key(w["triple"])]
        if "valid_at" in w:
            expected = parse_time(w["valid_at"]) if w["valid_at"] else None
            assert fact.valid_at == expected, f"{where}: {w['triple']} valid_at {fact.valid_at}"
        if "invalid_at" in w:
            expected = parse_time(w["invalid_at"]) if w["invalid_at"] else None
            assert fact.invalid_at == expected, f"{where}: {w['triple']} invalid_at {fact.invalid_at}"


def test_every_shared_scenario_is_copied() -> None:
    shared = Path(__file__).resolve().parents[2] / "shared" / "scenarios"
    if not shared.is_dir():
        pytest.skip("no ../shared/scenarios beside this checkout")
    missing = {p.name for p in shared.glob("*.json")} - {p.name for p in SCENARIOS}
    assert not missing, f"copy these scenarios into tests/scenarios: {sorted(missing)}"


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path, memory_factory: Callable[..., Memory], clock: Any) -> None:
    run_scenario(json.loads(path.read_text()), memory_factory, clock)
