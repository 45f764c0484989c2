"""Merging entities by hand, as a pure function: what the store holds in, a plan out.

Two entities found to be one (``doctor`` lists candidates) become the kept
one: the merged entity's facts (current, retired and expired), mentions,
aliases, labels and attributes move to it, and the merged entity goes. The
rules ingestion applies then run on what the move put together: a fact
that became a loop on the kept entity is closed at the merge (its stated end,
so that no later recomputation reopens it); two facts that became the same
statement (same direction, relation and overlapping interval) are one, as a
restatement is (sources combined, the later one deleted with a history
marker); and facts of a declared relation now in one slot are linked and
their timeline recomputed (:mod:`kronograph.ingest.timeline`), so that two
current ``LIVES_IN`` of one subject close the older at the newer's start.

Everything the undoing needs (:mod:`.splitting`) goes into the audit event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..ingest.resolution import screen
from ..ingest.timeline import arrival_order, merge_sources, refresh, status_of
from ..model import AuditEvent, Entity, RelationType, normalise_name
from ..store.plan import EntityRecord, HistoryEntry, Plan
from ..store.records import FactRecord, Neighbourhood, Source
from ..time import from_micros, to_micros

__all__ = ["MERGE_EVENT", "SPLIT_EVENT", "MergePlan", "finish", "plan_merge", "record_from_json", "record_to_json"]

MERGE_EVENT = "entities_merged"
SPLIT_EVENT = "entities_split"


def _overlaps(a: FactRecord, b: FactRecord) -> bool:
    """Closed-open intervals that overlap or touch (as resolution reads a restatement)."""
    a_end, b_end = a.invalid_at or a.stated_invalid_at, b.invalid_at or b.stated_invalid_at
    return (a_end is None or b.valid_at <= a_end) and (b_end is None or a.valid_at <= b_end)


def _t(value: datetime | None) -> int | None:
    return None if value is None else to_micros(value)


def _d(value: int | None) -> datetime | None:
    return None if value is None else from_micros(value)


def record_to_json(r: FactRecord) -> dict[str, Any]:
    """A fact record as the audit event keeps it (times in microseconds)."""
    return {
        "uuid": r.uuid, "source": r.source_uuid, "target": r.target_uuid, "subject": r.subject, "object": r.object,
        "relation": r.relation, "relation_key": r.relation_key, "fact": r.fact, "valid_at": _t(r.valid_at),
        "invalid_at": _t(r.invalid_at), "stated_invalid_at": _t(r.stated_invalid_at),
        "created_at": _t(r.created_at), "expired_at": _t(r.expired_at), "invalidated_by": r.invalidated_by,
        "attributes": r.attributes, "cause": r.cause, "cause_episode": r.cause_episode, "event": r.event,
        "tier": r.tier,
        "qualifiers": dict(r.qualifiers),
        "sources": [
            [s.episode_id, _t(s.valid_at), _t(s.stated_invalid_at), _t(s.added_at), s.provenance or {}]
            for s in r.sources
        ],
    }


def record_from_json(group_id: str, d: dict[str, Any]) -> FactRecord:
    sources = tuple(
        Source(episode, from_micros(valid), _d(stated), from_micros(added), provenance)
        for episode, valid, stated, added, provenance in d["sources"]
    )
    return FactRecord(
        uuid=d["uuid"], group_id=group_id, source_uuid=d["source"], target_uuid=d["target"], subject=d["subject"],
        object=d["object"], relation=d["relation"], relation_key=d["relation_key"], fact=d["fact"],
        valid_at=from_micros(d["valid_at"]), invalid_at=_d(d["invalid_at"]),
        stated_invalid_at=_d(d["stated_invalid_at"]), created_at=from_micros(d["created_at"]),
        expired_at=_d(d["expired_at"]), invalidated_by=d["invalidated_by"], sources=sources,
        attributes=dict(d["attributes"]), cause=d["cause"], cause_episode=d["cause_episode"],
        event=bool(d.get("event", False)), tier=d.get("tier"),  # absent from merges recorded before them
        qualifiers=dict(d.get("qualifiers") or {}),
    )


def entity_to_json(e: Entity, mentions: Iterable[str]) -> dict[str, Any]:
    return {
        "uuid": e.uuid, "name": e.name, "labels": list(e.labels), "aliases": list(e.aliases), "summary": e.summary,
        "attributes": e.attributes, "created_at": _t(e.created_at), "provenance": e.provenance,
        "mentions": sorted(mentions),
    }


def _state(r: FactRecord) -> tuple[Any, ...]:
    """What a new version is written for: its ends, interval, expiry and sources."""
    return (r.source_uuid, r.target_uuid, r.valid_at, r.invalid_at, r.stated_invalid_at, r.expired_at,
            r.invalidated_by, r.episodes)


def finish(
    plan: Plan, records: dict[str, FactRecord], originals: dict[str, FactRecord], cause: str,
) -> list[FactRecord]:
    """Write one new version of each stored fact that ``records`` changed (its
    ends, interval, expiry or sources): the stored version goes to history.
    Returns the new versions."""
    changed: list[FactRecord] = []
    for uuid in sorted(records):
        stored, final = originals.get(uuid), records[uuid]
        if stored is None or _state(stored) == _state(final):
            continue
        version = final.with_(recorded_at=plan.now, cause=cause, cause_episode=None)
        plan.history.append(HistoryEntry(stored, status_of(stored)))
        plan.updated_facts.append(version)
        if (stored.source_uuid, stored.target_uuid) != (final.source_uuid, final.target_uuid):
            plan.fact_ends[uuid] = (final.source_uuid, final.target_uuid)
        changed.append(version)
    return changed


def link(edges: dict[str, set[str]], a: str, b: str) -> None:
    edges.setdefault(a, set()).add(b)
    edges.setdefault(b, set()).add(a)


def unlink(edges: dict[str, set[str]], a: str, b: str) -> None:
    edges.get(a, set()).discard(b)
    edges.get(b, set()).discard(a)


@dataclass(slots=True)
class MergePlan:
    """What a merge did, by uuid (the plan holds the rows)."""

    merge_id: str
    moved: list[str] = field(default_factory=list)  # facts whose ends moved to the kept entity
    self_loops: list[str] = field(default_factory=list)  # facts closed as loops on the kept entity
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (deleted, kept into)
    changed: list[FactRecord] = field(default_factory=list)  # every new version written


def plan_merge(
    plan: Plan,
    *,
    merge_id: str,
    keep: Entity,
    merged: list[Entity],
    seeds: set[str],
    hood: Neighbourhood,
    mentions: dict[str, set[str]],
    relation_type: Callable[[str], RelationType | None],
    memberships: Mapping[str, Sequence[tuple[str, int]]] | None = None,
) -> MergePlan:
    """Fill ``plan`` with the merge of ``merged`` into ``keep``; pure.

    ``seeds``: every fact touching ``keep`` or a merged entity (expired ones
    too), loaded in ``hood`` with their contradiction links two deep;
    ``mentions``: the episodes mentioning each of these entities;
    ``relation_type``: a relation's declared type by folded key;
    ``memberships``: the communities (uuid, rank) each merged entity is in,
    kept in the record so that a split puts it back where it was."""
    out = MergePlan(merge_id)
    gone = {m.uuid for m in merged}
    records, originals = dict(hood.records), dict(hood.records)
    edges = {u: set(v) for u, v in hood.edges.items()}

    def moved_end(uuid: str, name: str) -> tuple[str, str]:
        return (keep.uuid, keep.name) if uuid in gone else (uuid, name)

    for uuid in sorted(seeds):
        r = records[uuid]
        if r.source_uuid in gone or r.target_uuid in gone:
            (s, sn), (t, tn) = moved_end(r.source_uuid, r.subject), moved_end(r.target_uuid, r.object)
            records[uuid] = r.with_(source_uuid=s, subject=sn, target_uuid=t, object=tn)
            out.moved.append(uuid)

    loops_before: dict[str, int | None] = {}
    for uuid in out.moved:
        r = records[uuid]
        if r.source_uuid == r.target_uuid and r.expired_at is None:
            end = max(plan.now, r.valid_at)
            if r.stated_invalid_at is None or r.stated_invalid_at > end:
                loops_before[uuid] = _t(r.stated_invalid_at)
                records[uuid] = r.with_(stated_invalid_at=end)
            out.self_loops.append(uuid)

    targets: set[str] = set(out.self_loops)
    added_sources: dict[str, list[str]] = {}
    deleted: dict[str, FactRecord] = {}
    removed_edges: list[tuple[str, str]] = []
    added_edges: list[tuple[str, str]] = []
    moved = set(out.moved)
    alive = sorted(
        (records[u] for u in seeds if records[u].expired_at is None and u not in out.self_loops), key=arrival_order
    )
    for b in alive:  # a later fact the move made a restatement of an earlier one joins it
        into = next(
            (a for a in alive if a.uuid not in deleted and arrival_order(a) < arrival_order(b)
             and (a.uuid in moved or b.uuid in moved) and (a.source_uuid, a.target_uuid, a.relation_key)
             == (b.source_uuid, b.target_uuid, b.relation_key) and _overlaps(records[a.uuid], records[b.uuid])),
            None,
        )
        if into is None or b.uuid in deleted:
            continue
        a = records[into.uuid]
        known = set(a.episodes)
        extra = [s for s in records[b.uuid].sources if s.episode_id not in known]
        for source in extra:
            plan.add_sources.append((a.uuid, source))
        added_sources[a.uuid] = added_sources.get(a.uuid, []) + [s.episode_id for s in extra]
        records[a.uuid] = merge_sources(a, (*a.sources, *extra))
        deleted[b.uuid] = records.pop(b.uuid)
        out.duplicates.append((b.uuid, a.uuid))
        for n in sorted(edges.pop(b.uuid, set())):
            edges.get(n, set()).discard(b.uuid)
            removed_edges.append((b.uuid, n))
            if n != a.uuid and n not in edges.get(a.uuid, set()) and n in records:
                link(edges, a.uuid, n)
                plan.add_conflicts.append((a.uuid, n, None))
                added_edges.append((a.uuid, n))
            targets.add(n)
        targets.add(a.uuid)
        targets |= edges.get(a.uuid, set())

    on_keep = [records[u] for u in sorted(seeds) if u in records and records[u].expired_at is None
               and u not in out.self_loops]
    for uuid in out.moved:  # the rules that ingestion applies, on the slots the move joined
        joined = records.get(uuid)
        if joined is None or uuid in out.self_loops:
            continue
        declared = relation_type(joined.relation_key)
        found = [c.uuid for c in screen(joined, on_keep, declared).by_cardinality] if declared is not None else []
        for cand in on_keep:  # and the other way round, whichever came first (LEFT ends WORKS_AT)
            theirs = relation_type(cand.relation_key)
            if theirs is not None and cand.uuid != uuid and screen(cand, [joined], theirs).by_cardinality:
                found.append(cand.uuid)
        for other in dict.fromkeys(found):
            if other in edges.get(uuid, set()):
                continue
            link(edges, uuid, other)
            plan.add_conflicts.append((uuid, other, None))
            added_edges.append((uuid, other))
            targets |= {uuid, other}

    scratch = Plan(group_id=plan.group_id, now=plan.now, expected_revision=None)
    refresh(scratch, records, edges, {t for t in targets if t in records}, originals, None)
    plan.remove_conflicts.extend(removed_edges)
    for uuid in sorted(deleted):  # as a retraction deletes: its last state, then a marker under its old names
        plan.delete_facts.append(uuid)
        plan.history.append(HistoryEntry(originals[uuid], status_of(originals[uuid])))
        marker = originals[uuid].with_(recorded_at=plan.now, cause="entity_merged", cause_episode=None)
        plan.history.append(HistoryEntry(marker, "deleted"))
    out.changed = finish(plan, records, originals, "entity_merged")

    keep_key = normalise_name(keep.name)
    labels = list(keep.labels)
    aliases = list(keep.aliases)
    attributes: dict[str, Any] = {}
    for m in merged:
        labels += [label for label in m.labels if label not in labels]
        for alias in (m.name, *m.aliases):
            if normalise_name(alias) != keep_key and alias not in aliases:
                aliases.append(alias)
        attributes.update(m.attributes)
    attributes.update(keep.attributes)  # the kept entity's own win
    plan.entity_records.append(EntityRecord(keep.uuid, tuple(labels), tuple(aliases), attributes))
    kept_mentions = mentions.get(keep.uuid, set())
    new_mentions = sorted({e for m in merged for e in mentions.get(m.uuid, set())} - kept_mentions)
    plan.mentions += [(episode, keep.uuid) for episode in new_mentions]
    plan.delete_entities += sorted(gone)
    plan.stale_entities.add(keep.uuid)
    detail = {
        "merge_id": merge_id,
        "keep": keep.uuid,
        "keep_name": keep.name,
        "merged": [entity_to_json(m, mentions.get(m.uuid, set())) for m in merged],
        "moved": {u: [originals[u].source_uuid, originals[u].target_uuid] for u in out.moved},
        "self_loops": loops_before,
        "deleted": [dict(record_to_json(originals[b]), into=a) for b, a in out.duplicates],
        "added_sources": added_sources,
        "added_edges": sorted([sorted(e) for e in added_edges]),
        "removed_edges": sorted([sorted(e) for e in removed_edges]),
        "added_mentions": new_mentions,
        "added_labels": [label for label in labels if label not in keep.labels],
        "added_aliases": [alias for alias in aliases if alias not in keep.aliases],
        "added_attributes": {k: v for k, v in attributes.items() if k not in keep.attributes},
        "changed": [f.uuid for f in out.changed],
        "communities": {m.uuid: [list(c) for c in (memberships or {}).get(m.uuid, ())] for m in merged},
    }
    plan.audit.append(AuditEvent(group_id=plan.group_id, kind=MERGE_EVENT, recorded_at=plan.now, detail=detail))
    return out
