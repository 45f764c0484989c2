"""Entity repair by hand: merging two entities found to be one, and undoing it.

The reads, the decision (:mod:`.merging`, :mod:`.splitting`, pure) and the
one plan that carries it, applied in one transaction under the group's
write lock and redone from fresh reads if another writer moved the group
meanwhile. An entity is named by uuid, or by a name that names exactly one
entity of the group.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._retry import retry_on_conflict
from ..errors import InvalidInputError, NotFoundError
from ..ids import new_id
from ..model import Entity, Fact, RelationType, normalise_name
from ..store.plan import Plan
from ..store.protocol import CallerReads, Lookups, Store
from ..time import Clock
from .merging import MERGE_EVENT, SPLIT_EVENT, plan_merge, record_from_json
from .splitting import fact_uuids, plan_split

__all__ = ["MergeResult", "SplitResult", "find_entity", "merge_entities", "split_entity"]

Embed = Callable[[list[str]], Awaitable[list[bytes]]]


class MergeResult(BaseModel):
    """What ``merge_entities`` did. ``merge_id`` undoes it (``split_entity``);
    ``moved_facts``: facts whose ends moved to ``keep``; ``self_loops``: those
    that became a loop on ``keep`` and were closed; ``merged_duplicates``:
    (deleted fact, fact it joined) for facts that became the same statement;
    ``changed``: every fact's new version (the timeline rules included)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    merge_id: str
    keep: Entity
    merged: list[str]
    moved_facts: list[str]
    self_loops: list[str]
    merged_duplicates: list[tuple[str, str]]
    changed: list[Fact]


class SplitResult(BaseModel):
    """What ``split_entity`` did: the entities ``restored``, the facts
    ``restored_facts`` (deleted by the merge as duplicates), and every fact's
    new version (``changed``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    merge_id: str
    keep: str
    restored: list[Entity]
    restored_facts: list[str]
    changed: list[Fact]


async def find_entity(store: Lookups, group_id: str, field: str, ref: str) -> Entity:
    """The group's entity of that uuid, else of that name (only one may bear
    it); NotFoundError or InvalidInputError naming ``ref`` otherwise."""
    found = await store.entities_by_uuid(group_id, [ref])
    if found:
        return found[0]
    named = await store.entities_named(group_id, [normalise_name(ref)])
    if not named:
        raise NotFoundError(f"{field}: no entity {ref!r} (by uuid or name) in group {group_id!r}")
    if len(named) > 1:
        raise InvalidInputError(
            field, f"{ref!r} names {len(named)} entities of group {group_id!r}: give a uuid "
            f"({', '.join(e.uuid for e in named)})"
        )
    return named[0]


async def merge_entities(
    store: Store, group_id: str, keep: str, merge: Sequence[str], *, clock: Clock,
    relation_type: Callable[[str], RelationType | None], actor: str | None = None,
    on_behalf_of: str | None = None, hold: asyncio.Lock | None = None,
) -> MergeResult:
    async def attempt() -> MergeResult:
        plan = Plan(group_id=group_id, now=clock(), expected_revision=await store.revision(group_id))
        kept = await find_entity(store, group_id, "keep", keep)
        merged: dict[str, Entity] = {}
        for ref in merge:
            entity = await find_entity(store, group_id, "merge", ref)
            if entity.uuid == kept.uuid:
                raise InvalidInputError("merge", f"{ref!r} is the entity kept: an entity cannot be merged into itself")
            merged[entity.uuid] = entity
        references = await store.entity_references(group_id, {kept.uuid, *merged})
        seeds = set().union(*(facts for facts, _ in references.values()))
        hood = await store.conflict_neighbourhood(group_id, seeds, 2)
        memberships: dict[str, list[tuple[str, int]]] = {}
        for community in await store.communities(group_id):
            for rank, member in enumerate(community.member_uuids):
                if member in merged:
                    memberships.setdefault(member, []).append((community.uuid, rank))
        done = plan_merge(
            plan, merge_id=new_id(), keep=kept, merged=list(merged.values()), seeds=seeds, hood=hood,
            mentions={u: episodes for u, (_, episodes) in references.items()}, relation_type=relation_type,
            memberships=memberships,
        )
        plan.attribute(actor, on_behalf_of)
        await store.apply(plan)
        after = await store.entities_by_uuid(group_id, [kept.uuid])
        return MergeResult(
            merge_id=done.merge_id, keep=after[0] if after else kept, merged=list(merged),
            moved_facts=done.moved, self_loops=done.self_loops, merged_duplicates=done.duplicates,
            changed=[r.to_fact() for r in done.changed],
        )

    if not merge:
        raise InvalidInputError("merge", "name at least one entity to merge")
    return await retry_on_conflict(attempt, kind="merge", hold=hold)


async def _merge_record(store: CallerReads, group_id: str, merge_id: str) -> dict[str, Any]:
    """The merge's undo record; an error if there is none or it was undone."""
    record: dict[str, Any] | None = None
    for event in await store.audit_events(group_id):
        if event.detail.get("merge_id") != merge_id:
            continue
        if event.kind == SPLIT_EVENT:
            raise InvalidInputError("merge_id", f"merge {merge_id!r} was already split ({event.recorded_at})")
        if event.kind == MERGE_EVENT:
            record = event.detail
    if record is None:
        raise NotFoundError(f"merge_id: no merge {merge_id!r} in group {group_id!r}")
    return record


async def split_entity(
    store: Store, group_id: str, merge_id: str, *, clock: Clock, embed: Embed, actor: str | None = None,
    on_behalf_of: str | None = None, hold: asyncio.Lock | None = None,
) -> SplitResult:
    detail = await _merge_record(store, group_id, merge_id)
    deleted = [record_from_json(group_id, d) for d in detail["deleted"]]
    # Vectors first: an embedder may wait on a network, the group's lock must not.
    vectors = await embed([m["name"] for m in detail["merged"]] + [r.fact for r in deleted])
    names = dict(zip([m["uuid"] for m in detail["merged"]], vectors, strict=False))
    texts = dict(zip([r.uuid for r in deleted], vectors[len(names):], strict=False))

    async def attempt() -> SplitResult:
        plan = Plan(group_id=group_id, now=clock(), expected_revision=await store.revision(group_id))
        record = await _merge_record(store, group_id, merge_id)
        found = await store.entities_by_uuid(group_id, [record["keep"]])
        if not found:
            raise InvalidInputError(
                "merge_id", f"the entity kept by merge {merge_id!r} ({record['keep_name']!r}) no longer exists"
            )
        back = await store.entities_by_uuid(group_id, [m["uuid"] for m in record["merged"]])
        if back:
            raise InvalidInputError("merge_id", f"entity {back[0].uuid!r} of merge {merge_id!r} exists again")
        keep = found[0]
        references = await store.entity_references(group_id, {keep.uuid})
        seeds = fact_uuids(record) | references.get(keep.uuid, (set(), set()))[0]
        hood = await store.conflict_neighbourhood(group_id, seeds, 2)
        wanted = {e for m in record["merged"] for e in m["mentions"]} | set(record["added_mentions"])
        wanted |= {s.episode_id for r in deleted for s in r.sources}
        episodes = {e.uuid for e in await store.episodes_by_uuid(group_id, wanted)}
        done = plan_split(plan, detail=record, keep=keep, hood=hood, episodes=episodes)
        plan.entity_embeddings.update({u: v for u, v in names.items()})
        plan.fact_embeddings.update({u: v for u, v in texts.items() if u in done.facts})
        plan.attribute(actor, on_behalf_of)
        await store.apply(plan)
        return SplitResult(
            merge_id=merge_id, keep=keep.uuid, restored=done.restored, restored_facts=done.facts,
            changed=[r.to_fact() for r in done.changed],
        )

    return await retry_on_conflict(attempt, kind="split", hold=hold)
