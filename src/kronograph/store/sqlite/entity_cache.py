"""A cache of entities by normalised name, for entity resolution on every write.

It is valid for one SQLite ``data_version``: a commit by any other connection
empties it, and the plans this connection applies update it as they commit.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from ...model import Entity, normalise_name
from ..plan import Plan

__all__ = ["EntityCache"]

LIMIT = 200_000  # names kept before the cache starts over


class EntityCache:
    def __init__(self) -> None:
        self._version: int | None = None
        self._by_name: dict[tuple[str, str], tuple[Entity, ...]] = {}

    def check(self, version: int) -> None:
        """Forget everything if another connection wrote since the last check."""
        if version != self._version or len(self._by_name) > LIMIT:
            self._by_name.clear()
            self._version = version

    def lookup(self, group_id: str, keys: Collection[str]) -> tuple[list[Entity], list[str]]:
        """Cached entities of those names, and the names not cached yet."""
        found: list[Entity] = []
        missing: list[str] = []
        for key in keys:
            hit = self._by_name.get((group_id, key))
            if hit is None:
                missing.append(key)
            else:
                found.extend(hit)
        return found, missing

    def fill(self, group_id: str, keys: Iterable[str], entities: Iterable[Entity]) -> None:
        named: dict[str, list[Entity]] = {key: [] for key in keys}
        for entity in entities:
            named.setdefault(normalise_name(entity.name), []).append(entity)
        for key, found in named.items():
            self._by_name[(group_id, key)] = tuple(found)

    def applied(self, plan: Plan) -> None:
        """Follow a plan this connection has just committed."""
        g = plan.group_id
        if plan.entity_names:  # a renamed entity moves between names: the group's names start over
            for slot in [slot for slot in self._by_name if slot[0] == g]:
                del self._by_name[slot]
        for entity in plan.new_entities:
            slot = (g, normalise_name(entity.name))
            if slot in self._by_name:
                self._by_name[slot] = (*self._by_name[slot], entity)
        if plan.entity_records:  # replaced as a whole (a merge, or its undoing): read again when next asked
            changed = {r.uuid for r in plan.entity_records}
            for slot, entities in list(self._by_name.items()):
                if slot[0] == g and any(e.uuid in changed for e in entities):
                    del self._by_name[slot]
        if plan.entity_labels or plan.delete_entities:
            gone = set(plan.delete_entities)
            for slot, entities in list(self._by_name.items()):
                if slot[0] != g:
                    continue
                self._by_name[slot] = tuple(
                    e.model_copy(update={"labels": plan.entity_labels[e.uuid]}) if e.uuid in plan.entity_labels else e
                    for e in entities
                    if e.uuid not in gone
                )
