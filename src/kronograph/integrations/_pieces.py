"""What the adapters hand a framework, with no framework in it: each fact,
entity, episode or community of a search or a context block as one
:class:`Piece` (a document's text and metadata), and the short texts the
tools answer a model with."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..model import Community, Entity, Episode, EpisodeResult, Fact
from ..search.types import Hit

__all__ = ["Piece", "fact_sentence", "pieces", "recall_text", "remembered_text"]

EXCERPT = 300  # characters of an episode a recall answer quotes


@dataclass(frozen=True, slots=True)
class Piece:
    """One thing that was found: ``kind`` is ``"fact"``, ``"entity"``,
    ``"episode"`` or ``"community"``; ``text`` reads on its own; ``metadata``
    holds plain values only (strings, numbers, lists), as vector stores and
    tracers expect."""

    kind: str
    uuid: str
    text: str
    score: float
    metadata: dict[str, Any]


def _day(moment: datetime) -> str:
    return moment.date().isoformat()


def fact_sentence(fact: Fact) -> str:
    """The fact with when it held: "Sam works at Initech (since 2024-08-25)",
    "Sam lived in Chicago (2023-11-02 to 2024-07-01)", "(on 2024-06-09)"
    for an event."""
    if fact.event:
        span = f"on {_day(fact.valid_at)}"
    elif fact.invalid_at is not None:
        span = f"{_day(fact.valid_at)} to {_day(fact.invalid_at)}"
    else:
        span = f"since {_day(fact.valid_at)}"
    return f"{fact.fact} ({span})"


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _episode_text(episode: Episode, limit: int | None = None) -> str:
    content = episode.content if episode.content is not None else f"({episode.name}: content not kept)"
    content = " ".join(content.split())
    if limit is not None and len(content) > limit:
        content = content[: limit - 1].rstrip() + "…"
    who = f"{episode.speaker}: " if episode.speaker else ""
    return f"[{_day(episode.reference_time)}] {who}{content}"


def _entity_text(entity: Entity) -> str:
    labels = f" ({', '.join(entity.labels)})" if entity.labels else ""
    return f"{entity.name}{labels}: {entity.summary}" if entity.summary else f"{entity.name}{labels}"


def _piece(hit: Hit[Any]) -> Piece:
    item = hit.item
    base: dict[str, Any] = {"uuid": item.uuid, "group_id": item.group_id, "score": hit.score,
                            "methods": list(hit.methods)}
    if isinstance(item, Fact):
        meta = {"kind": "fact", **base, "subject": item.subject, "relation": item.relation, "object": item.object,
                "valid_at": _iso(item.valid_at), "invalid_at": _iso(item.invalid_at), "event": item.event,
                "episodes": list(item.episodes)}
        return Piece("fact", item.uuid, fact_sentence(item), hit.score, meta)
    if isinstance(item, Entity):
        meta = {"kind": "entity", **base, "name": item.name, "labels": list(item.labels)}
        return Piece("entity", item.uuid, _entity_text(item), hit.score, meta)
    if isinstance(item, Episode):
        meta = {"kind": "episode", **base, "reference_time": _iso(item.reference_time), "speaker": item.speaker,
                "role": item.role, "saga": item.saga, "episodes": [item.uuid]}
        return Piece("episode", item.uuid, _episode_text(item), hit.score, meta)
    if isinstance(item, Community):
        meta = {"kind": "community", **base, "name": item.name}
        text = f"{item.name}: {item.summary}" if item.summary else item.name
        return Piece("community", item.uuid, text, hit.score, meta)
    raise TypeError(f"not a search hit kronograph makes: {type(item).__name__}")


def pieces(found: Any) -> list[Piece]:
    """The pieces of a ``SearchResults`` or a ``Context``, facts first, then
    entities, episodes and communities, each kind in its ranked order."""
    hits: list[Hit[Any]] = []
    for scope in ("facts", "entities", "episodes", "communities"):
        hits.extend(getattr(found, scope, None) or ())
    return [_piece(hit) for hit in hits]


_HEADINGS = {"fact": "Facts", "entity": "People, places and things", "episode": "From past conversations",
             "community": "Groups"}


def recall_text(query: str, found: Sequence[Piece]) -> str:
    """A model's short answer for a recall: a heading per kind, one line an
    item, facts citing the episodes they came from."""
    if not found:
        return f"Nothing in memory matches {query!r}."
    lines: list[str] = []
    for kind, heading in _HEADINGS.items():
        of_kind = [p for p in found if p.kind == kind]
        if not of_kind:
            continue
        lines.append(f"{heading}:")
        for p in of_kind:
            if kind == "fact":
                lines.append(f"- {p.text} [episodes: {', '.join(p.metadata['episodes'])}]")
            elif kind == "episode":
                lines.append(f"- {p.text[: EXCERPT + 14]} (episode {p.uuid})")
            else:
                lines.append(f"- {p.text}")
    return "\n".join(lines)


def _brief(items: Iterable[Fact]) -> list[str]:
    return [fact_sentence(f) for f in items]


def remembered_text(result: EpisodeResult) -> str:
    """A model's short answer for a remember: what the memory made of it."""
    if not result.ok:
        return f"Not saved: episode {result.episode_id} is {result.status} ({result.error or 'no reason given'})."
    if result.duplicate:
        return f"Already in memory as episode {result.episode_id}."
    learned = _brief(result.created) + _brief(result.merged)
    retired = _brief(result.retired)
    parts = [f"Saved as episode {result.episode_id}."]
    parts.append(f"Learned: {'; '.join(learned)}." if learned else "No new fact was read from it.")
    if retired:
        parts.append(f"No longer true: {'; '.join(retired)}.")
    return " ".join(parts)
