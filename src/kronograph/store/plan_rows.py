"""A plan as rows to write, for every backend.

An episode of a saga is stamped, in the transaction that inserts it (under
the group's write lock), with a ``created_at`` past every other episode of
its saga: within a saga, (created_at, uuid) order is commit order, whatever
the clocks of the writers, so a saga's cursor never passes an episode that
becomes visible later (see ``kronograph.maintain.sagas``).

What a plan changes, table by table and in the order the writes must go (a
row before the rows that refer to it, deletions after the moves away from
them), each change as the parameter tuples of one statement. A backend
supplies the SQL of each change (same parameters, same order) and how it
stores JSON values and float32 vectors; the rows are built once, here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from json import dumps
from typing import Any

from ..model import acronym, normalise_name
from ..qualifiers import encode as encode_qualifiers
from ..time import to_micros
from .plan import EpisodeState, Plan, stale_summaries
from .records import FactRecord

__all__ = ["CHANGES", "Encoding", "episode_state", "plan_rows"]

# Every change a plan can make, in the order of writing. Each backend's SQL
# for a change takes the parameters plan_rows gives it, in that order.
CHANGES = (
    "episodes",  # (group, uuid, name, kind, content, hash, source, reference_time, created_at, saga, status, metadata,
    #              actor, on_behalf_of, speaker, role, data_subject): an episode of a saga is stamped past the
    #              saga's latest created_at (see below)
    "episode_states",  # (columns, values, group, uuid, owner): built by episode_state, one statement each,
    #                    fenced by the episode's lease when an owner writes it (see .fence)
    "episode_vectors",  # (vector, group, uuid)
    "entities",  # (uuid, group, name, name_key, labels, aliases, summary, attributes, created_at, provenance,
    #              acronym, vector)
    "entity_labels",  # (labels, uuid, group)
    "entity_names",  # (name, name_key, acronym, uuid, group)
    "entity_vectors",  # (vector, group, uuid): an existing entity's new name vector
    "entity_summaries",  # (summary, uuid, group): only where the entity has none
    "built_summaries",  # (summary, built_at, uuid, group, stale): only while its stale count is still that
    "saga_summaries",  # (group, saga, summary, version, cursor_at, cursor_uuid, covered_from, covered_to, episodes,
    #                    without_text, method, state, built_at, stale): replaces; the backend first checks the
    #                    stored version is the plan's expected one (SagaWrite)
    "entity_records",  # (labels, aliases, attributes, uuid, group): replaced as a whole
    "cleared_aliases",  # (group, uuid): the entity's alias index emptied (entity_aliases refills it)
    "entity_alias_lists",  # (alias, uuid, group): the alias joins the entity's list (a set, in byte order)
    "entity_aliases",  # (group, alias_key, uuid)
    "entity_fragments",  # (a, b, group, score, episode_id, created_at)
    "replaced_communities",  # (group): every community of the group (and its members) goes
    "communities",  # (uuid, group, name, summary, method, built_at)
    "community_states",  # (name, summary, method, built_at, uuid, group)
    "community_members",  # (community, entity, group, rank, attached_at, community, group, entity, group):
    #                       only while the community and the entity exist (the last four)
    "community_vectors",  # (vector, group, uuid)
    "deleted_communities",  # (group, uuid): with its members
    "mentions",  # (group, episode_id, entity_uuid)
    "removed_mentions",  # (group, episode_id, entity_uuid)
    "facts",  # (uuid, group, source, target, relation, relation_key, fact, valid_at, invalid_at,
    #           stated_invalid_at, created_at, expired_at, invalidated_by, attributes, recorded_at, cause,
    #           cause_episode, vector, event, tier, qualifiers, data_subject)
    "fact_sources",  # (fact_uuid, group, episode_id, valid_at, stated_invalid_at, added_at, provenance): replaces
    "removed_sources",  # (group, fact_uuid, episode_id)
    "fact_versions",  # (valid_at, invalid_at, stated_invalid_at, expired_at, invalidated_by, recorded_at, cause,
    #                   cause_episode, tier, uuid, group)
    "fact_ends",  # (source, target, uuid, group)
    "removed_conflicts",  # (a, b, group)
    "fact_conflicts",  # (a, b, group, episode_id, created_at)
    "contradictions",  # (group, fact_uuid, target_uuid, kind, reason, target_authority, actor_weight, score,
    #                    similarity, note, actor, episode_id, created_at, dismissed_at): a key there already is kept
    "dismissed_contradictions",  # (dismissed_at, group, fact_uuid, target_uuid, kind): only where still open
    "fact_history",  # (group, fact_uuid, recorded_at, cause, episode_id, status, source, target, subject, object,
    #                  subject_key, object_key, relation, relation_key, fact, valid_at, invalid_at,
    #                  invalidated_by, created_at, expired_at, episodes, event, tier, qualifiers)
    "retracted_facts",  # (fact_uuid, group, subject_key, object_key, retracted_at): replaces
    "deleted_facts",  # (uuid, group)
    "deleted_contradictions",  # (group, uuid): the rows filed from a deleted fact or episode
    "deleted_contradiction_targets",  # (group, uuid): the rows against a deleted fact
    "stale_summaries",  # (uuid, group): the entity's stale count goes up by one
    "stale_sagas",  # (group, uuid): the episode's saga summary moves its version, and its stale count if the
    #                 episode is at or before its cursor (it was included)
    "deleted_episodes",  # (group, uuid)
    "deleted_entities",  # (uuid, group)
    "model_replies",  # (group, key, model, reply, created_at, episode_id): replaces
    # A purge (forget) only:
    "erased_history",  # (group, fact_uuid): every history row of the fact
    "erased_retractions",  # (group, fact_uuid)
    "redacted_audit",  # (detail, group, seq): the detail replaced, the episode reference and actor dropped
    "redacted_episode_audit",  # (detail, group, episode_id): the same, for every event of a purged episode
    "dropped_replies",  # (group, key)
    "cleared_summaries",  # (uuid, group): summary and its build time cleared, stale count up by one
    "cleared_entity_records",  # (attributes, provenance, uuid, group)
    "cleared_sagas",  # (group, saga): summary and state cleared, version and stale count up by one
    "dropped_sagas",  # (group, saga): the summary row deleted
    "dropped_contradictions",  # (group, fact_uuid): every row filed from that contradicting uuid
    "cleared_communities",  # (group, uuid): name emptied, summary and vector cleared
    "group_settings",  # (group, name, value, updated_at): replaces
    "dropped_settings",  # (group, name)
    "cleared_fact_subjects",  # (uuid, group): a fact kept by a data subject's forget loses the key
    "audit_events",  # (group, kind, recorded_at, episode_id, detail, actor, on_behalf_of)
    "erasure_log",  # (group, seq, receipt_id, entry, by, request_id, reason, actor, on_behalf_of, recorded_at,
    #                 counts, verified, leftovers, previous, digest): appended, never changed
)


@dataclass(frozen=True, slots=True)
class Encoding:
    """How a backend stores a JSON value and a float32 vector (given as bytes)."""

    json: Callable[[Any], Any]
    vector: Callable[[bytes | None], Any]


def _t(value: Any) -> int | None:
    return None if value is None else to_micros(value)


def episode_state(state: EpisodeState, enc: Encoding) -> tuple[list[str], list[Any]]:
    """The columns an episode's new state sets (``content`` to NULL when its
    text is dropped) and their values; the statement (``.fence``) also
    requires the episode not to be complete (nothing overwrites a completed
    episode) and, when a lease owner writes it, not held by another."""
    columns = ["status", "error", "updated_at"]
    values: list[Any] = [state.status, state.error, to_micros(state.updated_at)]
    for column in ("pending", "checkpoint", "result"):
        value = getattr(state, column)
        if value is not EpisodeState.KEEP:
            columns.append(column)
            values.append(None if value is None else enc.json(value))
    if state.clear_content:
        columns.append("content")
        values.append(None)
    if state.lease is not EpisodeState.KEEP:
        owner, until = state.lease if state.lease is not None else (None, None)
        columns += ["lease_owner", "lease_until"]
        values += [owner, None if until is None else to_micros(until)]
    return columns, values


def _history(g: str, f: FactRecord, status: str, enc: Encoding) -> tuple[Any, ...]:
    return (
        g, f.uuid, to_micros(f.version_at), f.cause, f.cause_episode, status, f.source_uuid, f.target_uuid,
        f.subject, f.object, normalise_name(f.subject), normalise_name(f.object), f.relation, f.relation_key,
        f.fact, to_micros(f.valid_at), _t(f.invalid_at), f.invalidated_by, to_micros(f.created_at),
        _t(f.expired_at), enc.json(list(f.episodes)), f.event, f.tier, encode_qualifiers(f.qualifiers),
    )


def _saga_rows(plan: Plan, enc: Encoding) -> list[tuple[Any, ...]]:
    if plan.saga_summary is None:
        return []
    r = plan.saga_summary.row
    return [
        (plan.group_id, r.saga, r.summary, r.version, _t(r.cursor_at), r.cursor_uuid, _t(r.covered_from),
         _t(r.covered_to), r.episodes, r.without_text, r.method, enc.json(r.state), _t(r.built_at), r.stale)
    ]


def plan_rows(plan: Plan, enc: Encoding) -> Iterator[tuple[str, list[Any]]]:
    """Each change of :data:`CHANGES` with its rows, in order; a change with
    none may be left out or given an empty list.
    ``episode_states`` rows are ``(columns, values, group, uuid, owner)``."""
    g, now, json, vector = plan.group_id, to_micros(plan.now), enc.json, enc.vector
    yield "episodes", [
        (g, e.uuid, e.name, str(e.kind), e.content, e.content_hash, e.source_description,
         to_micros(e.reference_time), to_micros(e.created_at), e.saga, e.status, json(e.metadata), e.actor,
         e.on_behalf_of, e.speaker, e.role, e.data_subject)
        for e in plan.new_episodes
    ]
    yield "episode_states", [(*episode_state(s, enc), g, s.uuid, s.owner) for s in plan.episode_states]
    yield "episode_vectors", [(vector(v), g, uuid) for uuid, v in plan.episode_embeddings.items()]
    yield "entities", [
        (e.uuid, g, e.name, normalise_name(e.name), json(list(e.labels)), json(list(e.aliases)), e.summary,
         json(e.attributes), to_micros(e.created_at), json(e.provenance), acronym(e.name),
         vector(plan.entity_embeddings.get(e.uuid)))
        for e in plan.new_entities
    ]
    yield "entity_labels", [(json(list(labels)), uuid, g) for uuid, labels in plan.entity_labels.items()]
    yield "entity_names", [
        (name, normalise_name(name), acronym(name), uuid, g) for uuid, name in plan.entity_names.items()
    ]
    yield "entity_vectors", [(vector(v), g, uuid) for uuid, v in plan.renamed_embeddings.items()]
    yield "entity_summaries", [(summary, uuid, g) for uuid, summary in plan.entity_summaries.items()]
    yield "built_summaries", [(b.summary, now, b.entity_uuid, g, b.stale) for b in plan.built_summaries]
    yield "saga_summaries", _saga_rows(plan, enc)
    yield "entity_records", [
        (json(list(r.labels)), json(sorted(set(r.aliases))), json(r.attributes), r.uuid, g) for r in plan.entity_records
    ]
    yield "cleared_aliases", [(g, r.uuid) for r in plan.entity_records]
    yield "entity_alias_lists", [(alias, uuid, g) for uuid, alias in plan.entity_aliases]
    aliases = plan.entity_aliases + [(r.uuid, alias) for r in plan.entity_records for alias in r.aliases]
    yield "entity_aliases", [(g, normalise_name(alias), uuid) for uuid, alias in aliases]
    yield "entity_fragments", [
        (min(a, b), max(a, b), g, score, episode_id, now) for a, b, score, episode_id in plan.fragments
    ]
    # Most plans touch few tables: the rarer groups of changes are skipped whole.
    if (plan.replace_communities or plan.new_communities or plan.updated_communities or plan.community_members
            or plan.community_embeddings or plan.delete_communities):
        yield "replaced_communities", [(g,)] if plan.replace_communities else []
        yield "communities", [
            (c.uuid, g, c.name, c.summary, c.method, to_micros(c.built_at)) for c in plan.new_communities
        ]
        yield "community_states", [
            (c.name, c.summary, c.method, to_micros(c.built_at), c.uuid, g) for c in plan.updated_communities
        ]
        members: list[tuple[str, str, str, int, int | None]] = [
            (c.uuid, e, g, rank, None) for c in plan.new_communities for rank, e in enumerate(c.members)
        ]
        members += [(c, e, g, rank, now) for c, e, rank in plan.community_members]
        yield "community_members", [(*m, m[0], g, m[1], g) for m in members]
        yield "community_vectors", [(vector(v), g, uuid) for uuid, v in plan.community_embeddings.items()]
        yield "deleted_communities", [(g, uuid) for uuid in plan.delete_communities]
    yield "mentions", [(g, episode_id, entity_uuid) for episode_id, entity_uuid in plan.mentions]
    yield "removed_mentions", [(g, episode_id, entity_uuid) for episode_id, entity_uuid in plan.removed_mentions]
    yield "facts", [
        (f.uuid, g, f.source_uuid, f.target_uuid, f.relation, f.relation_key, f.fact, to_micros(f.valid_at),
         _t(f.invalid_at), _t(f.stated_invalid_at), to_micros(f.created_at), _t(f.expired_at), f.invalidated_by,
         json(f.attributes), to_micros(f.version_at), f.cause, f.cause_episode,
         vector(plan.fact_embeddings.get(f.uuid)), f.event, f.tier, encode_qualifiers(f.qualifiers), f.data_subject)
        for f in plan.new_facts
    ]
    sources = [(f.uuid, s) for f in plan.new_facts for s in f.sources] + plan.add_sources
    yield "fact_sources", [
        (fact_uuid, g, s.episode_id, to_micros(s.valid_at), _t(s.stated_invalid_at), to_micros(s.added_at),
         json(s.provenance or {}))
        for fact_uuid, s in sources
    ]
    yield "removed_sources", [(g, fact_uuid, episode_id) for fact_uuid, episode_id in plan.remove_sources]
    yield "fact_versions", [
        (to_micros(f.valid_at), _t(f.invalid_at), _t(f.stated_invalid_at), _t(f.expired_at), f.invalidated_by,
         to_micros(f.version_at), f.cause, f.cause_episode, f.tier, f.uuid, g)
        for f in plan.updated_facts
    ]
    yield "fact_ends", [(source, target, uuid, g) for uuid, (source, target) in plan.fact_ends.items()]
    yield "removed_conflicts", [(min(a, b), max(a, b), g) for a, b in plan.remove_conflicts]
    yield "fact_conflicts", [(min(a, b), max(a, b), g, episode_id, now) for a, b, episode_id in plan.add_conflicts]
    if plan.contradictions or plan.dismiss_contradictions:
        yield "contradictions", [
            (g, c.fact_uuid, c.target_uuid, c.kind, c.reason, c.target_authority, c.actor_weight, c.score,
             c.similarity, c.note, c.actor, c.episode_id, to_micros(c.created_at), _t(c.dismissed_at))
            for c in plan.contradictions
        ]
        yield "dismissed_contradictions", [(now, g, f, t, kind) for f, t, kind in plan.dismiss_contradictions]
    yield "fact_history", [_history(g, h.record, h.status, enc) for h in plan.history]
    yield "retracted_facts", [
        (h.record.uuid, g, normalise_name(h.record.subject), normalise_name(h.record.object), now)
        for h in plan.history
        if h.status == "deleted"
    ]
    yield "deleted_facts", [(u, g) for u in plan.delete_facts]
    yield "deleted_contradictions", [(g, u) for u in (*plan.delete_facts, *plan.delete_episodes)]
    yield "deleted_contradiction_targets", [(g, u) for u in plan.delete_facts]
    yield "stale_summaries", [(u, g) for u in stale_summaries(plan)]
    yield "stale_sagas", [(g, u) for u in plan.delete_episodes]
    yield "deleted_episodes", [(g, u) for u in plan.delete_episodes]
    yield "deleted_entities", [(u, g) for u in plan.delete_entities]
    asker = plan.replies_episode
    yield "model_replies", [(g, key, model, text, now, asker) for key, model, text in plan.cached_replies]
    purge = plan.purge
    if purge is not None:
        yield "erased_history", [(g, u) for u in purge.histories]
        yield "erased_retractions", [(g, u) for u in purge.histories]
        yield "redacted_audit", [(json({"redacted": True}), g, seq) for seq in purge.audit_events]
        yield "redacted_episode_audit", [(json({"redacted": True}), g, u) for u in plan.delete_episodes]
        yield "dropped_replies", [(g, key) for key in purge.replies]
        yield "cleared_summaries", [(u, g) for u in purge.summaries]
        yield "cleared_entity_records", [(json({}), json({}), u, g) for u in purge.entity_records]
        yield "cleared_sagas", [(g, saga) for saga in purge.sagas]
        yield "dropped_sagas", [(g, saga) for saga in purge.dropped_sagas]
        yield "dropped_contradictions", [(g, u) for u in purge.contradictions]
        yield "cleared_communities", [(g, uuid) for uuid in purge.communities]
        yield "cleared_fact_subjects", [(u, g) for u in purge.cleared_subjects]
    yield "group_settings", [  # JSON text (a falsy value too), cast by the backend
        (g, name, dumps(value, ensure_ascii=False), now) for name, value in plan.settings.items() if value is not None
    ]
    yield "dropped_settings", [(g, name) for name, value in plan.settings.items() if value is None]
    yield "audit_events", [
        (g, a.kind, to_micros(a.recorded_at), a.episode_id, json(a.detail), a.actor, a.on_behalf_of)
        for a in plan.audit
    ]
    yield "erasure_log", [
        (g, r.seq, r.receipt_id, r.entry, r.by, r.request_id, r.reason, r.actor, r.on_behalf_of,
         to_micros(r.recorded_at), json(r.counts), r.verified, r.leftovers, r.previous, r.digest)
        for r in plan.erasures
    ]
