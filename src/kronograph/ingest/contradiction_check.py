"""The possible contradictions of one write, scored by authority.

Two ways find candidates: structure (the same slot, or a text much like the
new fact's between the same two entities: :func:`.resolution.flag_contradictions`)
and meaning (the facts carrying a tier nearest the write's own embedding,
which was computed for the write anyway). Meaning finds topical closeness, not disagreement:
"cap the pool at 20" is as close to "cap it at 35" as to "raise it to 20", so
what it finds are candidates, never verdicts, and nothing is retired for
them. One write reports at most ``ContradictionPolicy.candidates`` of them,
the contradicted facts of the highest tiers first, then the most recent.

Each candidate whose score is above zero is *flagged*: a
``contradiction_flagged`` audit event and a row of the group's
contradictions, written with the write itself, whatever the filer does next
(a candidate against a reference item or a transient note scores 0 and is
only reported).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from ..authority import POLICY_SETTING, ContradictionPolicy, actor_weight
from ..model import AuditEvent, ContradictionReason, Fact, PossibleContradiction, fold_relation
from ..same_time import HELD
from ..store.plan import Plan
from ..store.records import ContradictionRecord, FactRecord

__all__ = ["Policies", "Scorer", "by_meaning", "contradiction_policy", "flag", "rank", "scorer", "similar_facts"]

OVERFETCH = 2  # nearest facts read per candidate wanted: the write may retire some, or restate one


def contradiction_policy(values: dict[str, Any]) -> ContradictionPolicy:
    """The group's policy from its settings (the defaults when it has none)."""
    stored = values.get(POLICY_SETTING)
    return ContradictionPolicy.model_validate(stored) if isinstance(stored, dict) else ContradictionPolicy()


class Policies:
    """Each group's policy as last read, kept a few seconds, so that a write's
    check costs no read of the group's settings: a policy set through this
    memory applies at once, one set by another process within ``TTL``."""

    TTL = 5.0  # seconds
    KEEP = 10_000  # groups kept at most; the oldest half goes past it

    def __init__(self) -> None:
        self._kept: dict[str, tuple[float, ContradictionPolicy]] = {}

    async def get(self, store: Any, group_id: str) -> ContradictionPolicy:
        now = time.monotonic()
        kept = self._kept.get(group_id)
        if kept is not None and now - kept[0] < self.TTL:
            return kept[1]
        policy = contradiction_policy(await store.group_settings(group_id))
        self.put(group_id, policy, now)
        return policy

    def put(self, group_id: str, policy: ContradictionPolicy, at: float | None = None) -> None:
        if len(self._kept) >= self.KEEP:
            for old in sorted(self._kept, key=lambda g: self._kept[g][0])[: self.KEEP // 2]:
                del self._kept[old]
        self._kept[group_id] = (time.monotonic() if at is None else at, policy)


@dataclass(frozen=True, slots=True)
class Scorer:
    """Scores candidates of one filing: the group's policy, the filer's weight."""

    policy: ContradictionPolicy
    actor_weight: float
    relation_authority: Callable[[str], float]  # a relation's declared authority, by its folded key

    def authority(self, tier: str | None, relation_key: str) -> float:
        return self.policy.tier_weight(tier, self.relation_authority(relation_key))


async def scorer(
    store: Any, group_id: str, actor: str | None, relation_authority: Callable[[str], float],
    policies: Policies | None = None,
) -> Scorer:
    policy = await policies.get(store, group_id) if policies is not None else contradiction_policy(
        await store.group_settings(group_id))
    return Scorer(policy, actor_weight(policy, actor), relation_authority)


def _unit(vector: bytes | np.ndarray) -> np.ndarray | None:
    v = np.frombuffer(vector, dtype=np.float32) if isinstance(vector, bytes) else np.asarray(vector, np.float32)
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else None


async def similar_facts(
    store: Any, group_id: str, vectors: Sequence[bytes | np.ndarray | None], policy: ContradictionPolicy,
    at: datetime,
) -> dict[str, tuple[Fact, float, int]]:
    """The current facts (valid and believed at ``at``) close in meaning to
    any of ``vectors``: each with its best similarity and the index of the
    vector it was closest to. Read before the group is held."""
    units = [_unit(v) if v is not None else None for v in vectors]
    if policy.candidates == 0 or all(u is None for u in units):
        return {}
    found = await store.nearest_current_facts(group_id, units, policy.candidates * OVERFETCH, at)
    return {f.uuid: (f, float(sim), index) for f, sim, index in found if sim >= policy.min_similarity}


def by_meaning(
    new: str, similar: Iterable[tuple[Fact, float, int]], relation_key: str | None, declared: bool,
) -> list[tuple[str, Fact, float]]:
    """``similar`` as candidates of the new fact ``new`` (of ``relation_key``;
    None: an episode's text). A fact of the same relation is left to
    structure where the relation is declared: its cardinality already says
    which of them disagree (the same slot), and which may stand side by side."""
    return [
        (new, fact, similarity) for fact, similarity, _ in similar
        if not (declared and relation_key is not None and fold_relation(fact.relation) == relation_key)
    ]


def rank(
    scorer: Scorer,
    structural: Iterable[tuple[str, FactRecord, ContradictionReason]],
    similar: Iterable[tuple[str, Fact, float]],
    exclude: Collection[str],
) -> list[PossibleContradiction]:
    """The write's candidates, at most the policy's number: ``structural``
    are (new fact, standing fact, reason), ``similar`` (new fact or episode,
    fact, similarity); a fact both find is reported once, with its
    structural reason. ``exclude``: what the write itself made or retired.
    The candidate set is the structural ones, then the nearest in meaning up
    to the cap; it is listed highest tier (authority) first, then the most
    recent. A ``same_time`` one (a fact held beside the new one) is always
    listed, first, whatever ``exclude`` and the cap say (the caller leaves
    out one retired since)."""
    cap = scorer.policy.candidates
    held: dict[str, PossibleContradiction] = {}  # same_time: always listed, beyond the cap (kronograph.same_time)
    found: dict[str, PossibleContradiction] = {}
    for new, cand, reason in structural:
        if reason == "same_time":
            held.setdefault(cand.uuid, _candidate(scorer, new, cand.to_fact(), reason, None))
        elif cand.uuid not in exclude and cand.uuid not in found:
            found[cand.uuid] = _candidate(scorer, new, cand.to_fact(), reason, None)
    exclude = {*exclude, *held}
    found = {u: p for u, p in found.items() if u not in held}
    for new, fact, similarity in sorted(similar, key=lambda s: (-s[2], s[1].uuid)):  # the nearest fill the cap
        if len(found) >= cap:
            break
        if fact.uuid not in exclude and fact.uuid not in found:
            found[fact.uuid] = _candidate(scorer, new, fact, "similar_meaning", similarity)
    ordered = sorted(found.values(), key=lambda p: (-p.authority, -p.contradicts.created_at.timestamp(), p.fact))
    return [*held.values(), *ordered[:cap]]


def _candidate(
    scorer: Scorer, new: str, fact: Fact, reason: ContradictionReason, similarity: float | None
) -> PossibleContradiction:
    authority = scorer.authority(fact.tier, fold_relation(fact.relation))
    return PossibleContradiction(
        fact=new, contradicts=fact, reason=reason, authority=authority, actor_weight=scorer.actor_weight,
        score=round(authority * scorer.actor_weight, 6), similarity=similarity,
    )


def flag(
    plan: Plan, found: Iterable[PossibleContradiction], *, episode_id: str | None, actor: str | None,
) -> None:
    """Write each candidate that scores above zero: its audit event and its
    row, in ``plan`` (the write's own transaction)."""
    for p in found:
        held = p.reason == "same_time"
        if p.score <= 0 and not held:  # a held conflict is recorded whatever it scores
            continue
        detail = {
            "fact": p.fact, "contradicts": p.contradicts.uuid, "reason": p.reason, "tier": p.contradicts.tier,
            "authority": p.authority, "actor_weight": p.actor_weight, "score": p.score,
            "similarity": p.similarity,
        }
        plan.audit.append(AuditEvent(
            group_id=plan.group_id, kind="contradiction_flagged", recorded_at=plan.now, episode_id=episode_id,
            detail=detail, actor=actor,
        ))
        plan.contradictions.append(ContradictionRecord(
            group_id=plan.group_id, fact_uuid=p.fact, target_uuid=p.contradicts.uuid,
            kind=HELD if held else "candidate",
            reason=p.reason, target_authority=p.authority, actor_weight=p.actor_weight, score=p.score,
            similarity=p.similarity, note=None, actor=actor, episode_id=episode_id, created_at=plan.now,
        ))
