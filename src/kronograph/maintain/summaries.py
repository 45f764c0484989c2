"""Entity summaries: a sentence or two about an entity, from its current facts.

A summary is built from the facts touching the entity that are valid now and
unexpired, never from retired or expired ones, and from its events (moments
such as ``Sam LEFT Northwind``), told in the past tense with their date after
what holds now. With no model it is
extractive: the most informative current facts (one per relation first, the
best-attested and most recent of each), as sentences, up to
``SUMMARY_CHARS``. With a model it is written by the model, ``BATCH``
entities per call, from at most ``FACTS_SHOWN`` facts each; an entity the
model leaves out keeps its extractive summary.

Summaries are lazy. Every plan that creates, retires, changes or deletes a
fact raises the stale count of both its ends, in the same transaction (see
``store.plan.stale_summaries``); ingestion never calls a model for them.
``summarize_entities`` and ``reconcile(repair=True)`` (extractive only) rebuild
them; a rebuild is written only if the stale count is still the one read with
the facts, so a change that lands meanwhile leaves the entity stale.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from ..errors import ModelError
from ..ingest.schema import SummaryAnswer
from ..llm.client import ModelClient
from ..model import Entity, EntitySummary, Fact
from ..qualifiers import describe as describe_qualifiers
from ..store.plan import BuiltSummary, Plan
from ..store.protocol import FactQuery, SearchReads, Store
from ..time import Clock

__all__ = [
    "BATCH", "SUMMARY_CHARS", "event_sentence", "extractive_summary", "fact_sentence", "ordered_facts", "rank_facts",
    "said", "summarize",
]

_log = logging.getLogger("kronograph")

SUMMARY_CHARS = 400  # an extractive summary's length, at most
MODEL_SUMMARY_CHARS = 600  # a model's summary is cut there
FACTS_READ = 200  # current facts read per entity, at most
FACTS_SHOWN = 12  # facts per entity in a model prompt
BATCH = 20  # entities per model call
PAGE = 200  # entities read, built and written per round

_SYSTEM = """\
You write short summaries of entities in a knowledge graph.
For each entity, write one or two plain sentences about it as it is now, using only its listed facts.
A fact that ends with its date is an event: it happened then, so tell it in the past tense with its date,
never as something that holds now. Lead with what matters most; no speculation, no facts not listed.
Answer for every id given."""


@dataclass(slots=True)
class _Subject:
    entity: Entity
    stale: int
    facts: list[Fact]


def rank_facts(facts: Sequence[Fact]) -> list[Fact]:
    """Most informative first: one fact per relation before a second of any,
    and within a relation the best attested (most sources), then the most
    recent. Relations go in the order of their best fact. Deterministic."""

    def key(f: Fact) -> tuple[int, float, str]:
        return (-len(f.episodes), -f.valid_at.timestamp(), f.uuid)

    by_relation: dict[str, list[Fact]] = {}
    for fact in sorted(facts, key=key):
        by_relation.setdefault(fact.relation.casefold(), []).append(fact)
    rounds = sorted(by_relation.values(), key=lambda group: key(group[0]))
    out: list[Fact] = []
    depth = 0
    while len(out) < len(facts):
        out.extend(group[depth] for group in rounds if depth < len(group))
        depth += 1
    return out


def fact_sentence(fact: Fact) -> str:
    """The fact's text as a sentence; a bare triple gets its relation in
    words; its qualifiers are shown where its text does not give them
    (``Tesla deliveries 400k (period 2024-Q2).``)."""
    text = " ".join(fact.fact.split())
    slot = describe_qualifiers(fact.qualifiers)
    if text in (fact.triple, fact.triple + slot) or not text:
        text = f"{fact.subject} {fact.relation.replace('_', ' ').lower()} {fact.object}"
    if slot and not all(v in text for v in fact.qualifiers.values()):
        text += slot
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def event_sentence(fact: Fact) -> str:
    """An event as what happened, with its date: ``Sam left Northwind on
    2024-03-01.`` (the date is not repeated where the text gives its year)."""
    text = fact_sentence(fact).rstrip(".!?")
    if str(fact.valid_at.year) not in text:
        text += f" on {fact.valid_at.date().isoformat()}"
    return text + "."


def said(fact: Fact) -> str:
    """A fact as a sentence: an event as what happened then, a state as what holds."""
    return event_sentence(fact) if fact.event else fact_sentence(fact)


def ordered_facts(facts: Sequence[Fact]) -> list[Fact]:
    """What holds first, most informative first (:func:`rank_facts`); then
    the events, the latest first."""
    events = sorted((f for f in facts if f.event), key=lambda f: (-f.valid_at.timestamp(), f.uuid))
    return rank_facts([f for f in facts if not f.event]) + events


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:.")
    return head + "…"


def extractive_summary(facts: Sequence[Fact], limit: int = SUMMARY_CHARS) -> str | None:
    """The most informative facts as sentences, then the latest events with
    their dates, as many as fit in ``limit`` characters (the first cut to
    fit); None with no fact."""
    sentences: list[str] = []
    length = 0
    for fact in ordered_facts(facts):
        sentence = said(fact)
        if sentence in sentences:
            continue
        extra = len(sentence) + (1 if sentences else 0)
        if length + extra > limit:
            if not sentences:
                sentences.append(_cut(sentence, limit))
            break
        sentences.append(sentence)
        length += extra
    return " ".join(sentences) or None


async def _current_facts(store: SearchReads, group_id: str, subjects: list[_Subject], clock: Clock) -> None:
    """Fill each subject's facts: those touching it, valid now and unexpired
    (its events that had happened by now among them)."""
    now = clock()
    wanted: dict[str, list[str]] = {}
    for s in subjects:
        touching = await store.touching_facts(group_id, [s.entity.uuid], FACTS_READ, at=now)
        wanted[s.entity.uuid] = [uuid for uuid, _, _ in touching]
    uuids = sorted({u for found in wanted.values() for u in found})
    if not uuids:
        return
    by_uuid = {f.uuid: f for f in await store.facts(group_id, FactQuery(as_of=now, uuids=tuple(uuids)))}
    for s in subjects:
        s.facts = [by_uuid[u] for u in wanted[s.entity.uuid] if u in by_uuid]


def _prompt(batch: Sequence[_Subject]) -> str:
    lines = []
    for n, s in enumerate(batch, 1):
        facts = [said(f) for f in ordered_facts(s.facts)[:FACTS_SHOWN]]
        row = {"id": f"S{n}", "name": s.entity.name, "labels": list(s.entity.labels), "facts": facts}
        lines.append(json.dumps(row, ensure_ascii=False))
    return "<entities>\n" + "\n".join(lines) + "\n</entities>"


async def _ask_model(model: ModelClient, group_id: str, batch: Sequence[_Subject]) -> dict[str, str]:
    """The model's summaries of one batch, by entity uuid (only those it gave)."""
    answer = await model.structured("summary", system=_SYSTEM, user=_prompt(batch), schema=SummaryAnswer, small=True,
                                    group_id=group_id)
    ids = {f"S{n}": s.entity.uuid for n, s in enumerate(batch, 1)}
    out: dict[str, str] = {}
    for item in answer.summaries:
        text = " ".join(item.summary.split())
        if item.id in ids and text:
            out.setdefault(ids[item.id], _cut(text, MODEL_SUMMARY_CHARS))
    return out


async def summarize(
    store: Store,
    group_id: str,
    *,
    clock: Clock,
    uuids: Collection[str] | None = None,
    stale_only: bool = True,
    model: ModelClient | None = None,
    batch_size: int = BATCH,
    on_page: Callable[[Plan], None] | None = None,
) -> list[EntitySummary]:
    """Rebuild the summaries of ``uuids`` (or of the whole group), only the
    stale ones with ``stale_only``; by ``model`` when given (one call per
    ``batch_size`` entities with current facts), else extractively. Writes
    them page by page; ``on_page`` may add to each page's plan (an audit event)."""
    out: list[EntitySummary] = []
    after: str | None = None
    while True:
        page = await store.summary_states(group_id, uuids=uuids, stale_only=stale_only, after=after, limit=PAGE)
        if not page:
            break
        after = page[-1][0].uuid
        subjects = [_Subject(entity, stale, []) for entity, stale in page]
        await _current_facts(store, group_id, subjects, clock)
        texts = {s.entity.uuid: extractive_summary(s.facts) for s in subjects}
        methods = dict.fromkeys(texts, "extractive")
        if model is not None:
            asked = [s for s in subjects if s.facts]
            for start in range(0, len(asked), batch_size):
                batch = asked[start : start + batch_size]
                try:
                    written = await _ask_model(model, group_id, batch)
                except ModelError as exc:  # keep the extractive ones: a summary is never worth failing over
                    _log.warning("kronograph: summarising %d entities by model failed: %s", len(batch), exc)
                    continue
                texts.update(written)
                methods.update(dict.fromkeys(written, "model"))
        plan = Plan(group_id=group_id, now=clock(), expected_revision=None)
        plan.built_summaries = [BuiltSummary(s.entity.uuid, texts[s.entity.uuid], s.stale) for s in subjects]
        if on_page is not None:
            on_page(plan)
        await store.apply(plan)
        out += [
            EntitySummary(
                uuid=s.entity.uuid, name=s.entity.name, summary=texts[s.entity.uuid],
                method=methods[s.entity.uuid], facts=len(s.facts), built_at=plan.now,
            )
            for s in subjects
        ]
        if len(page) < PAGE:
            break
    return out
