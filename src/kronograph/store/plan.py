"""A plan: the complete list of changes one unit of work makes.

Resolution code (pure) builds plans; a store applies one plan in one
transaction, all or nothing, and decides nothing itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Literal

from ..erasure import ErasureReceipt
from ..model import AuditEvent, Entity, Episode
from .records import ContradictionRecord, FactRecord, SagaState, Source

__all__ = ["BuiltSummary", "CommunityState", "EntityRecord", "EpisodeState", "HistoryEntry", "Plan", "Purge",
           "SagaWrite", "stale_summaries"]

_KEEP: Any = object()


@dataclass(frozen=True, slots=True)
class EpisodeState:
    """A new state of an episode's row. ``pending`` (what resuming it needs) and
    ``checkpoint`` (model outputs already paid for) are JSON-ready values;
    fields left at ``KEEP`` are not changed, ``None`` clears them."""

    uuid: str
    status: str
    updated_at: datetime
    error: str | None = None
    pending: Any = _KEEP
    checkpoint: Any = _KEEP
    result: Any = _KEEP
    clear_content: bool = False  # drop the raw text (store_raw_content=False)
    # (owner, until): the worker now holding it and until when; None: nobody
    # (it is finished, or failed); KEEP: as it is.
    lease: Any = _KEEP
    # The lease owner writing this state (a worker on the episode): the store
    # writes it only while the episode's lease is this owner's or nobody's,
    # else it refuses the whole plan with LeaseLostError (see ..store.fence).
    # None: a write that holds no lease (enqueueing, say), not fenced.
    owner: str | None = None

    KEEP: ClassVar[Any] = _KEEP


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """A version of a fact to append to its history: one that a change is
    superseding (its ``record`` carries when it was recorded and why), or the
    marker of a deletion (``status="deleted"``)."""

    record: FactRecord
    status: Literal["live", "expired", "deleted"]


@dataclass(frozen=True, slots=True)
class BuiltSummary:
    """An entity's rebuilt summary (None: it has no current fact). Written only
    if the entity's stale count is still ``stale``, what it was when its facts
    were read: a change that came in meanwhile keeps it stale."""

    entity_uuid: str
    summary: str | None
    stale: int


@dataclass(frozen=True, slots=True)
class SagaWrite:
    """A saga's new summary row (``row.version`` is the new version), written
    only if the stored version is still ``expected_version`` (0: no row yet);
    else the store refuses the whole plan with ConcurrentWriteError. Summary,
    cursor and coverage so commit together, or not at all."""

    row: SagaState
    expected_version: int


@dataclass(slots=True)
class Purge:
    """What a compliance purge (``forget``) erases besides the rows its plan
    deletes, so that no trace of the forgotten text stays in the store."""

    # Facts whose every recorded version goes (history rows, retraction index).
    histories: list[str] = field(default_factory=list)
    # Audit events (by sequence number) whose detail, episode and actor are blanked:
    # the event stays (that something happened), not what it was about.
    audit_events: list[int] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)  # reply cache keys, store-wide
    # Entities kept whose summary drew on what goes: cleared, left stale.
    summaries: list[str] = field(default_factory=list)
    # Entities kept whose attributes or provenance name what goes: cleared.
    entity_records: list[str] = field(default_factory=list)
    # Sagas whose running summary drew on what goes: summary and extractive
    # state cleared, left stale (the next run rebuilds from the first episode).
    sagas: list[str] = field(default_factory=list)
    # Sagas whose very name names what goes: their summary row is deleted
    # (their episodes go with the purge, by the same name).
    dropped_sagas: list[str] = field(default_factory=list)
    # Contradiction rows whose text (a recorded link's note, its actor) names
    # what goes: every row filed from these contradicting uuids is deleted.
    contradictions: list[str] = field(default_factory=list)
    # Communities that held or named what goes: name, summary and vector
    # cleared (forget then rebuilds them from the members left).
    communities: list[str] = field(default_factory=list)
    # Facts kept by a data subject's forget (another source stands): their key is cleared.
    cleared_subjects: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class EntityRecord:
    """An entity's labels, aliases and attributes, replaced as a whole (an
    entity merge or its undoing): its alias index follows ``aliases``."""

    uuid: str
    labels: tuple[str, ...]
    aliases: tuple[str, ...]
    attributes: dict[str, Any]


@dataclass(frozen=True, slots=True)
class CommunityState:
    """A community's row (kronograph.maintain.communities): a new one with
    its ``members`` (entity uuids, most central first), or the new name,
    summary and method of an existing one (its members are left as they are)."""

    uuid: str
    name: str
    summary: str | None
    method: str
    built_at: datetime
    members: tuple[str, ...] = ()


@dataclass(slots=True)
class Plan:
    group_id: str
    now: datetime
    # The group revision the plan was computed from; the store refuses the plan
    # (ConcurrentWriteError) if another writer moved it since. None: the plan
    # does not depend on what it read (an episode's status, say).
    expected_revision: int | None
    # Episodes to create; one that already exists is left as it is.
    new_episodes: list[Episode] = field(default_factory=list)
    # Episode row updates, applied after the new episodes are inserted.
    episode_states: list[EpisodeState] = field(default_factory=list)
    new_entities: list[Entity] = field(default_factory=list)
    entity_labels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    entity_summaries: dict[str, str] = field(default_factory=dict)  # only where an entity has none
    # Summaries rebuilt from current facts (kronograph.maintain.summaries).
    built_summaries: list[BuiltSummary] = field(default_factory=list)
    # A saga's running summary with its watermarks (kronograph.maintain.sagas).
    saga_summary: SagaWrite | None = None
    # Entities whose summary this plan makes stale, besides the endpoints of
    # every fact it creates, changes or deletes (see stale_summaries).
    stale_entities: set[str] = field(default_factory=set)
    entity_aliases: list[tuple[str, str]] = field(default_factory=list)  # (entity_uuid, alias)
    # Entities whose labels, aliases and attributes are replaced (before entity_aliases joins its own).
    entity_records: list[EntityRecord] = field(default_factory=list)
    # New names of existing entities (the old one is kept as an alias through entity_aliases).
    entity_names: dict[str, str] = field(default_factory=dict)  # entity_uuid -> name
    renamed_embeddings: dict[str, bytes] = field(default_factory=dict)  # their new names' vectors
    # The group's settings to write (name -> JSON value); None erases one.
    settings: dict[str, Any] = field(default_factory=dict)
    # Communities: a rebuild deletes every community of the group first
    # (replace_communities) and writes the new ones, all in this transaction.
    replace_communities: bool = False
    new_communities: list[CommunityState] = field(default_factory=list)
    updated_communities: list[CommunityState] = field(default_factory=list)  # only where it still exists
    # Entities attached to existing communities: (community_uuid, entity_uuid, rank); a pair whose
    # community or entity is gone by then is skipped.
    community_members: list[tuple[str, str, int]] = field(default_factory=list)
    community_embeddings: dict[str, bytes] = field(default_factory=dict)
    delete_communities: list[str] = field(default_factory=list)  # with their members
    # Pairs that may be one entity, with the match score: (a, b, score, episode_id).
    fragments: list[tuple[str, str, float, str | None]] = field(default_factory=list)
    # float32 vectors (as bytes) of entity names and fact texts, by uuid.
    entity_embeddings: dict[str, bytes] = field(default_factory=dict)
    fact_embeddings: dict[str, bytes] = field(default_factory=dict)
    episode_embeddings: dict[str, bytes] = field(default_factory=dict)
    mentions: list[tuple[str, str]] = field(default_factory=list)  # (episode_id, entity_uuid)
    removed_mentions: list[tuple[str, str]] = field(default_factory=list)  # (episode_id, entity_uuid)
    new_facts: list[FactRecord] = field(default_factory=list)
    # Full new state (a new version) of existing facts: times, expiry,
    # invalidated_by, and the version's recorded_at and cause.
    updated_facts: list[FactRecord] = field(default_factory=list)
    # New sources of existing facts, or new times from a known source (replaced).
    add_sources: list[tuple[str, Source]] = field(default_factory=list)
    remove_sources: list[tuple[str, str]] = field(default_factory=list)  # (fact_uuid, episode_id)
    delete_facts: list[str] = field(default_factory=list)
    add_conflicts: list[tuple[str, str, str | None]] = field(default_factory=list)  # (a, b, episode)
    remove_conflicts: list[tuple[str, str]] = field(default_factory=list)  # (a, b): before add_conflicts
    # Rows of the group's contradictions (kronograph.authority); one whose key
    # (fact_uuid, target_uuid, kind) is there already is left as it is (the first one wins).
    contradictions: list[ContradictionRecord] = field(default_factory=list)
    # (fact_uuid, target_uuid, kind) settled: dismissed_at set to ``now`` (a row dismissed already keeps its time).
    dismiss_contradictions: list[tuple[str, str, str]] = field(default_factory=list)
    # New ends of existing facts (an entity merge or its undoing): uuid -> (source, target).
    fact_ends: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Superseded versions and deletion markers. A fact's current version lives
    # in the fact itself, so creating a fact writes no history.
    history: list[HistoryEntry] = field(default_factory=list)
    # Episodes to delete. A saga summary that included one is marked stale
    # (and its version moved) in the same transaction. The contradiction rows
    # naming a deleted fact or episode, on either side, go too.
    delete_episodes: list[str] = field(default_factory=list)
    # Entities to delete: nothing refers to them once the rest is applied.
    delete_entities: list[str] = field(default_factory=list)
    audit: list[AuditEvent] = field(default_factory=list)
    # Model replies for the reply cache: (key, model, text), store-wide.
    cached_replies: list[tuple[str, str, str]] = field(default_factory=list)
    # The episode whose processing was given those replies (forget drops them with it).
    replies_episode: str | None = None
    # A compliance purge: applied with deleted content overwritten where the
    # backend can (see Store.erase_traces for what follows it).
    purge: Purge | None = None
    # Entries appended to the group's erasure log (kronograph.erasure), sealed.
    erasures: list[ErasureReceipt] = field(default_factory=list)

    def attribute(self, actor: str | None, on_behalf_of: str | None = None) -> None:
        """Record who caused this plan's audit events, and for whom: every event
        of a plan is one caller's doing (an event naming its own keeps it)."""
        if actor is None and on_behalf_of is None:
            return
        self.audit = [
            e.model_copy(update={"actor": e.actor or actor, "on_behalf_of": e.on_behalf_of or on_behalf_of})
            for e in self.audit
        ]


def stale_summaries(plan: Plan) -> list[str]:
    """The entities whose summary ``plan`` makes stale: those it names, and
    both ends of every fact it creates, gives a new version or deletes (a
    deletion carries its fact's last state in ``history``), except entities
    it deletes. Sorted, so concurrent writers lock rows in one order."""
    touched = set(plan.stale_entities)
    for record in (*plan.new_facts, *plan.updated_facts, *(h.record for h in plan.history)):
        touched.update((record.source_uuid, record.target_uuid))
    return sorted(touched - set(plan.delete_entities))
