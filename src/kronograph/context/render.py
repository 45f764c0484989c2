"""The block's lines: facts as sentences with their validity, entities with
their summaries, episodes as dated excerpts with their speaker, and the
episode ids they cite.

A fact reads ``Sam works at Initech (since 2024-08-25) [ep …c4d3fb]``: a
standing fact ``(since X)`` while it holds at the block's moment, ``(X to
Y)`` once it ended by then, an event ``(on X)``; a fact that began later
than the moment (planned) ``(from X)``. An end after the block's moment is
never shown, nor anything learned after ``known_at``: the facts come from
the store as believed then. Where a fact replaced others of its slot, the
latest of them follows: ``(since 2024-08-25; replaced: Sam works at Acme,
2022-01-10 to 2024-08-25)``.

Episode ids are cited whole when at most 12 characters long, else by their
last 8 characters after ``…`` (the random end of a uuid), longer where two
ids of one block share those; :class:`Citations` keeps them unambiguous
within a block, and ``Context`` holds the whole ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from ..maintain.summaries import fact_sentence
from ..model import Entity, Episode, Fact

__all__ = ["Citations", "entity_line", "episode_line", "fact_line", "user_line", "validity"]

SHORT = 12  # ids up to this long are cited whole
TAIL = 8  # longer ones by this many last characters, at least


def _day(moment: datetime) -> str:
    return moment.date().isoformat()


class Citations:
    """Short forms of episode ids, unambiguous among the ids given."""

    def __init__(self, ids: Iterable[str]) -> None:
        unique = sorted(set(ids))
        self._short: dict[str, str] = {}
        for eid in unique:
            if len(eid) <= SHORT:
                self._short[eid] = eid
                continue
            n = TAIL
            while n < len(eid) and any(o != eid and o.endswith(eid[-n:]) for o in unique):
                n += 2
            self._short[eid] = eid if n >= len(eid) else "…" + eid[-n:]

    def __call__(self, eid: str) -> str:
        return self._short.get(eid, eid)

    def cite(self, ids: Sequence[str], limit: int = 2) -> str:
        """``[ep a, b]`` for the first ``limit`` ids (``+n`` more)."""
        if not ids:
            return ""
        shown = ", ".join(self(e) for e in ids[:limit])
        more = f" +{len(ids) - limit}" if len(ids) > limit else ""
        return f" [ep {shown}{more}]"


def validity(fact: Fact, moment: datetime) -> str:
    """The fact's time as of ``moment``: ``since X``, ``X to Y``, ``on X`` or ``from X``."""
    if fact.event:
        return f"on {_day(fact.valid_at)}"
    if fact.valid_at > moment:
        return f"from {_day(fact.valid_at)}"
    if fact.invalid_at is not None and fact.invalid_at <= moment:
        return f"{_day(fact.valid_at)} to {_day(fact.invalid_at)}"
    return f"since {_day(fact.valid_at)}"


def _sentence(fact: Fact) -> str:
    return fact_sentence(fact).rstrip(".")


def fact_line(fact: Fact, moment: datetime, cite: Citations, replaced: Fact | None = None) -> str:
    """``Sentence (validity; replaced: earlier fact, its interval) [ep id]``."""
    when = validity(fact, moment)
    if replaced is not None:
        when += f"; replaced: {_sentence(replaced)}, {validity(replaced, moment)}"
    return f"{_sentence(fact)} ({when}){cite.cite(fact.episodes)}"


def entity_line(entity: Entity, summary: str | None) -> str:
    """``Name (labels): summary``; the summary as given (it may be None)."""
    labels = [label for label in entity.labels if label.casefold() != "entity"]
    head = f"{entity.name} ({', '.join(labels[:2])})" if labels else entity.name
    return f"{head}: {summary}" if summary else head


def user_line(entity: Entity, summary: str | None) -> str:
    return f"{entity.name}: {summary}" if summary else entity.name


def episode_line(episode: Episode, excerpt: str, cite: Citations) -> str:
    """``[2024-05-20] Sam: excerpt (ep id)``; an episode with no speaker by its name or kind."""
    who = episode.speaker or (episode.role.capitalize() if episode.role else None)
    head = f"[{_day(episode.reference_time)}] {who}: " if who else f"[{_day(episode.reference_time)}] "
    return f"{head}{excerpt} (ep {cite(episode.uuid)})"
