"""Undoing an entity merge from its audit record, as a pure function.

The merged entities come back with their uuids, names, labels, aliases,
attributes, summaries and mentions; the facts that moved get their ends
back; the facts the merge deleted as restatements come back (with the
sources they had, less those whose episode is gone since) and leave the
fact they had joined; the stated ends the merge gave to loops are undone;
the contradiction links it added go and those it dropped return (and a link
made since between a fact that moves back and one it no longer shares an
entity with goes: the guard would not allow it); and the
timeline of every fact touched is recomputed from its links, as ingestion
would. What was learned since the merge stays: facts that touch the kept
entity keep touching it, and what later episodes did to a moved fact's
interval is recomputed, not overwritten with the old times.
"""

from __future__ import annotations

from typing import Any

from ..ingest.timeline import merge_sources, refresh
from ..model import AuditEvent, Entity, trusted
from ..store.plan import EntityRecord, Plan
from ..store.records import FactRecord, Neighbourhood
from ..time import from_micros
from .merging import SPLIT_EVENT, finish, link, record_from_json, unlink

__all__ = ["SplitPlan", "fact_uuids", "plan_split"]


def fact_uuids(detail: dict[str, Any]) -> set[str]:
    """Every fact a merge's record names."""
    found = set(detail["moved"]) | set(detail["self_loops"]) | set(detail["changed"])
    found |= set(detail["added_sources"])
    for pair in (*detail["added_edges"], *detail["removed_edges"]):
        found |= set(pair)
    return found - {d["uuid"] for d in detail["deleted"]}


class SplitPlan:
    """What a split did: the entities restored, the facts restored and changed."""

    def __init__(self, restored: list[Entity], facts: list[str], changed: list[FactRecord]) -> None:
        self.restored, self.facts, self.changed = restored, facts, changed


def plan_split(
    plan: Plan,
    *,
    detail: dict[str, Any],
    keep: Entity,
    hood: Neighbourhood,
    episodes: set[str],
) -> SplitPlan:
    """Fill ``plan`` with the undoing of the merge ``detail`` records; pure.

    ``hood``: the facts the record names and every fact touching ``keep``
    now, with their links two deep; ``episodes``: which of the episodes the
    record names still exist."""
    g = plan.group_id
    records, originals = dict(hood.records), dict(hood.records)
    edges = {u: set(v) for u, v in hood.edges.items()}
    names = {keep.uuid: keep.name}
    restored: list[Entity] = []
    for snap in detail["merged"]:
        entity = trusted(
            Entity, uuid=snap["uuid"], group_id=g, name=snap["name"], labels=tuple(snap["labels"]),
            aliases=tuple(snap["aliases"]), summary=snap["summary"], attributes=dict(snap["attributes"]),
            created_at=from_micros(snap["created_at"]), provenance=dict(snap["provenance"]), summary_stale=True,
            summary_built_at=None,
        )
        restored.append(entity)
        names[entity.uuid] = entity.name
        plan.new_entities.append(entity)
        plan.entity_aliases += [(entity.uuid, alias) for alias in entity.aliases]
        plan.mentions += [(e, entity.uuid) for e in snap["mentions"] if e in episodes]
        plan.stale_entities.add(entity.uuid)
        # Back into the communities it was in (a record from before they were kept has none;
        # a community rebuilt since is gone, and the store skips it).
        held = detail.get("communities", {}).get(entity.uuid, ())
        plan.community_members += [(c, entity.uuid, rank) for c, rank in held]

    added = detail["added_attributes"]
    plan.entity_records.append(EntityRecord(
        keep.uuid,
        tuple(label for label in keep.labels if label not in detail["added_labels"]),
        tuple(alias for alias in keep.aliases if alias not in detail["added_aliases"]),
        {k: v for k, v in keep.attributes.items() if not (k in added and added[k] == v)},
    ))
    plan.removed_mentions += [(e, keep.uuid) for e in detail["added_mentions"]]
    plan.stale_entities.add(keep.uuid)

    targets: set[str] = set()
    for uuid, (source, target) in detail["moved"].items():
        r = records.get(uuid)
        if r is None:
            continue  # removed since: nothing to move back
        records[uuid] = r.with_(source_uuid=source, subject=names.get(source, r.subject), target_uuid=target,
                                object=names.get(target, r.object))
        targets.add(uuid)
    for uuid in detail["moved"]:  # a link made since the merge that the guard no longer allows goes
        r = records.get(uuid)
        if r is None:
            continue
        for n in sorted(edges.get(uuid, set())):
            other = records.get(n)
            if other is not None and not {r.source_uuid, r.target_uuid} & {other.source_uuid, other.target_uuid}:
                unlink(edges, uuid, n)
                plan.remove_conflicts.append((uuid, n))
                targets |= {uuid, n}
    for uuid, stated in detail["self_loops"].items():
        if uuid in records:
            records[uuid] = records[uuid].with_(stated_invalid_at=None if stated is None else from_micros(stated))
    for a, b in detail["added_edges"]:
        if b in edges.get(a, set()):
            unlink(edges, a, b)
            plan.remove_conflicts.append((a, b))
        targets |= {a, b}
    for into, episode_ids in detail["added_sources"].items():
        r = records.get(into)
        if r is None:
            continue
        remaining = tuple(s for s in r.sources if s.episode_id not in episode_ids)
        plan.remove_sources += [(into, e) for e in episode_ids if e in r.episodes]
        if remaining:
            records[into] = merge_sources(r, remaining)
        targets.add(into)

    back: list[str] = []
    for saved in detail["deleted"]:
        record = record_from_json(g, saved)
        sources = tuple(s for s in record.sources if s.episode_id in episodes)
        if not sources:
            continue  # every episode that stated it is gone: so is it
        record = merge_sources(record, sources).with_(recorded_at=plan.now, cause="entity_split", cause_episode=None)
        records[record.uuid] = record
        back.append(record.uuid)
        targets.add(record.uuid)
    for a, b in detail["removed_edges"]:
        if a in records and b in records and b not in edges.get(a, set()):
            link(edges, a, b)
            plan.add_conflicts.append((a, b, None))
            targets |= {a, b}
    for uuid in list(targets):
        targets |= edges.get(uuid, set())

    scratch = Plan(group_id=g, now=plan.now, expected_revision=None)
    refresh(scratch, records, edges, {t for t in targets if t in records}, originals, None)
    plan.new_facts += [records[uuid] for uuid in back]
    changed = finish(plan, records, originals, "entity_split")
    plan.audit.append(AuditEvent(
        group_id=g, kind=SPLIT_EVENT, recorded_at=plan.now,
        detail={"merge_id": detail["merge_id"], "keep": keep.uuid, "keep_name": keep.name,
                "restored": [e.uuid for e in restored], "restored_names": [e.name for e in restored],
                "restored_facts": back, "changed": [f.uuid for f in changed]},
    ))
    return SplitPlan(restored, back, changed)
