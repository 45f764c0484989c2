"""Retracting an episode: provenance removed everywhere, timelines recomputed.

A fact is deleted only when no source is left; a fact the episode had closed
or expired gets its interval back unless another fact still closes it; an
entity left with no fact and no mention is deleted. Fact history is kept, so
``known_at`` answers about the past do not change (``forget`` erases history).
"""

from __future__ import annotations

import asyncio
from typing import Any

from .._retry import retry_on_conflict
from ..errors import NotFoundError
from ..ingest.timeline import merge_sources, refresh, status_of
from ..model import AuditEvent, RemovalResult
from ..store.plan import HistoryEntry, Plan
from ..store.protocol import Store
from ..store.records import FactRecord, Neighbourhood
from ..time import Clock

__all__ = ["plan_fact_removal", "plan_removal", "remove_episode", "remove_fact"]


def _delete(plan: Plan, record: FactRecord, cause: str, episode_id: str | None) -> None:
    """Delete a fact, keeping its last state and a deletion marker in its
    history (so ``known_at`` still answers what was believed)."""
    plan.delete_facts.append(record.uuid)
    plan.history.append(HistoryEntry(record, status_of(record)))
    marker = record.with_(recorded_at=plan.now, cause=cause, cause_episode=episode_id)
    plan.history.append(HistoryEntry(marker, "deleted"))


def plan_removal(
    plan: Plan,
    episode_id: str,
    citing: list[FactRecord],
    hood: Neighbourhood,
    references: dict[str, tuple[set[str], set[str]]],
) -> RemovalResult:
    """Fill ``plan`` with the retraction of ``episode_id``; pure.

    ``references`` covers the entities the episode mentions or its facts touch.
    """
    records = dict(hood.records)
    originals = dict(hood.records)
    gone: set[str] = set()
    for record in citing:
        remaining = tuple(s for s in record.sources if s.episode_id != episode_id)
        if remaining:
            plan.remove_sources.append((record.uuid, episode_id))
            records[record.uuid] = merge_sources(record, remaining)
            continue
        gone.add(record.uuid)
        _delete(plan, record, "source_removed", episode_id)
    edges = {u: links - gone for u, links in hood.edges.items() if u not in gone}
    targets: set[str] = set()
    for record in citing:
        targets |= hood.edges.get(record.uuid, set())
        targets.add(record.uuid)
    changes = refresh(plan, records, edges, targets - gone, originals, episode_id)
    plan.delete_episodes.append(episode_id)
    for entity_uuid, (facts, episodes) in sorted(references.items()):
        if not (facts - gone) and not (episodes - {episode_id}):
            plan.delete_entities.append(entity_uuid)
    plan.audit.append(
        AuditEvent(
            group_id=plan.group_id,
            kind="episode_removed",
            recorded_at=plan.now,
            episode_id=episode_id,
            detail={"deleted_facts": len(gone), "changed_facts": len(changes)},
        )
    )
    return RemovalResult(
        episode_id=episode_id,
        deleted_facts=sorted(gone),
        changed=[updated.to_fact() for _, updated in changes],
        deleted_entities=list(plan.delete_entities),
    )


async def remove_episode(
    store: Store, group_id: str, episode_id: str, *, clock: Clock, actor: str | None = None,
    on_behalf_of: str | None = None, hold: asyncio.Lock | None = None,
) -> RemovalResult:
    async def attempt() -> RemovalResult:
        plan = Plan(group_id=group_id, now=clock(), expected_revision=await store.revision(group_id))
        if await store.episode(group_id, episode_id) is None:
            raise NotFoundError(f"no episode {episode_id!r} in group {group_id!r}")
        citing = await store.facts_citing(group_id, episode_id)
        touched = set(await store.mentioned_entities(group_id, episode_id))
        for record in citing:
            touched.update((record.source_uuid, record.target_uuid))
        references = await store.entity_references(group_id, touched)
        hood = await store.conflict_neighbourhood(group_id, [r.uuid for r in citing], 2)
        result = plan_removal(plan, episode_id, citing, hood, references)
        plan.attribute(actor, on_behalf_of)
        await store.apply(plan)
        return result

    return await retry_on_conflict(attempt, kind="removal", hold=hold)  # held per try, not in backoff


def plan_fact_removal(
    plan: Plan, record: FactRecord, hood: Neighbourhood, references: dict[str, tuple[set[str], set[str]]],
    reason: str | None = None, override: dict[str, Any] | None = None,
) -> RemovalResult:
    """Fill ``plan`` with the retraction of one fact, whatever its sources;
    pure. As for an episode's retraction: its last state and a deletion marker
    go to its history (``known_at`` answers about the past keep theirs), the
    facts only it had closed get their interval back, and an entity left with
    no fact and no mention goes. Its source episodes stay: they may say more."""
    records = dict(hood.records)
    originals = dict(hood.records)
    _delete(plan, record, "fact_removed", None)
    gone = {record.uuid}
    edges = {u: links - gone for u, links in hood.edges.items() if u not in gone}
    targets = hood.edges.get(record.uuid, set()) - gone
    changes = refresh(plan, records, edges, {t for t in targets if t in records}, originals, None)
    for entity_uuid, (facts, episodes) in sorted(references.items()):
        if not (facts - gone) and not episodes:
            plan.delete_entities.append(entity_uuid)
    plan.audit.append(
        AuditEvent(
            group_id=plan.group_id, kind="fact_removed", recorded_at=plan.now,
            detail={"fact": record.uuid, "changed_facts": len(changes), **({"reason": reason} if reason else {}),
                    **({"override": override} if override else {})},
        )
    )
    return RemovalResult(
        fact_uuid=record.uuid, deleted_facts=[record.uuid],
        changed=[updated.to_fact() for _, updated in changes], deleted_entities=list(plan.delete_entities),
    )


async def remove_fact(
    store: Store, group_id: str, fact_uuid: str, *, clock: Clock, actor: str | None = None,
    on_behalf_of: str | None = None, hold: asyncio.Lock | None = None, reason: str | None = None,
    override: dict[str, Any] | None = None,
) -> RemovalResult:
    """Retract one fact in one transaction; ``reason`` (and the ``override``
    of another actor's owned fact it justifies) go on its audit event."""
    async def attempt() -> RemovalResult:
        plan = Plan(group_id=group_id, now=clock(), expected_revision=await store.revision(group_id))
        hood = await store.conflict_neighbourhood(group_id, [fact_uuid], 2)
        record = hood.records.get(fact_uuid)
        if record is None:
            raise NotFoundError(f"no fact {fact_uuid!r} in group {group_id!r}")
        references = await store.entity_references(group_id, {record.source_uuid, record.target_uuid})
        result = plan_fact_removal(plan, record, hood, references, reason, override)
        plan.attribute(actor, on_behalf_of)
        await store.apply(plan)
        return result

    return await retry_on_conflict(attempt, kind="removal", hold=hold)  # held per try, not in backoff
