"""Stored vectors, held in memory per (scope, group) for similarity search.

Each table (see vector_table.py) is exact, 16-bit by dimension, below
``ann_threshold`` items, and for dense vectors an HNSW index (usearch) above
it. It stands for one state of its group, its *marker*: the group's
(created_at, revision), which every plan moves by one in its own
transaction. The store keeps held tables in step with the plans it commits
(:meth:`VectorIndex.applied`); a table whose marker is behind the group's
(another connection or process wrote) is repaired from the rows before it
is searched: the facts by the difference of uuids (a fact's vector never
changes), the other scopes read again. A file-backed store keeps each table
beside the database (vector_files.py) once it holds ``SAVE_MIN`` items,
written when it was read from the rows, when it is dropped from memory and
when the store closes (:meth:`save`),
so opening a large group maps one file; a saved table is used only when its
marker is the group's, and a purge deletes the group's files.

What the store calls, and when, each inside ``holding(group)`` (a lock per
group: a large group's cold load or a writer's commit to one group never
holds up another group's searches; the shared map of tables has a mutex of
its own, held only for a dictionary operation):

* ``search(conn, scope, group, vector, k)`` / ``table(conn, ...).rows(uuids)``
  for a read on any connection (a reader's snapshot included; inside the
  writer's open transaction a table is read but not kept): ``table``
  compares the marker on ``conn`` and may load, repair or evict; the table
  it returns may then be read (``top``, ``rows``) on several threads at
  once, as long as no ``applied`` or repair of its group runs meanwhile.
  A reader whose snapshot is older than the held table gets the held
  (newer) table. A table evicted to make room is saved once the group
  lock is let go, under its own group's lock (never two locks at once).
* ``applied(plan)`` right after the writer commits ``plan`` (every committed
  plan, in commit order; the plan's group held since before the commit),
  before a reader can see the new revision (else the reader repairs:
  correct, but it reads the group's uuids again).
* ``check(data_version)`` with one connection's ``data_version`` (only the
  episodes' tables depend on it), and ``save()`` at close.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager

import numpy as np

from ..plan import Plan
from . import vector_table
from .group_key import keeps
from .vector_files import VectorFiles
from .vector_table import VectorTable

__all__ = ["VectorIndex"]

_SQL = {
    "facts": "SELECT uuid, embedding FROM facts WHERE group_id = ? AND embedding IS NOT NULL",
    "entities": "SELECT uuid, embedding FROM entities WHERE group_id = ? AND embedding IS NOT NULL",
    "episodes": "SELECT uuid, embedding FROM episodes WHERE group_id = ? AND embedding IS NOT NULL"
    " AND status = 'complete'",
    "communities": "SELECT uuid, embedding FROM communities WHERE group_id = ? AND embedding IS NOT NULL",
}
_CHUNK = 65_536  # rows read (and float32 vectors copied) at a time
_IN = 500  # uuids per IN (...) list

Marker = tuple[int, int]


def _marker(conn: sqlite3.Connection, group_id: str) -> Marker:
    row = conn.execute("SELECT created_at, revision FROM groups WHERE group_id = ?", (group_id,)).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


class GroupLocks:
    """One re-entrant lock per group, made when first asked for and dropped
    once nobody holds or waits for it (weakly kept: a process that reads
    many groups keeps no lock per group it ever read)."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._locks: weakref.WeakValueDictionary[str, threading.RLock] = weakref.WeakValueDictionary()
        self._depth = threading.local()  # how many holdings this thread is inside

    def of(self, group_id: str) -> threading.RLock:
        with self._mutex:
            lock = self._locks.get(group_id)
            if lock is None:
                lock = self._locks[group_id] = threading.RLock()
            return lock

    @contextmanager
    def holding(self, groups: Iterable[str]) -> Iterator[bool]:
        """Hold these groups' locks (taken in sorted order: two writers of
        overlapping groups never wait for each other in a cycle); yields
        whether this is the thread's outermost holding."""
        locks = [self.of(g) for g in sorted(set(groups))]  # held here: not collected while waited for
        depth = getattr(self._depth, "n", 0)
        self._depth.n = depth + 1
        try:
            with ExitStack() as stack:
                for lock in locks:
                    stack.enter_context(lock)
                yield depth == 0
        finally:
            self._depth.n = depth


class VectorIndex:
    """The tables of the (scope, group) pairs searched last: at most ``HELD``
    of them, the least recently searched dropped first (saved, then read
    again when next searched), so a process serving many groups stays bounded.

    ``path``: the database file (None or ``":memory:"``: nothing is saved);
    ``ann_threshold``: items from which a table is an HNSW index (default
    :data:`vector_table.ANN_THRESHOLD`); ``save=False`` never writes files
    (a read-only store)."""

    HELD = 64
    SAVE_MIN = 2_000  # smaller tables are read from their rows as fast as from a file: never saved

    def __init__(self, path: str | None = None, *, ann_threshold: int | None = None, save: bool = True) -> None:
        self._version: int | None = None
        self._tables: OrderedDict[tuple[str, str], VectorTable] = OrderedDict()
        self._mutex = threading.Lock()  # around _tables, _version and _evicted (a dictionary operation at a time)
        self._evicted: list[tuple[tuple[str, str], VectorTable]] = []  # dropped for room: saved by _save_evicted
        self._locks = GroupLocks()
        self._files = VectorFiles(path) if path not in (None, "", ":memory:") else None
        self._save = save
        self._threshold = ann_threshold

    @property
    def threshold(self) -> int:
        return vector_table.ANN_THRESHOLD if self._threshold is None else self._threshold

    @contextmanager
    def holding(self, groups: Iterable[str]) -> Iterator[None]:
        """Hold these groups' tables: every call below but ``check`` runs
        inside it, for the groups it reads or changes (the writer's from
        before its commit to after ``applied``). Tables evicted meanwhile
        are saved when the thread's outermost holding ends."""
        with self._locks.holding(groups) as outermost:
            yield
        if outermost:
            self._save_evicted()

    def check(self, version: int) -> None:
        """Called with this connection's ``data_version``: when another
        connection wrote, the episodes' tables are read again (an episode's
        status may change outside a plan); the others are checked against their
        group's marker when next read."""
        with self._mutex:
            if version != self._version:
                for key in [k for k in self._tables if k[0] == "episodes"]:
                    del self._tables[key]
                self._version = version

    def table(self, conn: sqlite3.Connection, scope: str, group_id: str) -> VectorTable:
        """The table of (scope, group) as of ``conn``'s view (loaded, read from
        its file or repaired as needed; the group held, see :meth:`holding`)."""
        key = (scope, group_id)
        with self._mutex:
            held = self._tables.get(key)
        if not keeps(conn):  # inside the writer's open transaction: held tables follow commits only
            return held if held is not None else self._read(conn, scope, group_id, (0, 0))
        marker = _marker(conn, group_id)
        if held is None or held.marker[0] != marker[0] or held.marker[1] < marker[1]:
            held = self._open(conn, scope, group_id, held)  # the slow part: other groups go on meanwhile
            with self._mutex:
                self._tables[key] = held
                while len(self._tables) > self.HELD:
                    old = self._tables.popitem(last=False)
                    if old[1].dirty and self._saves(old[1]):
                        self._evicted.append(old)
        with self._mutex:
            if key in self._tables:
                self._tables.move_to_end(key)
        return held

    def _save_evicted(self) -> None:
        """Save the tables dropped for room, each under its own group's lock
        (its writer may be changing it); not one whose group has a table
        held again meanwhile (that one is newer, and saved in its turn)."""
        while True:
            with self._mutex:
                if not self._evicted:
                    return
                key, table = self._evicted.pop()
            with self._locks.holding((key[1],)):
                with self._mutex:
                    again = key in self._tables
                if not again:
                    self._retire(key, table)

    def search(self, conn: sqlite3.Connection, scope: str, group_id: str, vector: np.ndarray, k: int,
               ) -> list[tuple[str, float]]:
        """The ``k`` items nearest ``vector``, best first (see :meth:`table`)."""
        return self.table(conn, scope, group_id).top(vector, k)

    def _open(self, conn: sqlite3.Connection, scope: str, group_id: str, held: VectorTable | None) -> VectorTable:
        """Read in one snapshot: the saved table when its marker is the
        group's, else ``held`` (or the saved table) repaired, else the rows."""
        own = not conn.in_transaction  # a reader's call is one snapshot already
        if own:
            conn.execute("BEGIN")
        try:
            marker = _marker(conn, group_id)
            if held is None and self._files is not None:
                held = self._files.load(scope, group_id)
            if held is not None and held.approximate != (held.dense and len(held) >= self.threshold):
                held = None  # saved under another threshold: read again, as this one says
            if held is not None and held.marker == marker:
                return held
            fresh = held is None or held.marker[0] != marker[0] or held.marker[1] > marker[1] or scope != "facts"
            table = self._read(conn, scope, group_id, marker) if fresh or held is None else (
                self._repair(conn, group_id, held, marker))
        finally:
            if own:
                conn.execute("COMMIT")
        if self._saves(table):
            self._files.save(scope, group_id, table)  # type: ignore[union-attr]  # _saves checked it
        return table

    def _saves(self, table: VectorTable) -> bool:
        """Whether ``table`` is worth a file: a search among many small
        groups must not write (and fsync) a file per group it reads."""
        return self._files is not None and self._save and len(table) >= self.SAVE_MIN

    def _read(self, conn: sqlite3.Connection, scope: str, group_id: str, marker: Marker) -> VectorTable:
        """The table read from the rows."""
        cur = conn.execute(_SQL[scope], (group_id,))
        table: VectorTable | None = None
        while rows := cur.fetchmany(_CHUNK):
            if table is None:
                table = VectorTable.empty(len(rows[0][1]) // 4, marker)
            table.add(rows, self.threshold)
        return table if table is not None else VectorTable.empty(0, marker)

    def _repair(self, conn: sqlite3.Connection, group_id: str, table: VectorTable, marker: Marker) -> VectorTable:
        """Bring a facts table up to ``marker``: a fact's vector is written once,
        so the difference of uuids is the whole change."""
        stored = {u for (u,) in conn.execute(
            "SELECT uuid FROM facts WHERE group_id = ? AND embedding IS NOT NULL", (group_id,))}
        held = {u for u in table.uuids if u}
        table.remove(held - stored)
        new = sorted(stored - held)
        for at in range(0, len(new), _IN):
            part = new[at : at + _IN]
            rows = conn.execute(
                f"SELECT uuid, embedding FROM facts WHERE group_id = ? AND uuid IN ({','.join('?' * len(part))})",
                (group_id, *part),
            ).fetchall()
            if table.dim == 0 and rows:
                table = VectorTable.empty(len(rows[0][1]) // 4, marker)
            table.add(rows, self.threshold)
        table.marker = marker
        return _tidy(table)

    def applied(self, plan: Plan) -> None:
        """Follow a plan this connection has just committed (the caller's lock
        held since the commit): the group's revision moved by one; new vectors
        are added, deleted rows removed; communities and a purged group are
        read again when next searched (a purge also drops their files)."""
        g = plan.group_id
        with self._mutex:
            held = {scope: t for (scope, group), t in self._tables.items() if group == g}
            if plan.purge is not None:
                for scope in ("facts", "entities", "episodes", "communities"):
                    self._tables.pop((scope, g), None)
                self._evicted = [(k, t) for k, t in self._evicted if k[1] != g]
        if plan.purge is not None:
            if self._files is not None:
                for scope in ("facts", "entities", "episodes", "communities"):
                    self._files.drop(scope, g)
            return
        for scope, table in held.items():
            if table.marker[0] == 0:  # the group is new: its created_at is read when next searched
                self._pop((scope, g))
            else:
                table.marker = (table.marker[0], table.marker[1] + 1)
        cleared = plan.replace_communities or plan.new_communities or plan.updated_communities
        if cleared or plan.community_embeddings or plan.delete_communities:
            self._pop(("communities", g))
        changes = (
            ("facts", [(f.uuid, plan.fact_embeddings[f.uuid]) for f in plan.new_facts
                       if f.uuid in plan.fact_embeddings], plan.delete_facts),
            ("entities", [(e.uuid, plan.entity_embeddings[e.uuid]) for e in plan.new_entities
                          if e.uuid in plan.entity_embeddings] + list(plan.renamed_embeddings.items()),
             plan.delete_entities),
            ("episodes", list(plan.episode_embeddings.items()), plan.delete_episodes),
        )
        for scope, added, deleted in changes:
            with self._mutex:
                found = self._tables.get((scope, g))
            if found is None:
                continue
            table = found
            table.remove(deleted)
            if added and table.dim == 0:  # an empty table learns its dimension from its first vector
                table = VectorTable.empty(len(added[0][1]) // 4, table.marker)
            table.add(added, self.threshold)
            table = _tidy(table)
            if table is not found:
                with self._mutex:
                    self._tables[(scope, g)] = table

    def _pop(self, key: tuple[str, str]) -> None:
        with self._mutex:
            self._tables.pop(key, None)

    def save(self) -> None:
        """Write the held tables changed since they were saved (at close),
        each under its group's lock."""
        self._save_evicted()
        with self._mutex:
            held = list(self._tables.items())
        for key, table in held:
            with self._locks.holding((key[1],)):
                self._retire(key, table)

    def _retire(self, key: tuple[str, str], table: VectorTable) -> None:
        if table.dirty and self._saves(table):
            self._files.save(key[0], key[1], table)  # type: ignore[union-attr]  # _saves checked it


def _tidy(table: VectorTable) -> VectorTable:
    """An exact table more than half of whose items were removed, compacted."""
    dead = len(table.uuids) - len(table)
    if table.index is None and dead > 1024 and dead > len(table):
        return table.compacted()
    return table

