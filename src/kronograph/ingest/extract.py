"""Extraction: an episode's text to entity and fact drafts.

Three extractors fill the same :class:`~.schema.Extraction`: JSON episodes
are mapped deterministically (no model), other episodes go to the model when
one is configured, else to the offline rules. Cleaning then makes every
extractor's output safe for resolution: names trimmed, excluded types
dropped, every fact's ends listed, times resolved against the reference time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..llm.client import ModelClient
from ..llm.protocol import Usage
from ..model import Episode, EpisodeKind, normalise_name
from ..time import parse_time
from .entities import clean_labels
from .episode_input import EpisodeInput
from .json_map import map_json
from .offline.dates import resolve_time
from .people import anchor_for, anchors_of
from .prompts import PROMPT_VERSION, ContextEpisode, extraction_prompt
from .schema import ExtractedFact, Extraction

__all__ = ["Drafts", "EntityDraft", "FactDraft", "clean", "extract"]


@dataclass(slots=True)
class EntityDraft:
    name: str
    key: str
    labels: tuple[str, ...]
    attributes: dict[str, Any] = field(default_factory=dict)
    summary: str | None = None
    aliases: list[str] = field(default_factory=list)  # short names folded into it (see _fold_people)


@dataclass(slots=True)
class FactDraft:
    subject: str  # entity keys
    object: str
    relation: str
    fact: str
    valid_at: datetime | None
    invalid_at: datetime | None
    attributes: dict[str, Any]
    provenance: dict[str, Any]
    qualifiers: dict[str, Any] = field(default_factory=dict)  # as extracted: checked against the relation later


@dataclass(slots=True)
class Drafts:
    entities: list[EntityDraft]
    facts: list[FactDraft]
    provenance: dict[str, Any]  # the extractor's, shared by everything it produced


async def extract(
    inp: EpisodeInput, *, model: ModelClient | None, context: list[Episode], usage: Usage,
    qualified: Mapping[str, tuple[str, ...]] | None = None,
) -> tuple[Extraction, dict[str, Any], list[str]]:
    """Run the extractor the episode needs; returns its output, provenance
    and notes on the sentences that gave no fact (the offline reader's only).
    ``qualified``: the qualifier keys of the relations that declare some, by
    folded relation key, shown to a model (:mod:`kronograph.qualifiers`)."""
    ontology_version = inp.ontology.version
    if inp.kind == EpisodeKind.JSON:
        return (
            map_json(inp.content, root_name=inp.name, mapping=inp.json_mapping),
            {"extractor": "json", "ontology_version": ontology_version},
            [],
        )
    if model is None:
        from .offline import OfflineExtractor  # the rules load once, on first use
        from .offline.thread import Said, read_thread

        reader = OfflineExtractor()
        thread = read_thread([Said(e.role, e.speaker, e.content or "", e.reference_time) for e in context])
        extraction = reader.extract(
            inp.content, reference_time=inp.local_reference_time, kind=inp.kind.value,
            speaker=inp.speaker, role=inp.role, addressee=inp.addressee, thread=thread if context else None,
        )
        return extraction, {"extractor": "offline", "ontology_version": ontology_version}, reader.notes
    prompt = extraction_prompt(
        content=inp.content,
        kind=inp.kind.value,
        reference_time=inp.local_reference_time,
        source_description=inp.source_description,
        previous=[ContextEpisode(e.reference_time, e.content or "", e.speaker, e.role) for e in context],
        ontology=inp.ontology,
        speaker=inp.speaker,
        role=inp.role,
        addressee=inp.addressee,
        user_name=inp.user_name,
        qualified=qualified,
    )
    extraction = await model.structured(
        "extract", system=prompt.system, user=prompt.user, schema=Extraction, usage=usage,
        group_id=inp.group_id,
    )
    return extraction, {
        "extractor": "model",
        "model": model.name,
        "prompt_version": PROMPT_VERSION,
        "ontology_version": ontology_version,
    }, []


def _time(value: str | None, expression: str | None, reference: datetime) -> tuple[datetime | None, str | None]:
    """A stated time: the extractor's ISO value, else its words resolved here."""
    if value:
        try:
            return parse_time(value), "stated"
        except (TypeError, ValueError):
            pass
    if expression:
        resolved = resolve_time(expression, reference)
        if resolved is not None:
            return resolved, "expression"
    return None, None


def _name(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(value.split()).strip(" \t\"'.,;:")
    return text or None


def clean(extraction: Extraction, inp: EpisodeInput, provenance: dict[str, Any]) -> Drafts:
    """Drafts ready for resolution. What cannot be used is dropped, never guessed."""
    ontology = inp.ontology
    entities: dict[str, EntityDraft] = {}
    dropped: set[str] = set()
    for item in extraction.entities:
        name = _name(item.name)
        if name is None:
            continue
        key = normalise_name(name)
        labels = clean_labels(label for label in item.labels if isinstance(label, str))
        if ontology.is_excluded(labels):
            dropped.add(key)
            continue
        typed = next((label for label in labels if label in ontology.entity_types), None)
        if typed is None and provenance.get("extractor") == "json":
            attributes = dict(item.attributes)  # the record's own fields, kept as they are
        else:
            attributes = ontology.attributes("entity", typed, item.attributes)
        known = entities.get(key)
        if known is None:
            entities[key] = EntityDraft(name, key, labels, attributes, _name(item.summary))
        else:  # the same name twice: one entity, everything it was said to be
            known.labels = clean_labels((*known.labels, *labels))
            known.attributes = {**attributes, **known.attributes}
            known.summary = known.summary or _name(item.summary)
    facts: list[FactDraft] = []
    for stated in extraction.facts:
        draft = _fact(stated, inp, provenance, entities, dropped)
        if draft is not None:
            facts.append(draft)
    if provenance.get("extractor") != "json":
        facts = _fold_people(entities, facts, anchors_of(inp.speaker, inp.role, inp.user_name))
    return Drafts(entities=list(entities.values()), facts=facts, provenance=provenance)


def _fold_people(entities: dict[str, EntityDraft], facts: list[FactDraft], anchors: list[str]) -> list[FactDraft]:
    """A person named by a short form of the speaker's or the user's name
    ("Sam" for Sam Carter, "S. Carter", "Bob" for Robert) is them: the
    mention becomes the anchor's entity, its name kept as an alias."""
    if not anchors:
        return facts
    moved: dict[str, str] = {}
    for key, draft in list(entities.items()):
        anchor = anchor_for(draft.name, draft.labels, anchors)
        if anchor is None:
            continue
        target_key = normalise_name(anchor)
        target = entities.get(target_key)
        if target is None:
            target = entities[target_key] = EntityDraft(anchor, target_key, draft.labels or ("Person",))
        target.labels = clean_labels((*target.labels, *draft.labels))
        target.attributes = {**draft.attributes, **target.attributes}
        target.summary = target.summary or draft.summary
        target.aliases.extend(a for a in (draft.name, *draft.aliases) if a not in target.aliases)
        moved[key] = target_key
        del entities[key]
    if not moved:
        return facts
    out = []
    for f in facts:
        f.subject, f.object = moved.get(f.subject, f.subject), moved.get(f.object, f.object)
        if f.subject != f.object:
            out.append(f)
    return out


def _attributes(
    item: ExtractedFact, inp: EpisodeInput, typed: str | None, provenance: dict[str, Any]
) -> dict[str, Any]:
    """A declared type's attributes; with none declared, the offline rules' own (a value's number and unit, a
    role's organisation: numbers and short strings they parsed), kept as they are."""
    if typed is None and provenance.get("extractor") == "offline":
        return dict(item.attributes)
    return inp.ontology.attributes("fact", typed, item.attributes)


def _fact(
    item: ExtractedFact,
    inp: EpisodeInput,
    provenance: dict[str, Any],
    entities: dict[str, EntityDraft],
    dropped: set[str],
) -> FactDraft | None:
    subject, obj, relation = _name(item.subject), _name(item.object), _name(item.relation)
    if subject is None or obj is None or relation is None:
        return None
    s_key, o_key = normalise_name(subject), normalise_name(obj)
    if s_key == o_key or s_key in dropped or o_key in dropped:
        return None
    for name, key in ((subject, s_key), (obj, o_key)):
        entities.setdefault(key, EntityDraft(name, key, ()))  # a fact's end the extractor did not list
    valid_at, valid_how = _time(item.valid_at, item.time_expression, inp.local_reference_time)
    invalid_at, _ = _time(item.invalid_at, None, inp.local_reference_time)
    if valid_at is not None and invalid_at is not None and invalid_at <= valid_at:
        invalid_at = None  # an impossible interval: keep the start the text gave, not the end
    if valid_at is None and invalid_at is not None and invalid_at <= inp.reference_time:
        return None  # ended before the episode, start unknown: no interval can be placed
    typed = relation if relation in inp.ontology.fact_types else None
    words = relation.lower().replace("_", " ")
    fact_text = _name(item.fact) or f"{entities[s_key].name} {words} {entities[o_key].name}"
    return FactDraft(
        subject=s_key,
        object=o_key,
        relation=relation,
        fact=fact_text,
        valid_at=valid_at,
        invalid_at=invalid_at,
        attributes=_attributes(item, inp, typed, provenance),
        qualifiers=dict(item.qualifiers),
        provenance={
            **provenance,
            "episode": inp.episode_id,
            "time_expression": item.time_expression,
            "valid_at_from": valid_how or "reference_time",
            "reference_time": inp.reference_time.isoformat(),
            "time_zone": inp.time_zone,
            "confidence": item.confidence,
        },
    )

