"""Entities by uuid, kept per group revision for the reads of search.

Search and ``context`` read the same entities block after block: the ends
of the facts they rank (for their labels) and the entity hits. An entity
row changes only with a plan committed to its group, which moves the
group's revision; so entities read at one revision are kept until it
moves (another connection's commits move it too). Nothing is kept from
inside an open transaction, whose writes may yet roll back. At most
``GROUPS`` groups and ``ENTITIES`` entities are held.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from ...model import Entity
from .group_key import group_key, keeps

__all__ = ["HeldEntities"]


@dataclass(slots=True)
class _Held:
    key: tuple[int, int]  # the group's (created_at, revision) they were read at
    entities: dict[str, Entity | None] = field(default_factory=dict)  # None: no such entity in the group


class HeldEntities:
    GROUPS = 64
    ENTITIES = 100_000  # in all groups together, before they start over

    def __init__(self) -> None:
        self._groups: OrderedDict[str, _Held] = OrderedDict()
        self._count = 0

    def read(
        self, conn: sqlite3.Connection, group_id: str, uuids: Collection[str],
        load: Callable[[list[str]], list[Entity]],
    ) -> list[Entity]:
        """The group's entities among ``uuids`` (by uuid, each once), those
        not held read by ``load``."""
        keys = sorted(set(uuids))
        held = self._held(conn, group_id)
        if held is None:
            return load(keys)
        missing = [u for u in keys if u not in held.entities]
        if missing:
            found = {e.uuid: e for e in load(missing)}
            if self._count + len(missing) > self.ENTITIES:
                self._groups.clear()
                self._count = 0
                self._groups[group_id] = held = _Held(held.key)
            for u in missing:
                held.entities[u] = found.get(u)
            self._count += len(missing)
        return [e for u in keys if (e := held.entities[u]) is not None]

    def drop(self, group_id: str) -> None:
        """Forget what is kept of the group."""
        dropped = self._groups.pop(group_id, None)
        if dropped is not None:
            self._count -= len(dropped.entities)

    def _held(self, conn: sqlite3.Connection, group_id: str) -> _Held | None:
        if not keeps(conn):
            return None
        key = group_key(conn, group_id)
        if key is None:
            return None
        held = self._groups.get(group_id)
        if held is None or held.key != key:
            if held is not None:
                self._count -= len(held.entities)
            held = self._groups[group_id] = _Held(key)
        self._groups.move_to_end(group_id)
        while len(self._groups) > self.GROUPS:
            _, dropped = self._groups.popitem(last=False)
            self._count -= len(dropped.entities)
        return held
