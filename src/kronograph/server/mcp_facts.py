"""The MCP tools of structured facts: ``add_fact`` (one fact, with its
qualifiers: which slot of its relation it fills) and ``get_facts`` (facts by
name, relation, time and qualifiers, no search ranking). Thin calls on
:class:`~kronograph.AsyncMemory` behind the group check, as every tool of
:mod:`.mcp_tools` is; the caller's key is the actor (:mod:`kronograph.qualifiers`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..memory import AsyncMemory
from ..model import AddFactResult
from .mcp_tools import Access, CandidateOut, FactOut, FactsOut, _candidates_text, _facts_text, _Out
from .point_in_time import view_at

__all__ = ["AddFactOut", "add_fact", "get_facts"]


class AddFactOut(_Out):
    """What one ``add_fact`` did: the fact written (or the one it restated,
    ``merged``), the facts it retired, and the possible contradictions it raised."""

    group_id: str
    episode_id: str
    fact: FactOut
    merged: bool
    retired: list[FactOut]
    changed: list[FactOut]
    possible_contradictions: list[CandidateOut] = []

    @classmethod
    def of(cls, group_id: str, result: AddFactResult) -> AddFactOut:
        return cls(
            group_id=group_id, episode_id=result.episode_id, fact=FactOut.of(result.fact), merged=result.merged,
            retired=[FactOut.of(f) for f in result.retired], changed=[FactOut.of(f) for f in result.changed],
            possible_contradictions=[CandidateOut.of(p, {result.fact.uuid: result.fact.fact})
                                     for p in result.possible_contradictions],
        )

    def text(self) -> str:
        parts = [_facts_text("restated (merged into)" if self.merged else "added", [self.fact], "")]
        for title, facts in (("retired by it", self.retired), ("interval moved", self.changed)):
            if facts:
                parts.append(_facts_text(title, facts, ""))
        parts += _candidates_text(self.possible_contradictions)
        return "\n".join(parts)


async def add_fact(
    memory: AsyncMemory, access: Access, group_id: str | None, subject: str, relation: str, object: str, *,
    fact: str | None = None, valid_at: str | None = None, invalid_at: str | None = None,
    qualifiers: Mapping[str, str] | None = None, tier: str | None = None, on_behalf_of: str | None = None,
) -> AddFactOut:
    g = access.group(group_id)
    result = await memory.add_fact(
        g, subject, relation, object, fact=fact, valid_at=valid_at, invalid_at=invalid_at, qualifiers=qualifiers,
        tier=tier, actor=access.actor, on_behalf_of=on_behalf_of,
    )
    return AddFactOut.of(g, result)


async def get_facts(
    memory: AsyncMemory, access: Access, group_id: str | None, *, subject: str | None = None,
    relation: str | None = None, object: str | None = None, entity: str | None = None, as_of: str | None = None,
    known_at: str | None = None, include_retired: bool = False, qualifiers: Mapping[str, str] | None = None,
    limit: int = 50, at: str | None = None,
) -> FactsOut:
    g = access.group(group_id)
    view = view_at(memory, at, as_of=as_of, known_at=known_at, include_retired=include_retired)
    if view is not None:
        found = await view.facts(g, subject=subject, relation=relation, object=object, entity=entity,
                                 qualifiers=qualifiers, limit=limit)
        return FactsOut(group_id=g, facts=[FactOut.of(f) for f in found], lookahead=await view.lookahead(found))
    found = await memory.facts(
        g, subject=subject, relation=relation, object=object, entity=entity, as_of=as_of, known_at=known_at,
        include_retired=include_retired, qualifiers=qualifiers, limit=limit,
    )
    return FactsOut(group_id=g, facts=[FactOut.of(f) for f in found])
