"""The reads behind naming in a query (``kronograph.search.names``): the
entities a query may name, in one bounded query, and which episodes
mention them. Every query is scoped by group_id."""

from __future__ import annotations

import json
import sqlite3
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass, field

from ...model import Entity
from ..sql import entity_queries
from . import rows
from .group_key import group_key, keeps
from .group_text import local_index
from .rows import DIALECT as D

__all__ = ["NameMatches", "entities_named_in", "mentions_among"]


def _fts(words: Collection[str], prefix: bool) -> str | None:
    """An FTS5 query of entity names holding one of the words (or a word
    starting with one of them); each word quoted, so none is read as syntax."""
    quoted = [f'"{w.replace(chr(34), chr(34) * 2)}"' + ("*" if prefix else "") for w in words if w]
    return f"name : ({' OR '.join(quoted)})" if quoted else None


_HELD_GROUPS = 64  # groups whose name matches are kept, least recently asked dropped first
_HELD_WORDS = 4096  # words kept per group before its matches start over


@dataclass(slots=True)
class _Matches:
    key: tuple[int, int]  # the group's (created_at, revision) they were read at
    words: dict[tuple[str, bool], tuple[int, list[tuple[int, str, int]]]] = field(default_factory=dict)


class NameMatches:
    """The entities whose name holds a word (or a word starting with a
    prefix): each word's first ``limit`` by (created_at, uuid), read once per
    group revision. A word in many names (a shared surname, a label such as
    "Person") costs a sort of every such entity; kept, the next query that
    holds it costs nothing. Nothing is kept from inside an open transaction,
    whose writes may yet roll back; memory stays bounded."""

    def __init__(self) -> None:
        self._groups: OrderedDict[str, _Matches] = OrderedDict()

    def drop(self, group_id: str) -> None:
        """Forget what is kept of the group."""
        self._groups.pop(group_id, None)

    def _held(self, conn: sqlite3.Connection, group_id: str) -> _Matches | None:
        if not keeps(conn):
            return None
        key = group_key(conn, group_id)
        if key is None:
            return None
        held = self._groups.get(group_id)
        if held is None or held.key != key or len(held.words) >= _HELD_WORDS:
            held = self._groups[group_id] = _Matches(key)
        self._groups.move_to_end(group_id)
        while len(self._groups) > _HELD_GROUPS:
            self._groups.popitem(last=False)
        return held

    def first(
        self, conn: sqlite3.Connection, group_id: str, words: Collection[str], prefix: bool, limit: int,
        held: _Matches | None,
    ) -> list[tuple[int, str, int]]:
        """(created_at, uuid, id) of the first ``limit`` entities whose name
        holds one of ``words`` (starts one, with ``prefix``), each once."""
        found: dict[int, tuple[int, str, int]] = {}
        index: str | None = None
        for word in dict.fromkeys(words):
            got = held.words.get((word, prefix)) if held is not None else None
            if got is None or got[0] < limit:
                query = _fts([word], prefix)
                if query is None:
                    continue
                # a small group's own index: a word in every group's names costs only this group's rows
                index = index or local_index(conn, "entities", group_id, key=held.key if held else None)
                fts = index or "entities_fts"
                name = fts.rpartition(".")[2]
                cur = conn.execute(
                    f"SELECT e.created_at, e.uuid, e.id FROM {fts} JOIN entities e ON e.id = {name}.rowid"
                    f" WHERE {name} MATCH ? AND e.group_id = ? ORDER BY e.created_at, e.uuid LIMIT ?",
                    (query, group_id, limit),
                )
                got = (limit, [(int(c), u, int(i)) for c, u, i in cur])
                if held is not None:
                    held.words[(word, prefix)] = got
            for row in got[1][:limit]:
                found.setdefault(row[2], row)
        return sorted(found.values())[:limit]

    def entities_named_in(
        self, conn: sqlite3.Connection, group_id: str, keys: Collection[str], words: Collection[str],
        prefixes: Collection[str], limit: int,
    ) -> list[Entity]:
        """Entities whose name key, alias key or initials is one of ``keys``
        (first), then whose name holds one of ``words``, then whose name has a
        word starting with one of ``prefixes``: at most ``limit``, ranked by
        ids and sort keys alone; only the rows that make the limit are read
        whole, and prefixes are looked up only when the rest fall short."""
        if not keys or limit < 1:
            return []
        ids = json.dumps([*keys, *(k.replace(".", "").replace(" ", "") for k in keys)])
        exact = conn.execute(
            "SELECT * FROM (SELECT e.created_at, e.uuid, e.id FROM entities e WHERE e.group_id = ?"
            " AND (e.name_key IN (SELECT value FROM json_each(?)) OR e.acronym IN (SELECT value FROM json_each(?)))"
            " UNION ALL SELECT e.created_at, e.uuid, e.id FROM entity_aliases a JOIN entities e"
            " ON e.uuid = a.entity_uuid WHERE a.group_id = ? AND a.alias_key IN (SELECT value FROM json_each(?)))"
            " ORDER BY 1, 2 LIMIT ?",
            (group_id, ids, ids, group_id, ids, limit),
        ).fetchall()
        found = [int(row[2]) for row in exact]
        held = self._held(conn, group_id) if len(found) < limit else None
        for more, prefix in ((words, False), (prefixes, True)):
            if len(found) >= limit:
                break
            found += [i for _, _, i in self.first(conn, group_id, more, prefix, limit - len(found), held)]
        if not found:
            return []
        read = {
            int(row[-1]): row[:-1] for row in conn.execute(
                f"SELECT {rows.ENTITY_COLUMNS}, e.id FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))",
                (json.dumps(found),),
            )
        }
        out: dict[str, Entity] = {}
        for i in found:
            row = read.get(i)  # None: deleted between the reads
            if row is not None and row[0] not in out:
                out[row[0]] = rows.entity(row)
        return list(out.values())


def entities_named_in(
    conn: sqlite3.Connection, group_id: str, keys: Collection[str], words: Collection[str],
    prefixes: Collection[str], limit: int,
) -> list[Entity]:
    """:meth:`NameMatches.entities_named_in` with nothing kept between calls."""
    return NameMatches().entities_named_in(conn, group_id, keys, words, prefixes, limit)


def mentions_among(
    conn: sqlite3.Connection, group_id: str, entity_uuids: Collection[str], episode_ids: Collection[str]
) -> dict[str, set[str]]:
    """Of these episodes, each that mentions one of these entities, with the ones it mentions."""
    if not entity_uuids or not episode_ids:
        return {}
    cur = conn.execute(*entity_queries.mentions_among(D, group_id, entity_uuids, episode_ids))
    out: dict[str, set[str]] = {}
    for episode, entity in cur:
        out.setdefault(episode, set()).add(entity)
    return out
