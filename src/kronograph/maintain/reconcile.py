"""``reconcile``: check a group's graph for defects, and repair the safe ones.

Checks (each finding carries what is needed to act on it):

* episodes without mentions: complete episodes with content, of a kind other
  than ``fact``, that mention no entity (extraction found nothing, or its
  output was lost). Reported only: re-extracting needs a model, and some
  episodes really mention nothing. One whose notes say what was not
  understood is explained, not a defect, and is not listed.
* facts citing missing episodes: ``fact_sources`` rows whose episode row is
  gone. Repaired: the missing episode's retraction is finished through the
  removal machinery (its sources dropped, facts left with no source deleted
  with a history marker, intervals those facts had moved given back, entities
  left with nothing deleted), one plan per missing episode.
* overlapping intervals within a slot: two unexpired facts of a relation
  declared single-valued (many-to-one: same subject; one-to-many: same
  object; one-to-one: both; and the same qualifiers, kronograph.qualifiers)
  whose valid times overlap (not two a relation declared
  ``same_time="hold"`` keeps side by side from the same valid time: those
  are listed as held contradictions). Reported only: which
  fact is right (or whether the declaration is) is a judgment, and retiring
  either changes what the memory answers.
* entity fragment candidates: pairs ingestion recorded as maybe one entity,
  and entities whose names differ only in case, spaces or punctuation.
  Reported only, with the merge that would join them
  (:meth:`FragmentCandidate.merge_arguments`; ``kronograph merge``): two
  real things may share a name, so a person decides (``split_entity``
  undoes a merge).
* orphan entities: no fact (expired ones included) touches them and no
  episode mentions them. Repaired: deleted.
* stale summaries: entities a fact of which was created, retired, changed or
  removed since their summary was built (or that never had one built).
  Repaired: rebuilt extractively from current facts (no model call, so a
  repair stays free and safe; ``summarize_entities`` uses the model).
  A state, not a defect: a memory just imported has no summary built yet.

* saga lag: sagas with episodes not yet in their running summary (past its
  cursor), or whose summary is stale (an episode it included was removed).
  Reported only: bringing a saga up to date is ``summarize_saga``'s work
  (by the model when one is configured), not a repair's. A state, not a
  defect, like stale summaries: ``ok`` does not count either.
* pending erasure: a ``forget`` whose erasure from the store's files (SQLite's
  checkpoint, PostgreSQL's VACUUM) a reader of an older snapshot held back.
  Recorded per group (another group's is not reported). Repaired: the
  erasure (store-wide) is run again (``repaired.erasure`` says how it went).

Every repair is a plan applied in one transaction, with an audit event
(``reconcile_repaired``) that names the check and what it changed.
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from datetime import datetime
from itertools import combinations
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .._retry import retry_on_conflict
from ..metrics import record_interval_violations
from ..model import AuditEvent, Cardinality, Entity, Fact, RelationType, UtcDatetime, normalise_name
from ..qualifiers import encode as encode_qualifiers
from ..store.plan import Plan
from ..store.protocol import CallerReads, FactQuery, Store
from ..store.records import HealthScan
from ..time import Clock
from .removal import plan_removal
from .sagas import saga_infos
from .summaries import summarize

__all__ = [
    "DanglingSource",
    "FragmentCandidate",
    "OrphanEntity",
    "ReconcileReport",
    "Repairs",
    "SagaLag",
    "STATES",
    "SlotOverlap",
    "StaleSummary",
    "UnmentionedEpisode",
    "reconcile",
]

NOT_CHECKED: tuple[str, ...] = ()  # every check is made
_STALE_PAGE = 1_000
_PAIRS_PER_NAME = 50  # near-duplicate pairs reported per squashed name, at most
_SQUASH = re.compile(r"[\W_]+", re.UNICODE)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class UnmentionedEpisode(_Model):
    episode_id: str
    name: str
    reference_time: UtcDatetime


class DanglingSource(_Model):
    """A fact citing an episode whose row is gone; ``fact`` is its triple."""

    fact_uuid: str
    episode_id: str
    fact: str | None = None
    other_sources: int = 0  # sources left once this one is dropped (0: the fact goes)


class SlotOverlap(_Model):
    """Two unexpired facts of a single-valued relation overlapping in valid time,
    sharing ``entity`` as their ``side`` (``"subject"`` or ``"object"``)."""

    relation: str
    cardinality: Cardinality
    side: str
    entity_uuid: str
    entity: str
    facts: tuple[Fact, Fact]
    overlap_from: UtcDatetime
    overlap_until: UtcDatetime | None = None  # None: both still hold
    same_value: bool = False  # both name the same other end: a duplicate, not a contradiction


class FragmentCandidate(_Model):
    """Two entities that may be one: ``recorded`` by ingestion (with its match
    score and episode), or found here by ``similar_name``."""

    a_uuid: str
    a_name: str
    b_uuid: str
    b_name: str
    source: str
    score: float | None = None
    episode_id: str | None = None

    def merge_arguments(self) -> tuple[str, str]:
        """(keep, merge) uuids for ``merge_entities``: the fuller (longer)
        name is kept, else the older entity (uuids sort by creation)."""
        a, b = (self.a_uuid, self.a_name), (self.b_uuid, self.b_name)
        keep, other = sorted((a, b), key=lambda e: (-len(e[1]), e[0]))
        return keep[0], other[0]


class OrphanEntity(_Model):
    uuid: str
    name: str


class StaleSummary(_Model):
    """An entity whose summary no longer reflects its facts: ``changes`` fact
    changes since it was built (``built_at``, None if never)."""

    uuid: str
    name: str
    changes: int
    built_at: UtcDatetime | None = None


class SagaLag(_Model):
    """A saga whose summary is behind: ``lag`` of its ``episodes`` are past its
    cursor (all of them when it was never summarised), or it is ``stale``."""

    saga: str
    episodes: int
    lag: int
    stale: bool = False
    built_at: UtcDatetime | None = None


class Repairs(_Model):
    """What ``repair=True`` changed."""

    removed_sources: list[tuple[str, str]] = Field(default_factory=list)  # (fact_uuid, episode_id)
    deleted_facts: list[str] = Field(default_factory=list)
    changed_facts: list[str] = Field(default_factory=list)  # intervals given back
    deleted_entities: list[str] = Field(default_factory=list)
    refreshed_summaries: list[str] = Field(default_factory=list)  # entity uuids
    erasure: str | None = None  # a pending erasure run again: what it did, or what still holds it back
    erasure_complete: bool | None = None


# Findings that are a state of a healthy memory, not a defect: summaries are
# built later (by summarize_entities / summarize_saga, or a repair), so a memory
# just imported has none yet. Reported, but they do not make ``ok`` false.
STATES = ("stale_summaries", "saga_lag", "open_contradictions")


class ReconcileReport(_Model):
    """Findings as they were before any repair, and what was repaired."""

    group_id: str
    checked_at: UtcDatetime
    repair: bool
    unmentioned_episodes: list[UnmentionedEpisode] = Field(default_factory=list)
    dangling_sources: list[DanglingSource] = Field(default_factory=list)
    overlaps: list[SlotOverlap] = Field(default_factory=list)
    fragments: list[FragmentCandidate] = Field(default_factory=list)
    orphan_entities: list[OrphanEntity] = Field(default_factory=list)
    stale_summaries: list[StaleSummary] = Field(default_factory=list)
    saga_lag: list[SagaLag] = Field(default_factory=list)
    # Contradictions still open (both sides stand, nobody dismissed them) that
    # score above zero: governance drift to look at, not a defect of the store.
    open_contradictions: int = 0
    pending_erasure: bool = False
    repaired: Repairs = Field(default_factory=Repairs)
    not_checked: tuple[str, ...] = NOT_CHECKED

    @property
    def counts(self) -> dict[str, int]:
        return {
            "unmentioned_episodes": len(self.unmentioned_episodes),
            "dangling_sources": len(self.dangling_sources),
            "overlaps": len(self.overlaps),
            "fragments": len(self.fragments),
            "orphan_entities": len(self.orphan_entities),
            "stale_summaries": len(self.stale_summaries),
            "saga_lag": len(self.saga_lag),
            "open_contradictions": self.open_contradictions,
        }

    @property
    def defects(self) -> dict[str, int]:
        """The counts of the checks that find something wrong (``STATES`` apart)."""
        return {k: n for k, n in self.counts.items() if k not in STATES}

    @property
    def summaries_not_built(self) -> int:
        """Entities with facts whose summary was never built (the rest of
        ``stale_summaries`` are behind their facts)."""
        return sum(s.built_at is None for s in self.stale_summaries)

    @property
    def ok(self) -> bool:
        """True when no defect was found: summaries not built yet or behind
        their facts, and sagas behind, are states of a healthy memory."""
        return not any(self.defects.values()) and not self.pending_erasure


def _overlaps(facts: list[Fact], relation: RelationType) -> list[SlotOverlap]:
    sides = []
    if relation.one_object_per_subject:
        sides.append("subject")
    if relation.one_subject_per_object:
        sides.append("object")
    found: list[SlotOverlap] = []

    def held(a: Fact, b: Fact) -> bool:
        return relation.same_time == "hold" and a.valid_at == b.valid_at and a.expired_at is None \
            and b.expired_at is None

    for side in sides:
        # A slot is also its qualifiers (kronograph.qualifiers): Q2's value beside Q3's is no overlap.
        slots: dict[tuple[str, str], list[Fact]] = defaultdict(list)
        for fact in facts:
            end = fact.subject_uuid if side == "subject" else fact.object_uuid
            slots[(end, encode_qualifiers(fact.qualifiers) or "")].append(fact)
        for (entity_uuid, _), slot in sorted(slots.items()):
            slot.sort(key=lambda f: (f.valid_at, f.uuid))
            active: list[Fact] = []
            for fact in slot:
                active = [a for a in active if a.invalid_at is None or a.invalid_at > fact.valid_at]
                for earlier in active:
                    if held(earlier, fact):
                        continue  # kept side by side on purpose: a same-time conflict (kronograph.same_time)
                    ends = [e for e in (earlier.invalid_at, fact.invalid_at) if e is not None]
                    other: Callable[[Fact], str] = (
                        (lambda f: f.object_uuid) if side == "subject" else (lambda f: f.subject_uuid)
                    )
                    found.append(
                        SlotOverlap(
                            relation=fact.relation, cardinality=relation.cardinality, side=side,
                            entity_uuid=entity_uuid, entity=fact.subject if side == "subject" else fact.object,
                            facts=(earlier, fact), overlap_from=fact.valid_at,
                            overlap_until=min(ends) if ends else None, same_value=other(earlier) == other(fact),
                        )
                    )
                active.append(fact)
    return found


def _similar_names(entities: list[Entity], recorded: set[frozenset[str]]) -> list[FragmentCandidate]:
    """Entities whose names are equal once case, spaces and punctuation are dropped."""
    buckets: dict[str, list[Entity]] = defaultdict(list)
    for entity in entities:
        squashed = _SQUASH.sub("", normalise_name(entity.name))
        if squashed:
            buckets[squashed].append(entity)
    found: list[FragmentCandidate] = []
    for _, bucket in sorted(buckets.items()):
        pairs = [(a, b) for a, b in combinations(bucket, 2) if frozenset((a.uuid, b.uuid)) not in recorded]
        for a, b in pairs[:_PAIRS_PER_NAME]:
            found.append(
                FragmentCandidate(a_uuid=a.uuid, a_name=a.name, b_uuid=b.uuid, b_name=b.name, source="similar_name")
            )
    return found


async def _findings(
    store: Store, group_id: str, relation_types: Mapping[str, RelationType], now: datetime
) -> tuple[HealthScan, dict[str, Any]]:
    scan = await store.health_scan(group_id)
    cited = sorted({fact_uuid for fact_uuid, _ in scan.dangling_sources})
    by_uuid: dict[str, Fact] = {}
    if cited:
        query = FactQuery(as_of=now, uuids=tuple(cited), include_retired=True, include_expired=True)
        by_uuid = {f.uuid: f for f in await store.facts(group_id, query)}
    missing_by_fact: dict[str, set[str]] = defaultdict(set)
    for fact_uuid, episode_id in scan.dangling_sources:
        missing_by_fact[fact_uuid].add(episode_id)
    dangling = []
    for fact_uuid, episode_id in scan.dangling_sources:
        fact = by_uuid.get(fact_uuid)
        left = len(set(fact.episodes) - missing_by_fact[fact_uuid]) if fact else 0
        dangling.append(
            DanglingSource(
                fact_uuid=fact_uuid, episode_id=episode_id, fact=fact.triple if fact else None, other_sources=left
            )
        )
    overlaps: list[SlotOverlap] = []
    for key, relation in sorted(relation_types.items()):
        if relation.cardinality == Cardinality.MANY_TO_MANY:
            continue
        # events are moments, never closed by a cardinality: no overlap to find
        query = FactQuery(as_of=now, relation_key=key, include_retired=True, event=False)
        facts = await store.facts(group_id, query)
        overlaps += _overlaps(facts, relation)
    record_interval_violations(len(overlaps))
    fragments = [
        FragmentCandidate(
            a_uuid=a, a_name=a_name, b_uuid=b, b_name=b_name, source="recorded", score=score, episode_id=episode_id
        )
        for a, a_name, b, b_name, score, episode_id in scan.fragments
    ]
    recorded = {frozenset((f.a_uuid, f.b_uuid)) for f in fragments}
    fragments += _similar_names(await store.entities(group_id), recorded)
    return scan, {
        "unmentioned_episodes": [
            UnmentionedEpisode(episode_id=u, name=n, reference_time=t) for u, n, t in scan.unmentioned_episodes
        ],
        "dangling_sources": dangling,
        "overlaps": overlaps,
        "fragments": fragments,
        "orphan_entities": [OrphanEntity(uuid=u, name=n) for u, n in scan.orphan_entities],
        "stale_summaries": await _stale_summaries(store, group_id),
        "saga_lag": [
            SagaLag(saga=s.saga, episodes=s.episodes, lag=s.lag, stale=s.stale, built_at=s.built_at)
            for s in await saga_infos(store, group_id)
            if s.lag or s.stale
        ],
        "pending_erasure": await store.pending_erasure(group_id),
        "open_contradictions": await store.open_contradiction_count(group_id, now),
    }


async def _stale_summaries(store: CallerReads, group_id: str) -> list[StaleSummary]:
    found: list[StaleSummary] = []
    after: str | None = None
    while True:
        page = await store.summary_states(group_id, stale_only=True, after=after, limit=_STALE_PAGE)
        found += [
            StaleSummary(uuid=e.uuid, name=e.name, changes=n, built_at=e.summary_built_at) for e, n in page
        ]
        if len(page) < _STALE_PAGE:
            return found
        after = page[-1][0].uuid


def _repaired(plan: Plan, check: str, **detail: Any) -> AuditEvent:
    return AuditEvent(
        group_id=plan.group_id, kind="reconcile_repaired", recorded_at=plan.now, detail={"check": check, **detail}
    )


async def _finish_removal(
    store: Store, group_id: str, episode_id: str, clock: Clock, done: Repairs,
    by: tuple[str | None, str | None], hold: asyncio.Lock | None,
) -> None:
    """Drop the sources citing a missing episode, as removing it would have."""

    async def attempt() -> Repairs:
        plan = Plan(group_id=group_id, now=clock(), expected_revision=await store.revision(group_id))
        if await store.episode(group_id, episode_id) is not None:  # it came back: nothing dangles
            return Repairs()
        citing = await store.facts_citing(group_id, episode_id)
        if not citing:
            return Repairs()
        touched: set[str] = set()
        for record in citing:
            touched.update((record.source_uuid, record.target_uuid))
        references = await store.entity_references(group_id, touched)
        hood = await store.conflict_neighbourhood(group_id, [r.uuid for r in citing], 2)
        result = plan_removal(plan, episode_id, citing, hood, references)
        removed = [(r.uuid, episode_id) for r in citing]
        plan.audit[-1] = _repaired(
            plan, "dangling_sources", episode_id=episode_id, removed_sources=len(removed),
            deleted_facts=result.deleted_facts, deleted_entities=result.deleted_entities,
        )
        plan.attribute(*by)
        await store.apply(plan)
        return Repairs(
            removed_sources=removed, deleted_facts=result.deleted_facts,
            changed_facts=[f.uuid for f in result.changed], deleted_entities=result.deleted_entities,
        )

    got = await retry_on_conflict(attempt, kind="reconcile", hold=hold)
    done.removed_sources.extend(got.removed_sources)
    done.deleted_facts.extend(got.deleted_facts)
    done.changed_facts.extend(got.changed_facts)
    done.deleted_entities.extend(got.deleted_entities)


async def _delete_orphans(
    store: Store, group_id: str, clock: Clock, done: Repairs, by: tuple[str | None, str | None],
    hold: asyncio.Lock | None,
) -> None:
    async def attempt() -> list[str]:
        plan = Plan(group_id=group_id, now=clock(), expected_revision=await store.revision(group_id))
        orphans = [uuid for uuid, _ in (await store.health_scan(group_id)).orphan_entities]
        if not orphans:
            return []
        plan.delete_entities.extend(orphans)
        plan.audit.append(_repaired(plan, "orphan_entities", deleted_entities=orphans))
        plan.attribute(*by)
        await store.apply(plan)
        return orphans

    done.deleted_entities.extend(await retry_on_conflict(attempt, kind="reconcile", hold=hold))


async def _refresh_summaries(store: Store, group_id: str, clock: Clock, done: Repairs,
                             by: tuple[str | None, str | None]) -> None:
    """Rebuild every stale summary extractively, a page a plan, each with its audit event."""

    def audit(plan: Plan) -> None:
        entities = [b.entity_uuid for b in plan.built_summaries]
        plan.audit.append(_repaired(plan, "stale_summaries", refreshed_summaries=entities))
        plan.attribute(*by)

    built = await summarize(store, group_id, clock=clock, stale_only=True, model=None, on_page=audit)
    done.refreshed_summaries.extend(s.uuid for s in built)


async def reconcile(
    store: Store,
    group_id: str,
    *,
    relation_types: Mapping[str, RelationType],
    clock: Clock,
    repair: bool = False,
    actor: str | None = None,
    on_behalf_of: str | None = None,
    hold: asyncio.Lock | None = None,
) -> ReconcileReport:
    """Check ``group_id`` (``relation_types`` by folded key); with ``repair``,
    fix dangling sources and orphan entities, and rebuild stale summaries
    extractively, each repair's audit event naming ``actor`` (and
    ``on_behalf_of``). The checks only read; each repair is a plan checked
    against the group's revision, made and committed holding ``hold`` (the
    group's write lock), so the group takes other writes during the scan."""
    by = (actor, on_behalf_of)
    now = clock()
    scan, findings = await _findings(store, group_id, relation_types, now)
    done = Repairs()
    if repair:
        for episode_id in sorted({episode_id for _, episode_id in scan.dangling_sources}):
            await _finish_removal(store, group_id, episode_id, clock, done, by, hold)
        if scan.orphan_entities:
            await _delete_orphans(store, group_id, clock, done, by, hold)
        if findings["stale_summaries"]:
            await _refresh_summaries(store, group_id, clock, done, by)
        if findings["pending_erasure"]:
            erasure = await store.erase_traces(group_id)
            done = done.model_copy(update={"erasure": erasure.detail, "erasure_complete": erasure.complete})
    return ReconcileReport(group_id=group_id, checked_at=now, repair=repair, repaired=done, **findings)
