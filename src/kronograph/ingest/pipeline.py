"""One episode through the pipeline: receive, extract, resolve, commit.

The status is written as the episode moves (received → extracting →
resolving → committing → complete), and whatever a model answered is
checkpointed with it, so that resuming after a crash or a transient failure
never pays for the same answer twice. Model calls all happen before the
episode's transaction; the transaction itself (everything the episode
writes, and its ``complete`` status) never waits on a network.

Nor does the group's write lock: extraction runs before the episode's turn
(see :mod:`.turns`), and the entity and judge calls, which depend on what the
group holds, run before the lock is taken. Under the lock the group's
revision is read again; if another write moved it since those reads, they
are done again (a prompt that comes out the same is answered from the reply
cache, so only what changed is paid for), up to ``REDOS`` times; the commit
itself re-reads every candidate in its transaction and keeps a verdict only
for the candidates it was given about, so a last stale decision is still safe.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np

from ..embed.cache import embedding_for
from ..errors import EmbeddingError
from ..event_relations import event_default
from ..ids import new_id
from ..llm.client import ModelClient
from ..llm.protocol import Usage
from ..metrics import record_redo
from ..model import (
    Cardinality,
    ContradictionReason,
    EpisodeResult,
    EpisodeStatus,
    Fact,
    PossibleContradiction,
    RelationType,
    Verdict,
    fold_relation,
)
from ..qualifiers import kept as kept_qualifiers
from ..store.plan import Plan
from ..store.protocol import ResolutionReads, Store
from ..store.records import FactRecord
from .candidate_reads import Recorded, Recording, Replaying
from .checkpoint import Checkpoint, JudgedFact
from .contradiction_check import Scorer, by_meaning, flag, rank, scorer, similar_facts
from .direct import made_or_retired, resolve_fact, structural
from .entity_match import choose_entities, place_entities
from .episode_input import EpisodeInput
from .episode_judge import gather_verdicts
from .episode_status import EpisodeStatuses, model_usage
from .extract import Drafts, FactDraft, clean, extract
from .judge import Judge
from .notes import episode_notes, stored_notes
from .offline.patterns import ENDINGS
from .ownership import Leases
from .people import anchors_of
from .replies import collecting, replies
from .resolution import Screening, refusal_event
from .schema import Extraction

if TYPE_CHECKING:
    from ..services import Services

__all__ = ["OFFLINE_RELATION_TYPES", "REDOS", "Pipeline", "PipelineSettings"]

T = TypeVar("T")

# With neither a model nor a judge, these relations (the ones the offline
# extractor emits) decide contradictions by structure: a person works at one
# place and lives in one place at a time, and leaving a place ends working
# there. Declared relation types and custom fact types override them. Which
# relations are events (LEFT is one) is decided with a model too: see
# kronograph.event_relations.
OFFLINE_RELATION_TYPES: dict[str, RelationType] = {
    fold_relation("WORKS_AT"): RelationType(cardinality=Cardinality.MANY_TO_ONE),
    fold_relation("LIVES_IN"): RelationType(cardinality=Cardinality.MANY_TO_ONE),
    fold_relation("MARRIED_TO"): RelationType(cardinality=Cardinality.ONE_TO_ONE),
    fold_relation("LEFT"): RelationType(ends=("WORKS_AT", "WORKS_ON", "MEMBER_OF", "LIVES_IN", "BASED_IN")),
    # "no longer uses X" ends "uses X", and so on for each state the offline extractor sees end
    **{fold_relation(ending): RelationType(ends=ended) for ending, ended in ENDINGS.items()},
    # one birthplace, one place one comes from: a later answer corrects an earlier one
    fold_relation("BORN_IN"): RelationType(cardinality=Cardinality.MANY_TO_ONE),
    fold_relation("COMES_FROM"): RelationType(cardinality=Cardinality.MANY_TO_ONE),
    # one value of a thing at a time ("our budget is now $250" replaces $190), one role of a person
    # ("promoted to senior engineer" replaces "engineer"): see offline/values.py and offline/roles.py
    # per period where one is said ("revenue was $3.2m in Q2" and "$3.5m in Q3" stand side by side)
    fold_relation("HAS_VALUE"): RelationType(cardinality=Cardinality.MANY_TO_ONE, qualifiers=("period",)),
    fold_relation("HAS_ROLE"): RelationType(cardinality=Cardinality.MANY_TO_ONE),
}

OFFLINE_THREAD = 24  # earlier messages of a thread the offline rules read (each once, about 0.5 ms)

REDOS = 3  # times an episode's entity and judge decisions are made again when the group moved under them


@dataclass(slots=True)
class PipelineSettings:
    """How the memory ingests (its arguments); the store, clock, model and
    embedder are the shared :class:`~kronograph.services.Services`."""

    judge: Judge | None
    relation_types: Mapping[str, RelationType]
    candidate_limit: int = 50
    # Where a judge decides, it is shown the facts nearest in valid time on each
    # side of the new one: enough to place it in its timeline (the intervals
    # follow from the nearest links), and the judge's prompt stays short.
    judge_candidates: int = 6
    store_raw_content: bool = True
    context_episodes: int = 4


@dataclass(slots=True)
class _Outcome:
    """What the facts of an episode did, by uuid, last version kept."""

    created: dict[str, FactRecord] = field(default_factory=dict)
    merged: dict[str, FactRecord] = field(default_factory=dict)
    retired: dict[str, FactRecord] = field(default_factory=dict)
    changed: dict[str, FactRecord] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)
    # Candidates by structure: (new fact, standing fact, reason), as each fact was committed.
    structural: list[tuple[str, FactRecord, ContradictionReason]] = field(default_factory=list)
    # A draft's index -> the new fact written for it: (uuid, relation key, whether its relation is declared).
    written: dict[int, tuple[str, str, bool]] = field(default_factory=dict)
    untouchable: set[str] = field(default_factory=set)  # what the episode made, merged into or retired
    flagged: list[PossibleContradiction] = field(default_factory=list)


def _standing(outcome: _Outcome, check: _Check | None) -> list[PossibleContradiction]:
    """The episode's possible contradictions once the whole episode is in (a
    later fact of the episode may have retired either side of an earlier
    one's): by structure, and by meaning, nearest the episode's text
    (``fact`` is then the episode's id) or one of its new facts."""
    if check is None:
        return []
    gone = outcome.untouchable | set(outcome.retired)
    def expired(uuid: str) -> bool:
        return uuid in outcome.retired and outcome.retired[uuid].expired_at is not None

    structure = [
        (new, cand, why) for new, cand, why in outcome.structural
        if (not (expired(new) or expired(cand.uuid)) if why == "same_time" else new not in outcome.retired)
    ]  # a held pair a later fact of the episode closed was still held until then (kronograph.same_time)
    by_source: dict[int, list[tuple[Fact, float, int]]] = {}
    for found in check.similar.values():
        by_source.setdefault(found[2], []).append(found)
    meaning = by_meaning(check.episode_id, by_source.get(0, ()), None, False)
    for index, (new, relation_key, declared) in outcome.written.items():
        if new not in outcome.retired:
            meaning += by_meaning(new, by_source.get(index + 1, ()), relation_key, declared)
    return rank(check.scorer, structure, meaning, gone)


@dataclass(frozen=True, slots=True)
class _Check:
    """What the episode's contradiction check reads before the group is held:
    the group's policy, the filer's weight, and the facts nearest the
    episode's text (index 0) and its facts' (index 1 + the draft's)."""

    episode_id: str
    scorer: Scorer
    similar: dict[str, tuple[Fact, float, int]]


class Pipeline(EpisodeStatuses):
    """The stages of an episode; its status writes, admission and failures
    are in :class:`~.episode_status.EpisodeStatuses`."""

    def __init__(
        self, services: Services, model: ModelClient | None, settings: PipelineSettings, leases: Leases,
        lock: Callable[[str], asyncio.Lock],
    ) -> None:
        super().__init__(services, model, settings, leases)
        self.lock = lock  # the group's write lock, held from the commit's revision check to its end

    # -- stages ------------------------------------------------------------------
    async def extract_stage(self, inp: EpisodeInput, checkpoint: Checkpoint, usage: Usage) -> Checkpoint:
        """The extractor's output, from the checkpoint or freshly made (and
        checkpointed when a model was paid for it)."""
        if checkpoint.extraction is not None:
            return checkpoint
        model = self.model if inp.kind.value != "json" else None
        context = []
        if model is not None:
            if not checkpoint.extracting:
                extracting = self._episode_state(inp.episode_id, EpisodeStatus.EXTRACTING, self._now())
                await self._state(inp.group_id, extracting)
            if self.settings.context_episodes > 0 or inp.previous_episode_ids is not None:
                context = await self.store.context_episodes(
                    inp.group_id, before=inp.reference_time, exclude=inp.episode_id,
                    limit=self.settings.context_episodes, saga=inp.saga, ids=inp.previous_episode_ids,
                )
        elif inp.kind.value != "json" and (inp.saga is not None or inp.previous_episode_ids is not None):
            # the offline rules read a thread's earlier messages: names said in full, whom "she" means
            if self.settings.context_episodes > 0 or inp.previous_episode_ids is not None:
                context = await self.store.context_episodes(
                    inp.group_id, before=inp.reference_time, exclude=inp.episode_id,
                    limit=max(self.settings.context_episodes, OFFLINE_THREAD), saga=inp.saga,
                    ids=inp.previous_episode_ids,
                )
        calls = usage.calls
        with collecting(inp.group_id):
            extraction, provenance, unread = await self._keeping_replies(
                inp.group_id, inp.episode_id,
                extract(inp, model=model, context=context, usage=usage, qualified=self._qualified(inp)),
            )
            checkpoint = replace(
                checkpoint, extracting=False, provenance=provenance, unread=tuple(unread),
                # as a resumption reads it back: a fresh run and a resumed one see the same values
                extraction=Extraction.model_validate(extraction.model_dump(mode="json")),
            )
            if usage.calls > calls:
                checkpoint = replace(checkpoint, usage=_snapshot(usage))
                await self._state(
                    inp.group_id,
                    self._episode_state(
                        inp.episode_id, EpisodeStatus.RESOLVING, self._now(), checkpoint=checkpoint.to_json()
                    ),
                )
        return checkpoint

    def _relation_type(self, inp: EpisodeInput, relation: str) -> RelationType | None:
        key = fold_relation(relation)
        declared = inp.ontology.relation_types().get(key) or self.settings.relation_types.get(key)
        if declared is not None:
            return declared
        if self.model is None and self.settings.judge is None:
            return OFFLINE_RELATION_TYPES.get(key)
        return None

    def _event(self, inp: EpisodeInput, relation: str) -> bool:
        """Whether an extracted fact of ``relation`` is an event: as declared
        (a custom fact type, then the memory's relation types), else as the
        built-in defaults say, with a model or without."""
        key = fold_relation(relation)
        declared = inp.ontology.relation_types().get(key) or self.settings.relation_types.get(key)
        return event_default(declared, relation, built_in=True)

    def _authority(self, inp: EpisodeInput, relation_key: str) -> float:
        declared = inp.ontology.relation_types().get(relation_key) or self.settings.relation_types.get(relation_key)
        return declared.authority if declared is not None else 0.5

    def _limit(self, inp: EpisodeInput, relation: str) -> int:
        """How many same-relation facts per side resolution reads for a fact."""
        declared = self._relation_type(inp, relation)
        if declared is not None and (declared.cardinality != Cardinality.MANY_TO_MANY or declared.ends):
            return self.settings.candidate_limit
        return min(self.settings.judge_candidates, self.settings.candidate_limit)

    async def _vectors(
        self, inp: EpisodeInput, drafts: Drafts
    ) -> tuple[dict[str, np.ndarray], list[np.ndarray], np.ndarray | None]:
        """Vectors of the entity names, the fact texts and (unless raw content
        is kept out of the store) the episode's text, in one embedder call."""
        texts = [d.name for d in drafts.entities] + [f.fact for f in drafts.facts]
        own = self.settings.store_raw_content
        if own:
            texts.append(inp.content)
        embedder = self.services.embedder
        with embedding_for((inp.group_id,)):
            matrix = await embedder.embed(texts)
        if matrix.shape != (len(texts), embedder.dimension):
            raise EmbeddingError(
                f"{embedder.name} returned vectors of shape {matrix.shape}, "
                f"expected ({len(texts)}, {embedder.dimension})"
            )
        n = len(drafts.entities)
        names = {d.key: matrix[i] for i, d in enumerate(drafts.entities)}
        return names, [matrix[n + j] for j in range(len(drafts.facts))], matrix[-1] if own else None

    async def resolve_stage(
        self, inp: EpisodeInput, checkpoint: Checkpoint, drafts: Drafts, vectors: dict[str, np.ndarray],
        usage: Usage, recording: Recording | None = None,
    ) -> Checkpoint:
        """Entity choices and judge verdicts, against the graph as it is now
        (the candidates read for them kept in ``recording``)."""
        if checkpoint.decided:
            return checkpoint
        with collecting(inp.group_id):
            resolving = self._resolve(inp, checkpoint, drafts, vectors, usage, recording)
            return await self._keeping_replies(inp.group_id, inp.episode_id, resolving)

    async def _keeping_replies(self, group_id: str, episode_id: str, work: Awaitable[T]) -> T:
        """Run a stage's model work; if it fails, the replies it was already
        given are still cached (they were paid for)."""
        try:
            return await work
        except Exception:
            paid = list(replies.get(None) or ())
            if paid:
                plan = Plan(group_id=group_id, now=self._now(), expected_revision=None)
                plan.cached_replies.extend(paid)
                plan.replies_episode = episode_id
                await self.store.apply(plan)
                paid.clear()
            raise

    async def _resolve(
        self, inp: EpisodeInput, checkpoint: Checkpoint, drafts: Drafts, vectors: dict[str, np.ndarray],
        usage: Usage, recording: Recording | None,
    ) -> Checkpoint:
        model = self.model
        calls = usage.calls
        choices = checkpoint.entities
        if choices is None:
            choices = await choose_entities(
                self.store, inp.group_id, drafts.entities, vectors,
                model=model, context=inp.content[:400], usage=usage,
                anchors=anchors_of(inp.speaker, inp.role, inp.user_name),
            )
        judge = self.settings.judge if model is None else None
        verdicts: dict[int, JudgedFact] = {}
        if model is not None or judge is not None:  # else nobody is asked: no candidate to read for it
            records = [self._record(inp, f, drafts, choices, None, provisional=True) for f in drafts.facts]
            verdicts = await gather_verdicts(
                cast(ResolutionReads, recording) if recording is not None else self.store, records,
                [self._relation_type(inp, f.relation) for f in drafts.facts], model=model, judge=judge,
                limits=[self._limit(inp, f.relation) for f in drafts.facts], usage=usage,
            )
        checkpoint = replace(checkpoint, entities=choices, verdicts=verdicts)
        if usage.calls > calls:  # written just before the commit's transaction, in the same trip
            checkpoint = replace(checkpoint, usage=_snapshot(usage))
            state = self._episode_state(
                inp.episode_id, EpisodeStatus.COMMITTING, self._now(), checkpoint=checkpoint.to_json()
            )
            checkpoint = replace(checkpoint, state=self._state_plan(inp.group_id, state))
        return checkpoint

    def _record(
        self,
        inp: EpisodeInput,
        draft: FactDraft,
        drafts: Drafts,
        choices: Mapping[str, Any],
        placed: Mapping[str, Any] | None,
        *,
        provisional: bool = False,
        now: datetime | None = None,
    ) -> FactRecord | None:
        """The fact as resolution sees it. Provisional records (before the
        transaction) use the chosen existing entities, and ``None`` when both
        ends are new (nothing stored can be a candidate)."""
        names = {d.key: d.name for d in drafts.entities}
        if placed is not None:
            s_uuid, o_uuid = placed[draft.subject].uuid, placed[draft.object].uuid
            s_name, o_name = placed[draft.subject].name, placed[draft.object].name
        else:
            s_uuid = (choices.get(draft.subject) or {}).get("uuid")
            o_uuid = (choices.get(draft.object) or {}).get("uuid")
            if s_uuid is None and o_uuid is None:
                return None
            s_uuid, o_uuid = s_uuid or f"new:{draft.subject}", o_uuid or f"new:{draft.object}"
            s_name, o_name = names.get(draft.subject, draft.subject), names.get(draft.object, draft.object)
        declared = self._relation_type(inp, draft.relation)
        slot, dropped = kept_qualifiers(draft.qualifiers, declared.qualifiers if declared is not None else ())
        provenance = {**draft.provenance, "qualifiers_dropped": dropped} if dropped else draft.provenance
        return FactRecord.stated(
            uuid=new_id() if not provisional else f"new:{id(draft)}",
            group_id=inp.group_id,
            ends=(s_uuid, o_uuid),
            names=(s_name, o_name),
            relation=draft.relation,
            relation_key=fold_relation(draft.relation),
            fact=draft.fact,
            valid_at=draft.valid_at or inp.reference_time,
            stated_invalid_at=draft.invalid_at,
            episode_id=inp.episode_id,
            now=now or self._now(),
            provenance=provenance,
            attributes=draft.attributes,
            event=self._event(inp, draft.relation),
            tier=inp.tier or self._default_tier(inp, draft.relation),
            qualifiers=slot,
            data_subject=inp.data_subject,
        )

    def _qualified(self, inp: EpisodeInput) -> dict[str, tuple[str, ...]]:
        """The qualifier keys of the relations that declare some, by folded key."""
        declared = {**self.settings.relation_types, **inp.ontology.relation_types()}
        return {key: t.qualifiers for key, t in declared.items() if t.qualifiers}

    def _default_tier(self, inp: EpisodeInput, relation: str) -> str | None:
        declared = self._relation_type(inp, relation)
        return declared.tier if declared is not None else None

    async def commit_stage(
        self, inp: EpisodeInput, checkpoint: Checkpoint, drafts: Drafts, vectors: dict[str, np.ndarray],
        fact_vectors: list[np.ndarray], usage: Usage, episode_vector: np.ndarray | None = None,
        recorded: tuple[Recorded, int] | None = None, check: _Check | None = None,
    ) -> EpisodeResult:
        """Everything the episode writes, and its completion, in one transaction.
        ``recorded``: the resolve stage's candidate reads and the revision
        they were made at, used again while the group has not moved since
        (see :mod:`.candidate_reads`)."""
        g = inp.group_id
        choices = checkpoint.entities or {}
        verdicts = checkpoint.verdicts or {}
        outcome = _Outcome()
        async with self.store.unit(g, after=checkpoint.state) as tx:
            progress = await tx.episode_progress(g, inp.episode_id)
            if progress is not None and progress.episode.status == EpisodeStatus.COMPLETE:
                return self.duplicate(inp, progress.result or {})  # another worker got there first
            if progress is not None and progress.episode.held_by not in (None, self.leases.owner):
                return self.busy(inp, progress.episode)  # our lease lapsed and another worker took it over
            unmoved = recorded is not None and bool(drafts.facts) and await tx.revision(g) == recorded[1]
            now = self._now()
            plan = Plan(group_id=g, now=now, expected_revision=None)
            placed = await place_entities(
                tx, plan, drafts.entities, choices, vectors, drafts.provenance, inp.episode_id
            )
            await tx.apply(plan)
            facts_tx: Store = tx
            if unmoved and recorded is not None:
                made = {e.uuid for e in plan.new_entities}
                created = {
                    e.uuid: f"new:{key}" for key, e in placed.items()
                    if e.uuid in made and not (choices.get(key) or {}).get("uuid")
                }
                facts_tx = cast(Store, Replaying(tx, recorded[0], created))
            for i, draft in enumerate(drafts.facts):
                await self._commit_fact(facts_tx, inp, i, draft, drafts, placed, verdicts, fact_vectors, outcome)
            final = Plan(group_id=g, now=self._now(), expected_revision=None)
            notes = episode_notes(checkpoint.unread, facts=len(drafts.facts))
            summary = {
                "extractor": drafts.provenance.get("extractor"),
                "entities": len(placed),
                "created": len(outcome.created),
                "merged": len(outcome.merged),
                "retired": len(outcome.retired),
                "changed": len(outcome.changed),
                "usage": usage.as_dict(),
                "notes": stored_notes(notes, keep_text=self.settings.store_raw_content),
            }
            outcome.flagged = _standing(outcome, check)
            flag(final, outcome.flagged, episode_id=inp.episode_id, actor=inp.actor)
            if episode_vector is not None:
                final.episode_embeddings[inp.episode_id] = np.asarray(episode_vector, dtype=np.float32).tobytes()
            final.episode_states.append(  # fenced too: a takeover since the check above refuses the unit
                self._episode_state(
                    inp.episode_id, EpisodeStatus.COMPLETE, final.now, pending=None, checkpoint=None,
                    result=summary, clear_content=not self.settings.store_raw_content, lease=None,
                )
            )
            await tx.apply(final)
        entities = list({e.uuid: e for e in placed.values()}.values())
        return EpisodeResult(
            episode_id=inp.episode_id,
            group_id=g,
            status=EpisodeStatus.COMPLETE,
            extractor=str(drafts.provenance.get("extractor", "")),
            entities=entities,
            created=[r.to_fact() for r in outcome.created.values()],
            merged=[r.to_fact() for r in outcome.merged.values()],
            retired=[r.to_fact() for r in outcome.retired.values()],
            changed=[r.to_fact() for r in outcome.changed.values()],
            refused=outcome.refused,
            possible_contradictions=outcome.flagged,
            usage=model_usage(usage),
            notes=notes,
        )

    async def _commit_fact(
        self,
        tx: Store,
        inp: EpisodeInput,
        index: int,
        draft: FactDraft,
        drafts: Drafts,
        placed: Mapping[str, Any],
        verdicts: Mapping[int, JudgedFact],
        fact_vectors: list[np.ndarray],
        outcome: _Outcome,
    ) -> None:
        g = inp.group_id
        plan = Plan(group_id=g, now=self._now(), expected_revision=None)
        record = self._record(inp, draft, drafts, {}, placed, now=plan.now)
        assert record is not None
        if record.source_uuid == record.target_uuid:
            return  # two names of one entity: a fact from an entity to itself says nothing
        judged = verdicts.get(index)
        has_judge = self.model is not None or self.settings.judge is not None

        async def verdict(screening: Screening) -> Verdict:
            if judged is None:
                return Verdict()
            shown = {c.uuid for c in screening.for_judge}
            return Verdict(
                contradicts=[u for u in judged.contradicts if u in shown],
                duplicate_of=judged.duplicate_of if judged.duplicate_of in shown else None,
            )

        result, _ = await resolve_fact(
            tx, plan, record, fresh=(), relation_type=self._relation_type(inp, draft.relation),
            verdict=verdict if has_judge else None, candidate_limit=self._limit(inp, draft.relation),
            authority=lambda key: self._authority(inp, key),
        )
        outcome.untouchable |= made_or_retired(result)
        if not result.merged and not result.target.event:  # a restatement or a moment disagrees with nothing
            outcome.structural.extend(structural(result))
            declared = self._relation_type(inp, draft.relation) is not None
            outcome.written[index] = (result.target.uuid, result.target.relation_key, declared)
        if judged is not None and judged.refused:
            outcome.refused.extend(judged.refused)
            plan.audit.append(
                refusal_event(g, plan.now, inp.episode_id, result.target.uuid, list(judged.refused), inp.actor)
            )
        if not result.merged and index < len(fact_vectors):
            plan.fact_embeddings[result.target.uuid] = np.asarray(fact_vectors[index], dtype=np.float32).tobytes()
        plan.attribute(inp.actor, inp.on_behalf_of)
        await tx.apply(plan)
        if isinstance(tx, Replaying):
            tx.applied(plan)
        target = result.target
        if result.merged and target.uuid not in outcome.created:
            outcome.merged[target.uuid] = target
        else:
            outcome.created[target.uuid] = target
        for rec in result.retired:
            outcome.retired[rec.uuid] = rec
            outcome.changed.pop(rec.uuid, None)
            if rec.uuid in outcome.created:
                outcome.created[rec.uuid] = rec
        for rec in result.changed:
            if rec.uuid in outcome.created:
                outcome.created[rec.uuid] = rec
            elif rec.uuid not in outcome.retired:
                outcome.changed[rec.uuid] = rec

    # -- the whole way -----------------------------------------------------------
    async def run(
        self, inp: EpisodeInput, checkpoint: Checkpoint | None = None, usage: Usage | None = None,
        *, turn: Callable[[], Awaitable[None]] | None = None,
    ) -> EpisodeResult:
        """Take an admitted episode from its checkpoint to complete, or to
        retryable / quarantined with the reason (nothing of it written).
        ``turn`` waits until the group's earlier episodes are in: extraction
        goes ahead of it, resolution and the commit after it."""
        usage = usage or Usage()
        checkpoint = checkpoint or Checkpoint()
        if checkpoint.usage is not None and usage.calls == 0 and usage.cached == 0:
            usage.merge(checkpoint.usage)  # what earlier attempts paid for
        try:
            checkpoint = await self.extract_stage(inp, checkpoint, usage)
            if checkpoint.extraction is None:
                raise AssertionError("unreachable: the extract stage fills the extraction in")
            drafts = clean(checkpoint.extraction, inp, dict(checkpoint.provenance))
            vectors, fact_vectors, episode_vector = await self._vectors(inp, drafts)
            if turn is not None:  # the group's earlier episodes first: this one resolves against them
                await turn()
            check = await self._check(inp, episode_vector, fact_vectors)
            for attempt in range(REDOS + 1):
                decided = checkpoint.decided  # at some earlier revision
                revision = await self.store.revision(inp.group_id)
                recording = Recording(self.store)
                checkpoint = await self.resolve_stage(inp, checkpoint, drafts, vectors, usage, recording)
                async with self.lock(inp.group_id):
                    if decided or attempt == REDOS:
                        return await self.commit_stage(
                            inp, checkpoint, drafts, vectors, fact_vectors, usage, episode_vector, check=check
                        )
                    if await self.store.revision(inp.group_id) == revision:
                        # the checkpoint written as the unit begins moves the revision once more
                        expected = revision + (checkpoint.state is not None)
                        return await self.commit_stage(
                            inp, checkpoint, drafts, vectors, fact_vectors, usage, episode_vector,
                            (recording.found, expected), check,
                        )
                record_redo("episode")
                checkpoint = await self._undecided(inp, checkpoint)
            raise AssertionError("unreachable")
        except Exception as exc:
            return await self._failure(inp, exc, usage)

    async def _check(
        self, inp: EpisodeInput, episode_vector: np.ndarray | None, fact_vectors: list[np.ndarray]
    ) -> _Check:
        """The contradiction check's reads, made before the group is held."""
        found = await scorer(self.store, inp.group_id, inp.actor, lambda key: self._authority(inp, key),
                             self.services.policies)
        similar = await similar_facts(
            self.store, inp.group_id, [episode_vector, *fact_vectors], found.policy, self._now()
        )
        return _Check(inp.episode_id, found, similar)

    async def _undecided(self, inp: EpisodeInput, checkpoint: Checkpoint) -> Checkpoint:
        """The checkpoint without decisions the group has moved under; the
        replies paid for them go to the reply cache, so asking the same again
        costs nothing."""
        state = checkpoint.state
        if state is not None and state.cached_replies:
            paid = Plan(group_id=inp.group_id, now=self._now(), expected_revision=None)
            paid.cached_replies.extend(state.cached_replies)
            paid.replies_episode = inp.episode_id
            await self.store.apply(paid)
        return checkpoint.undecided()


def _snapshot(usage: Usage) -> Usage:
    """The usage so far, as a checkpoint keeps it (the running one goes on counting)."""
    return Usage.from_dict(usage.as_dict())
