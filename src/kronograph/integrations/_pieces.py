"""What the adapters hand a framework, with no framework in it: each fact,
entity, episode or community of a search or a context block as one
:class:`Piece` (a document's text and metadata), and the short texts the
tools answer a model with, worded as the context block words them
(:mod:`kronograph.context.render`).

Facts are told as of a moment (``as_of``, else ``known_at``, else now): a
fact that ended by then reads ``(X to Y)``; in a past view an end after
the moment is not told, in the text or in ``invalid_at``. An entity's stored summary
describes the graph of today, so under ``as_of`` / ``known_at`` it is left
out rather than let it tell what was learned or true only later.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..context import Context
from ..context.render import Citations, entity_line, episode_line, fact_line, validity
from ..maintain.summaries import fact_sentence
from ..model import Community, Entity, Episode, EpisodeResult, Fact
from ..search.types import Hit

__all__ = ["Piece", "View", "pieces", "recall_text", "remembered_text"]

EXCERPT = 300  # characters of an episode a recall answer quotes


@dataclass(frozen=True, slots=True)
class View:
    """The moment things are told as of, and whether it is a past one
    (``as_of`` / ``known_at`` given), when stored summaries are left out."""

    moment: datetime
    temporal: bool


@dataclass(frozen=True, slots=True)
class Piece:
    """One thing that was found: ``kind`` is ``"fact"``, ``"entity"``,
    ``"episode"`` or ``"community"``; ``text`` reads on its own; ``metadata``
    holds plain values only (strings, numbers, booleans, lists), as vector
    stores and tracers expect."""

    kind: str
    uuid: str
    text: str
    score: float
    metadata: dict[str, Any]


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _sentence(fact: Fact, view: View) -> str:
    return f"{fact_sentence(fact).rstrip('.')} ({validity(fact, view.moment)})"


def _content(episode: Episode, limit: int | None = None) -> str:
    text = " ".join(episode.content.split()) if episode.content is not None else f"({episode.name}: not kept)"
    return text if limit is None or len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _end(fact: Fact, view: View) -> datetime | None:
    """A fact's end as known at the view's moment: a later one is not told in a past view."""
    if fact.invalid_at is not None and view.temporal and fact.invalid_at > view.moment:
        return None
    return fact.invalid_at


def _summary(entity: Entity, view: View) -> str | None:
    return None if view.temporal else entity.summary


def _piece(hit: Hit[Any], view: View) -> Piece:
    item = hit.item
    base: dict[str, Any] = {"uuid": item.uuid, "group_id": item.group_id, "score": hit.score,
                            "methods": list(hit.methods)}
    if isinstance(item, Fact):
        meta = {"kind": "fact", **base, "subject": item.subject, "relation": item.relation, "object": item.object,
                "valid_at": _iso(item.valid_at), "invalid_at": _iso(_end(item, view)), "event": item.event,
                "episodes": list(item.episodes)}
        return Piece("fact", item.uuid, _sentence(item, view), hit.score, meta)
    if isinstance(item, Entity):
        meta = {"kind": "entity", **base, "name": item.name, "labels": list(item.labels)}
        return Piece("entity", item.uuid, entity_line(item, _summary(item, view)), hit.score, meta)
    if isinstance(item, Episode):
        meta = {"kind": "episode", **base, "reference_time": _iso(item.reference_time), "speaker": item.speaker,
                "role": item.role, "saga": item.saga, "episodes": [item.uuid]}
        who = item.speaker or (item.role.capitalize() if item.role else None)
        text = f"[{item.reference_time.date().isoformat()}] {f'{who}: ' if who else ''}{_content(item)}"
        return Piece("episode", item.uuid, text, hit.score, meta)
    if isinstance(item, Community):
        meta = {"kind": "community", **base, "name": item.name}
        text = f"{item.name}: {item.summary}" if item.summary else item.name
        return Piece("community", item.uuid, text, hit.score, meta)
    raise TypeError(f"not a search hit kronograph makes: {type(item).__name__}")


def _user(block: Context) -> Piece | None:
    """The group's user as a block holds it (its summary as of the block's moment), unless among its entities."""
    user = block.user
    if user is None or any(h.item.uuid == user.uuid for h in block.entities):
        return None
    text = block.parts.user_line if block.parts is not None and block.parts.user_line else user.name
    meta = {"kind": "entity", "uuid": user.uuid, "group_id": user.group_id, "score": 1.0, "methods": [],
            "name": user.name, "labels": list(user.labels), "user": True}
    return Piece("entity", user.uuid, text, 1.0, meta)


def pieces(found: Any, view: View) -> list[Piece]:
    """The pieces of a ``SearchResults`` or a ``Context``: facts first, then
    entities (a block's user first among them), episodes and communities,
    each kind in its ranked order."""
    out = [_piece(h, view) for h in found.facts]
    user = _user(found) if isinstance(found, Context) else None
    out += [user] if user is not None else []
    for scope in ("entities", "episodes", "communities"):
        out += [_piece(h, view) for h in getattr(found, scope, None) or ()]
    return out


def recall_text(query: str, found: Any, view: View) -> str:
    """A model's short answer for a recall: facts, entities and episode
    excerpts, a line each, citing episodes as the context block does."""
    facts = [h.item for h in found.facts]
    entities = [h.item for h in found.entities]
    episodes = [h.item for h in found.episodes]
    if not (facts or entities or episodes):
        return f"Nothing in memory matches {query!r}."
    cite = Citations([e for f in facts for e in f.episodes[:2]] + [e.uuid for e in episodes])
    sections = [
        ("Facts:", [fact_line(f, view.moment, cite) for f in facts]),
        ("Entities:", [entity_line(e, _summary(e, view)) for e in entities]),
        ("Episodes:", [episode_line(e, _content(e, EXCERPT), cite) for e in episodes]),
    ]
    return "\n".join(
        line for heading, lines in sections if lines for line in (heading, *(f"- {x}" for x in lines))
    )


def _whole(fact: Fact) -> str:
    """A fact with its whole interval, as known now (told as of its end, if it has one)."""
    return _sentence(fact, View(fact.invalid_at or fact.valid_at, False))


def remembered_text(result: EpisodeResult) -> str:
    """A model's short answer for a remember: what the memory made of it."""
    if not result.ok:
        return f"Not saved: episode {result.episode_id} is {result.status} ({result.error or 'no reason given'})."
    if result.duplicate:
        return f"Already in memory as episode {result.episode_id}."
    learned = [_whole(f) for f in result.created + result.merged]
    retired = [_whole(f) for f in result.retired]
    parts = [f"Saved as episode {result.episode_id}."]
    parts.append(f"Learned: {'; '.join(learned)}." if learned else "No new fact was read from it.")
    if retired:
        parts.append(f"No longer true: {'; '.join(retired)}.")
    flagged = [f"{p.contradicts.fact!r} ({p.contradicts.tier or 'no tier'}, score {p.score:g})"
               for p in result.possible_contradictions if p.score > 0]
    if flagged:  # the agent is told what it may be contradicting; the trail has it anyway
        parts.append(f"May contradict (flagged for review): {'; '.join(flagged)}.")
    return " ".join(parts)
