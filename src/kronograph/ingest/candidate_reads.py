"""The candidate reads an episode's resolve stage made, used again by its commit.

Before the group's lock, every new fact's candidates are read to put the
judge its questions; in the commit's transaction each fact's candidates are
read again, because the group may have moved in between. When it has not
(its revision, checked inside the transaction, is the one the resolve stage
read at, moved only by the episode's own checkpoint), those reads would
return what the resolve stage got, except where the episode's earlier facts
changed it: a read is answered from the recording only while no fact written
in the unit so far could be one of its candidates (a fact of its relation at
either of its entities, or any fact between its two). Anything else a plan changes that a record shows (an
entity's name) ends the reuse for the rest of the unit. A draft entity that
the resolve stage knew as ``new:<key>`` and the commit created is the same
entity with no facts yet, until a fact of the unit touches it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from ..store.plan import Plan
from ..store.records import CandidateAsk, FactRecord

__all__ = ["Recorded", "Recording", "Replaying"]

Key = tuple[str, str, str, str, tuple[str, ...], bool, bool, datetime, int]


def _key(
    group_id: str, subject_uuid: str, object_uuid: str, relation_key: str, sides: Collection[str],
    either_end: bool, whole_pair: bool, around: datetime, limit: int,
) -> Key:
    return (group_id, subject_uuid, object_uuid, relation_key, tuple(sides), either_end, whole_pair, around, limit)


Recorded = dict[Key, list[FactRecord]]


class Recording:
    """A store whose ``fact_candidates`` answers (asked one by one or
    together) are kept in ``found``; every other attribute is the store's."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.found: Recorded = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def fact_candidates(
        self, group_id: str, subject_uuid: str, object_uuid: str, relation_key: str, *,
        sides: Collection[str] = ("subject", "object"), either_end: bool = True, whole_pair: bool = True,
        around: datetime, limit: int = 50,
    ) -> list[FactRecord]:
        found: list[FactRecord] = await self._store.fact_candidates(
            group_id, subject_uuid, object_uuid, relation_key, sides=sides, either_end=either_end,
            whole_pair=whole_pair, around=around, limit=limit,
        )
        self.found[_key(group_id, subject_uuid, object_uuid, relation_key, sides, either_end, whole_pair, around,
                        limit)] = list(found)
        return found

    async def fact_candidates_each(self, group_id: str, asks: Sequence[CandidateAsk]) -> list[list[FactRecord]]:
        found: list[list[FactRecord]] = await self._store.fact_candidates_each(group_id, asks)
        for a, each in zip(asks, found, strict=True):
            key = _key(group_id, a.subject_uuid, a.object_uuid, a.relation_key, a.sides, a.either_end, a.whole_pair,
                       a.around, a.limit)
            self.found[key] = list(each)
        return found


class Replaying:
    """A unit's store whose ``fact_candidates`` answers from a recording where
    that is still what the store would answer (see the module's docstring);
    the pipeline reports each plan it applies through :meth:`applied`."""

    def __init__(self, tx: Any, recorded: Recorded, created: Mapping[str, str]) -> None:
        self._tx = tx
        self._recorded = recorded
        self._created = dict(created)  # uuid of an entity this unit created -> its draft's "new:<key>"
        self._touched: set[tuple[str, str]] = set()  # (entity, relation key) of the facts written in the unit
        self._pairs: set[frozenset[str]] = set()  # and their two ends
        self._known: dict[str, tuple[str, str, str]] = {}  # a fact's ends and relation, as last read or written
        self._on = True
        self.reused = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tx, name)

    def _stands_for(self, uuid: str) -> str:
        return self._created.get(uuid, uuid)

    async def fact_candidates(
        self, group_id: str, subject_uuid: str, object_uuid: str, relation_key: str, *,
        sides: Collection[str] = ("subject", "object"), either_end: bool = True, whole_pair: bool = True,
        around: datetime, limit: int = 50,
    ) -> list[FactRecord]:
        ends = frozenset((subject_uuid, object_uuid))
        if self._on and ends not in self._pairs and not self._touched & {(e, relation_key) for e in ends}:
            if ends <= self._created.keys() and not any(e in ends for pair in self._pairs for e in pair):
                self.reused += 1  # two entities made in this unit, no fact of theirs yet
                return []
            key = _key(group_id, self._stands_for(subject_uuid), self._stands_for(object_uuid), relation_key,
                       sides, either_end, whole_pair, around, limit)
            found = self._recorded.get(key)
            if found is not None:
                self.reused += 1
                self._learn(found)
                return list(found)
        read: list[FactRecord] = await self._tx.fact_candidates(
            group_id, subject_uuid, object_uuid, relation_key, sides=sides, either_end=either_end,
            whole_pair=whole_pair, around=around, limit=limit,
        )
        self._learn(read)
        return read

    def _learn(self, records: Collection[FactRecord]) -> None:
        for r in records:
            self._known[r.uuid] = (r.source_uuid, r.target_uuid, r.relation_key)

    def applied(self, plan: Plan) -> None:
        """Note what ``plan`` (applied in the unit) changed."""
        if plan.entity_names or plan.entity_records or plan.delete_entities:
            self._on = False  # a record shows its entities' names: nothing recorded is sure any more
            return
        for f in (*plan.new_facts, *plan.updated_facts):
            self._touch(f.uuid, (f.source_uuid, f.target_uuid, f.relation_key))
        for uuid, (source, target) in plan.fact_ends.items():
            self._touch(uuid)  # its old ends
            known = self._known.get(uuid)
            if known is not None:
                self._touch(uuid, (source, target, known[2]))
        changed = [u for u, _ in plan.add_sources] + [u for u, _ in plan.remove_sources] + list(plan.delete_facts)
        for uuid in changed:
            self._touch(uuid)

    def _touch(self, fact_uuid: str, now: tuple[str, str, str] | None = None) -> None:
        """A fact written: as ``now`` says (and as known before), or as known."""
        for seen in (self._known.get(fact_uuid), now):
            if seen is not None:
                source, target, relation_key = seen
                self._touched.update(((source, relation_key), (target, relation_key)))
                self._pairs.add(frozenset((source, target)))
        if now is not None:
            self._known[fact_uuid] = now
        elif fact_uuid not in self._known:
            self._on = False  # a fact this unit never saw: reuse nothing more
