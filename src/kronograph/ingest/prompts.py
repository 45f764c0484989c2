"""The prompts of the three model calls an episode can cost: extraction,
entity deduplication (only for ambiguous names) and the contradiction judge.

They are short on purpose (prompt characters are the user's main cost) and
show data as tagged blocks or compact JSON, with short ids (``N1``, ``E1``,
``M1``, ``K1``) instead of uuids. ``PROMPT_VERSION`` is recorded with what a
prompt produced; change it whenever a prompt's meaning changes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..model import Entity
from ..store.records import FactRecord
from .ontology import Ontology

__all__ = [
    "PROMPT_VERSION",
    "ContextEpisode",
    "Prompt",
    "dedupe_prompt",
    "extraction_prompt",
    "judge_prompt",
]

PROMPT_VERSION = "2026-12.1"


@dataclass(frozen=True, slots=True)
class Prompt:
    system: str
    user: str

    @property
    def chars(self) -> int:
        return len(self.system) + len(self.user)


@dataclass(frozen=True, slots=True)
class ContextEpisode:
    reference_time: datetime
    content: str
    speaker: str | None = None
    role: str | None = None


_EXTRACT = """\
You turn one episode of a conversation or document into a temporal knowledge graph.
List the entities the CURRENT episode mentions and the facts it states between them.
- In a chat message "Name: text", Name is the speaker; I/me/my/we mean the speaker. Use full names.
- A fact links two listed entities with a relation in SCREAMING_SNAKE_CASE (WORKS_AT, LIVES_IN, ...).
- Only facts stated as true. No facts from questions, plans, wishes, hypotheticals or negations.
- Times: resolve dates and relative expressions ("last May", "two weeks ago") against the
  reference time into ISO 8601 (valid_at: when it became true; invalid_at: when it ended) and
  copy the words into time_expression. No time in the text: leave them null.
- Previous episodes are context only (who "he" or "the project" is); do not extract from them."""

_SPEAKERS = """The current episode is a message with a speaker (see its attributes):
- First person (I, me, my, we) means the speaker; "you" means the addressee. Use their names.
- Facts come from what the speaker asserts about themselves or the world. An assistant's
  suggestions, questions, advice and echoes of what the user said are not new facts."""


def _types_section(ontology: Ontology) -> str:
    lines: list[str] = []
    if ontology.entity_types:
        lines.append("Entity types (use these labels when they fit; fill their attributes):")
        for spec in ontology.entity_types.values():
            fields = ", ".join(f"{k} ({v})" for k, v in spec.fields.items())
            lines.append(f"- {spec.name}: {spec.description}" + (f" Attributes: {fields}." if fields else ""))
    if ontology.fact_types:
        lines.append("Fact types (use these relation names when they fit; fill their attributes):")
        for spec in ontology.fact_types.values():
            fields = ", ".join(f"{k} ({v})" for k, v in spec.fields.items())
            lines.append(f"- {spec.name}: {spec.description}" + (f" Attributes: {fields}." if fields else ""))
    if ontology.excluded:
        lines.append("Do not list entities of these types: " + ", ".join(sorted(ontology.excluded)) + ".")
    return "\n".join(lines)


_QUALIFIED = """Relations with qualifiers: one subject holds one value per slot (Q2's deliveries beside
Q3's). For a fact of these relations (names compared ignoring case, spaces, '_' and '-'), give
its qualifiers: the keys listed for it only, each a short text value as the episode says it
(e.g. "period": "2024-Q2"); leave out a key the episode does not give."""


def _qualified_section(qualified: Mapping[str, tuple[str, ...]]) -> str:
    lines = [_QUALIFIED]
    for relation, keys in sorted(qualified.items()):
        lines.append(f"- {relation}: {', '.join(keys)}")
    return "\n".join(lines)


def _attribute(name: str, value: str | None) -> str:
    """An attribute of a tag, quoted as JSON (a name may hold a quote)."""
    return f" {name}={json.dumps(value, ensure_ascii=False)}" if value else ""


def _said(p: ContextEpisode) -> str:
    who = p.speaker or p.role
    return f"[{p.reference_time.isoformat()}]" + (f" {who}:" if who else "") + f" {p.content}"


def extraction_prompt(
    *,
    content: str,
    kind: str,
    reference_time: datetime,
    source_description: str | None,
    previous: Sequence[ContextEpisode],
    ontology: Ontology,
    speaker: str | None = None,
    role: str | None = None,
    addressee: str | None = None,
    user_name: str | None = None,
    qualified: Mapping[str, tuple[str, ...]] | None = None,
) -> Prompt:
    """The extraction prompt; a message's ``speaker``, ``role``, ``addressee``
    and the group's ``user_name`` go on the current episode's tag, with the
    rules for reading first and second person. ``qualified``: the qualifier
    keys of relations that declare some (the section is left out without)."""
    system = _EXTRACT
    if speaker or role or addressee:
        system = f"{system}\n\n{_SPEAKERS}"
    types = _types_section(ontology)
    if types:
        system = f"{system}\n\n{types}"
    if qualified:
        system = f"{system}\n\n{_qualified_section(qualified)}"
    parts: list[str] = []
    if previous:
        parts.append("<previous_episodes>")
        parts.extend(_said(p) for p in previous)
        parts.append("</previous_episodes>")
    source = f' source="{source_description}"' if source_description else ""
    people = "".join(
        _attribute(k, v) for k, v in (("speaker", speaker), ("role", role), ("addressee", addressee),
                                       ("user", user_name))
    )
    parts.append(f'<current_episode kind="{kind}" reference_time="{reference_time.isoformat()}"{source}{people}>')
    parts.append(content)
    parts.append("</current_episode>")
    return Prompt(system=system, user="\n".join(parts))


_JUDGE = """\
New facts were just learned. For each new fact (N...), say which existing facts (E...) it
contradicts: they cannot both be true over the same time, so the new one replaces the old
(e.g. a new employer replaces the old one; leaving a company ends working there). A fact about
something else, or one that can hold alongside, is not contradicted. Say which existing fact
it duplicates: the same statement in other words. Intervals are [valid_from, valid_to);
null valid_to means still true."""


def _fact_json(fid: str, rec: FactRecord) -> dict[str, Any]:
    return {
        "id": fid,
        "subject": rec.subject,
        "relation": rec.relation,
        "object": rec.object,
        "fact": rec.fact,
        "valid_from": rec.valid_at.date().isoformat() if rec.valid_at.time() == datetime.min.time()
        else rec.valid_at.isoformat(),
        "valid_to": None if (rec.invalid_at or rec.stated_invalid_at) is None
        else (rec.invalid_at or rec.stated_invalid_at).isoformat(),  # type: ignore[union-attr]
    }


def judge_prompt(
    questions: Sequence[tuple[str, FactRecord, Sequence[tuple[str, FactRecord]]]]
) -> Prompt:
    """``questions``: (new fact id, new fact, [(existing fact id, existing fact)])."""
    rows = [
        {**_fact_json(nid, new), "candidates": [_fact_json(eid, old) for eid, old in cands]}
        for nid, new, cands in questions
    ]
    user = json.dumps({"new_facts": rows}, ensure_ascii=False, separators=(",", ":"))
    return Prompt(system=_JUDGE, user=user)


_DEDUPE = """\
Some names in a new episode may refer to entities already known. For each mention (M...),
answer the id of the known entity (K...) it is certainly the same as, or null when it is a
different or uncertain one. Use the context and each entity's summary."""


def dedupe_prompt(
    mentions: Sequence[tuple[str, str, Sequence[str], str, Sequence[tuple[str, Entity]]]]
) -> Prompt:
    """``mentions``: (mention id, name, labels, context, [(entity id, entity)])."""
    rows = [
        {
            "id": mid,
            "name": name,
            "labels": list(labels),
            "context": context,
            "candidates": [
                {"id": kid, "name": e.name, "labels": list(e.labels), "aliases": list(e.aliases), "summary": e.summary}
                for kid, e in cands
            ],
        }
        for mid, name, labels, context, cands in mentions
    ]
    user = json.dumps({"mentions": rows}, ensure_ascii=False, separators=(",", ":"))
    return Prompt(system=_DEDUPE, user=user)
