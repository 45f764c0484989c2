"""Contradictions with authority (issue 19), on every backend: candidates
scored by the contradicted fact's tier and the filer's weight, flagged with
their audit event; explicit ``contradicts`` links; owned facts overridden
only with a reason; the count where people look."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kronograph import ContradictionPolicy, Memory
from kronograph.errors import InvalidInputError, NotFoundError

ON_CITUS = True  # the backend fixture adds the Citus cluster (tests/conftest.py)

MakeMemory = Callable[..., Memory]
G = "team"
KINDS = {"alice": "human", "agent:planner": "agent", "scraper": "unverified", "key:ci": "service"}
RULE = "The connection pool is capped at 20 connections"


def _memory(memory_factory: MakeMemory) -> Memory:
    memory = memory_factory(model=None)
    memory.set_contradiction_policy(G, {"actor_kinds": KINDS})
    return memory


def _rule(memory: Memory, tier: str = "standing", actor: str = "alice") -> str:
    return memory.add_fact(G, "connection pool", "CAPPED_AT", "20 connections", fact=RULE, tier=tier,
                           actor=actor).fact.uuid


def _flags(memory: Memory) -> list[dict[str, object]]:
    return [e.detail for e in memory.audit_events(G) if e.kind == "contradiction_flagged"]


def test_a_standing_rule_contradicted_by_an_agent_scores_and_is_flagged(memory_factory: MakeMemory) -> None:
    memory = _memory(memory_factory)
    rule = _rule(memory)
    assert memory.fact(G, rule).tier == "standing"  # type: ignore[union-attr]
    filed = memory.add_fact(G, "connection pool", "CAPPED_AT", "35 connections",
                            fact="The connection pool is capped at 35 connections", actor="agent:planner")
    assert filed.retired == []  # a candidate, never a verdict: the rule stands
    (cand,) = [p for p in filed.possible_contradictions if p.contradicts.uuid == rule]
    assert (cand.reason, cand.authority, cand.actor_weight, cand.score) == ("same_slot", 1.0, 0.5, 0.5)
    assert cand.contradicts.tier == "standing" and cand.fact == filed.fact.uuid
    (event,) = [d for d in _flags(memory) if d["contradicts"] == rule]
    assert event["score"] == 0.5 and event["tier"] == "standing" and event["actor_weight"] == 0.5
    (open_,) = memory.contradictions(G, fact_uuid=rule)
    assert (open_.kind, open_.fact, open_.score, open_.actor) == ("candidate", filed.fact.uuid, 0.5, "agent:planner")
    assert memory.reconcile(G).open_contradictions == 1
    assert "CONTRADICTED" in memory.context(G, "connection pool cap").text
    assert [c.contradicts.uuid for c in memory.export(G).contradictions] == [rule]  # a group's export holds them


def test_the_same_filing_against_a_reference_item_scores_zero_and_flags_nothing(memory_factory: MakeMemory) -> None:
    memory = _memory(memory_factory)
    ref = _rule(memory, tier="reference")
    filed = memory.add_fact(G, "connection pool", "CAPPED_AT", "35 connections",
                            fact="The connection pool is capped at 35 connections", actor="agent:planner")
    (cand,) = [p for p in filed.possible_contradictions if p.contradicts.uuid == ref]
    assert (cand.authority, cand.score) == (0.0, 0.0)
    assert _flags(memory) == [] and memory.contradictions(G) == []
    assert memory.reconcile(G).open_contradictions == 0


def test_a_low_weight_contradictor_scores_lower_and_never_inflates_the_target(memory_factory: MakeMemory) -> None:
    memory = _memory(memory_factory)
    rule = _rule(memory)
    scores = {}
    for actor, value in (("alice", "30"), ("key:ci", "31"), ("agent:planner", "32"), ("scraper", "33"),
                         ("someone-unmapped", "34")):
        filed = memory.add_fact(G, "connection pool", "CAPPED_AT", f"{value} connections",
                                fact=f"The connection pool is capped at {value} connections", actor=actor)
        (cand,) = [p for p in filed.possible_contradictions if p.contradicts.uuid == rule]
        assert cand.authority == 1.0 and cand.score == cand.actor_weight  # authority x weight, weight <= 1
        scores[actor] = cand.score
    assert scores == {"alice": 1.0, "key:ci": 0.8, "agent:planner": 0.5, "scraper": 0.2, "someone-unmapped": 0.5}
    # a weight set for one actor wins over its kind; the application itself (no actor) weighs caller_weight
    memory.set_contradiction_policy(G, ContradictionPolicy(actor_kinds=KINDS, actor_weights={"scraper": 0.05},
                                                           caller_weight=0.9))
    assert memory.contradiction_policy(G).actor_weights == {"scraper": 0.05}
    low = memory.add_fact(G, "connection pool", "CAPPED_AT", "36 connections", actor="scraper")
    app = memory.add_fact(G, "connection pool", "CAPPED_AT", "37 connections")
    assert [p.score for p in low.possible_contradictions if p.contradicts.uuid == rule] == [0.05]
    assert [p.score for p in app.possible_contradictions if p.contradicts.uuid == rule] == [0.9]


def test_candidates_by_meaning_are_capped_highest_tier_first(memory_factory: MakeMemory) -> None:
    memory = _memory(memory_factory)
    tiers = ["assumption", "finding", "standing", "goal", "decision", "option", "issue"]
    made = {
        tier: memory.add_fact(G, f"pool rule {i}", "SAYS", f"limit {i}", fact=f"The connection pool limit rule {i}",
                              tier=tier).fact.uuid
        for i, tier in enumerate(tiers)
    }
    filed = memory.add_fact(G, "ops", "PROPOSES", "bigger pool", fact="Raise the connection pool limit",
                            actor="agent:planner")
    found = filed.possible_contradictions
    assert len(found) == 5  # the policy's cap
    assert all(p.reason == "similar_meaning" and p.similarity is not None for p in found)
    assert [p.authority for p in found] == sorted((p.authority for p in found), reverse=True)
    assert found[0].contradicts.uuid == made["standing"]
    memory.set_contradiction_policy(G, {"actor_kinds": KINDS, "candidates": 2})
    again = memory.add_fact(G, "ops", "PROPOSES", "a bigger pool", fact="Raise the connection pool limit again")
    assert len(again.possible_contradictions) == 2


def test_near_duplicates_that_agree_are_candidates_too(memory_factory: MakeMemory) -> None:
    memory = _memory(memory_factory)
    rule = _rule(memory)
    agreeing = memory.add_fact(G, "pool size", "IS_LIMITED_TO", "20", actor="agent:planner",
                               fact="The connection pool is capped at 20 connections, as agreed")
    (cand,) = [p for p in agreeing.possible_contradictions if p.contradicts.uuid == rule]
    assert cand.reason == "similar_meaning" and cand.score == 0.5  # topical closeness, not disagreement
    # someone who checks settles it: no longer open, the row and its events stay
    assert memory.dismiss_contradiction(G, agreeing.fact.uuid, rule, reason="it agrees", actor="alice") == 1
    assert memory.contradictions(G) == []
    assert [c.dismissed_at is not None for c in memory.contradictions(G, open_only=False)] == [True]
    with pytest.raises(InvalidInputError, match="reason"):
        memory.dismiss_contradiction(G, agreeing.fact.uuid, rule, reason="  ")


def test_an_explicit_contradicts_link_leaves_the_original_untouched(memory_factory: MakeMemory) -> None:
    memory = _memory(memory_factory)
    rule = _rule(memory)
    own = memory.add_fact(G, "load test", "SHOWED", "pool needs 40", fact="The load test showed the pool needs 40",
                          actor="agent:planner").fact.uuid
    before, versions = memory.fact(G, rule), memory.history(G, rule)
    link = memory.contradict(G, own, rule, note="measured under peak load", actor="agent:planner")
    assert (link.kind, link.reason, link.authority, link.actor_weight, link.score) == (
        "recorded", "recorded", 1.0, 0.5, 0.5)
    assert memory.fact(G, rule) == before and memory.history(G, rule) == versions
    recorded = [c for c in memory.contradictions(G, fact_uuid=rule) if c.kind == "recorded"]
    assert [(c.fact, c.note) for c in recorded] == [(own, "measured under peak load")]
    assert any(e.kind == "contradiction_recorded" and e.actor == "agent:planner" for e in memory.audit_events(G))
    with pytest.raises(InvalidInputError, match="contradicted_uuid"):
        memory.contradict(G, own, own)
    with pytest.raises(NotFoundError):
        memory.contradict(G, own, "no-such-fact")
    memory.remove_fact(G, own, actor="agent:planner")  # its side gone: no longer open
    assert [c for c in memory.contradictions(G) if c.kind == "recorded"] == []


def test_an_override_of_an_owned_fact_needs_a_reason(memory_factory: MakeMemory) -> None:
    memory = _memory(memory_factory)
    rule = _rule(memory)
    with pytest.raises(InvalidInputError, match="reason"):
        memory.remove_fact(G, rule, actor="agent:planner")
    with pytest.raises(InvalidInputError, match="reason"):
        memory.add_fact(G, "connection pool", "CAPPED_AT", "35 connections", replaces=rule, actor="agent:planner")
    assert memory.fact(G, rule).expired_at is None  # type: ignore[union-attr]  # refused: nothing written
    with pytest.raises(InvalidInputError, match="reason"):
        memory.set_tier(G, rule, "finding", actor="agent:planner")
    # with a reason it goes through, recorded with the override
    fixed = memory.add_fact(G, "connection pool", "CAPPED_AT", "35 connections", replaces=rule,
                            actor="agent:planner", reason="the database was upgraded", valid_at="2030-01-01")
    assert [f.uuid for f in fixed.retired] == [rule]
    (event,) = [e for e in memory.audit_events(G) if e.kind == "fact_replaced"]
    assert event.detail["reason"] == "the database was upgraded"
    assert event.detail["override"] == {"fact": rule, "tier": "standing", "owner": "alice",
                                        "reason": "the database was upgraded"}
    # the owner needs no reason; nor does a fact of a tier nobody owns
    own = memory.add_fact(G, "backups", "RUN", "nightly", tier="decision", actor="bo").fact.uuid
    memory.remove_fact(G, own, actor="bo")
    finding = memory.add_fact(G, "backups", "TAKE", "an hour", tier="finding", actor="bo").fact.uuid
    memory.remove_fact(G, finding, actor="agent:planner")


def test_ordinary_supersession_through_ingestion_is_no_override(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None, relation_types={"LIVES_IN": {"cardinality": "many_to_one",
                                                                      "tier": "decision"}})
    first = memory.add_episode(G, "Ann Lee moved to Paris in 2020.", reference_time="2020-06-01", actor="alice")
    (paris,) = first.created
    assert paris.tier == "decision"  # the relation's default tier
    moved = memory.add_episode(G, "Ann Lee moved to Rome in 2022.", reference_time="2022-06-01",
                               actor="agent:planner")
    assert [f.uuid for f in moved.retired] == [paris.uuid]  # retired by ingestion, as before: no reason asked


def test_tiers_set_by_hand_are_versions_and_episodes_carry_theirs(memory_factory: MakeMemory) -> None:
    memory = _memory(memory_factory)
    uuid = memory.add_fact(G, "deploys", "NEED", "two approvals", fact="All deploys need two approvals").fact.uuid
    assert memory.fact(G, uuid).tier is None  # type: ignore[union-attr]
    versions = len(memory.history(G, uuid))
    assert memory.set_tier(G, uuid, "standing", actor="alice").tier == "standing"
    assert memory.fact(G, uuid).tier == "standing"  # type: ignore[union-attr]
    changes = memory.history(G, uuid)  # a new version: the old one kept
    assert len(changes) == versions + 1 and changes[-1].cause == "tier"
    assert [c.tier for c in changes[-2:]] == [None, "standing"]
    with pytest.raises(InvalidInputError, match="tier"):
        memory.set_tier(G, uuid, "law")
    with pytest.raises(InvalidInputError, match="tier"):
        memory.add_fact(G, "a", "R", "b", tier="binding")
    result = memory.add_episode(G, "Deploys now need only one approval.", actor="agent:planner", tier="finding")
    assert all(f.tier == "finding" for f in result.created)
    cands = [p for p in result.possible_contradictions if p.contradicts.uuid == uuid]
    assert cands and cands[0].authority == 1.0 and cands[0].score == 0.5


def test_a_policy_is_validated_and_kept_per_group(memory_factory: MakeMemory) -> None:
    memory = _memory(memory_factory)
    with pytest.raises(InvalidInputError, match="policy"):
        memory.set_contradiction_policy(G, {"tier_weights": {"standing": 2.0}})
    with pytest.raises(InvalidInputError, match="policy"):
        memory.set_contradiction_policy(G, {"candidates": -1})
    assert memory.contradiction_policy("other").actor_kinds == {}  # another group keeps the defaults
    rule = _rule(memory)
    memory.add_fact("other", "connection pool", "CAPPED_AT", "35 connections", actor="agent:planner",
                    fact="The connection pool is capped at 35 connections")
    assert memory.contradictions("other") == [] and memory.contradictions(G) == []  # nothing across groups
    assert memory.fact("other", rule) is None


def test_a_policy_refuses_bad_actor_names_and_writes_nothing(memory_factory: MakeMemory) -> None:
    memory = _memory(memory_factory)
    for bad in ("a\x00b", "bad\ud800", "x" * 201, ""):
        for field in ("actor_weights", "actor_kinds"):
            value = 0.5 if field == "actor_weights" else "agent"
            with pytest.raises(InvalidInputError, match="policy"):
                memory.set_contradiction_policy(G, {field: {bad: value}})
    assert memory.contradiction_policy(G).actor_kinds == KINDS
