"""What the MCP tools do, with no transport in sight: thin calls on
:class:`~kronograph.AsyncMemory`, each behind a group check, each returning a
compact pydantic result that also renders itself as readable text.

:mod:`.mcp_server` binds these to the ``mcp`` SDK (names, descriptions,
parameter schemas, stdio and streamable HTTP); keeping them apart means the
rules (which group, what a result carries) are tested without a transport and
read the same over every one.

Every fact a tool returns carries its validity interval (``valid_at``,
``invalid_at``), whether it is ``retired`` (its interval is closed, or its
record was superseded: ``expired_at``), whether it is an ``event`` (a moment
such as LEFT, not a standing fact) and its sources: the episode ids, and,
where a tool says so, each episode's own statement (the times it gave, the raw
time expression, what extracted it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict

from ..errors import InvalidInputError, NotFoundError
from ..lookahead import LookaheadReport
from ..memory import AsyncMemory
from ..model import (
    Entity,
    Episode,
    EpisodeResult,
    Fact,
    FactChange,
    FactSource,
    PossibleContradiction,
    RemovalResult,
    SagaSummary,
)
from ..same_time import mark_conflicting
from ..search.types import SearchFilters
from .limits import Limits
from .point_in_time import lookahead_text, view_at

__all__ = [
    "Access",
    "CandidateOut",
    "ConflictsOut",
    "EntitiesOut",
    "EpisodeOut",
    "EpisodesOut",
    "FactDetailOut",
    "FactOut",
    "FactsOut",
    "GroupsOut",
    "IngestOut",
    "MemoryTools",
    "RemovalOut",
    "SagaOut",
]

SOURCES_PER_FACT = 10  # statements read per fact; the ids are always all there
SNIPPET = 2_000  # characters of an episode's text by default


@dataclass(frozen=True, slots=True)
class Access:
    """The groups one caller may touch: those named in ``groups``, or every
    group when ``everything``. ``default`` is the group a tool uses when the
    caller names none (``None``: the caller must name one); ``actor`` is who
    the episodes it files and the audit events it causes are recorded as
    (over HTTP, the API key: ``key:<id>``, as over REST)."""

    groups: frozenset[str] = frozenset()
    everything: bool = False
    default: str | None = None
    actor: str | None = "mcp"

    @classmethod
    def local(cls, groups: Iterable[str] = ()) -> Access:
        """A local process's access: the groups given, or every group when none
        is (then ``default`` is the command line's usual group, ``default``)."""
        named = list(dict.fromkeys(groups))
        if not named:
            return cls(everything=True, default="default")
        return cls(groups=frozenset(named), default=named[0])

    def allows(self, group_id: str) -> bool:
        return self.everything or group_id in self.groups

    def group(self, group_id: str | None) -> str:
        """The group a call works on, or NotFoundError: a group the caller may
        not touch reads exactly like one that does not exist."""
        if group_id is None or (isinstance(group_id, str) and not group_id.strip()):
            if self.default is None:
                raise InvalidInputError("group_id", "required: this caller may use several groups (see list_groups)")
            return self.default
        if not isinstance(group_id, str):
            raise InvalidInputError("group_id", f"expected a group name, got {type(group_id).__name__}")
        if not self.allows(group_id):
            raise NotFoundError(f"group_id: no group {group_id!r} for this caller")
        return group_id


# -- results ---------------------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)

    def text(self) -> str:
        """A readable rendering; every result has its own (this is the fallback)."""
        return self.model_dump_json(indent=2)


def _when(moment: datetime | None) -> str:
    if moment is None:
        return "…"
    if (moment.hour, moment.minute, moment.second, moment.microsecond) == (0, 0, 0, 0):
        return moment.date().isoformat()
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


class SourceOut(_Out):
    """One episode's statement of a fact: the interval it gave, the raw time
    expression it was read from, and what extracted it."""

    episode_id: str
    valid_at: datetime
    invalid_at: datetime | None = None
    time_expression: str | None = None
    extractor: str | None = None
    confidence: float | None = None
    added_at: datetime

    @classmethod
    def of(cls, source: FactSource) -> SourceOut:
        p = source.provenance
        confidence = p.get("confidence")
        return cls(
            episode_id=source.episode_id, valid_at=source.valid_at, invalid_at=source.invalid_at,
            time_expression=p.get("time_expression") if isinstance(p.get("time_expression"), str) else None,
            extractor=p.get("extractor") if isinstance(p.get("extractor"), str) else None,
            confidence=float(confidence) if isinstance(confidence, int | float) else None, added_at=source.added_at,
        )

    def text(self) -> str:
        said = f" from {self.time_expression!r}" if self.time_expression else ""
        return f"episode {self.episode_id} stated {_when(self.valid_at)} → {_when(self.invalid_at)}{said}"


class FactOut(_Out):
    """A fact with its interval and sources. ``retired``: its interval is closed
    (``invalid_at``) or its record was superseded (``expired_at``)."""

    uuid: str
    subject: str
    relation: str
    object: str
    fact: str
    valid_at: datetime
    invalid_at: datetime | None = None
    expired_at: datetime | None = None
    retired: bool
    event: bool = False  # a moment (LEFT, MET) on valid_at, not a standing fact
    invalidated_by: str | None = None
    episodes: list[str]
    sources: list[SourceOut] | None = None
    score: float | None = None
    conflicting: list[str] = []  # facts held in conflict with it (same slot and valid time): kronograph.same_time
    qualifiers: dict[str, str] = {}  # the slot of its relation it fills ({"period": "2024-Q2"})

    @classmethod
    def of(cls, fact: Fact, sources: Sequence[FactSource] | None = None, score: float | None = None) -> FactOut:
        return cls(
            uuid=fact.uuid, subject=fact.subject, relation=fact.relation, object=fact.object, fact=fact.fact,
            valid_at=fact.valid_at, invalid_at=fact.invalid_at, expired_at=fact.expired_at,
            retired=fact.invalid_at is not None or fact.expired_at is not None, invalidated_by=fact.invalidated_by,
            episodes=list(fact.episodes), sources=None if sources is None else [SourceOut.of(s) for s in sources],
            score=score, event=fact.event, conflicting=list(fact.conflicting), qualifiers=dict(fact.qualifiers),
        )

    def text(self) -> str:
        state = "event: happened then, not a standing fact" if self.event else "retired" if self.retired else "current"
        if self.expired_at is not None:
            state += f", record superseded {_when(self.expired_at)}"
        if self.conflicting:
            state += f", CONFLICTING (same time) with {', '.join(self.conflicting)}"
        when = f"on {_when(self.valid_at)}" if self.event and self.invalid_at is None else (
            f"valid {_when(self.valid_at)} → {_when(self.invalid_at)}")
        slot = "".join(f"; {k} {v}" for k, v in sorted(self.qualifiers.items()))
        line = (f"- {self.fact} [{self.subject} {self.relation} {self.object}{slot}] {when}"
                f" ({state}); fact {self.uuid}; from episodes {', '.join(self.episodes)}")
        for source in self.sources or ():
            line += f"\n    {source.text()}"
        return line


def _facts_text(title: str, facts: Sequence[FactOut], empty: str) -> str:
    if not facts:
        return f"{title}: {empty}"
    return f"{title}:\n" + "\n".join(f.text() for f in facts)


class FactsOut(_Out):
    """Facts, with what the temporal mode left out (search only)."""

    group_id: str
    facts: list[FactOut]
    left_out: int = 0
    lookahead: LookaheadReport | None = None  # read with ``at``

    def text(self) -> str:
        body = _facts_text(f"{len(self.facts)} fact(s) in group {self.group_id!r}", self.facts, "none found")
        if self.left_out:
            body += (f"\n({self.left_out} more matched but are retired, not valid then or events:"
                     " include_retired, include_events show them)")
        return body + lookahead_text(self.lookahead)


class ChangeOut(_Out):
    """One recorded state of a fact, from ``recorded_at`` on, and its cause."""

    recorded_at: datetime
    cause: str
    status: str
    valid_at: datetime
    invalid_at: datetime | None = None
    episode_id: str | None = None
    invalidated_by: str | None = None

    @classmethod
    def of(cls, c: FactChange) -> ChangeOut:
        return cls(recorded_at=c.recorded_at, cause=c.cause, status=c.status, valid_at=c.valid_at,
                   invalid_at=c.invalid_at, episode_id=c.episode_id, invalidated_by=c.invalidated_by)

    def text(self) -> str:
        return (f"  {_when(self.recorded_at)} {self.cause}: {self.status}, valid {_when(self.valid_at)} → "
                f"{_when(self.invalid_at)}")


class FactDetailOut(_Out):
    """One fact, every source's statement, and its recorded history."""

    group_id: str
    fact: FactOut
    history: list[ChangeOut]

    def text(self) -> str:
        return "\n".join([self.fact.text(), "history:", *(h.text() for h in self.history)])


class EntityOut(_Out):
    uuid: str
    name: str
    labels: list[str]
    aliases: list[str]
    summary: str | None = None
    score: float | None = None

    @classmethod
    def of(cls, entity: Entity, score: float | None = None) -> EntityOut:
        return cls(uuid=entity.uuid, name=entity.name, labels=list(entity.labels), aliases=list(entity.aliases),
                   summary=entity.summary, score=score)

    def text(self) -> str:
        labels = f" ({', '.join(self.labels)})" if self.labels else ""
        aka = f", also {', '.join(self.aliases)}" if self.aliases else ""
        summary = f": {self.summary}" if self.summary else ""
        return f"- {self.name}{labels}{aka}{summary} [entity {self.uuid}]"


class EntitiesOut(_Out):
    group_id: str
    entities: list[EntityOut]
    lookahead: LookaheadReport | None = None  # read with ``at``

    def text(self) -> str:
        if not self.entities:
            return f"no entity found in group {self.group_id!r}" + lookahead_text(self.lookahead)
        return f"{len(self.entities)} entit(ies) in group {self.group_id!r}:\n" + "\n".join(
            e.text() for e in self.entities
        ) + lookahead_text(self.lookahead)


class EpisodeOut(_Out):
    """An episode; ``content`` is cut at the caller's ``max_chars``
    (``truncated`` says so) and absent when the text was not kept. An
    unfinished one shows the worker holding it (``held_by``) and until when
    (``held_until``): nobody else takes it up before then."""

    episode_id: str
    name: str
    kind: str
    reference_time: datetime
    created_at: datetime
    status: str
    saga: str | None = None
    source_description: str | None = None
    error: str | None = None
    actor: str | None = None
    on_behalf_of: str | None = None
    content: str | None = None
    truncated: bool = False
    held_by: str | None = None
    held_until: datetime | None = None
    notes: list[str] = []  # what it said that gave no fact
    speaker: str | None = None  # who said it, and in what role (a message's)
    role: str | None = None

    @classmethod
    def of(cls, episode: Episode, max_chars: int) -> EpisodeOut:
        content = episode.content
        cut = content is not None and len(content) > max_chars
        return cls(
            episode_id=episode.uuid, name=episode.name, kind=str(episode.kind), reference_time=episode.reference_time,
            created_at=episode.created_at, status=episode.status, saga=episode.saga,
            source_description=episode.source_description, error=episode.error, actor=episode.actor,
            on_behalf_of=episode.on_behalf_of,
            content=content[:max_chars] if cut and content is not None else content, truncated=cut,
            held_by=episode.held_by, held_until=episode.held_until, notes=episode.notes, speaker=episode.speaker,
            role=episode.role,
        )

    def text(self) -> str:
        saga = f", saga {self.saga!r}" if self.saga else ""
        held = f", held by {self.held_by} until {_when(self.held_until)}" if self.held_by else ""
        said = f", said by {self.speaker}" if self.speaker else ""
        said += f" as {self.role}" if self.role else ""
        head = (f"- episode {self.episode_id} ({self.kind}{said}, {_when(self.reference_time)}{saga}, "
                f"{self.status}{held})")
        body = self.content if self.content is not None else "[text not kept]"
        notes = "".join(f"\n  ({note})" for note in self.notes)
        return f"{head}:\n  {body}{' …' if self.truncated else ''}{notes}"


class EpisodesOut(_Out):
    group_id: str
    episodes: list[EpisodeOut]
    not_found: list[str] = []

    def text(self) -> str:
        lines = [f"{len(self.episodes)} episode(s) in group {self.group_id!r}" + (":" if self.episodes else "")]
        lines += [e.text() for e in self.episodes]
        if self.not_found:
            lines.append(f"not found: {', '.join(self.not_found)}")
        return "\n".join(lines)


class CandidateOut(_Out):
    """A possible contradiction a write raised: a candidate, never a verdict.
    ``fact`` is the new fact's uuid (or the episode's id, when found by the
    episode's meaning), ``contradicts`` the standing fact's; ``score`` is
    ``authority`` (the tier of what it contradicts) x ``actor_weight`` (the
    filer's): governance risk, not how wrong either is. A score above 0 was
    flagged in the group's audit trail."""

    fact: str
    fact_text: str | None = None
    contradicts: str
    contradicts_text: str
    contradicts_tier: str | None = None
    reason: str
    authority: float
    actor_weight: float
    score: float
    similarity: float | None = None

    @classmethod
    def of(cls, p: PossibleContradiction, texts: dict[str, str]) -> CandidateOut:
        return cls(fact=p.fact, fact_text=texts.get(p.fact), contradicts=p.contradicts.uuid,
                   contradicts_text=p.contradicts.fact, contradicts_tier=p.contradicts.tier, reason=p.reason,
                   authority=p.authority, actor_weight=p.actor_weight, score=p.score,
                   similarity=None if p.similarity is None else round(p.similarity, 4))

    def text(self) -> str:
        mine = f"{self.fact_text!r}" if self.fact_text else f"episode {self.fact}"
        tier = self.contradicts_tier or "no tier"
        return (f"- score {self.score:g} (authority {self.authority:g} x filer weight {self.actor_weight:g}, "
                f"{self.reason}): {mine} vs {self.contradicts_text!r} ({tier}; fact {self.contradicts})")


def _candidates_text(candidates: Sequence[CandidateOut]) -> list[str]:
    if not candidates:
        return []
    return ["possible contradictions (candidates, not verdicts; if yours disagrees on purpose, file it with "
            "contradict):", *(c.text() for c in candidates)]


class IngestOut(_Out):
    """What adding one episode did, and the possible contradictions it raised, highest tier first."""

    group_id: str
    episode_id: str
    status: str
    error: str | None = None
    duplicate: bool = False
    entities: list[str]
    created: list[FactOut]
    merged: list[FactOut]
    retired: list[FactOut]
    changed: list[FactOut]
    notes: list[str] = []  # sentences that gave no fact
    possible_contradictions: list[CandidateOut] = []

    @classmethod
    def of(cls, result: EpisodeResult) -> IngestOut:
        texts = {f.uuid: f.fact for f in (*result.created, *result.merged)}
        return cls(
            group_id=result.group_id, episode_id=result.episode_id, status=str(result.status), error=result.error,
            duplicate=result.duplicate, entities=[e.name for e in result.entities],
            created=[FactOut.of(f) for f in result.created], merged=[FactOut.of(f) for f in result.merged],
            retired=[FactOut.of(f) for f in result.retired], changed=[FactOut.of(f) for f in result.changed],
            notes=result.notes,
            possible_contradictions=[CandidateOut.of(p, texts) for p in result.possible_contradictions],
        )

    def text(self) -> str:
        head = f"episode {self.episode_id} {self.status}"
        if self.duplicate:
            head += " (already added: nothing done again)"
        if self.error:
            head += f": {self.error}"
        parts = [head]
        for title, facts in (("new facts", self.created), ("restated (merged)", self.merged),
                             ("retired by it", self.retired), ("interval moved", self.changed)):
            if facts:
                parts.append(_facts_text(title, facts, ""))
        parts += [f"  ({note})" for note in self.notes]
        parts += _candidates_text(self.possible_contradictions)
        return "\n".join(parts)


class PairOut(_Out):
    fact: FactOut
    contradicts: FactOut
    reason: str
    authority: float


class ConflictsOut(_Out):
    """A fact's whole slot (``slot``, by valid time), or, with no fact named,
    every pair of current facts that may disagree (``pairs``)."""

    group_id: str
    slot: list[FactOut] | None = None
    pairs: list[PairOut] | None = None

    def text(self) -> str:
        if self.slot is not None:
            return _facts_text(f"the slot, {len(self.slot)} competing fact(s) by valid time", self.slot, "empty")
        pairs = self.pairs or []
        if not pairs:
            return f"no current facts disagree in group {self.group_id!r}"
        lines = [f"{len(pairs)} pair(s) of current facts that may disagree:"]
        for p in pairs:
            lines += [f"* {p.reason} (authority of the standing fact {p.authority:g})", p.fact.text(),
                      p.contradicts.text()]
        return "\n".join(lines)


class RemovalOut(_Out):
    group_id: str
    episode_id: str | None = None
    fact_uuid: str | None = None
    deleted_facts: list[str]
    restored_or_changed: list[FactOut]
    deleted_entities: list[str]

    @classmethod
    def of(cls, group_id: str, result: RemovalResult) -> RemovalOut:
        return cls(group_id=group_id, episode_id=result.episode_id, fact_uuid=result.fact_uuid,
                   deleted_facts=list(result.deleted_facts),
                   restored_or_changed=[FactOut.of(f) for f in result.changed],
                   deleted_entities=list(result.deleted_entities))

    def text(self) -> str:
        what = f"episode {self.episode_id}" if self.episode_id else f"fact {self.fact_uuid}"
        lines = [f"removed {what}: {len(self.deleted_facts)} fact(s) deleted, "
                 f"{len(self.restored_or_changed)} restored or changed,"
                 f" {len(self.deleted_entities)} entit(ies) deleted"]
        if self.restored_or_changed:
            lines.append(_facts_text("restored or changed", self.restored_or_changed, ""))
        return "\n".join(lines)


class SagaOut(_Out):
    group_id: str
    saga: str
    summary: str | None = None
    version: int
    episodes: int
    added: int
    covered_from: datetime | None = None
    covered_to: datetime | None = None
    method: str | None = None
    model_calls: int = 0
    complete: bool = True
    error: str | None = None

    @classmethod
    def of(cls, s: SagaSummary) -> SagaOut:
        return cls(group_id=s.group_id, saga=s.saga, summary=s.summary, version=s.version, episodes=s.episodes,
                   added=s.added, covered_from=s.covered_from, covered_to=s.covered_to, method=s.method,
                   model_calls=s.model_calls, complete=s.complete, error=s.error)

    def text(self) -> str:
        head = (f"saga {self.saga!r}: {self.episodes} episode(s), events {_when(self.covered_from)} → "
                f"{_when(self.covered_to)}, version {self.version} ({self.added} newly folded in)")
        if not self.complete:
            head += f"; incomplete: {self.error or 'call budget reached'}: call again to continue"
        return f"{head}\n{self.summary or '(no text to summarise)'}"


class GroupsOut(_Out):
    groups: list[str]
    default_group: str | None = None
    every_group: bool

    def text(self) -> str:
        scope = "every group" if self.every_group else "only these groups"
        default = f"; default group {self.default_group!r}" if self.default_group else "; name group_id in every call"
        return f"groups: {', '.join(self.groups) or '(none yet)'} (this caller may use {scope}{default})"


# -- the tools ----------------------------------------------------------------------


class MemoryTools:
    """The tools over one memory. Each call takes the caller's :class:`Access`
    first: the group is checked before the memory is touched. ``limits`` are
    the REST service's (an episode's content, say), so neither door takes
    more than the other."""

    def __init__(self, memory: AsyncMemory, limits: Limits | None = None) -> None:
        self.memory = memory
        self.limits = limits or Limits()

    async def _with_sources(self, group_id: str, facts: Iterable[Fact], scores: Sequence[float] | None = None,
                            ) -> list[FactOut]:
        out = []
        for i, fact in enumerate(facts):
            stated = await self.memory.fact_sources(group_id, fact.uuid)  # those of the version read (known_at)
            sources = [s for s in stated if s.episode_id in fact.episodes][:SOURCES_PER_FACT]
            out.append(FactOut.of(fact, sources, None if scores is None else round(scores[i], 4)))
        return out

    async def add_memory(
        self, access: Access, group_id: str | None, content: str, *, kind: str = "message",
        reference_time: str | None = None, source_description: str | None = None, saga: str | None = None,
        episode_id: str | None = None, name: str | None = None, on_behalf_of: str | None = None,
        tier: str | None = None, data_subject: str | None = None,
    ) -> IngestOut:
        g = access.group(group_id)
        if not isinstance(content, str) or not content.strip():
            raise InvalidInputError("content", "must be non-empty text")
        refused = self.limits.content_refused(content)
        if refused is not None:
            raise InvalidInputError("content", refused.removeprefix("content "))
        result = await self.memory.add_episode(
            g, content, kind=kind, reference_time=reference_time, source_description=source_description, saga=saga,
            episode_id=episode_id, name=name, actor=access.actor, on_behalf_of=on_behalf_of, tier=tier,
            data_subject=data_subject,
        )
        return IngestOut.of(result)

    async def search_facts(
        self, access: Access, group_id: str | None, query: str, *, as_of: str | None = None,
        known_at: str | None = None, include_retired: bool = False, limit: int = 10,
        center_entity: str | None = None, include_events: bool = False, qualifiers: dict[str, str] | None = None,
        at: str | None = None,
    ) -> FactsOut:
        g = access.group(group_id)
        filters = SearchFilters(qualifiers=qualifiers) if qualifiers else None
        view = view_at(self.memory, at, as_of=as_of, known_at=known_at, include_retired=include_retired)
        if view is not None:
            found = await view.search(g, query, scopes=["facts"], limit=limit, center_entity=center_entity,
                                      include_events=include_events, filters=filters)
        else:
            found = await self.memory.search(
                g, query, scopes=["facts"], limit=limit, as_of=as_of, known_at=known_at,
                include_retired=include_retired, center_entity=center_entity, include_events=include_events,
                filters=filters,
            )
        # search hits carry no same-time marker of their own: marked here (kronograph.same_time), as
        # believed at the view's moment, or now
        moment = view.moment if view is not None else datetime.now(UTC)
        hits = await mark_conflicting(self.memory.store, g, [h.item for h in found.facts], at=moment,
                                      known_at=view.moment if view is not None else None)
        facts = await self._with_sources(g, hits, [h.score for h in found.facts])
        report = await view.lookahead(found) if view is not None else None
        return FactsOut(group_id=g, facts=facts, left_out=found.left_out, lookahead=report)

    async def get_fact(self, access: Access, group_id: str | None, fact_uuid: str) -> FactDetailOut:
        g = access.group(group_id)
        fact = await self.memory.fact(g, fact_uuid)
        if fact is None:  # never was, or removed
            raise NotFoundError(f"no fact {fact_uuid!r} in group {g!r}")
        detail = FactOut.of(fact, await self.memory.fact_sources(g, fact_uuid))
        history = [ChangeOut.of(c) for c in await self.memory.history(g, fact_uuid)]
        return FactDetailOut(group_id=g, fact=detail, history=history)

    async def search_entities(self, access: Access, group_id: str | None, query: str, *, limit: int = 10,
                              at: str | None = None) -> EntitiesOut:
        g = access.group(group_id)
        view = view_at(self.memory, at)
        reader = view.search if view is not None else self.memory.search
        found = await reader(g, query, scopes=["entities"], limit=limit)
        report = await view.lookahead(found) if view is not None else None
        return EntitiesOut(group_id=g, entities=[EntityOut.of(h.item, round(h.score, 4)) for h in found.entities],
                           lookahead=report)

    async def get_episodes(
        self, access: Access, group_id: str | None, *, episode_ids: Sequence[str] | None = None,
        query: str | None = None, saga: str | None = None, limit: int = 10, max_chars: int = SNIPPET,
    ) -> EpisodesOut:
        g = access.group(group_id)
        if episode_ids is not None and query is not None:
            raise InvalidInputError("episode_ids", "give episode_ids or query, not both")
        if query is not None:
            found = await self.memory.search(g, query, scopes=["episodes"], limit=limit)
            chosen = [h.item for h in found.episodes if saga is None or h.item.saga == saga]
            return EpisodesOut(group_id=g, episodes=[EpisodeOut.of(e, max_chars) for e in chosen])
        if episode_ids is not None:
            shown: list[EpisodeOut] = []
            missing: list[str] = []
            for eid in dict.fromkeys(episode_ids):
                try:
                    shown.append(EpisodeOut.of(await self.memory.episode(g, eid), max_chars))
                except NotFoundError:
                    missing.append(eid)
            return EpisodesOut(group_id=g, episodes=shown, not_found=missing)
        every = await self.memory.episodes(g)
        chosen = [e for e in every if saga is None or e.saga == saga][-limit:]  # the latest, oldest first
        return EpisodesOut(group_id=g, episodes=[EpisodeOut.of(e, max_chars) for e in chosen])

    async def timeline(self, access: Access, group_id: str | None, entity: str, *, relation: str | None = None,
                       limit: int = 50, at: str | None = None) -> FactsOut:
        g = access.group(group_id)
        view = view_at(self.memory, at)
        facts = (await (view or self.memory).timeline(g, entity, relation))[-limit:]
        report = await view.lookahead(facts) if view is not None else None
        return FactsOut(group_id=g, facts=await self._with_sources(g, facts), lookahead=report)

    async def events(self, access: Access, group_id: str | None, *, entity: str | None = None,
                     relation: str | None = None, since: str | None = None, until: str | None = None,
                     limit: int = 50) -> FactsOut:
        g = access.group(group_id)
        found = (await self.memory.events(g, entity=entity, relation=relation, since=since, until=until))[-limit:]
        return FactsOut(group_id=g, facts=await self._with_sources(g, found))

    async def conflicts(self, access: Access, group_id: str | None, *, fact_uuid: str | None = None,
                        limit: int = 20) -> ConflictsOut:
        g = access.group(group_id)
        if fact_uuid is not None:
            return ConflictsOut(group_id=g, slot=await self._with_sources(g, await self.memory.conflicts(g, fact_uuid)))
        possible = (await self.memory.audit(g))[:limit]
        current = {f.uuid: f for f in await self.memory.facts(g)}
        pairs = [
            PairOut(fact=(await self._with_sources(g, [current[p.fact]]))[0],
                    contradicts=(await self._with_sources(g, [p.contradicts]))[0], reason=p.reason,
                    authority=p.authority)
            for p in possible if p.fact in current
        ]
        return ConflictsOut(group_id=g, pairs=pairs)

    async def delete_episode(self, access: Access, group_id: str | None, episode_id: str) -> RemovalOut:
        g = access.group(group_id)
        return RemovalOut.of(g, await self.memory.remove_episode(g, episode_id, actor=access.actor))

    async def delete_fact(self, access: Access, group_id: str | None, fact_uuid: str) -> RemovalOut:
        g = access.group(group_id)
        return RemovalOut.of(g, await self.memory.remove_fact(g, fact_uuid, actor=access.actor))

    async def summarize_saga(self, access: Access, group_id: str | None, saga: str) -> SagaOut:
        g = access.group(group_id)
        return SagaOut.of(await self.memory.summarize_saga(g, saga))

    async def list_groups(self, access: Access) -> GroupsOut:
        existing = [g for g in await self.memory.groups() if access.allows(g)]
        named = sorted(set(existing) | set(access.groups) | ({access.default} if access.default else set()))
        return GroupsOut(groups=named, default_group=access.default, every_group=access.everything)
