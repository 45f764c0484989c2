"""The offline gold scorer's matching rules for chat lines (bench/offline_eval.py):
relation synonyms, inverse relations, symmetric ones, and the speaker, role and
addressee a line passes to the extractor."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import pytest

from .bench_modules import load_bench

oe = load_bench("offline_eval", "offline_eval_matching")


def gold(subject: str, relation: str, obj: str) -> dict[str, str]:
    return {"subject": subject, "relation": relation, "object": obj}


def got(subject: str, relation: str, obj: str) -> SimpleNamespace:
    return SimpleNamespace(subject=subject, relation=relation, object=obj)


@pytest.mark.parametrize("relation", ["GIRLFRIEND_OF", "DATING", "PARTNER_OF", "in_relationship_with"])
def test_partner_relations_are_one_and_symmetric(relation: str) -> None:
    assert oe._matches(gold("Maya", "PARTNER_OF", "Sam Carter"), got("Sam", relation, "Maya"), "Sam Carter")


def test_siblings_match_whichever_way_round() -> None:
    assert oe._matches(gold("Emma", "SISTER_OF", "Sam Carter"), got("Sam", "HAS_SISTER", "Emma"), "Sam Carter")


def test_inverse_relations_are_turned_round() -> None:
    assert oe._matches(gold("Sam Carter", "WORKS_AT", "Helix Labs"), got("Helix Labs", "EMPLOYS", "Sam"), "Sam Carter")
    assert oe._matches(gold("Sam Carter", "PARENT_OF", "Leo"), got("Leo", "SON_OF", "Sam Carter"), None)
    assert not oe._matches(gold("Sam Carter", "PARENT_OF", "Leo"), got("Sam Carter", "SON_OF", "Leo"), None)


def test_directed_relations_stay_directed() -> None:
    assert not oe._matches(gold("Ben", "WORKS_AT", "Amazon"), got("Amazon", "WORKS_AT", "Ben"), None)


@pytest.mark.parametrize(
    ("gold_relation", "got_relation"),
    [
        ("LIVES_IN", "MOVED_TO"),
        ("USES", "MIGRATED_TO"),
        ("OWNS", "BOUGHT"),
        ("STUDIED_AT", "GRADUATED_FROM"),
        ("SPEAKS", "FLUENT_IN"),
        ("ALLERGIC_TO", "HAS_ALLERGY"),
        ("IS_FROM", "GREW_UP_IN"),
        ("MARRIED_TO", "WIFE_OF"),
        ("NO_LONGER_USES", "MIGRATED_FROM"),
        ("NO_LONGER_LIVES_IN", "MOVED_FROM"),
    ],
)
def test_synonyms(gold_relation: str, got_relation: str) -> None:
    assert oe._matches(gold("Sam Carter", gold_relation, "X"), got("Sam Carter", got_relation, "X"), None)


def test_a_chat_line_passes_its_speaker_role_and_addressee() -> None:
    line = {"kind": "message", "content": "i work at google now", "speaker": "Sam Carter", "role": "user"}
    assert oe._speaking(line) == {"speaker": "Sam Carter", "role": "user", "addressee": "Assistant"}
    assert oe._speaker(line) == "Sam Carter"
    reply = {"kind": "message", "content": "Nice!", "speaker": "Assistant", "role": "assistant", "addressee": "Sam"}
    assert oe._speaking(reply) == {"speaker": "Assistant", "role": "assistant", "addressee": "Sam"}
    old = {"kind": "message", "content": "Sam Carter: I work at Google."}
    assert oe._speaking(old) == {} and oe._speaker(old) == "Sam Carter"


def test_the_chat_line_set_is_well_formed() -> None:
    path = Path(__file__).resolve().parent / "data" / "offline_chat_heldout.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 60 and len({row["id"] for row in rows}) == len(rows)
    for row in rows:
        assert row["kind"] == "message" and row["role"] in {"user", "assistant"} and row["speaker"], row["id"]
        assert ":" not in row["content"].split()[0], row["id"]
        assert row["id"][:2] in {"cp", "cn"} and bool(row["facts"]) == row["id"].startswith("cp"), row["id"]
        assert row["role"] == "user" or not row["facts"], row["id"]
        for fact in row["facts"]:
            assert {"subject", "relation", "object"} <= fact.keys(), row["id"]
            for key in ("valid_at", "invalid_at"):
                if key in fact:
                    assert date.fromisoformat(fact[key]) <= date.fromisoformat(row["reference_time"][:10]), row["id"]
