"""Search queries against SQLite: BM25 over FTS5's index with each group's own
statistics (:class:`QueryWords`), the entity graph
for breadth-first search, and counts for the mention reranker. Every query is
scoped by group_id."""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from operator import itemgetter
from typing import cast

import numpy as np

from ...model import Episode
from ...time import to_micros
from ..sql import graph_queries
from . import rows
from .group_key import group_key, keeps
from .group_text import local_index
from .rows import DIALECT as D

__all__ = [
    "QueryWords",
    "entities_known_by",
    "current_facts_search",
    "episode_neighbours",
    "episodes_by_uuid",
    "mention_counts",
    "neighbours",
    "query_words",
    "reachable",
    "text_search",
    "touching_facts",
]

_TOKEN = re.compile(r"\w+", re.UNICODE)
_FIRST = itemgetter(0)


def query_words(text: str) -> list[str]:
    return list(dict.fromkeys(w.casefold() for w in _TOKEN.findall(text)))


_FTS = {"facts": "facts_fts", "entities": "entities_fts", "episodes": "episodes_fts", "communities": "communities_fts"}
_TABLE = {"facts": "facts", "entities": "entities", "episodes": "episodes", "communities": "communities"}
_TOKENIZER = "porter unicode61 remove_diacritics 2"  # as the full-text tables (schema v3)
_K1, _B = 1.2, 0.75  # FTS5's bm25() constants
_HELD_HITS = 256  # a term in this many of a group's rows keeps its hits with the group's rows ...
_HELD_HITS_ALL = 1_000_000  # ... up to this many in all, per group and scope
_HELD_STEMS = 10_000  # words whose terms are kept
_HELD_GROUPS = 64  # the (scope, group) pairs whose rows are kept, least recently searched dropped first
_HELD_RANKINGS = 16  # queries whose ranking is kept with a group's rows (until the group changes)


def _tokens(size: bytes) -> int:
    """A row's token count, all columns: the sum of the varints FTS5 keeps
    in its ``_docsize`` table (SQLite's varint format, big-endian)."""
    if not size or max(size) < 0x80:  # every count under 128: one byte each
        return sum(size)
    total, value, i, n = 0, 0, 0, len(size)
    while i < n:
        value = 0
        for k in range(9):
            c = size[i]
            i += 1
            if k == 8:
                value = (value << 8) | c
                break
            value = (value << 7) | (c & 0x7F)
            if c < 0x80:
                break
        total += value
    return total


_HEX = np.zeros(256, dtype=np.uint8)
_HEX[np.frombuffer(b"0123456789ABCDEF", dtype=np.uint8)] = np.arange(16, dtype=np.uint8)


def _sizes(conn: sqlite3.Connection, scope: str, group_id: str) -> tuple[np.ndarray, np.ndarray]:
    """The group's row ids in the index and each row's token count (all
    columns), in one read that hands back two strings rather than a tuple
    and a blob per row, decoded in numpy: a group of a million rows is read
    when first searched (and after each write to it), and the Python
    objects of a row each were most of that time. Not sorted (see
    :meth:`QueryWords.group_rows`)."""
    ids, sizes = conn.execute(
        f"SELECT group_concat(t.id), group_concat(hex(d.sz), ',') FROM {_TABLE[scope]} t"
        f" JOIN {_FTS[scope]}_docsize d ON d.id = t.id WHERE t.group_id = ?",
        (group_id,),
    ).fetchone()
    if not ids:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    return np.fromstring(ids, dtype=np.int64, sep=","), _lengths(sizes)


def _lengths(hexed: str) -> np.ndarray:
    """Each row's token count from its ``_docsize`` blob in hex, rows apart
    by commas: the bytes summed in numpy when every count is under 128 (one
    byte each, nearly always), :func:`_tokens` for a row with a longer one."""
    raw = np.frombuffer(hexed.encode("ascii"), dtype=np.uint8)
    commas = np.flatnonzero(raw == ord(","))
    ends = (np.append(commas, len(raw)) - np.arange(len(commas) + 1)) // 2  # bytes before each row's end
    digits = _HEX[np.delete(raw, commas)]
    flat = digits[0::2] * 16 + digits[1::2]
    running = np.zeros(len(flat) + 1, dtype=np.int64)
    np.cumsum(flat, out=running[1:])
    starts = np.concatenate(([0], ends[:-1]))
    out = (running[ends] - running[starts]).astype(np.float64)
    for i in np.unique(np.searchsorted(ends, np.flatnonzero(flat >= 0x80), side="right")).tolist():
        out[i] = _tokens(flat[starts[i] : ends[i]].tobytes())
    return out


@dataclass(frozen=True, slots=True)
class _Rows:
    """A group's rows in one full-text index: their ids (sorted) and token
    counts (all columns), as of the group revision ``key``."""

    key: tuple[int, int] | None
    ids: np.ndarray
    lengths: np.ndarray
    counts: dict[str, int] = field(default_factory=dict)  # term -> the group's rows holding it
    hits: dict[str, np.ndarray] = field(default_factory=dict)  # a common term -> its (row id, times) pairs
    ranked: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)  # query -> its last ranking

    def mine(self, docs: np.ndarray) -> np.ndarray:
        """Which of these row ids are the group's."""
        if not len(self.ids):
            return np.zeros(len(docs), dtype=bool)
        at = np.minimum(np.searchsorted(self.ids, docs), len(self.ids) - 1)
        return self.ids[at] == docs


class QueryWords:
    """Full-text ranking with the group's own statistics. FTS5's ``bm25()``
    weighs a word by how many rows of the whole table hold it and scales by
    the table's average length, so one group's scores (and which rows make
    the limit) would move with another group's rows. Here the rows that hold
    each query word are read from FTS5's index (its ``instance`` vocabulary;
    a small group's own index, :mod:`.group_text`, so that a common word
    costs the group's rows, not every group's), kept when they are the
    group's, and scored by the same formula with the
    group's row count, average length and per-word row counts. The group's
    row ids and lengths are read once per group revision.

    Words are stemmed by FTS5 itself (a scratch table with the same
    tokenizer). A query of more than KEEP words drops those in more than
    1/SHARE of the group's rows (and over FLOOR): they cost a read of that
    many rows and weigh almost nothing; the rarest stays when all are."""

    SHARE = 50
    FLOOR = 1000
    KEEP = 2

    def __init__(self) -> None:
        self._ready: set[int] = set()
        self._rows: OrderedDict[tuple[str, str], _Rows] = OrderedDict()
        self._stemmed: dict[str, tuple[str, ...]] = {}  # word -> its terms

    def _setup(self, conn: sqlite3.Connection) -> None:
        if id(conn) in self._ready:
            return
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.kg_words USING fts5(w, tokenize='{_TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.kg_words_i USING fts5vocab(temp, kg_words, 'instance')")
        for scope, table in _FTS.items():
            conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.kg_{scope}_inst USING fts5vocab(main, {table}, 'instance')"
            )
        self._ready.add(id(conn))

    def _stems(self, conn: sqlite3.Connection, words: list[str]) -> list[list[str]]:
        """Each word's terms as FTS5 indexes them, in order (a word such as
        ``foo_bar`` is the phrase of its parts; one of stop characters only
        has none). Kept by word: the tokenizer is the same for every group."""
        known = {w: self._stemmed[w] for w in words if w in self._stemmed}
        new = [w for w in dict.fromkeys(words) if w not in known]
        if new:
            conn.execute("DELETE FROM temp.kg_words")
            conn.executemany("INSERT INTO temp.kg_words(rowid, w) VALUES (?, ?)", list(enumerate(new)))
            out: list[list[str]] = [[] for _ in new]
            for doc, term in conn.execute('SELECT doc, term FROM temp.kg_words_i ORDER BY doc, "offset"'):
                out[doc].append(term)
            known.update(zip(new, map(tuple, out), strict=True))
            if len(self._stemmed) + len(new) > _HELD_STEMS:
                self._stemmed.clear()
            self._stemmed.update(zip(new, map(tuple, out), strict=True))
        return [list(known[w]) for w in words]

    def drop(self, group_id: str) -> None:
        """Forget what is kept of the group (its rows, counts and common
        words' hits), and every word's stems (a query may have named what the
        group forgot)."""
        for key in [k for k in self._rows if k[1] == group_id]:
            del self._rows[key]
        self._stemmed.clear()

    def group_rows(self, conn: sqlite3.Connection, scope: str, group_id: str) -> _Rows:
        """The group's rows in the index, read whole once per group revision
        (never kept from inside an open transaction, whose writes may yet
        roll back)."""
        key = group_key(conn, group_id)
        cached = self._rows.get((scope, group_id))
        if key is not None and cached is not None and cached.key == key:
            self._rows.move_to_end((scope, group_id))
            return cached
        # Sorted here, not by ORDER BY: ordered by id, the planner may walk the
        # whole table in id order rather than the group's index (stale statistics
        # from when the store held few groups make that look cheap).
        ids, lengths = _sizes(conn, scope, group_id)
        order = np.argsort(ids, kind="stable")
        rows = _Rows(key, ids[order], lengths[order])
        if key is not None and keeps(conn):
            self._rows[(scope, group_id)] = rows
            self._rows.move_to_end((scope, group_id))
            while len(self._rows) > _HELD_GROUPS:  # many groups: memory stays bounded (only speed is at stake)
                self._rows.popitem(last=False)
        return rows

    def _term(self, conn: sqlite3.Connection, inst: str, rows: _Rows, term: str) -> np.ndarray:
        """The group's rows holding ``term``: (row id, times) pairs by row id.
        A common term's are kept with the group's rows (it comes back, and
        costs a read of every row holding it), and every term's count."""
        if term in rows.hits:
            return rows.hits[term]
        # One string rather than a tuple per row: "person" is in every fact (3x faster at 221,021 facts).
        (text,) = conn.execute(f"SELECT group_concat(doc) FROM {inst} WHERE term = ?", (term,)).fetchone()
        docs = np.fromstring(text, dtype=np.int64, sep=",") if text else np.zeros(0, dtype=np.int64)
        docs, times = np.unique(docs[rows.mine(docs)], return_counts=True)
        found = np.stack([docs, times.astype(np.int64)], axis=1)
        if len(rows.counts) >= 10_000:
            rows.counts.clear()
        rows.counts[term] = len(found)
        if len(found) >= _HELD_HITS:
            if sum(len(h) for h in rows.hits.values()) + len(found) > _HELD_HITS_ALL:
                rows.hits.clear()
            rows.hits[term] = found
        return found

    def _hits(self, conn: sqlite3.Connection, inst: str, rows: _Rows, terms: list[str]) -> np.ndarray:
        """The group's rows holding the phrase ``terms``: (row id, times)
        pairs by row id."""
        if len(terms) == 1:
            return self._term(conn, inst, rows, terms[0])
        places: dict[tuple[int, int], set[int]] | None = None
        for j, term in enumerate(terms):
            every = conn.execute(f'SELECT doc, col, "offset" FROM {inst} WHERE term = ?', (term,)).fetchall()
            mine = rows.mine(np.fromiter(map(_FIRST, every), dtype=np.int64, count=len(every)))
            here: dict[tuple[int, int], set[int]] = {}
            for (doc, col, offset), ok in zip(every, mine, strict=True):
                if ok and (places is None or offset - j in places.get((doc, col), ())):
                    here.setdefault((doc, col), set()).add(offset - j)
            places = here
        out: dict[int, int] = {}
        for (doc, _), starts in (places or {}).items():
            out[doc] = out.get(doc, 0) + len(starts)
        return np.array(sorted(out.items()), dtype=np.int64).reshape(-1, 2)

    def _count(self, conn: sqlite3.Connection, inst: str, rows: _Rows, term: str) -> int:
        """How many of the group's rows hold ``term`` (kept with the group's
        rows: the same words come back query after query)."""
        if term not in rows.counts:
            self._term(conn, inst, rows, term)
        return rows.counts[term]

    def rank(self, conn: sqlite3.Connection, scope: str, group_id: str, query: str) -> tuple[np.ndarray, np.ndarray]:
        """The group's rows matching any word of ``query`` and their BM25
        scores (higher is better), best first, ties by row id. Which words
        count is decided by the group's own rows alone (a word only another
        group's rows hold matches nothing, as a word no row holds)."""
        none = np.zeros(0, dtype=np.int64), np.zeros(0)
        words = query_words(query)
        if not words:
            return none
        self._setup(conn)
        phrases = [terms for terms in self._stems(conn, words) if terms]
        if not phrases:
            return none
        rows = self.group_rows(conn, scope, group_id)
        if len(rows.ids) == 0:
            return none
        if query not in rows.ranked:  # a context block asks the same query more than once
            if len(rows.ranked) >= _HELD_RANKINGS:
                rows.ranked.clear()
            inst = local_index(conn, scope, group_id, len(rows.ids), rows.key)
            inst = f"{inst}_i" if inst is not None else f"temp.kg_{scope}_inst"
            rows.ranked[query] = self._rank(conn, inst, rows, phrases)
        return rows.ranked[query]

    def _rank(
        self, conn: sqlite3.Connection, inst: str, rows: _Rows, phrases: list[list[str]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """``inst``: the fts5vocab instance table to read the group's terms
        from (its own index when small, see :mod:`.group_text`)."""
        none = np.zeros(0, dtype=np.int64), np.zeros(0)
        total = len(rows.ids)
        read: dict[str, np.ndarray] = {}  # the terms whose rows were read just now (a rare term's are not kept)
        for t in {t for terms in phrases for t in terms} - rows.counts.keys():
            read[t] = self._term(conn, inst, rows, t)
        counts = {t: self._count(conn, inst, rows, t) for terms in phrases for t in terms}
        phrases = [terms for terms in phrases if all(counts[t] > 0 for t in terms)]
        if not phrases:  # a word none of the group's rows holds finds nothing
            return none
        if len(phrases) > self.KEEP and total > self.FLOOR:
            cutoff = max(self.FLOOR, total // self.SHARE)
            share = [(min(counts[t] for t in terms), i) for i, terms in enumerate(phrases)]
            kept = {i for n, i in share if n <= cutoff} or {min(share)[1]}
            phrases = [terms for i, terms in enumerate(phrases) if i in kept]
        hits = [read[terms[0]] if len(terms) == 1 and terms[0] in read else self._hits(conn, inst, rows, terms)
                for terms in phrases]
        docs = _union([found[:, 0] for found in hits])
        if not len(docs):
            return docs, np.zeros(0)
        norm = _K1 * (1 - _B + _B * rows.lengths[np.searchsorted(rows.ids, docs)] / (rows.lengths.sum() / total))
        scores = np.zeros(len(docs))
        for found in hits:
            weight = max(math.log((total - len(found) + 0.5) / (len(found) + 0.5)), 1e-6)
            f = np.zeros(len(docs))
            f[np.searchsorted(docs, found[:, 0])] = found[:, 1]
            scores += weight * (f * (_K1 + 1)) / (f + norm)
        order = np.lexsort((docs, -scores))
        docs, scores = docs[order], scores[order]
        docs.flags.writeable = scores.flags.writeable = False  # kept and handed out again
        return docs, scores


def _union(ids: list[np.ndarray]) -> np.ndarray:
    """The sorted union of sorted id arrays: a stable sort of sorted runs is
    a merge, cheaper than ``np.unique``'s hashing of a common word's rows."""
    if len(ids) == 1:
        return ids[0]
    merged = np.sort(np.concatenate(ids), kind="stable")
    if not len(merged):
        return merged
    keep = np.empty(len(merged), dtype=bool)
    keep[0] = True
    np.not_equal(merged[1:], merged[:-1], out=keep[1:])
    return merged[keep]


def text_search(
    conn: sqlite3.Connection,
    scope: str,
    group_id: str,
    query: str,
    limit: int,
    episodes_before: datetime | None,
    episodes_known_at: datetime | None,
    words: QueryWords | None = None,
) -> list[tuple[str, float]]:
    """Uuids ranked by BM25 over the group's own rows (best first, higher is
    better; see :class:`QueryWords`). Episodes: complete ones only, and none
    with a reference time after ``episodes_before`` or received after
    ``episodes_known_at``."""
    docs, scores = (words or QueryWords()).rank(conn, scope, group_id, query)
    if not len(docs) or limit < 1:
        return []
    where, args = "", cast(tuple[object, ...], ())
    if scope == "episodes":
        before = to_micros(episodes_before) if episodes_before is not None else 1 << 62
        known = to_micros(episodes_known_at) if episodes_known_at is not None else 1 << 62
        where, args = " AND status = 'complete' AND reference_time <= ? AND created_at <= ?", (before, known)
    out: list[tuple[str, float]] = []
    step = 4 * limit if where else limit  # every row ranked is the group's: only episodes are filtered here
    for start in range(0, len(docs), step):  # most often the first batch is enough
        batch = list(zip(docs[start : start + step].tolist(), scores[start : start + step].tolist()))
        found = _uuids(conn, scope, [doc for doc, _ in batch], where, args)
        out += [(found[doc], score) for doc, score in batch if doc in found]
        if len(out) >= limit:
            break
    return out[:limit]


def _uuids(
    conn: sqlite3.Connection, scope: str, ids: list[int], where: str = "", args: tuple[object, ...] = ()
) -> dict[int, str]:
    """Row id -> uuid of these rows that meet ``where``."""
    cur = conn.execute(
        f"SELECT id, uuid FROM {_TABLE[scope]} WHERE id IN (SELECT value FROM json_each(?)){where}",
        (json.dumps(ids), *args),
    )
    return {int(i): uuid for i, uuid in cur}


def current_facts_search(
    conn: sqlite3.Connection, group_id: str, query: str, limit: int, at: datetime, words: QueryWords | None = None,
    include_events: bool = False,
) -> tuple[list[tuple[str, float]], int, bool]:
    """The facts valid (and not expired) at ``at`` among the ``4 * limit``
    best full-text matches, best first (at most ``limit``); how many of those
    matches the moment hides (events too, unless ``include_events``); and
    whether there may be more matches."""
    docs, scores = (words or QueryWords()).rank(conn, "facts", group_id, query)
    ranked = list(zip(docs[: 4 * limit].tolist(), scores[: 4 * limit].tolist()))
    if not ranked:
        return [], 0, False
    t = to_micros(at)
    ids = json.dumps([doc for doc, _ in ranked])
    cur = conn.execute(
        "SELECT id, uuid, (expired_at IS NULL AND valid_at <= ? AND (invalid_at IS NULL OR invalid_at > ?)"
        " AND (? OR event = 0)) FROM facts WHERE id IN (SELECT value FROM json_each(?))",
        (t, t, int(include_events), ids),
    )
    found = {int(i): (uuid, bool(ok)) for i, uuid, ok in cur}
    rows = [(found[doc][0], score, found[doc][1]) for doc, score in ranked if doc in found]
    valid = [(uuid, score) for uuid, score, ok in rows if ok]
    return valid[:limit], sum(1 for row in rows if not row[2]), len(rows) == 4 * limit


def _valid_at(at: datetime | None, table: str = "") -> tuple[str, tuple[object, ...]]:
    if at is None:
        return "", ()
    t, f = to_micros(at), f"{table}." if table else ""
    return f" AND {f}valid_at <= ? AND ({f}invalid_at IS NULL OR {f}invalid_at > ?)", (t, t)


def neighbours(
    conn: sqlite3.Connection, group_id: str, entity_uuids: Collection[str], at: datetime | None = None
) -> dict[str, set[str]]:
    """Each entity's neighbours through unexpired facts (valid at ``at``,
    when given), either direction."""
    keys = list(entity_uuids)
    if not keys:
        return {}
    return graph_queries.neighbour_sets(keys, conn.execute(*graph_queries.neighbours(D, group_id, keys, at)))


# One step of the walk from the rows of {0}: the other end of each unexpired
# fact (valid at the moment, when given) touching one of them. CROSS JOIN
# keeps those rows the outer loop, each looked up through the two indexes.
_STEP = (
    "CASE WHEN f.source_uuid = {0}.uuid THEN f.target_uuid ELSE f.source_uuid END, {0}.hops + 1"
    " FROM {1} {0} CROSS JOIN facts f ON f.group_id = ? AND (f.source_uuid = {0}.uuid OR f.target_uuid = {0}.uuid)"
    " WHERE {0}.hops {2} ? AND f.expired_at IS NULL{3}"
)


def reachable(
    conn: sqlite3.Connection, group_id: str, seeds: Collection[str], depth: int, at: datetime | None = None
) -> dict[str, int]:
    """Fewest hops from the seeds (0) to every entity within ``depth``, through
    unexpired facts (valid at ``at``), either direction: one query instead
    of a :func:`neighbours` call per level. A recursive CTE walks to
    ``depth - 1``: each round is the set of (entity, hops) one step from the
    last (UNION drops repeats, though an entity can come back at a later
    round, so the smallest hops is its distance); the last step, the one
    with the most rows, is a plain join, its rows never fed back."""
    keys = list(dict.fromkeys(seeds))
    if not keys:
        return {}
    when, moment = _valid_at(at, "f")
    cur = conn.execute(
        "WITH RECURSIVE walk(uuid, hops) AS (SELECT value, 0 FROM json_each(?)"
        f" UNION SELECT {_STEP.format('w', 'walk', '<', when)})"
        f" SELECT uuid, hops FROM walk UNION ALL SELECT DISTINCT {_STEP.format('x', 'walk', '=', when)}",
        (json.dumps(keys), group_id, depth - 1, *moment, group_id, depth - 1, *moment),
    )
    out: dict[str, int] = {}
    for uuid, hops in cur:
        if hops < out.get(uuid, hops + 1):
            out[uuid] = hops
    return out


def touching_facts(
    conn: sqlite3.Connection, group_id: str, entity_uuids: Collection[str], limit: int, at: datetime | None = None
) -> list[tuple[str, str, str]]:
    """(fact uuid, source, target) of unexpired facts (valid at ``at``, when
    given) touching these entities: at most ``limit`` in all, read entity by
    entity through the indexes, so a busy entity is never read whole."""
    when, moment = _valid_at(at)
    out: dict[str, tuple[str, str, str]] = {}
    for entity in entity_uuids:
        if len(out) >= limit:
            break
        for column in ("source_uuid", "target_uuid"):
            cur = conn.execute(
                f"SELECT uuid, source_uuid, target_uuid FROM facts WHERE group_id = ? AND {column} = ?"
                f" AND expired_at IS NULL{when} LIMIT ?",
                (group_id, entity, *moment, limit - len(out)),
            )
            for row in cur:
                out.setdefault(row[0], row)
    return list(out.values())[:limit]


def entities_known_by(
    conn: sqlite3.Connection, group_id: str, uuids: Collection[str], at: datetime
) -> set[str]:
    """The entities some fact valid by ``at`` touches, or some episode
    referenced by ``at`` mentions: what the memory could speak of then."""
    cur = conn.execute(*graph_queries.entities_known_by(D, group_id, uuids, at))
    return {row[0] for row in cur}


def mention_counts(conn: sqlite3.Connection, scope: str, group_id: str, uuids: Collection[str]) -> dict[str, int]:
    """How often each item is mentioned: an entity by the episodes that
    mention it or state a fact about it, a fact by its source episodes, an
    episode by the entities it mentions."""
    keys = list(uuids)
    if not keys:
        return {}
    return {u: int(n) for u, n in conn.execute(*graph_queries.mention_counts(D, scope, group_id, keys))}

def episode_neighbours(
    conn: sqlite3.Connection, group_id: str, uuids: Collection[str]
) -> dict[str, tuple[str, ...]]:
    """The complete episodes just before and just after each one in its group
    (by reference time, then order of arrival): one statement, each
    neighbour found by a correlated lookup on the group's time index."""
    keys = list(dict.fromkeys(uuids))
    if not keys:
        return {}
    # The bound on reference_time alone lets the index order the walk; an OR of
    # two ranges would have it collect and sort every earlier (later) episode.
    step = (
        "(SELECT n.uuid FROM episodes n WHERE n.group_id = w.group_id AND n.status = 'complete'"
        " AND n.kind != 'fact' AND n.reference_time {0}= w.reference_time AND (n.reference_time {0} w.reference_time"
        " OR n.id {0} w.id) ORDER BY n.reference_time {1}, n.id {1} LIMIT 1)"
    )
    cur = conn.execute(
        f"SELECT w.uuid, {step.format('<', 'DESC')}, {step.format('>', 'ASC')} FROM episodes w"
        " WHERE w.group_id = ? AND w.uuid IN (SELECT value FROM json_each(?))",
        (group_id, json.dumps(keys)),
    )
    found = {uuid: tuple(n for n in (before, after) if n is not None) for uuid, before, after in cur}
    return {u: found[u] for u in keys if u in found}


def episodes_by_uuid(conn: sqlite3.Connection, group_id: str, uuids: Collection[str]) -> list[Episode]:
    keys = list(uuids)
    if not keys:
        return []
    cur = conn.execute(
        f"SELECT {rows.EPISODE_COLUMNS} FROM episodes p WHERE p.group_id = ?"
        " AND p.uuid IN (SELECT value FROM json_each(?))",
        (group_id, json.dumps(keys)),
    )
    return [rows.episode(r) for r in cur]
