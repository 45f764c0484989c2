"""The MCP tools of contradictions: ``contradict`` (file that one fact
disagrees with another, touching neither), ``get_contradictions`` (what
stands contradicted, scored) and ``set_tier`` (a fact's governance tier).
Thin calls on :class:`~kronograph.AsyncMemory` behind the group check, as
every tool of :mod:`.mcp_tools` is; the caller's key is the actor, so the
group's policy weighs it (:mod:`kronograph.authority`).
"""

from __future__ import annotations

import contextlib
from datetime import datetime

from ..errors import NotFoundError
from ..memory import AsyncMemory
from ..model import Contradiction, Fact
from .mcp_tools import Access, FactOut, _Out, _when

__all__ = [
    "ContradictionOut", "ContradictionsOut", "TierOut", "contradict", "filer_texts", "get_contradictions", "set_tier",
]

EXCERPT = 200  # characters of a filing episode's text shown for it


class ContradictionOut(_Out):
    """One contradiction: ``fact`` (the contradicting fact's uuid, or the
    filing episode's id) against ``contradicts``. ``kind``: ``candidate``
    (flagged when the input was written) or ``recorded`` (filed on purpose,
    with its ``note``). ``score`` = ``authority`` x ``actor_weight``:
    governance risk, not severity. ``open``: both sides stand and nobody
    dismissed it."""

    fact: str
    fact_text: str | None = None
    contradicts: str
    contradicts_text: str
    contradicts_tier: str | None = None
    kind: str
    reason: str
    authority: float
    actor_weight: float
    score: float
    similarity: float | None = None
    note: str | None = None
    actor: str | None = None
    created_at: datetime
    dismissed_at: datetime | None = None

    @classmethod
    def of(cls, c: Contradiction, fact_text: str | None = None) -> ContradictionOut:
        return cls(fact=c.fact, fact_text=fact_text, contradicts=c.contradicts.uuid,
                   contradicts_text=c.contradicts.fact, contradicts_tier=c.contradicts.tier, kind=c.kind,
                   reason=c.reason, authority=c.authority, actor_weight=c.actor_weight, score=c.score,
                   similarity=None if c.similarity is None else round(c.similarity, 4), note=c.note, actor=c.actor,
                   created_at=c.created_at, dismissed_at=c.dismissed_at)

    def text(self) -> str:
        who = f" by {self.actor}" if self.actor else ""
        note = f": {self.note}" if self.note else ""
        settled = f", dismissed {_when(self.dismissed_at)}" if self.dismissed_at else ""
        return (f"- score {self.score:g} ({self.kind}, {self.reason}{who}, {_when(self.created_at)}{settled}): "
                f"{self.fact_text or self.fact!r} vs {self.contradicts_text!r} ({self.contradicts_tier or 'no tier'}; "
                f"fact {self.contradicts}){note}")


class ContradictionsOut(_Out):
    """The group's contradictions, highest score first."""

    group_id: str
    contradictions: list[ContradictionOut]
    open_only: bool = True

    def text(self) -> str:
        which = "open contradiction(s)" if self.open_only else "contradiction(s), settled ones included"
        if not self.contradictions:
            return f"no {'open ' if self.open_only else ''}contradiction in group {self.group_id!r}"
        return (f"{len(self.contradictions)} {which} in group {self.group_id!r}, highest score first:\n"
                + "\n".join(c.text() for c in self.contradictions))


class TierOut(_Out):
    """A fact as it stands after ``set_tier``."""

    group_id: str
    tier: str | None = None
    fact: FactOut

    @classmethod
    def of(cls, group_id: str, fact: Fact) -> TierOut:
        return cls(group_id=group_id, tier=fact.tier, fact=FactOut.of(fact))

    def text(self) -> str:
        return f"fact {self.fact.uuid} is now of tier {self.tier or '(none)'}:\n{self.fact.text()}"


async def filer_texts(memory: AsyncMemory, group_id: str, found: list[Contradiction]) -> dict[str, str]:
    """The contradicting side's words: the fact's text, or the start of the filing episode's."""
    texts: dict[str, str] = {}
    for uuid in dict.fromkeys(c.fact for c in found):
        fact = await memory.fact(group_id, uuid)
        if fact is not None:
            texts[uuid] = fact.fact
            continue
        episode = next((c.episode_id for c in found if c.fact == uuid and c.episode_id == uuid), None)
        if episode is not None:
            with contextlib.suppress(NotFoundError):
                content = (await memory.episode(group_id, episode)).content
                if content:
                    texts[uuid] = content if len(content) <= EXCERPT else content[:EXCERPT] + " …"
    return texts


async def contradict(
    memory: AsyncMemory, access: Access, group_id: str | None, fact_uuid: str, contradicted_uuid: str, *,
    note: str | None = None, on_behalf_of: str | None = None,
) -> ContradictionsOut:
    g = access.group(group_id)
    row = await memory.contradict(g, fact_uuid, contradicted_uuid, note=note, actor=access.actor,
                                  on_behalf_of=on_behalf_of)
    texts = await filer_texts(memory, g, [row])
    return ContradictionsOut(group_id=g, contradictions=[ContradictionOut.of(row, texts.get(row.fact))])


async def get_contradictions(
    memory: AsyncMemory, access: Access, group_id: str | None, *, fact_uuid: str | None = None,
    include_settled: bool = False, limit: int = 20,
) -> ContradictionsOut:
    g = access.group(group_id)
    found = (await memory.contradictions(g, fact_uuid=fact_uuid, open_only=not include_settled))[:limit]
    texts = await filer_texts(memory, g, found)
    return ContradictionsOut(group_id=g, contradictions=[ContradictionOut.of(c, texts.get(c.fact)) for c in found],
                             open_only=not include_settled)


async def set_tier(
    memory: AsyncMemory, access: Access, group_id: str | None, fact_uuid: str, tier: str | None, *,
    reason: str | None = None,
) -> TierOut:
    g = access.group(group_id)
    return TierOut.of(g, await memory.set_tier(g, fact_uuid, tier, actor=access.actor, reason=reason))
