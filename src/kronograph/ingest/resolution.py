"""Fact resolution, as pure functions: candidates in, a plan out.

The four steps of the design:

1. duplicates: facts between the same two entities, either direction; an exact
   restatement (same direction, same folded relation, overlapping interval)
   merges provenance instead of writing a new fact;
2. invalidation candidates: facts touching an endpoint that *could replace*
   each other: the same pair of entities, or one shared entity and the same
   folded relation key. Nothing else is ever eligible, whatever a judge says;
3. the decision: by declared cardinality where there is one, else by the judge;
4. the timeline: contradiction edges are recorded and the intervals of every
   fact they touch are recomputed (see :mod:`.timeline`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from ..model import AuditEvent, Cardinality, ContradictionReason, Episode, EpisodeKind, RelationType, Verdict, trusted
from ..same_time import split_held
from ..store.plan import Plan
from ..store.records import FactRecord, Neighbourhood
from .timeline import merge_sources, recompute, refresh, supersede

__all__ = [
    "Decision",
    "FactOutcome",
    "Screening",
    "contradiction_event",
    "decide",
    "flag_contradictions",
    "new_episode_for_fact",
    "plan_fact",
    "refusal_event",
    "screen",
]


def _overlaps(a: FactRecord, b: FactRecord) -> bool:
    """Closed-open intervals that overlap or touch."""
    a_end, b_end = a.invalid_at or a.stated_invalid_at, b.invalid_at or b.stated_invalid_at
    return (a_end is None or b.valid_at <= a_end) and (b_end is None or a.valid_at <= b_end)


def _restates(cand: FactRecord, new: FactRecord) -> bool:
    """Whether ``new`` states ``cand`` again (same pair, relation and
    direction). An event happened on a day: told again of the same UTC day it
    is the same event, of another day it is another one (met twice: two
    events). A state is restated by an interval it overlaps or touches."""
    if cand.event or new.event:
        return cand.valid_at.date() == new.valid_at.date()
    return _overlaps(cand, new)


@dataclass(slots=True)
class Screening:
    """The candidates of one new fact, sorted by what may happen to them."""

    restatement: FactRecord | None = None
    by_cardinality: list[FactRecord] = field(default_factory=list)
    for_judge: list[FactRecord] = field(default_factory=list)
    same_pair: set[str] = field(default_factory=set)  # candidates between the same two entities
    held: list[FactRecord] = field(default_factory=list)  # same slot and time, kept beside it (same_time="hold")


def screen(
    new: FactRecord, candidates: Sequence[FactRecord], relation_type: RelationType | None
) -> Screening:
    """Apply the duplicate rule, the *could replace* guard and declared cardinality.

    Expired records (replaced by a same-time correction) are still linked by a
    declared cardinality, so that retracting the correction later brings back
    a record that is closed by whatever came after it; they are never merged
    into, and a judge is shown only what is believed."""
    result = Screening()
    ends = {new.source_uuid, new.target_uuid}
    declared = relation_type is not None and relation_type.cardinality != Cardinality.MANY_TO_MANY
    for cand in sorted(candidates, key=lambda c: (c.valid_at, c.created_at, c.uuid)):
        if cand.uuid == new.uuid:
            continue
        expired = cand.expired_at is not None
        same_pair = {cand.source_uuid, cand.target_uuid} == ends
        same_relation = cand.relation_key == new.relation_key
        if not (same_pair or (same_relation and (cand.source_uuid in ends or cand.target_uuid in ends))):
            continue  # the guard: this fact could not be replaced by the new one
        if same_relation and cand.qualifiers != new.qualifiers:
            continue  # another slot of the relation (Q2's value beside Q3's): kronograph.qualifiers
        if same_pair and not expired:
            result.same_pair.add(cand.uuid)
        same_direction = cand.source_uuid == new.source_uuid and cand.target_uuid == new.target_uuid
        if same_pair and same_relation and same_direction:
            if result.restatement is None and not expired and _restates(cand, new):
                result.restatement = cand
            continue  # the same statement at another time never contradicts itself
        if same_pair and relation_type is not None and cand.relation_key in relation_type.ends_keys:
            if not cand.event:  # an event is a moment: nothing ends it
                result.by_cardinality.append(cand)  # declared: this relation ends that one
            continue
        if same_relation and (new.event or cand.event):
            continue  # two events of one relation never retire each other (met twice: two events)
        if same_relation and declared and relation_type is not None:  # declared: it is not None
            if relation_type.one_object_per_subject and cand.source_uuid == new.source_uuid:
                result.by_cardinality.append(cand)
            elif relation_type.one_subject_per_object and cand.target_uuid == new.target_uuid:
                result.by_cardinality.append(cand)
            continue  # declared compatible: nothing for a judge to weigh
        if not expired:
            result.for_judge.append(cand)
    result.held = split_held(result.by_cardinality, new, relation_type)
    return result


@dataclass(slots=True)
class Decision:
    duplicate_of: FactRecord | None
    contradicts: list[FactRecord]
    refused: list[str]
    held: list[FactRecord] = field(default_factory=list)  # kept beside the new fact, flagged (kronograph.same_time)


def decide(screening: Screening, verdict: Verdict) -> Decision:
    """Combine the screening with a judge's verdict; the judge can only act on
    candidates it was shown, and only a same-pair fact can be a duplicate."""
    shown = {c.uuid: c for c in screening.for_judge}
    refused = [u for u in dict.fromkeys(verdict.contradicts) if u not in shown]
    duplicate = shown.get(verdict.duplicate_of) if verdict.duplicate_of in screening.same_pair else None
    if verdict.duplicate_of and duplicate is None:
        refused.append(verdict.duplicate_of)
    contradicts = list(screening.by_cardinality)
    for uuid in dict.fromkeys(verdict.contradicts):
        cand = shown.get(uuid)
        if cand is not None and cand is not duplicate:
            contradicts.append(cand)
    return Decision(duplicate_of=duplicate, contradicts=contradicts, refused=refused, held=list(screening.held))


@dataclass(slots=True)
class FactOutcome:
    plan: Plan
    target: FactRecord
    merged: bool
    retired: list[FactRecord]
    changed: list[FactRecord]
    # Standing facts it may disagree with but did not retire: (fact, reason, authority).
    flagged: list[tuple[FactRecord, ContradictionReason, float]] = field(default_factory=list)


def plan_fact(
    *,
    plan: Plan,
    new: FactRecord,
    decision: Decision,
    restatement: FactRecord | None,
    hood: Neighbourhood,
    episode_id: str,
) -> FactOutcome:
    """Write the new fact (or merge it), link what it contradicts, and recompute
    every interval the change can move."""
    source = new.sources[0]
    into = restatement or decision.duplicate_of
    records = dict(hood.records)
    edges = {u: set(v) for u, v in hood.edges.items()}
    originals = dict(hood.records)
    if into is not None:
        into = records.get(into.uuid, into)
        originals.setdefault(into.uuid, into)
        previous = next((s for s in into.sources if s.episode_id == source.episode_id), None)
        if previous is None:
            sources = (*into.sources, source)
        else:  # the same episode again: its latest statement of the times counts
            source = replace(source, added_at=previous.added_at)
            sources = tuple(source if s is previous else s for s in into.sources)
        target = merge_sources(into, sources)
        if source != previous:
            plan.add_sources.append((target.uuid, source))
        merged = True
    else:
        target = new
        plan.new_facts.append(new)
        merged = False
    records[target.uuid] = target
    edges.setdefault(target.uuid, set())
    for cand in decision.contradicts:
        if cand.uuid in edges[target.uuid]:
            continue
        edges[target.uuid].add(cand.uuid)
        edges.setdefault(cand.uuid, set()).add(target.uuid)
        records.setdefault(cand.uuid, cand)
        originals.setdefault(cand.uuid, cand)
        plan.add_conflicts.append((target.uuid, cand.uuid, episode_id))

    targets = {target.uuid} | edges[target.uuid]
    target_stored = originals.get(target.uuid)
    changes = refresh(plan, records, edges, targets - {target.uuid}, originals, episode_id)
    final = recompute(records[target.uuid], (records[n] for n in edges[target.uuid]), plan.now)
    records[target.uuid] = final
    if merged:
        assert target_stored is not None
        if final.interval_state() != target_stored.interval_state():
            final = supersede(plan, target_stored, final, "restated", episode_id)
    else:
        plan.new_facts[-1] = final  # a new fact's record is its first version already

    retired: list[FactRecord] = []
    changed: list[FactRecord] = []
    for stored, updated in changes:
        was_current = stored.invalid_at is None and stored.expired_at is None
        if was_current and (updated.invalid_at is not None or updated.expired_at is not None):
            retired.append(updated)
        else:
            changed.append(updated)
    return FactOutcome(plan=plan, target=final, merged=merged, retired=retired, changed=changed)


SIMILAR_TEXT = 0.85  # string similarity of two fact texts on the same two entities that flags them


def flag_contradictions(
    outcome: FactOutcome,
    candidates: Sequence[FactRecord],
    decision: Decision,
    relation_type: RelationType | None,
    authority: Callable[[str], float],
) -> list[tuple[FactRecord, ContradictionReason, float]]:
    """Standing facts the admitted fact may disagree with but did not retire
    (no query: the candidates resolution loaded). Same slot: the same subject
    and relation with another object, for a relation not declared
    many-to-many (or the same object and relation with another subject, for
    one declared one subject per object); or a fact text much like the new
    one's between the same two entities under another relation; first, the
    facts a ``same_time="hold"`` relation kept beside it (``same_time``). A
    merge (a restatement), or a fact closed before the other begins, flags nothing."""
    new = outcome.target
    if outcome.merged or new.expired_at is not None or new.event:
        return []  # an event stands for nothing now: it disagrees with no standing fact
    from .similarity import string_similarity  # imports numpy; only needed here

    gone = {c.uuid for c in decision.contradicts} | {r.uuid for r in outcome.retired}
    gone |= {r.uuid for r in outcome.changed if r.invalid_at is not None or r.expired_at is not None}
    many = relation_type is not None and relation_type.cardinality == Cardinality.MANY_TO_MANY
    subject_side = not many and (relation_type is None or relation_type.one_object_per_subject)
    object_side = relation_type is not None and relation_type.one_subject_per_object
    ends = {new.source_uuid, new.target_uuid}
    out: list[tuple[FactRecord, ContradictionReason, float]] = [
        (cand, "same_time", authority(cand.relation_key)) for cand in decision.held if cand.uuid not in gone
    ]  # held side by side: flagged whether or not either is closed since (they share their start)
    gone |= {cand.uuid for cand in decision.held}
    for cand in candidates:
        if cand.uuid == new.uuid or cand.uuid in gone or cand.expired_at is not None or cand.invalid_at is not None:
            continue
        if cand.event:
            continue
        if not _overlaps(cand, new):
            continue
        reason: ContradictionReason | None = None
        if cand.relation_key == new.relation_key and cand.qualifiers != new.qualifiers:
            continue  # another slot of the relation: kronograph.qualifiers
        if cand.relation_key == new.relation_key:
            if subject_side and cand.source_uuid == new.source_uuid and cand.target_uuid != new.target_uuid:
                reason = "same_slot"
            elif object_side and cand.target_uuid == new.target_uuid and cand.source_uuid != new.source_uuid:
                reason = "same_slot"
        elif {cand.source_uuid, cand.target_uuid} == ends and string_similarity(cand.fact, new.fact) >= SIMILAR_TEXT:
            reason = "similar_text"
        if reason is not None:
            out.append((cand, reason, authority(cand.relation_key)))
    return out


def contradiction_event(
    group_id: str, now: datetime, episode_id: str, fact_uuid: str,
    flagged: tuple[FactRecord, ContradictionReason, float], actor: str | None = None,
) -> AuditEvent:
    """An append-only record that a fact was admitted that may disagree with a standing one."""
    cand, reason, authority = flagged
    return AuditEvent(
        group_id=group_id,
        kind="contradiction_flagged",
        recorded_at=now,
        episode_id=episode_id,
        detail={"fact": fact_uuid, "contradicts": cand.uuid, "reason": reason, "authority": authority},
        actor=actor,
    )


def new_episode_for_fact(
    group_id: str, episode_id: str, now: datetime, actor: str | None = None, on_behalf_of: str | None = None,
    data_subject: str | None = None,
) -> Episode:
    """The source episode a directly added fact records when its id is unknown."""
    return trusted(
        Episode,
        uuid=episode_id,
        group_id=group_id,
        name=episode_id,
        kind=EpisodeKind.FACT,
        content=None,
        content_hash=None,
        source_description="add_fact",
        reference_time=now,
        created_at=now,
        saga=None,
        status="complete",
        metadata={},
        error=None,
        actor=actor,
        on_behalf_of=on_behalf_of,
        speaker=None,
        role=None,
        data_subject=data_subject,
    )


def refusal_event(
    group_id: str, now: datetime, episode_id: str, fact_uuid: str, refused: list[str], actor: str | None = None
) -> AuditEvent:
    """An audit event for judge verdicts the guard did not let through."""
    return AuditEvent(
        group_id=group_id,
        kind="verdict_refused",
        recorded_at=now,
        episode_id=episode_id,
        detail={"fact": fact_uuid, "refused": refused},
        actor=actor,
    )
