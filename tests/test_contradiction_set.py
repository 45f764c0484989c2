"""The development set of issue 19 (tests/data/contradiction_set.json): rules
and other tiered facts of one team, and filings that contradict or agree
with one of them. Every filing finds the fact it is about among its (at most
five) candidates, listed by the contradicted fact's authority, each scored
authority x the filer's weight."""

from __future__ import annotations

import json
from pathlib import Path

from kronograph import Memory
from kronograph.authority import ACTOR_KIND_WEIGHTS, TIER_WEIGHTS

SET = json.loads((Path(__file__).parent / "data" / "contradiction_set.json").read_text())
G = "team"


def test_every_filing_finds_what_it_contradicts_or_agrees_with_ordered_by_authority() -> None:
    with Memory(":memory:", model=None) as memory:
        memory.set_contradiction_policy(G, {"actor_kinds": SET["actor_kinds"]})
        ids = {}
        for f in SET["facts"]:
            made = memory.add_fact(G, f["subject"], f["relation"], f["object"], fact=f["fact"], tier=f["tier"],
                                   actor=f["actor"])
            ids[f["id"]] = made.fact.uuid
        tiers = {ids[f["id"]]: f["tier"] for f in SET["facts"]}
        missed = []
        for filing in SET["filings"]:
            result = memory.add_fact(G, filing["subject"], filing["relation"], filing["object"],
                                     fact=filing["fact"], actor=filing["actor"])
            found = result.possible_contradictions
            assert len(found) <= 5
            about = ids[filing.get("contradicts") or filing["agrees"]]
            if about not in {p.contradicts.uuid for p in found}:
                missed.append(filing["fact"])
            weight = ACTOR_KIND_WEIGHTS[SET["actor_kinds"][filing["actor"]]]
            for p in found:
                tier = tiers.get(p.contradicts.uuid)
                assert p.authority == (TIER_WEIGHTS[tier] if tier else 0.5)  # type: ignore[index]
                assert p.actor_weight == weight and p.score == round(p.authority * weight, 6)
            assert [p.authority for p in found] == sorted((p.authority for p in found), reverse=True)
            assert result.retired == []  # candidates, never verdicts
        assert missed == []
        flagged = [e for e in memory.audit_events(G) if e.kind == "contradiction_flagged"]
        assert flagged and all(e.detail["score"] > 0 for e in flagged)  # reference and transient: never flagged
        assert not {e.detail["contradicts"] for e in flagged} & {
            ids[f["id"]] for f in SET["facts"] if f["tier"] in ("reference", "transient")}
