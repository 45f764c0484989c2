"""The conversation scorer's own rules (bench/chat_eval.py), on hand-made facts:
what counts as a link, how names match, and how pairs add up. The extractor's
score on the conversation sets is asserted elsewhere."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from .bench_modules import load_bench

DATA = Path(__file__).resolve().parent / "data"


ce = load_bench("chat_eval", "chat_eval")


def fact(subject: str, relation: str, obj: str) -> SimpleNamespace:
    return SimpleNamespace(subject=subject, relation=relation, object=obj)


@pytest.mark.parametrize(
    ("relation", "key"),
    [("WORKS_AT", "WORKS_AT"), ("worksAt", "WORKS_AT"), ("works at", "WORKS_AT"), ("no-longer uses", "NO_LONGER_USES")],
)
def test_relation_key_folds_case_and_separators(relation: str, key: str) -> None:
    assert ce.relation_key(relation) == key


@pytest.mark.parametrize(
    "relation",
    [
        "LEFT",
        "QUIT",
        "NO_LONGER_USES",
        "noLongerLivesIn",
        "NOT_MARRIED_TO",
        "PLANS_TO_JOIN",
        "PLANNED_MOVE_TO",
        "WANTS_TO_VISIT",
        "CONSIDERING",
        "FORMER_EMPLOYEE_OF",
        "EX_WIFE_OF",
        "left",
    ],
)
def test_ended_negated_and_planned_relations_are_no_link(relation: str) -> None:
    assert not ce.counts_as_link(relation)


@pytest.mark.parametrize("relation", ["WORKS_AT", "LIVES_IN", "ENGAGED_TO", "NOTED_FOR", "EXPERT_IN", "USES", "OWNS"])
def test_other_relations_count_whatever_their_name(relation: str) -> None:
    assert ce.counts_as_link(relation)


def test_a_link_counts_in_either_direction_and_ignores_case() -> None:
    facts = [fact("acme robotics", "EMPLOYS", "Sam Carter")]
    assert ce.linking(facts, "Sam Carter", "Acme Robotics", "Sam Carter") == facts
    assert ce.linking(facts, "ACME ROBOTICS", "sam carter", "Sam Carter") == facts


def test_the_users_first_name_matches_the_user_name_both_ways() -> None:
    assert ce.linking([fact("Sam", "LIVES_IN", "Leeds")], "Sam Carter", "Leeds", "Sam Carter")
    assert ce.linking([fact("Sam Carter", "LIVES_IN", "Leeds")], "sam", "Leeds", "Sam Carter")


def test_only_the_users_first_name_is_widened() -> None:
    facts = [fact("Maya Lopez", "LIVES_IN", "Lyon")]
    assert not ce.linking(facts, "Maya", "Lyon", "Sam Carter")
    assert not ce.linking([fact("Sam", "LIVES_IN", "Leeds")], "Sam Carter", "Leeds", None)
    assert not ce.linking([fact("Carter", "LIVES_IN", "Leeds")], "Sam Carter", "Leeds", "Sam Carter")


def test_titles_articles_and_a_leading_my_are_dropped() -> None:
    assert ce.linking([fact("Margaret", "OWNS", "a caravan")], "Margaret Hale", "Caravan", "Margaret Hale")
    assert ce.linking([fact("Marcus", "OWNS", "my Tesla")], "Marcus Oyelaran", "tesla", "Marcus Oyelaran")
    assert not ce.linking([fact("Sam", "OWNS", "Anvil")], "Sam", "vil", "Sam Carter")


def test_titles_and_a_leading_the_are_dropped() -> None:
    assert ce.linking([fact("Dr. Hughes", "MOVED_TO", "Spain")], "Hughes", "Spain", "Aisha Rahman")
    assert ce.linking([fact("Ben", "WORKS_AT", "the Guardian")], "Ben", "Guardian", "Hannah Kim")


def test_a_fact_about_one_end_only_is_no_link() -> None:
    facts = [fact("Sam Carter", "WORKS_AT", "Helix Labs"), fact("Tom", "KNOWS", "Maya")]
    assert not ce.linking(facts, "Tom", "Helix Labs", "Sam Carter")


def test_an_ended_relation_beside_a_standing_one_still_links() -> None:
    facts = [fact("Ben", "LEFT", "Amazon"), fact("Ben", "WORKS_AT", "Amazon")]
    assert ce.linking(facts, "Ben", "Amazon", "Hannah Kim") == [facts[1]]
    assert not ce.linking(facts[:1], "Ben", "Amazon", "Hannah Kim")


def test_score_check_marks_misses_and_wrong_pairs() -> None:
    facts = [fact("Sam", "WORKS_AT", "Helix Labs"), fact("Sam", "LEFT", "Acme Robotics"), fact("Sam", "USES", "Rust")]
    check = {
        "as_of": None,
        "linked": [["Sam Carter", "Helix Labs"], ["Sam Carter", "Maya"]],
        "not_linked": [["Sam Carter", "Acme Robotics"], ["Sam Carter", "Rust"]],
    }
    results = {(r.a, r.b): r for r in ce.score_check("c1", "Sam Carter", facts, check)}
    assert results["Sam Carter", "Helix Labs"].ok and results["Sam Carter", "Helix Labs"].expected
    assert not results["Sam Carter", "Maya"].ok
    assert results["Sam Carter", "Acme Robotics"].ok
    wrong = results["Sam Carter", "Rust"]
    assert not wrong.ok and wrong.links == ["Sam USES Rust"]
    assert "Sam LEFT Acme Robotics" in results["Sam Carter", "Acme Robotics"].nearby
    assert ce.describe(wrong).startswith("wrong   c1 @ now: Sam Carter ~ Rust")
    missed = ce.describe(results["Sam Carter", "Maya"])
    assert missed.startswith("missed  c1 @ now: Sam Carter ~ Maya") and "Sam WORKS_AT Helix Labs" in missed
    assert "no facts about either" in ce.describe(ce.score_check("c1", "Sam Carter", [], check)[0])


def test_report_rates_and_targets() -> None:
    r = ce.Report(Path("x.jsonl"), linked=10, linked_found=6, not_linked=20, not_linked_found=1)
    assert (r.recall, r.wrong) == (0.6, 0.05) and r.meets_targets()
    r.linked_found = 5
    assert not r.meets_targets()
    assert ce.Report(Path("empty.jsonl")).meets_targets()


def test_load_names_a_missing_field(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": "x", "messages": [], "checks": []}) + "\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match="c.jsonl:1: missing user_name"):
        ce.load(path)


def test_evaluate_counts_every_message_and_pair(tmp_path: Path) -> None:
    row = {
        "id": "t1",
        "user_name": "Sam Carter",
        "messages": [
            {"role": "user", "content": "i work at Acme Robotics", "created_at": "2024-01-08T19:00:00Z"},
            {"role": "assistant", "content": "You could try Rust.", "created_at": "2024-01-08T19:00:30Z"},
        ],
        "checks": [
            {"as_of": "2024-02-01", "linked": [["Sam Carter", "Acme Robotics"]], "not_linked": [["Sam", "Rust"]]},
            {"as_of": None, "linked": [], "not_linked": [["Sam Carter", "Stripe"]]},
        ],
    }
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    report = ce.evaluate(path)
    assert (report.conversations, report.messages, report.linked, report.not_linked) == (1, 2, 1, 2)
    assert report.ways_in <= {"add_messages", "add_episode"} and report.ways_in
    assert [p.as_of for p in report.pairs] == ["2024-02-01", "2024-02-01", None]


def test_main_prints_a_table_and_exits_on_the_targets(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    good = ce.Report(Path("good.jsonl"), conversations=1, messages=3, linked=2, linked_found=2, not_linked=1)
    bad = ce.Report(Path("bad.jsonl"), conversations=1, messages=3, linked=2, linked_found=0, not_linked=1)
    monkeypatch.setattr(ce, "evaluate", lambda path: good if path.name == "good.jsonl" else bad)
    assert ce.main(["good.jsonl"]) == 0
    out = capsys.readouterr().out
    assert "good.jsonl" in out and "1.000 (2/2)" in out and "0.000 (0/1)" in out
    assert ce.main(["good.jsonl", "bad.jsonl", "-v"]) == 1


def test_the_conversation_files_are_well_formed() -> None:
    for path in sorted(DATA.glob("chat_conversations_*.jsonl")):
        for row in ce.load(path):
            assert row["messages"] and row["checks"], row["id"]
            for m in row["messages"]:
                assert m["role"] in {"user", "assistant"} and m["content"].strip(), row["id"]
                assert m["created_at"].endswith("Z"), row["id"]
            times = [m["created_at"] for m in row["messages"]]
            assert times == sorted(times), row["id"]
            for check in row["checks"]:
                pairs = check["linked"] + check["not_linked"]
                assert all(len(p) == 2 for p in pairs), row["id"]
                keys = [tuple(sorted(map(str.casefold, p))) for p in pairs]
                assert len(keys) == len(set(keys)), (row["id"], check["as_of"])
