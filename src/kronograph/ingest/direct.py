"""Adding one fact directly: validate, resolve, ask the judge, plan, apply.

The group's write lock is held from the revision read to the commit, but let
go while the judge thinks (it may wait seconds on a model); if the group moved
meanwhile the fact is resolved again, and the judge asked again only about
candidates it has not judged yet.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .._retry import retry_on_conflict
from ..errors import ConcurrentWriteError, InvalidInputError, JudgeError, NotFoundError
from ..event_relations import event_default
from ..ids import new_id
from ..metrics import record_candidates
from ..model import (
    AddFactResult,
    AuditEvent,
    Cardinality,
    ContradictionReason,
    Entity,
    Fact,
    PossibleContradiction,
    RelationType,
    Verdict,
    fold_relation,
    normalise_name,
    trusted,
)
from ..store.plan import Plan
from ..store.protocol import ResolutionReads, Store
from ..store.records import CandidateAsk, FactRecord, Neighbourhood
from ..time import Clock
from .contradiction_check import Policies, Scorer, by_meaning, flag, rank, scorer, similar_facts
from .entities import choose_entity, clean_labels, label_family
from .judge import Judge, ask_judge
from .resolution import (
    Decision,
    FactOutcome,
    Screening,
    decide,
    flag_contradictions,
    new_episode_for_fact,
    plan_fact,
    refusal_event,
    screen,
)

__all__ = [
    "FactInput",
    "Resolver",
    "add_fact",
    "fact_candidates",
    "made_or_retired",
    "structural",
    "resolve_entity",
    "resolve_fact",
]

@dataclass(frozen=True, slots=True)
class FactInput:
    """A validated ``add_fact`` call."""

    group_id: str
    subject: str
    relation: str
    object: str
    fact: str
    valid_at: datetime | None
    invalid_at: datetime | None
    episode_id: str | None
    subject_labels: tuple[str, ...]
    object_labels: tuple[str, ...]
    actor: str | None = None  # who filed it
    on_behalf_of: str | None = None  # whom the actor filed it for, as it said
    tier: str | None = None  # its governance tier (kronograph.authority); None: its relation's default
    replaces: str | None = None  # a fact it corrects by hand: retired by it
    reason: str | None = None  # why it replaces that fact
    override: dict[str, Any] | None = None  # another actor's owned fact it replaces (maintain.overrides)
    qualifiers: dict[str, str] | None = None  # its slot's qualifiers, checked (kronograph.qualifiers)
    data_subject: str | None = None  # whose data it is (a customer id): on the fact and a new source episode

    def __post_init__(self) -> None:
        if self.valid_at is not None:
            _check_interval(self.valid_at, self.invalid_at)


def _check_interval(valid_at: datetime, invalid_at: datetime | None) -> None:
    if invalid_at is not None and invalid_at <= valid_at:
        raise InvalidInputError("invalid_at", f"{invalid_at.isoformat()} is not after valid_at {valid_at.isoformat()}")


def _sides(relation_type: RelationType | None, has_judge: bool) -> tuple[tuple[str, ...], bool]:
    """Which same-relation facts can matter: a declared cardinality needs only
    the slot it constrains; a judge may weigh any fact sharing an endpoint;
    with neither, only the pair itself (restatements) matters."""
    if relation_type is not None:
        sides = []
        if relation_type.one_object_per_subject:
            sides.append("subject")
        if relation_type.one_subject_per_object:
            sides.append("object")
        if sides:
            return tuple(sides), False
    if has_judge:
        return ("subject", "object"), True
    # Neither: nothing is retired, but the subject's slot is read so that a
    # possible contradiction there can be flagged (declared many-to-many: none).
    many = relation_type is not None and relation_type.cardinality == Cardinality.MANY_TO_MANY
    return ((), False) if many else (("subject",), False)


def resolve_entity(name: str, labels: tuple[str, ...], known: Sequence[Entity], plan: Plan) -> Entity:
    """Pick the entity a name refers to, or plan a new one; labels accumulate."""
    key = normalise_name(name)
    same_name = [e for e in known if normalise_name(e.name) == key]
    if not same_name:  # as ingestion does: a name no entity bears finds the entity it is an alias of
        same_name = [e for e in known if key in {normalise_name(a) for a in e.aliases}]
    chosen = choose_entity(labels, same_name)
    if chosen is None:
        entity = trusted(
            Entity,
            uuid=new_id(), group_id=plan.group_id, name=name, labels=labels, aliases=(), summary=None,
            attributes={}, created_at=plan.now, provenance={"extractor": "direct"}, summary_stale=False,
            summary_built_at=None,
        )
        plan.new_entities.append(entity)
        return entity
    families = {label_family(label) for label in chosen.labels}
    extra = tuple(label for label in labels if label_family(label) not in families)
    if not extra:
        return chosen
    updated = chosen.model_copy(update={"labels": (*chosen.labels, *extra)})
    if chosen in plan.new_entities:
        plan.new_entities[plan.new_entities.index(chosen)] = updated
    else:
        plan.entity_labels[chosen.uuid] = updated.labels
    return updated


@dataclass(frozen=True, slots=True)
class Resolver:
    """What deciding a fact needs besides the fact: the memory's settings."""

    clock: Clock
    judge: Judge | None
    relation_type: RelationType | None
    candidate_limit: int
    embedding: bytes | None = None  # the fact text's vector (float32), stored with a new fact
    authority: Callable[[str], float] | None = None  # of a relation, by its folded key
    lock: asyncio.Lock | None = None  # the group's write lock
    policies: Policies | None = None  # the groups' contradiction policies, as last read


class _Holding:
    """The group's write lock for one attempt, let go while a judge thinks."""

    def __init__(self, lock: asyncio.Lock | None) -> None:
        self.lock, self.held = lock, False

    async def __aenter__(self) -> _Holding:
        if self.lock is not None:
            await self.lock.acquire()
            self.held = True
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.held and self.lock is not None:
            self.held = False
            self.lock.release()

    @asynccontextmanager
    async def let_go(self) -> AsyncIterator[None]:
        await self.__aexit__()
        try:
            yield
        finally:
            await self.__aenter__()


async def fact_candidates(
    store: ResolutionReads, record: FactRecord, relation_type: RelationType | None, *, judged: bool, limit: int
) -> list[FactRecord]:
    """The stored facts that could matter to ``record``: what a judge (when
    there is one), a declared cardinality or a declared ending can act on."""
    a = candidate_ask(record, relation_type, judged=judged, limit=limit)
    found = await store.fact_candidates(
        record.group_id, a.subject_uuid, a.object_uuid, a.relation_key, sides=a.sides, either_end=a.either_end,
        whole_pair=a.whole_pair, around=a.around, limit=a.limit,
    )
    record_candidates(len(found))
    return found


def candidate_ask(
    record: FactRecord, relation_type: RelationType | None, *, judged: bool, limit: int
) -> CandidateAsk:
    """What :func:`fact_candidates` asks the store for ``record``."""
    sides, either_end = _sides(relation_type, judged)
    return CandidateAsk(
        record.source_uuid, record.target_uuid, record.relation_key, sides, either_end,
        judged or bool(relation_type and relation_type.ends), record.valid_at, limit,
    )


Ask = Callable[[Screening], Awaitable[Verdict]]
"""Gets a verdict on the candidates a screening leaves to a judge."""


async def resolve_fact(
    store: Store,
    plan: Plan,
    record: FactRecord,
    *,
    fresh: Collection[str],
    relation_type: RelationType | None,
    verdict: Ask | None,
    candidate_limit: int,
    authority: Callable[[str], float] | None = None,
    replaces: str | None = None,
) -> tuple[FactOutcome, Decision]:
    """Resolve one new fact against what ``store`` holds and add the outcome to
    ``plan``: candidates, the guard, cardinality or the judge, the timeline.
    ``fresh`` are entities the plan creates (they have no facts yet).
    ``replaces``: a fact the caller names as corrected by this one, retired
    by it as a contradiction would be."""
    g = plan.group_id
    candidates: list[FactRecord] = []
    if not (record.source_uuid in fresh and record.target_uuid in fresh):
        candidates = await fact_candidates(store, record, relation_type, judged=verdict is not None,
                                           limit=candidate_limit)
    screening = screen(record, candidates, relation_type)
    answer = Verdict()
    if verdict is not None and screening.restatement is None and screening.for_judge:
        answer = await verdict(screening)
    decision = decide(screening, answer)

    seeds = [c.uuid for c in decision.contradicts]
    if replaces is not None and replaces not in seeds:
        seeds.append(replaces)
    into = screening.restatement or decision.duplicate_of
    if into is not None:
        seeds.append(into.uuid)
    # Recomputing a fact needs all its links: the new fact's are known, so one
    # level around what it contradicts is enough; a merge moves an existing
    # fact, whose neighbours' links are then needed too.
    depth = 2 if into is not None else 1
    hood = await store.conflict_neighbourhood(g, seeds, depth) if seeds else Neighbourhood()
    if replaces is not None and all(c.uuid != replaces for c in decision.contradicts):
        replaced = hood.records.get(replaces)
        if replaced is None or replaced.expired_at is not None:
            raise NotFoundError(f"group {g!r} has no current fact {replaces!r} to replace")
        if into is not None and into.uuid == replaces:
            raise InvalidInputError("replaces", "the new fact restates the fact it names as replaced")
        decision.contradicts.append(replaced)
        decision.held = [c for c in decision.held if c.uuid != replaces]  # replaced by hand: no longer held
    outcome = plan_fact(
        plan=plan,
        new=record,
        decision=decision,
        restatement=screening.restatement,
        hood=hood,
        episode_id=record.sources[0].episode_id,
    )
    default = relation_type.authority if relation_type is not None else 0.5
    outcome.flagged = flag_contradictions(
        outcome, candidates, decision, relation_type,
        authority or (lambda key: default if key == record.relation_key else 0.5),
    )
    return outcome, decision


def structural(outcome: FactOutcome) -> list[tuple[str, FactRecord, ContradictionReason]]:
    """The outcome's candidates by structure, as :func:`.contradiction_check.rank` takes them."""
    return [(outcome.target.uuid, cand, reason) for cand, reason, _ in outcome.flagged]


def made_or_retired(outcome: FactOutcome) -> set[str]:
    """What a candidate by meaning cannot be: the write's fact and what it retired or closed."""
    closed = {r.uuid for r in outcome.changed if r.invalid_at is not None or r.expired_at is not None}
    return {outcome.target.uuid, *(r.uuid for r in outcome.retired), *closed}


async def add_fact(store: Store, data: FactInput, settings: Resolver) -> AddFactResult:
    """Add one fact as one unit of work, redone if another writer wrote the
    group between its reads and its write."""
    asked: dict[str, Verdict] = {}  # the judge's verdicts, by what it was shown: asked once each
    check = await _Check.read(store, data, settings)  # before the group is held
    return await retry_on_conflict(lambda: _attempt(store, data, settings, asked, check), kind="add_fact")


@dataclass(frozen=True, slots=True)
class _Check:
    """What the contradiction check of one ``add_fact`` reads before the
    group is held: the group's policy and the filer's weight, and the facts
    nearest the new fact's embedding."""

    scorer: Scorer
    similar: dict[str, tuple[Fact, float, int]]

    @classmethod
    async def read(cls, store: Store, data: FactInput, settings: Resolver) -> _Check:
        found = await scorer(store, data.group_id, data.actor, settings.authority or (lambda key: 0.5),
                             settings.policies)
        similar = await similar_facts(
            store, data.group_id, [settings.embedding], found.policy, settings.clock(),
        ) if settings.embedding is not None else {}
        return cls(found, similar)


def _shown(record: FactRecord, candidates: Sequence[FactRecord]) -> str:
    """What a judge's verdict depends on: the new fact as stated (its uuids are
    new each try) and the candidates as shown."""
    new = [record.subject, record.relation, record.object, record.fact, record.valid_at, record.invalid_at]
    facts = [c.to_fact().model_dump(mode="json", exclude={"episodes"}) for c in candidates]
    return json.dumps([new, facts], sort_keys=True, default=str)


async def _attempt(
    store: Store, data: FactInput, settings: Resolver, asked: dict[str, Verdict], check: _Check
) -> AddFactResult:
    async with _Holding(settings.lock) as holding:
        if settings.judge is None:
            # Nothing to wait for between the reads and the write: both go in one
            # unit of work, so the reads see what the write changes (no revision to
            # check again) and, on SQLite, run on the writer's thread with no hop each.
            async with store.unit(data.group_id) as tx:
                return await _resolve_and_apply(tx, data, settings, asked, holding, check, in_unit=True)
        return await _resolve_and_apply(store, data, settings, asked, holding, check)


async def _resolve_and_apply(
    store: Store, data: FactInput, settings: Resolver, asked: dict[str, Verdict], holding: _Holding,
    check: _Check, *, in_unit: bool = False,
) -> AddFactResult:
    clock, judge, relation_type = settings.clock, settings.judge, settings.relation_type
    g = data.group_id
    now = clock()
    plan = Plan(group_id=g, now=now, expected_revision=None if in_unit else await store.revision(g))
    episode_id = data.episode_id or new_id()
    # The episode is created if it does not exist yet (the store ignores a known
    # one); it is read only when its reference time is the fact's default start.
    plan.new_episodes.append(new_episode_for_fact(g, episode_id, now, data.actor, data.on_behalf_of, data.data_subject))
    valid_at = data.valid_at
    if valid_at is None:
        episode = await store.episode(g, episode_id) if data.episode_id else None
        valid_at = episode.reference_time if episode is not None else now
    _check_interval(valid_at, data.invalid_at)

    keys = {normalise_name(data.subject), normalise_name(data.object)}
    known = await store.entities_named(g, keys)
    unnamed = keys - {normalise_name(e.name) for e in known}
    if unnamed:  # a name no entity bears may be another's alias (a merged entity's name, say)
        known += await store.entities_aliased(g, unnamed)
    subject = resolve_entity(data.subject, clean_labels(data.subject_labels), known, plan)
    target = resolve_entity(
        data.object, clean_labels(data.object_labels), [*known, *plan.new_entities], plan
    )
    # No mention rows: a directly added fact links its episode to both entities
    # through its provenance already (ingested episodes record mentions).

    relation_key = fold_relation(data.relation)
    record = FactRecord.stated(
        uuid=new_id(),
        group_id=g,
        ends=(subject.uuid, target.uuid),
        names=(subject.name, target.name),
        relation=data.relation,
        relation_key=relation_key,
        fact=data.fact,
        valid_at=valid_at,
        stated_invalid_at=data.invalid_at,
        episode_id=episode_id,
        now=now,
        provenance={"extractor": "direct"},
        # a fact added directly is an event only where its type says so: the
        # built-in defaults are for what ingestion extracts
        event=event_default(relation_type, data.relation, built_in=False),
        tier=data.tier or (relation_type.tier if relation_type is not None else None),
        qualifiers=data.qualifiers,
        data_subject=data.data_subject,
    )

    async def verdict(screening: Screening) -> Verdict:
        if judge is None:  # never: only handed on when there is a judge
            raise JudgeError("no contradiction judge is configured")
        key = _shown(record, screening.for_judge)
        if key not in asked:
            async with holding.let_go():  # the judge may wait on a network: the group goes on meanwhile
                asked[key] = await ask_judge(judge, record.to_fact(), [c.to_fact() for c in screening.for_judge])
            if await store.revision(g) != plan.expected_revision:
                raise ConcurrentWriteError(f"group {g!r} changed while the judge was deciding")
        return asked[key]

    outcome, decision = await resolve_fact(
        store,
        plan,
        record,
        fresh={e.uuid for e in plan.new_entities},
        relation_type=relation_type,
        verdict=verdict if judge is not None else None,
        candidate_limit=settings.candidate_limit,
        authority=settings.authority,
        replaces=data.replaces,
    )
    if decision.refused:
        plan.audit.append(refusal_event(g, now, episode_id, outcome.target.uuid, decision.refused, data.actor))
    if data.replaces is not None:
        plan.audit.append(AuditEvent(
            group_id=g, kind="fact_replaced", recorded_at=now, episode_id=episode_id,
            detail={"fact": data.replaces, "by": outcome.target.uuid,
                    **({"reason": data.reason} if data.reason else {}),
                    **({"override": data.override} if data.override else {})},
        ))
    found: list[PossibleContradiction] = []
    if not outcome.merged and not outcome.target.event:  # a restatement or a moment disagrees with nothing
        new = outcome.target.uuid
        meaning = by_meaning(new, check.similar.values(), outcome.target.relation_key, relation_type is not None)
        found = rank(check.scorer, structural(outcome), meaning, made_or_retired(outcome))
        flag(plan, found, episode_id=episode_id, actor=data.actor)
    if settings.embedding is not None and not outcome.merged:
        plan.fact_embeddings[outcome.target.uuid] = settings.embedding
    plan.attribute(data.actor, data.on_behalf_of)
    await store.apply(plan)
    return trusted(  # built from validated parts
        AddFactResult,
        fact=outcome.target.to_fact(),
        merged=outcome.merged,
        episode_id=episode_id,
        retired=[r.to_fact() for r in outcome.retired],
        changed=[r.to_fact() for r in outcome.changed],
        refused=decision.refused,
        possible_contradictions=found,
    )
