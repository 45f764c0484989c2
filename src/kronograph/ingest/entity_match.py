"""Entity resolution for episodes, deterministic first.

Phase one (outside any transaction, may call a model): for each drafted
entity, an exact normalised name, then an alias, then fuzzy candidates
(string similarity, acronyms, containment, name vectors) that merge only when
one is clearly best and labels agree. The ambiguous ones of an episode go to
the model in one call; with no model they stay separate and the pairs are
recorded as fragment candidates. The choices are plain JSON (checkpointed).

Phase two (inside the episode's transaction): the choices are applied to the
store as it is then; an exact name match is looked up again, so an entity
another writer created meanwhile is found, not duplicated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..ids import new_id
from ..llm.client import ModelClient
from ..llm.protocol import Usage
from ..model import Entity, normalise_name, trusted
from ..store.plan import Plan
from ..store.protocol import ResolutionReads
from .entities import choose_entity, compatible, label_family
from .extract import EntityDraft
from .people import distinct_people, person_like, short_form
from .prompts import dedupe_prompt
from .schema import DedupeAnswer
from .similarity import decide_merge, score_candidates

__all__ = ["choose_entities", "place_entities"]

Choice = dict[str, Any]  # {"uuid": str | None, "how": str, "alias": bool, "fragments": [[uuid, score], ...]}


async def choose_entities(
    store: ResolutionReads,
    group_id: str,
    drafts: Sequence[EntityDraft],
    vectors: Mapping[str, np.ndarray],
    *,
    model: ModelClient | None,
    context: str,
    usage: Usage,
    candidate_limit: int = 10,
    anchors: Sequence[str] = (),
) -> dict[str, Choice]:
    """Which existing entity each draft is (by draft key), or none. A draft
    that is an ``anchor`` (the speaker, the group's user) and has no entity
    of its name is the one person-like entity known by a short form of it
    ("Sam" becomes "Sam Carter"; see :mod:`.people`)."""
    if not drafts:
        return {}
    matches = await store.entity_matches(group_id, [d.name for d in drafts], candidate_limit)
    choices: dict[str, Choice] = {}
    ambiguous: list[tuple[EntityDraft, list[Any]]] = []
    for draft in drafts:
        found = matches.get(draft.key, [])
        exact = choose_entity(draft.labels, [m.entity for m in found if m.how == "name"])
        if exact is not None:
            choices[draft.key] = {"uuid": exact.uuid, "how": "name", "alias": False, "fragments": []}
            continue
        aliased = choose_entity(draft.labels, [m.entity for m in found if m.how == "alias"])
        if aliased is not None:
            choices[draft.key] = {"uuid": aliased.uuid, "how": "alias", "alias": False, "fragments": []}
            continue
        person = _short_form(draft, [m.entity for m in found if m.how != "name"], anchors)
        if person is not None:
            choices[draft.key] = {"uuid": person.uuid, "how": "person", "alias": True, "fragments": []}
            continue
        scored = score_candidates(
            draft.name, draft.labels, vectors.get(draft.key), [(m.entity, m.vector) for m in found if m.how != "name"]
        )
        decision = decide_merge(scored)
        if decision.entity is not None and distinct_people(draft.name, draft.labels, decision.entity, anchors):
            choices[draft.key] = {"uuid": None, "how": "new", "alias": False, "fragments": []}  # see .people
        elif decision.outcome == "merge" and decision.entity is not None:
            choices[draft.key] = {"uuid": decision.entity.uuid, "how": "fuzzy", "alias": True, "fragments": []}
        elif decision.outcome == "ambiguous":
            ambiguous.append((draft, list(decision.candidates)))
            choices[draft.key] = {
                "uuid": None,
                "how": "ambiguous",
                "alias": False,
                "fragments": [[c.entity.uuid, c.score] for c in decision.candidates],
            }
        else:
            choices[draft.key] = {"uuid": None, "how": "new", "alias": False, "fragments": []}
    if ambiguous and model is not None:
        await _ask_model(model, group_id, ambiguous, choices, context, usage)
    return choices


def _short_form(draft: EntityDraft, candidates: Sequence[Entity], anchors: Sequence[str]) -> Entity | None:
    """The one person-like entity named by a short form of ``draft``, when
    the draft is an anchor; None when there is none or more than one."""
    if not person_like(draft.labels) or all(normalise_name(a) != draft.key for a in anchors):
        return None
    found = {
        e.uuid: e for e in candidates
        if person_like(e.labels) and compatible(draft.labels, e.labels) and short_form(e.name, draft.name)
    }
    return next(iter(found.values())) if len(found) == 1 else None


async def _ask_model(
    model: ModelClient,
    group_id: str,
    ambiguous: list[tuple[EntityDraft, list[Any]]],
    choices: dict[str, Choice],
    context: str,
    usage: Usage,
) -> None:
    """One call for all the ambiguous names of an episode."""
    rows = []
    ids: dict[str, tuple[EntityDraft, dict[str, str]]] = {}
    k = 0
    for i, (draft, candidates) in enumerate(ambiguous, 1):
        known: dict[str, str] = {}
        pairs = []
        for cand in candidates:
            k += 1
            known[f"K{k}"] = cand.entity.uuid
            pairs.append((f"K{k}", cand.entity))
        ids[f"M{i}"] = (draft, known)
        rows.append((f"M{i}", draft.name, draft.labels, context, pairs))
    prompt = dedupe_prompt(rows)
    answer = await model.structured(
        "dedupe", system=prompt.system, user=prompt.user, schema=DedupeAnswer, small=True, usage=usage,
        group_id=group_id,
    )
    for match in answer.matches:
        entry = ids.get(match.mention)
        if entry is None:
            continue
        draft, known = entry
        uuid = known.get(match.entity or "")  # an id it was not shown for this mention is ignored
        choices[draft.key] = {
            "uuid": uuid,
            "how": "model" if uuid else "model-new",
            "alias": uuid is not None,
            "fragments": [],  # the model has decided: no open question is left
        }


def _labels_with(entity: Entity, labels: Sequence[str]) -> tuple[str, ...] | None:
    families = {label_family(label) for label in entity.labels}
    extra = tuple(label for label in labels if label_family(label) not in families)
    return (*entity.labels, *extra) if extra else None


async def place_entities(
    store: ResolutionReads,
    plan: Plan,
    drafts: Sequence[EntityDraft],
    choices: Mapping[str, Choice],
    vectors: Mapping[str, np.ndarray],
    provenance: Mapping[str, Any],
    episode_id: str,
) -> dict[str, Entity]:
    """Apply the choices to ``plan`` (new entities, labels, aliases, summaries,
    mentions, fragments); returns the entity of each draft key."""
    g = plan.group_id
    wanted = {c["uuid"] for c in choices.values() if c.get("uuid")}
    wanted |= {other for c in choices.values() for other, _ in c.get("fragments", ())}
    named, listed = await store.entities_named_and_listed(g, {d.key for d in drafts}, wanted)
    by_id = {e.uuid: e for e in listed}
    placed: dict[str, Entity] = {}
    for draft in drafts:
        choice = choices.get(draft.key, {})
        entity = choose_entity(draft.labels, [e for e in named if _key(e) == draft.key])
        alias = False
        if entity is None and choice.get("uuid"):
            entity = by_id.get(choice["uuid"])
            if entity is not None and not compatible(draft.labels, entity.labels):
                entity = None
            alias = bool(choice.get("alias")) and entity is not None
        if entity is None:
            entity = trusted(
                Entity,
                uuid=new_id(), group_id=g, name=draft.name, labels=draft.labels, aliases=(),
                summary=draft.summary, attributes=dict(draft.attributes), created_at=plan.now,
                provenance={**provenance, "episode": episode_id}, summary_stale=False, summary_built_at=None,
            )
            plan.new_entities.append(entity)
            named.append(entity)
            vector = vectors.get(draft.key)
            if vector is not None:
                plan.entity_embeddings[entity.uuid] = np.asarray(vector, dtype=np.float32).tobytes()
            for other, score in choice.get("fragments", ()):
                if other in by_id:  # still there
                    plan.fragments.append((entity.uuid, other, float(score), episode_id))
        else:
            labels = _labels_with(entity, draft.labels)
            if labels is not None:
                plan.entity_labels[entity.uuid] = labels
                entity = entity.model_copy(update={"labels": labels})
            if alias and _key(entity) != draft.key and draft.name not in entity.aliases:
                plan.entity_aliases.append((entity.uuid, draft.name))
            if draft.summary and not entity.summary:
                plan.entity_summaries[entity.uuid] = draft.summary
        for other in draft.aliases:  # short names folded into the draft (extract._fold_people)
            if normalise_name(other) != _key(entity) and other not in entity.aliases:
                plan.entity_aliases.append((entity.uuid, other))
        placed[draft.key] = entity
        plan.mentions.append((episode_id, entity.uuid))
    return placed


def _key(entity: Entity) -> str:
    return normalise_name(entity.name)
