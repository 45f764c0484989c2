"""``audit(group_id, mode="conflicts")``: a sweep of a whole group for
possible contradictions nobody resolved.

The same rules as ingestion's flags (:func:`kronograph.ingest.resolution.flag_contradictions`),
applied to every pair of current facts: the same slot (same subject,
folded relation and qualifiers, another object, for a relation not declared many-to-many;
or the same object, another subject, for one declared one subject per
object), or alike fact texts between the same two entities under another
relation. A same-slot pair of a relation declared ``same_time="hold"`` with
the same valid time is reported with reason ``same_time`` (held side by
side: :mod:`kronograph.same_time`). Reads only; writes nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from ..authority import ContradictionPolicy
from ..model import Cardinality, ContradictionReason, Fact, PossibleContradiction, RelationType, fold_relation
from ..qualifiers import encode

__all__ = ["sweep_conflicts"]


def _pairs(facts: Sequence[Fact]) -> list[tuple[Fact, Fact]]:
    """Every pair once, the earlier-recorded first (it is the standing one)."""
    ordered = sorted(facts, key=lambda f: (f.created_at, f.uuid))
    return [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:]]


def sweep_conflicts(
    facts: Sequence[Fact], relation_types: Mapping[str, RelationType], policy: ContradictionPolicy | None = None,
) -> list[PossibleContradiction]:
    """Possible contradictions among ``facts`` (the group's current facts):
    each with the later-recorded fact's uuid as ``fact`` and the earlier one as
    ``contradicts``, its authority that of the earlier fact (its tier's, by
    ``policy``, else its relation's). Who filed the later one is not weighed
    here: its weight is 1 and the score the authority."""
    from ..ingest.resolution import SIMILAR_TEXT
    from ..ingest.similarity import string_similarity

    weigh = policy or ContradictionPolicy()

    def authority(fact: Fact) -> float:
        declared = relation_types.get(fold_relation(fact.relation))
        return weigh.tier_weight(fact.tier, declared.authority if declared is not None else 0.5)

    # A slot is also its qualifiers (kronograph.qualifiers): Q2's value never contradicts Q3's.
    subject_slots: dict[tuple[str, str, str | None], list[Fact]] = defaultdict(list)
    object_slots: dict[tuple[str, str, str | None], list[Fact]] = defaultdict(list)
    by_pair: dict[frozenset[str], list[Fact]] = defaultdict(list)
    for fact in facts:
        key = fold_relation(fact.relation)
        declared = relation_types.get(key)
        qualified = encode(fact.qualifiers)
        if declared is None or declared.cardinality != Cardinality.MANY_TO_MANY:
            subject_slots[(fact.subject_uuid, key, qualified)].append(fact)
        if declared is not None and declared.one_subject_per_object:
            object_slots[(fact.object_uuid, key, qualified)].append(fact)
        by_pair[frozenset((fact.subject_uuid, fact.object_uuid))].append(fact)
    found: dict[tuple[str, str], PossibleContradiction] = {}

    def flag(old: Fact, new: Fact, reason: ContradictionReason) -> None:
        found.setdefault((new.uuid, old.uuid), PossibleContradiction(
            fact=new.uuid, contradicts=old, reason=reason, authority=authority(old), score=authority(old),
        ))

    def slot_reason(old: Fact, new: Fact) -> ContradictionReason:
        declared = relation_types.get(fold_relation(new.relation))
        held = declared is not None and declared.same_time == "hold" and old.valid_at == new.valid_at
        return "same_time" if held else "same_slot"

    for slot in subject_slots.values():
        for old, new in _pairs(slot):
            if old.object_uuid != new.object_uuid:
                flag(old, new, slot_reason(old, new))
    for slot in object_slots.values():
        for old, new in _pairs(slot):
            if old.subject_uuid != new.subject_uuid:
                flag(old, new, slot_reason(old, new))
    for pair in by_pair.values():
        for old, new in _pairs(pair):
            if fold_relation(old.relation) != fold_relation(new.relation) and (
                string_similarity(old.fact, new.fact) >= SIMILAR_TEXT
            ):
                flag(old, new, "similar_text")
    return sorted(found.values(), key=lambda p: (p.contradicts.created_at, p.contradicts.uuid, p.fact))
