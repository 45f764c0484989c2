"""Search queries against SQLite: BM25 over the FTS5 tables, the entity graph
for breadth-first search, and counts for the mention reranker. Every query is
scoped by group_id."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Collection
from datetime import datetime

from ...model import Episode
from ...time import to_micros
from . import rows

__all__ = [
    "QueryWords",
    "entities_known_by",
    "current_facts_search",
    "episode_neighbours",
    "episodes_by_uuid",
    "fts_query",
    "mention_counts",
    "neighbours",
    "query_words",
    "reachable",
    "text_search",
    "touching_facts",
]

_TOKEN = re.compile(r"\w+", re.UNICODE)


def query_words(text: str) -> list[str]:
    return list(dict.fromkeys(w.casefold() for w in _TOKEN.findall(text)))


def fts_query(words: list[str]) -> str | None:
    """Words as an FTS5 OR-query (each quoted, so no word is read as syntax);
    None when there are none."""
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in words)


_FTS = {"facts": "facts_fts", "entities": "entities_fts", "episodes": "episodes_fts", "communities": "communities_fts"}
_TOKENIZER = "porter unicode61 remove_diacritics 2"  # as the full-text tables (schema v3)


class QueryWords:
    """Keeps a query's words that can rank anything: FTS5 scores every row
    that holds any word of an OR-query before its LIMIT applies, so a word in
    a large share of the rows ("person", "in") costs a scan of them while
    BM25 gives it almost no weight. Words are stemmed by FTS5 itself (a
    scratch table with the same tokenizer) and looked up in its vocabulary."""

    SHARE = 50  # a word in more than 1/SHARE of the rows (and over FLOOR) is dropped
    FLOOR = 1000
    KEEP = 2  # a query of this many words or fewer is left as it is

    def __init__(self) -> None:
        self._ready: set[int] = set()

    def _setup(self, conn: sqlite3.Connection) -> None:
        if id(conn) in self._ready:
            return
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.kg_words USING fts5(w, tokenize='{_TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.kg_words_i USING fts5vocab(temp, kg_words, 'instance')")
        for scope, table in _FTS.items():
            conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.kg_{scope}_terms USING fts5vocab(main, {table}, 'row')"
            )
        self._ready.add(id(conn))

    def _total(self, conn: sqlite3.Connection, scope: str) -> int:
        """About how many rows the table indexes: its largest row id (rows are
        seldom deleted), read from the primary key at no cost."""
        row = conn.execute(f"SELECT MAX(id) FROM {_FTS[scope]}_docsize").fetchone()
        return int(row[0] or 0)

    def keep(self, conn: sqlite3.Connection, scope: str, words: list[str]) -> list[str]:
        if len(words) <= self.KEEP:
            return words
        self._setup(conn)
        conn.execute("DELETE FROM temp.kg_words")
        conn.executemany("INSERT INTO temp.kg_words(rowid, w) VALUES (?, ?)", list(enumerate(words)))
        stems = dict(conn.execute("SELECT doc, term FROM temp.kg_words_i").fetchall())
        terms = list(set(stems.values()))
        counts = dict(
            conn.execute(
                f"SELECT term, doc FROM temp.kg_{scope}_terms WHERE term IN (SELECT value FROM json_each(?))",
                (json.dumps(terms),),
            ).fetchall()
        ) if terms else {}
        found = [(counts.get(stems.get(i, ""), 0), i, w) for i, w in enumerate(words)]
        found = [f for f in found if f[0] > 0]  # a word no row holds finds nothing
        cutoff = max(self.FLOOR, self._total(conn, scope) // self.SHARE)
        kept = {i for df, i, _ in found if df <= cutoff}
        if not kept and found:  # only common words: the rarest still ranks something
            kept = {min(found)[1]}
        return [w for _, i, w in sorted(found, key=lambda f: f[1]) if i in kept]


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
    """Uuids ranked by BM25 (best first, score = -bm25, higher is better).
    Episodes: complete ones only, and none with a reference time after
    ``episodes_before`` or received after ``episodes_known_at``."""
    found = query_words(query)
    match = fts_query(words.keep(conn, scope, found) if words is not None else found)
    if match is None:
        return []
    if scope == "facts":
        sql = (
            "SELECT f.uuid, bm25(facts_fts) FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid"
            " WHERE facts_fts MATCH ? AND f.group_id = ? ORDER BY bm25(facts_fts) LIMIT ?"
        )
        args: tuple[object, ...] = (match, group_id, limit)
    elif scope == "entities":
        sql = (
            "SELECT e.uuid, bm25(entities_fts) FROM entities_fts JOIN entities e ON e.id = entities_fts.rowid"
            " WHERE entities_fts MATCH ? AND e.group_id = ? ORDER BY bm25(entities_fts) LIMIT ?"
        )
        args = (match, group_id, limit)
    elif scope == "communities":
        sql = (
            "SELECT c.uuid, bm25(communities_fts) FROM communities_fts JOIN communities c"
            " ON c.id = communities_fts.rowid WHERE communities_fts MATCH ? AND c.group_id = ?"
            " ORDER BY bm25(communities_fts) LIMIT ?"
        )
        args = (match, group_id, limit)
    else:
        sql = (
            "SELECT p.uuid, bm25(episodes_fts) FROM episodes_fts JOIN episodes p ON p.id = episodes_fts.rowid"
            " WHERE episodes_fts MATCH ? AND p.group_id = ? AND p.status = 'complete'"
            " AND p.reference_time <= ? AND p.created_at <= ? ORDER BY bm25(episodes_fts) LIMIT ?"
        )
        before = to_micros(episodes_before) if episodes_before is not None else 1 << 62
        known = to_micros(episodes_known_at) if episodes_known_at is not None else 1 << 62
        args = (match, group_id, before, known, limit)
    return [(uuid, -float(score)) for uuid, score in conn.execute(sql, args)]


def current_facts_search(
    conn: sqlite3.Connection, group_id: str, query: str, limit: int, at: datetime, words: QueryWords | None = None
) -> tuple[list[tuple[str, float]], int, bool]:
    """The facts valid (and not expired) at ``at`` among the ``4 * limit``
    best full-text matches, best first (at most ``limit``); how many of those
    matches the moment hides; and whether there may be more matches."""
    found = query_words(query)
    match = fts_query(words.keep(conn, "facts", found) if words is not None else found)
    if match is None:
        return [], 0, False
    t = to_micros(at)
    rows = conn.execute(
        "SELECT f.uuid, bm25(facts_fts), (f.expired_at IS NULL AND f.valid_at <= ?"
        " AND (f.invalid_at IS NULL OR f.invalid_at > ?)) FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid"
        " WHERE facts_fts MATCH ? AND f.group_id = ? ORDER BY bm25(facts_fts) LIMIT ?",
        (t, t, match, group_id, 4 * limit),
    ).fetchall()
    valid = [(uuid, -float(score)) for uuid, score, ok in rows if ok]
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
    out: dict[str, set[str]] = {u: set() for u in keys}
    if not keys:
        return out
    when, moment = _valid_at(at)
    ids = json.dumps(keys)
    cur = conn.execute(
        "SELECT source_uuid, target_uuid FROM facts WHERE group_id = ? AND source_uuid IN"
        f" (SELECT value FROM json_each(?)) AND expired_at IS NULL{when}"
        " UNION SELECT source_uuid, target_uuid FROM facts WHERE group_id = ? AND target_uuid IN"
        f" (SELECT value FROM json_each(?)) AND expired_at IS NULL{when}",
        (group_id, ids, *moment, group_id, ids, *moment),
    )
    for source, target in cur:
        if source in out:
            out[source].add(target)
        if target in out:
            out[target].add(source)
    return out


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
    ids, t = json.dumps(list(uuids)), to_micros(at)
    cur = conn.execute(
        "SELECT m.entity_uuid FROM mentions m JOIN episodes p ON p.group_id = m.group_id AND p.uuid = m.episode_id"
        " WHERE m.group_id = ? AND m.entity_uuid IN (SELECT value FROM json_each(?)) AND p.reference_time <= ?"
        " UNION SELECT source_uuid FROM facts WHERE group_id = ? AND source_uuid IN (SELECT value FROM json_each(?))"
        " AND valid_at <= ? UNION SELECT target_uuid FROM facts WHERE group_id = ?"
        " AND target_uuid IN (SELECT value FROM json_each(?)) AND valid_at <= ?",
        (group_id, ids, t, group_id, ids, t, group_id, ids, t),
    )
    return {row[0] for row in cur}


def mention_counts(conn: sqlite3.Connection, scope: str, group_id: str, uuids: Collection[str]) -> dict[str, int]:
    """How often each item is mentioned: an entity by the episodes that
    mention it or state a fact about it, a fact by its source episodes, an
    episode by the entities it mentions."""
    keys = list(uuids)
    if not keys:
        return {}
    ids = json.dumps(keys)
    marks = "SELECT value FROM json_each(?)"
    if scope == "entities":
        sql = (
            "SELECT entity_uuid, COUNT(DISTINCT episode_id) FROM ("
            f" SELECT entity_uuid, episode_id FROM mentions WHERE group_id = ? AND entity_uuid IN ({marks})"
            " UNION SELECT f.source_uuid, s.episode_id FROM facts f JOIN fact_sources s ON s.fact_uuid = f.uuid"
            f" WHERE f.group_id = ? AND f.source_uuid IN ({marks})"
            " UNION SELECT f.target_uuid, s.episode_id FROM facts f JOIN fact_sources s ON s.fact_uuid = f.uuid"
            f" WHERE f.group_id = ? AND f.target_uuid IN ({marks})"
            ") GROUP BY entity_uuid"
        )
        return {u: int(n) for u, n in conn.execute(sql, (group_id, ids, group_id, ids, group_id, ids))}
    column, table = ("fact_uuid", "fact_sources") if scope == "facts" else ("episode_id", "mentions")
    cur = conn.execute(
        f"SELECT {column}, COUNT(*) FROM {table} WHERE group_id = ? AND {column} IN ({marks}) GROUP BY {column}",
        (group_id, ids),
    )
    return {u: int(n) for u, n in cur}


def episode_neighbours(
    conn: sqlite3.Connection, group_id: str, uuids: Collection[str]
) -> dict[str, tuple[str, ...]]:
    """The complete episodes just before and just after each one in its group
    (by reference time, then order of arrival)."""
    out: dict[str, tuple[str, ...]] = {}
    for uuid in uuids:
        row = conn.execute(
            "SELECT reference_time, id FROM episodes WHERE group_id = ? AND uuid = ?", (group_id, uuid)
        ).fetchone()
        if row is None:
            continue
        t, i = row
        found = []
        for sql in (
            "SELECT uuid FROM episodes WHERE group_id = ? AND status = 'complete' AND kind != 'fact'"
            " AND (reference_time < ? OR (reference_time = ? AND id < ?))"
            " ORDER BY reference_time DESC, id DESC LIMIT 1",
            "SELECT uuid FROM episodes WHERE group_id = ? AND status = 'complete' AND kind != 'fact'"
            " AND (reference_time > ? OR (reference_time = ? AND id > ?)) ORDER BY reference_time, id LIMIT 1",
        ):
            hit = conn.execute(sql, (group_id, t, t, i)).fetchone()
            if hit is not None:
                found.append(hit[0])
        out[uuid] = tuple(found)
    return out


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
