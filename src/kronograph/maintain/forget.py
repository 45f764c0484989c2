"""Forgetting: a compliance purge of an entity or an episode, then its proof.

``remove_episode`` retracts a statement and keeps the record of having
believed it; ``forget`` erases. Forgetting an entity erases every episode
that mentions it (by extraction or, as a whole word, in its text), every fact
that touches it or names it, every entity of that name or alias, and every
other trace of the name: fact history, the retraction index, entity
summaries, audit details and cached model replies. A trace of the name in
any other text column (a relation, an actor, a saga's name, a label, a
folded key, metadata: the scan reads the columns from the schema) makes the
name found, and is erased with the row it is in. Forgetting an episode
erases it, the facts left with no other source, the entities left with
nothing, and every history and audit record of them.

Facts the purge leaves standing lose the forgotten sources; a fact that only
a deleted fact had retired gets its interval back (as ``remove_episode``
does). Summaries that may have drawn on what went are cleared in the purge's
transaction and rebuilt extractively from what is left, so no summary ever
shows forgotten words, even for a moment.

The purge is one transaction; what it deletes is then made unrecoverable
from the store's files where the backend can (``Store.erase_traces``: on
SQLite a checkpointed, truncated log; on PostgreSQL a VACUUM), and
:func:`check_store` scans every stored text for the name again;
``AsyncMemory.forget`` also searches every scope by every method. An erasure
a reader of an older snapshot held back is a leftover (``verified`` False,
with the reason); the next forget, even of a name with nothing left, or
``doctor --repair`` finishes it. The audit log records that a purge happened,
with counts only.

Matching is by whole words, case-insensitively: forgetting "Ann" erases
"Ann's car" and the entity "Ann Lee", not "Annapolis". A name shorter than
two letters is refused (it would match nearly everything).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from datetime import datetime

from .._retry import retry_on_conflict
from ..errors import InvalidInputError, NotFoundError
from ..ingest.timeline import merge_sources, refresh
from ..model import AuditEvent, ForgetReport, normalise_name
from ..store.plan import Plan, Purge
from ..store.protocol import Lookups, Store
from ..store.records import FactRecord
from ..store.text_scan import Erasure, TextHit, mentions
from ..time import Clock
from .communities import Embed
from .communities import refresh as refresh_communities
from .receipts import Requester, Target, erasure_entry, refuse_erased_text
from .sagas import summarize_saga
from .summaries import summarize

__all__ = ["check_store", "forget", "plan_forget"]

_ENTITY_TABLES = {"entities", "entity_aliases"}
_FACT_TABLES = {"facts", "fact_sources", "fact_history", "retracted_facts"}


@dataclass(slots=True)
class _Scope:
    """What a purge erases, found before anything is planned."""

    needles: list[str]
    episodes: set[str] = field(default_factory=set)
    entities: set[str] = field(default_factory=set)
    facts: set[str] = field(default_factory=set)  # facts erased whatever their sources
    summaries: set[str] = field(default_factory=set)
    entity_records: set[str] = field(default_factory=set)
    labels: set[str] = field(default_factory=set)  # entities kept, less the labels naming it
    audit_events: set[int] = field(default_factory=set)
    sagas: set[str] = field(default_factory=set)
    dropped_sagas: set[str] = field(default_factory=set)  # their name names it
    communities: set[str] = field(default_factory=set)
    replies: set[str] = field(default_factory=set)
    settings: set[str] = field(default_factory=set)  # the group's settings naming it (its user's name, say)
    contradictions: set[str] = field(default_factory=set)  # contradicting uuids whose rows' note or actor names it
    unrouted: set[str] = field(default_factory=set)  # where nothing erases it: a leftover, never verified
    keyed: set[str] = field(default_factory=set)  # facts filed under the data subject's key being forgotten

    def found(self) -> bool:
        """Whether anything at all bears the name (a second forget still cleans up a trace)."""
        return any((self.episodes, self.entities, self.facts, self.summaries, self.entity_records, self.labels,
                    self.audit_events, self.replies, self.sagas, self.dropped_sagas, self.communities,
                    self.settings, self.contradictions, self.unrouted))


def _long_enough(name: str) -> bool:
    return len(re.findall(r"\w", name)) >= 2


def _distinct(names: list[str]) -> list[str]:
    """The names long enough to search for, one per casefolded spelling (the first kept), sorted."""
    out: dict[str, str] = {}
    for name in names:
        if _long_enough(name):
            out.setdefault(name.casefold(), name)
    return sorted(out.values())


def _needle(name: str) -> str:
    if not _long_enough(name):
        raise InvalidInputError("entity", f"{name!r} is too short to forget by name (it would match nearly everything)")
    return name


def _sort_hits(scope: _Scope, hits: list[TextHit]) -> None:
    """File each whole-word occurrence of a needle under what erases it. A
    column not named here erases its row's owner (an episode, an entity, a
    fact), so a column added later is covered too; a table not known here
    cannot be erased from, and stays a leftover (never ``verified``)."""
    for hit in hits:
        if not mentions(hit.text, scope.needles):
            continue
        if hit.table == "episodes":  # any of its texts, its actor, its saga's name, its metadata
            scope.episodes.add(hit.key)
        elif hit.table in _ENTITY_TABLES:
            if hit.column == "summary" and hit.table == "entities":
                scope.summaries.add(hit.key)
            elif hit.column in ("attributes", "provenance"):
                scope.entity_records.add(hit.key)
            elif hit.column == "labels":
                scope.labels.add(hit.key)
            else:  # its name, its name's key, or one of its aliases
                scope.entities.add(hit.key)
        elif hit.table in _FACT_TABLES:
            scope.facts.add(hit.key)
        elif hit.table == "audit_events":
            scope.audit_events.add(int(hit.key))
        elif hit.table == "model_replies":
            scope.replies.add(hit.key)
        elif hit.table == "saga_summaries":
            (scope.dropped_sagas if hit.column == "saga" else scope.sagas).add(hit.key)
        elif hit.table == "communities":
            scope.communities.add(hit.key)
        elif hit.table == "group_settings":
            scope.settings.add(hit.key)
        elif hit.table == "contradictions":
            scope.contradictions.add(hit.key)
        else:
            scope.unrouted.add(f"{hit.table}.{hit.column}")


async def _entity_scope(store: Store, group_id: str, entity: str) -> _Scope:
    key = normalise_name(_needle(entity))
    targets = {e.uuid: e for e in await store.entities_named(group_id, [key])}
    targets |= {e.uuid: e for e in await store.entities_by_uuid(group_id, [entity])}
    names = [n for e in targets.values() for n in (e.name, *e.aliases)]
    if entity not in targets:
        names.append(entity)
    scope = _Scope(needles=_distinct(names))
    scope.entities |= set(targets)
    _sort_hits(scope, await store.text_occurrences(group_id, scope.needles))
    if not scope.found():
        raise NotFoundError(f"nothing named {entity!r} (nor an entity with that uuid) in group {group_id!r}")
    # The named entities' aliases are needles too: scan once more if they added any.
    known = {n.casefold() for n in scope.needles}
    found = [n for e in await store.entities_by_uuid(group_id, scope.entities) for n in (e.name, *e.aliases)]
    extra = [n for n in _distinct(found) if n.casefold() not in known]
    if extra:
        scope.needles = _distinct([*scope.needles, *extra])
        _sort_hits(scope, await store.text_occurrences(group_id, extra))
    for facts, episodes in (await store.entity_references(group_id, scope.entities)).values():
        scope.facts |= facts
        scope.episodes |= episodes
    return scope


async def _episode_scope(store: Lookups, group_id: str, episode_id: str) -> _Scope:
    if await store.episode(group_id, episode_id) is None:
        raise NotFoundError(f"no episode {episode_id!r} in group {group_id!r}")
    return _Scope(needles=[], episodes={episode_id})


async def _subject_scope(store: Store, group_id: str, key: str, now: datetime) -> _Scope:
    """Every episode filed under the data subject's key, and the names of the
    entities known only from them (and from its facts) as needles: their
    other traces go as an entity's do. Facts filed under the key go unless
    another source stands (see ``plan_forget``)."""
    episodes, facts = await store.data_subject_items(group_id, key)
    if not episodes and not facts:
        raise NotFoundError(f"nothing filed under that data subject in group {group_id!r}")
    scope = _Scope(needles=[], episodes=set(episodes), keyed=set(facts))
    first = await _planned(store, group_id, scope, Plan(group_id=group_id, now=now, expected_revision=None))
    derived = await store.entities_by_uuid(group_id, first.plan.delete_entities)
    scope.needles = _distinct([n for e in derived for n in (e.name, *e.aliases)])
    if scope.needles:
        _sort_hits(scope, await store.text_occurrences(group_id, scope.needles))
    return scope


def plan_forget(
    plan: Plan,
    scope: _Scope,
    citing: dict[str, FactRecord],
    hood_records: dict[str, FactRecord],
    hood_edges: dict[str, set[str]],
    references: dict[str, tuple[set[str], set[str]]],
) -> tuple[set[str], list[str], Purge]:
    """Fill ``plan`` with the purge; pure. ``citing``: facts citing a purged
    episode; ``hood_records``: those and every fact named for erasure, with
    their contradiction neighbours (``hood_edges``); ``references``: for the
    entities the purge touches, their facts and mentions. Returns the facts
    erased, the uuids of facts whose interval changed and the plan's purge."""
    gone = set(scope.facts)
    records = dict(hood_records)
    originals = dict(hood_records)
    kept_keyed: set[str] = set()  # facts filed under the key that another source keeps standing
    for record in citing.values():
        if record.uuid in gone:
            continue
        remaining = tuple(s for s in record.sources if s.episode_id not in scope.episodes)
        if remaining:
            for s in record.sources:
                if s.episode_id in scope.episodes:
                    plan.remove_sources.append((record.uuid, s.episode_id))
            records[record.uuid] = merge_sources(record, remaining)
            if record.uuid in scope.keyed:
                kept_keyed.add(record.uuid)
        else:
            gone.add(record.uuid)
    kept_keyed |= scope.keyed - gone - set(citing)  # filed under the key with another subject's episode
    plan.delete_facts.extend(sorted(gone))
    edges = {u: links - gone for u, links in hood_edges.items() if u not in gone}
    targets = {n for u in gone for n in hood_edges.get(u, set())} | set(citing)
    changes = refresh(plan, records, edges, {t for t in targets - gone if t in records}, originals, None)
    plan.delete_episodes.extend(sorted(scope.episodes))
    plan.settings.update({name: None for name in sorted(scope.settings)})  # a setting naming it goes
    deleted = set(scope.entities)
    for entity_uuid, (entity_facts, episodes) in references.items():
        if not (entity_facts - gone) and not (episodes - scope.episodes):
            deleted.add(entity_uuid)
    plan.delete_entities.extend(sorted(deleted))
    endpoints = {u for f in gone if f in hood_records
                 for u in (hood_records[f].source_uuid, hood_records[f].target_uuid)}
    plan.stale_entities |= endpoints - deleted
    plan.purge = purge = Purge(
        histories=sorted(gone),
        audit_events=sorted(scope.audit_events),
        replies=sorted(scope.replies),
        summaries=sorted((scope.summaries | endpoints) - deleted),
        entity_records=sorted(scope.entity_records - deleted),
        sagas=sorted(scope.sagas - scope.dropped_sagas),
        dropped_sagas=sorted(scope.dropped_sagas),
        contradictions=sorted(scope.contradictions),
        cleared_subjects=sorted(kept_keyed),
    )
    return gone, [updated.uuid for _, updated in changes], purge


@dataclass(slots=True)
class _Planned:
    """A purge planned from a scope: the plan, and what it erases and changes."""

    plan: Plan
    gone: set[str]
    changed: list[str]
    purge: Purge


async def _planned(store: Store, group_id: str, scope: _Scope, plan: Plan) -> _Planned:
    """Read what ``scope`` reaches and fill ``plan`` with its purge."""
    scope.replies.update(await store.episode_replies(group_id, scope.episodes))
    scope.sagas.update(p.saga for p in await store.episodes_by_uuid(group_id, scope.episodes) if p.saga)
    citing: dict[str, FactRecord] = {}
    for eid in sorted(scope.episodes):
        for record in await store.facts_citing(group_id, eid):
            citing[record.uuid] = record
    hood = await store.conflict_neighbourhood(group_id, sorted(scope.facts | scope.keyed | set(citing)), 2)
    touched = set(scope.entities)
    for eid in scope.episodes:
        touched.update(await store.mentioned_entities(group_id, eid))
    for record in (*citing.values(), *hood.records.values()):
        touched.update((record.source_uuid, record.target_uuid))
    references = await store.entity_references(group_id, touched)
    gone, changed, purge = plan_forget(plan, scope, citing, hood.records, hood.edges, references)
    # An entity kept loses the labels that name it (and keeps the others).
    for kept in await store.entities_by_uuid(group_id, scope.labels - set(plan.delete_entities)):
        plan.entity_labels[kept.uuid] = tuple(x for x in kept.labels if not mentions(x, scope.needles))
    # Communities that lose a member or a fact between members drew on what goes.
    touched_members = set(plan.delete_entities) | plan.stale_entities
    purge.communities = sorted(scope.communities | {
        c.uuid for c in await store.communities(group_id) if touched_members & set(c.member_uuids)
    })
    return _Planned(plan, gone, changed, purge)


async def forget(
    store: Store,
    group_id: str,
    *,
    entity: str | None,
    episode_id: str | None,
    clock: Clock,
    embed: Embed,
    data_subject: str | None = None,
    dry_run: bool = False,
    requester: Requester | None = None,
    hold: asyncio.Lock | None = None,
) -> ForgetReport:
    """Purge (with its erasure receipt, in one transaction), erase traces,
    rebuild the cleared summaries, check the store. ``embed`` makes the
    vectors of the communities rebuilt. ``requester``: who asks and why, on the
    audit event and the receipt (refused if it names what goes). ``hold``, the
    group's write lock, is held for the purge's reads and commit and for the
    rebuilt communities' commit, never while embedding."""
    who = requester or Requester()
    by: Target = "entity" if entity is not None else "episode" if episode_id is not None else "data_subject"

    async def attempt() -> tuple[ForgetReport, Plan]:
        plan = Plan(group_id=group_id, now=clock(), expected_revision=await store.revision(group_id))
        if entity is not None:
            scope = await _entity_scope(store, group_id, entity)
        elif episode_id is not None:
            scope = await _episode_scope(store, group_id, episode_id)
        elif data_subject is not None:
            scope = await _subject_scope(store, group_id, data_subject, plan.now)
        else:
            raise InvalidInputError("entity", "name the entity, the episode or the data subject to forget")
        done = await _planned(store, group_id, scope, plan)
        gone, purge = done.gone, done.purge
        names = [n for e in await store.entities_by_uuid(group_id, plan.delete_entities) for n in (e.name, *e.aliases)]
        refuse_erased_text(who, [*scope.needles, *names], data_subject)
        plan.audit.append(
            AuditEvent(
                group_id=group_id, kind="forgotten", recorded_at=plan.now,
                detail={
                    "by": by, "episodes": len(scope.episodes),
                    "facts": len(gone), "entities": len(plan.delete_entities),
                },
            )
        )
        report = ForgetReport(
            group_id=group_id, entity=entity, episode_id=episode_id, data_subject=data_subject, dry_run=dry_run,
            episodes=sorted(scope.episodes), facts=sorted(gone), entities=list(plan.delete_entities),
            changed_facts=done.changed, summaries_rebuilt=list(purge.summaries),
            sagas_rebuilt=list(purge.sagas), communities_rebuilt=list(purge.communities),
            audit_events_redacted=len(purge.audit_events), cached_replies_dropped=len(purge.replies),
            needles=scope.needles,
        )
        if not dry_run:
            plan.attribute(who.actor, who.on_behalf_of)
            receipt = await erasure_entry(store, group_id, by, report, who, plan.now)
            plan.erasures.append(receipt)
            report = report.model_copy(update={"receipt": receipt})
            await store.apply(plan)
        return report, plan

    try:
        report, plan = await retry_on_conflict(attempt, kind="forget", hold=hold)
    except NotFoundError:
        if dry_run or not await store.pending_erasure(group_id):
            raise
        # Nothing is left by that name, but an earlier purge's erasure is: finish it.
        needles = _distinct([entity]) if entity is not None else []
        leftovers = _unfinished(await store.erase_traces(group_id))
        return ForgetReport(group_id=group_id, entity=entity, episode_id=episode_id, data_subject=data_subject,
                            needles=needles, leftovers=leftovers, verified=not leftovers)
    if dry_run:
        return report
    if plan.purge is not None and plan.purge.summaries:
        await summarize(store, group_id, clock=clock, uuids=plan.purge.summaries, stale_only=False)
    for saga in plan.purge.sagas if plan.purge is not None else ():
        await _rebuild_saga(store, group_id, saga, clock)
    if plan.purge is not None and plan.purge.communities:
        rebuilt, deleted = await refresh_communities(
            store, group_id, plan.purge.communities, clock=clock, embed=embed, hold=hold
        )
        report = report.model_copy(update={"communities_rebuilt": rebuilt, "communities_deleted": deleted})
    # Last, once the rebuilds are written: merge the indexes, checkpoint the log, vacuum.
    erasure = await store.erase_traces(group_id)
    leftovers = _unfinished(erasure) + await check_store(store, group_id, report)
    return report.model_copy(update={"leftovers": leftovers, "verified": not leftovers})


def _unfinished(erasure: Erasure) -> list[str]:
    """An erasure held back, as a leftover: the store's files may still hold what went."""
    if erasure.complete:
        return []
    return [f"store files: {erasure.detail}; the next forget or `kronograph doctor --repair` finishes it"]


async def _rebuild_saga(store: Store, group_id: str, saga: str, clock: Clock) -> None:
    """Rebuild a cleared saga summary from the episodes left (extractively: a
    purge calls no model); a summariser that got there first has done it."""

    async def attempt() -> None:
        state = await store.saga_state(group_id, saga)
        if state is not None and state.stale > 0:
            await summarize_saga(store, group_id, saga, clock=clock)

    try:
        await retry_on_conflict(attempt)
    except NotFoundError:  # no episode of it is left
        pass


async def check_store(store: Store, group_id: str, report: ForgetReport) -> list[str]:
    """Where the store still holds what ``report`` says was forgotten: the
    name in any text column, or a purged episode, fact or entity by id."""
    out: list[str] = []
    for hit in await store.text_occurrences(group_id, report.needles):
        if mentions(hit.text, report.needles):
            out.append(f"{hit.table}.{hit.column} of {hit.key}")
    for eid in report.episodes:
        if await store.episode(group_id, eid) is not None:
            out.append(f"episode {eid}")
        if await store.facts_citing(group_id, eid):
            out.append(f"facts citing episode {eid}")
    left = await store.entities_by_uuid(group_id, report.entities) if report.entities else []
    if left:
        out.append("entities " + ", ".join(e.uuid for e in left))
    erased = set(report.facts)
    for fact_uuid in sorted(erased):
        if await store.history(group_id, fact_uuid):
            out.append(f"history of fact {fact_uuid}")
    if report.data_subject is not None:
        episodes, facts = await store.data_subject_items(group_id, report.data_subject)
        out += [f"episode {u} filed under the data subject" for u in episodes]
        out += [f"fact {u} filed under the data subject" for u in facts]
    return out
