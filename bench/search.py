"""Search benchmark for kronograph: fact-search latency per recipe and temporal mode.

Builds (or reuses) a file-backed store of 10,000 and 100,000 facts in ONE group
with the workload generator of ``bench/core.py`` (``add_fact``, no judge, the
offline hashing embedder), then times ``Memory.search(..., scopes=("facts",))``
for each recipe on seeded short queries made from the workload's vocabulary.
Query embedding is done first and reported separately (``query_vector=`` keeps
it out of the timed part); the first search, which loads the group's vectors,
is reported as the cold load. Exit status 0 when every target is met.
Run ``.venv/bin/python bench/search.py --help`` for the options; see bench/README.md.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from kronograph import HashingEmbedder, Memory

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import percentile, source_revision  # noqa: E402  (a sibling script)
from core import CLOCK_START, GROUP, RELATION_TYPES, VALID_SPAN, VALID_START, StepClock, load, pools  # noqa: E402  (a sibling script)
from stores import STORE_HELP, BenchStore, open_bench_store  # noqa: E402

SIZES = (10_000, 100_000)
SCOPES = ("facts",)
WARMUP = 20  # untimed searches of each mode before the timed ones
CACHE = Path(tempfile.gettempdir()) / "kronograph-bench-search"
TARGET_SIZE = 100_000
TARGET_HYBRID_MEDIAN_MS, TARGET_HYBRID_P95_MS, TARGET_BFS_MEDIAN_MS = 15.0, 40.0, 25.0
# Issue 17's one group of a million facts (--facts 1000000 --entities 100000).
MILLION = 1_000_000
MILLION_HYBRID_MEDIAN_MS, MILLION_HYBRID_P95_MS, MILLION_SUBJECT_MS = 30.0, 60.0, 2.0
MILLION_RSS_MB, MILLION_FIRST_SEARCH_MS = 1.5 * 1024, 2000.0


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    person: str  # the person the query is about: the centre entity for BFS
    vector: list[float]  # as the API takes it (converting it is outside the timing too)
    as_of: datetime
    known_at: datetime


@dataclass(frozen=True, slots=True)
class Mode:
    name: str
    recipe: str
    kwargs: Callable[[Query], dict[str, Any]]


def _none(q: Query) -> dict[str, Any]:
    return {}


MODES = (
    Mode("hybrid", "hybrid", _none),
    Mode("bm25", "bm25", _none),
    Mode("cosine", "cosine", _none),
    Mode("hybrid_mmr", "hybrid_mmr", _none),
    Mode("hybrid_episode_mentions", "hybrid_episode_mentions", _none),
    Mode("hybrid_node_distance (bfs)", "hybrid_node_distance", lambda q: {"center_entity": q.person}),
    Mode("hybrid as_of", "hybrid", lambda q: {"as_of": q.as_of}),
    Mode("hybrid known_at", "hybrid", lambda q: {"known_at": q.known_at}),
)
PROFILED = ("hybrid", "hybrid_node_distance (bfs)")  # the modes with targets

# Short questions an agent might ask, from the workload's vocabulary ({p}: a person).
TEMPLATES = (
    "where does {p} live",
    "where does {p} work",
    "who does {p} know",
    "what does {p} like",
    "what does {p} use",
    "{p} lives in {city}",
    "does {p} work at {company}",
    "{p} knows {q}",
    "{p} likes {thing}",
    "{p} {thing}",
)


def summary(samples: Sequence[float]) -> dict[str, float]:
    return {
        "median_ms": statistics.median(samples) if samples else 0.0,
        "p95_ms": percentile(samples, 0.95),
        "mean_ms": statistics.fmean(samples) if samples else 0.0,
        "max_ms": max(samples, default=0.0),
    }


def rss_mb() -> float:
    """The current resident set size (Linux ``/proc``); the peak elsewhere."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return peak_rss_mb()


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


# -- the store ------------------------------------------------------------------


def cache_path(facts: int, entities: int, seed: int) -> Path:
    """Where the store for these options is kept between runs: keyed by size,
    seed, the schema version and the embedder, so a change to either rebuilds."""
    from kronograph.store.sqlite.schema import MIGRATIONS  # only for the cache key

    embedder = HashingEmbedder().name.replace(":", "-")
    return CACHE / f"facts{facts}-entities{entities}-seed{seed}-schema{MIGRATIONS[-1][0]}-{embedder}.db"


def build(path: Path, facts: int, entities: int, seed: int) -> None:
    """Load the core workload into a new store at ``path`` (built beside it,
    then renamed). A build that was stopped goes on where its store ends: the
    same sequence of facts, each added through ``add_fact`` as before."""
    partial = path.with_name(path.name + ".partial")
    path.parent.mkdir(parents=True, exist_ok=True)
    done, clock_start = built_so_far(partial, facts)
    if done == 0:
        for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            leftover.unlink(missing_ok=True)
    else:
        print(f"  going on from {done:,} facts in {partial}", file=sys.stderr, flush=True)
    clock = StepClock(clock_start, timedelta(milliseconds=10))
    memory = Memory(partial, clock=clock, relation_types=RELATION_TYPES)
    try:
        loaded = load(memory, random.Random(seed), pools(entities), facts, start=done)
    finally:
        memory.close()
    with closing(sqlite3.connect(partial)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    Path(f"{partial}-wal").unlink(missing_ok=True)
    Path(f"{partial}-shm").unlink(missing_ok=True)
    partial.rename(path)
    print(f"  built in {loaded['seconds']:.1f} s ({loaded['facts_per_s']:,.0f} add_fact/s)", file=sys.stderr)
    per = hundreds(loaded["block_facts_per_s"])
    if len(per) > 1:
        print(f"  add_fact/s per 100,000 facts: {', '.join(f'{x:,.0f}' for x in per)};"
              f" slowest / fastest {min(per) / max(per):.2f}", file=sys.stderr)


def built_so_far(partial: Path, facts: int) -> tuple[int, datetime]:
    """How many of the workload's facts a stopped build's store holds, and a
    transaction time after its last write. The valid times rise with the
    fact's number, so the latest one names it; going on from there adds that
    fact again, which merges with itself."""
    if not partial.exists():
        return 0, CLOCK_START
    with closing(sqlite3.connect(partial)) as conn:
        latest, created = conn.execute(
            "SELECT MAX(valid_at), MAX(created_at) FROM facts WHERE group_id = ?", (GROUP,)
        ).fetchone()
    if latest is None:
        return 0, CLOCK_START
    slot = VALID_SPAN / facts
    valid = datetime.fromtimestamp(latest / 1_000_000, tz=UTC)
    return int((valid - VALID_START) / slot), datetime.fromtimestamp(created / 1_000_000, tz=UTC)


def hundreds(blocks: Sequence[float], per: int = 10) -> list[float]:
    """add_fact/s per 100,000 facts from the loader's per-10,000 rates (a
    harmonic mean: the time each 10,000 took, added up)."""
    return [len(part) / sum(1 / x for x in part) for part in
            (blocks[i : i + per] for i in range(0, len(blocks), per)) if len(part) == per]


def ensure_store(path: Path, facts: int, entities: int, seed: int, rebuild: bool) -> bool:
    """Build the store unless it exists (in a child process, so that the build's
    memory stays out of this process's peak RSS); True when it was built now."""
    if path.exists() and not rebuild:
        print(f"reusing {path}", file=sys.stderr, flush=True)
        return False
    for old in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        old.unlink(missing_ok=True)
    print(f"building {facts:,} facts over {entities:,} entities into {path}", file=sys.stderr, flush=True)
    cmd = [sys.executable, __file__, "--build-into", str(path), "--facts", str(facts),
           "--entities", str(entities), "--seed", str(seed)]
    subprocess.run(cmd, check=True)
    return True


def store_facts(path: Path) -> dict[str, Any]:
    """Counts and time ranges of the store, read with plain sqlite3 (before opening it)."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        n, current, lo_c, hi_c, lo_v, hi_v = conn.execute(
            "SELECT COUNT(*), SUM(invalid_at IS NULL AND expired_at IS NULL), MIN(created_at), MAX(created_at),"
            " MIN(valid_at), MAX(valid_at) FROM facts WHERE group_id = ?",
            (GROUP,),
        ).fetchone()
        vectors = conn.execute(
            "SELECT COUNT(*) FROM facts WHERE group_id = ? AND embedding IS NOT NULL", (GROUP,)
        ).fetchone()[0]
    size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())

    def at(micros: int) -> datetime:
        return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)

    return {
        "facts": n, "current": current, "with_vector": vectors, "db_bytes": size,
        "known_range": (at(lo_c), at(hi_c)), "valid_range": (at(lo_v), at(hi_v)),
    }


# -- queries --------------------------------------------------------------------


def between(rng: random.Random, lo: datetime, hi: datetime) -> datetime:
    return lo + timedelta(microseconds=rng.randint(0, (hi - lo) // timedelta(microseconds=1)))


def make_queries(
    n: int, entities: int, seed: int, known: tuple[datetime, datetime], valid: tuple[datetime, datetime]
) -> tuple[list[Query], list[float]]:
    """``n`` seeded queries with their vectors; and the embedding time of each (ms)."""
    rng = random.Random(seed + 1)
    names = pools(entities)
    embedder = HashingEmbedder()
    embedder.embed_sync(["warm up the hashing embedder"])
    queries: list[Query] = []
    embed_ms: list[float] = []
    for _ in range(n):
        person, other = rng.sample(names["people"], 2)
        text = rng.choice(TEMPLATES).format(
            p=person, q=other, city=rng.choice(names["cities"]), company=rng.choice(names["companies"]),
            thing=rng.choice(names["things"]),
        )
        t0 = time.perf_counter()
        vector = embedder.embed_sync([text])[0]
        embed_ms.append((time.perf_counter() - t0) * 1000)
        queries.append(Query(text, person, vector.tolist(), between(rng, *valid), between(rng, *known)))
    return queries, embed_ms


# -- timing ---------------------------------------------------------------------


def run_mode(
    memory: Memory, mode: Mode, queries: Sequence[Query], profile: cProfile.Profile | None
) -> dict[str, Any]:
    """Warm-up, then one timed search per query; latencies and what came back."""

    def search(q: Query) -> Any:
        return memory.search(
            GROUP, q.text, scopes=SCOPES, recipe=mode.recipe, query_vector=q.vector, **mode.kwargs(q)
        )

    for q in queries[:WARMUP]:
        search(q)
    samples: list[float] = []
    hits = left_out = person_first = 0
    for q in queries:
        if profile is not None:
            profile.enable()
        t0 = time.perf_counter()
        results = search(q)
        elapsed = time.perf_counter() - t0
        if profile is not None:
            profile.disable()
        samples.append(elapsed * 1000)
        hits += len(results.facts)
        left_out += results.left_out
        person_first += bool(results.facts) and q.person in results.facts[0].item.fact
    n = len(queries)
    return {
        **summary(samples),
        "mean_hits": hits / n,
        "mean_left_out": left_out / n,
        "top_hit_has_person": person_first / n,
    }


def subject_facts(memory: Memory, queries: Sequence[Query]) -> dict[str, Any]:
    """``facts(subject=...)`` of each query's person (what an agent asks about
    one entity), after a warm-up: its latency and rows."""
    for q in queries[:WARMUP]:
        memory.facts(GROUP, subject=q.person)
    samples: list[float] = []
    found = 0
    for q in queries:
        t0 = time.perf_counter()
        found += len(memory.facts(GROUP, subject=q.person))
        samples.append((time.perf_counter() - t0) * 1000)
    return {**summary(samples), "mean_rows": found / len(queries)}


def exact_neighbours(path: Path, vectors: np.ndarray, k: int) -> list[list[tuple[str, float]]]:
    """Each query vector's ``k`` best facts of the group by float32 dot product
    (brute force over the rows, a chunk at a time): the truth for recall."""
    best: list[list[tuple[str, float]]] = [[] for _ in range(len(vectors))]
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        cur = conn.execute("SELECT uuid, embedding FROM facts WHERE group_id = ? AND embedding IS NOT NULL", (GROUP,))
        while rows := cur.fetchmany(65_536):
            matrix = np.frombuffer(b"".join(b for _, b in rows), dtype=np.float32).reshape(len(rows), -1)
            scores = vectors @ matrix.T
            for i, row in enumerate(scores):
                top = np.argpartition(-row, min(k, len(row)) - 1)[:k]
                merged = best[i] + [(rows[j][0], float(row[j])) for j in top]
                best[i] = sorted(merged, key=lambda h: -h[1])[:k]
    return best


def vector_quality(memory: Memory, path: Path, queries: Sequence[Query]) -> dict[str, Any]:
    """recall@10 of the store's vector search against brute force, and how many
    of hybrid search's top 10 facts stay the same when its cosine candidates
    come from brute force instead (what an approximate index changes)."""
    vectors = np.array([q.vector for q in queries], dtype=np.float32)
    deep = exact_neighbours(path, vectors, 800)  # hybrid asks up to candidates x widening
    store = memory.store
    found = 0
    for q, v, truth in zip(queries, vectors, deep, strict=True):
        got = memory._portal.call(store.search_vectors(GROUP, "facts", v, 10))  # noqa: SLF001
        bar = truth[min(10, len(truth)) - 1][1] - 1e-6  # a tie with the 10th counts as found
        exact = dict(truth)
        found += sum(1 for u, _ in got if exact.get(u, -1.0) >= bar)
    by_vector = {v.tobytes(): truth for v, truth in zip(vectors, deep, strict=True)}

    async def exact(group_id: str, scope: str, vector: np.ndarray, limit: int) -> list[tuple[str, float]]:
        return by_vector[np.asarray(vector, dtype=np.float32).tobytes()][:limit]

    def top10(q: Query) -> list[str]:
        return [h.item.uuid for h in memory.search(GROUP, q.text, scopes=SCOPES, query_vector=q.vector).facts[:10]]

    same = total = 0
    for q in queries:
        mine = top10(q)
        store.search_vectors = exact  # type: ignore[method-assign]
        try:
            theirs = top10(q)
        finally:
            del store.search_vectors
        same += len(set(mine) & set(theirs))
        total += max(len(theirs), 1)
    held = getattr(store, "_vectors", None)
    table = held._tables.get(("facts", GROUP)) if held is not None else None  # noqa: SLF001
    return {
        "approximate": bool(table is not None and table.approximate),
        "recall_at_10": found / (10 * len(queries)),
        "hybrid_top10_same": same / total,
    }


def copy_to_postgres(path: Path, server: BenchStore) -> tuple[str, int]:
    """Copy the SQLite store into a new PostgreSQL database (``kronograph
    migrate``, checked); its URL and size."""
    from kronograph.migrate import migrate_memory_sync

    url = server.fresh_database()
    print(f"copying {path.name} into PostgreSQL", file=sys.stderr, flush=True)
    report = migrate_memory_sync(path, url)
    if not report.ok:
        raise SystemExit(f"the copy into PostgreSQL does not check out: {report}")
    import psycopg

    with psycopg.connect(url) as conn:
        size = int(conn.execute("SELECT pg_database_size(current_database())").fetchone()[0])  # type: ignore[index]
    return url, size


def run_size(args: argparse.Namespace, facts: int, profile: bool, server: BenchStore) -> dict[str, Any]:
    path = args.db if args.db is not None else cache_path(facts, args.entities, args.seed)
    built = ensure_store(path, facts, args.entities, args.seed, args.rebuild)
    stats = store_facts(path)
    queries, embed_ms = make_queries(args.queries, args.entities, args.seed, stats["known_range"], stats["valid_range"])
    spec: str | Path = path
    if server.kind == "postgres":
        spec, stats["db_bytes"] = copy_to_postgres(path, server)

    rss_before = rss_mb()
    t0 = time.perf_counter()
    memory = Memory(spec, relation_types=RELATION_TYPES)
    open_ms = (time.perf_counter() - t0) * 1000
    profiler = cProfile.Profile() if profile else None
    try:
        first = queries[0]
        t0 = time.perf_counter()
        memory.search(GROUP, first.text, scopes=SCOPES, query_vector=first.vector)
        cold_ms = (time.perf_counter() - t0) * 1000
        rss_loaded = rss_mb()
        t0 = time.perf_counter()
        memory.search(GROUP, first.text, scopes=SCOPES, query_vector=first.vector)
        second_ms = (time.perf_counter() - t0) * 1000
        latency: dict[str, dict[str, Any]] = {}
        for mode in MODES:
            print(f"  {facts:,} facts: {mode.name}", file=sys.stderr, flush=True)
            latency[mode.name] = run_mode(memory, mode, queries, profiler if mode.name in PROFILED else None)
        print(f"  {facts:,} facts: facts(subject)", file=sys.stderr, flush=True)
        subject = subject_facts(memory, queries)
        rss_searched = rss_mb()
        print(f"  {facts:,} facts: recall@10 against brute force", file=sys.stderr, flush=True)
        quality = vector_quality(memory, path, queries)
    finally:
        memory.close()
    stats["known_range"] = [t.isoformat() for t in stats["known_range"]]
    stats["valid_range"] = [t.isoformat() for t in stats["valid_range"]]
    out: dict[str, Any] = {
        "facts_loaded": facts,
        "db": str(path),
        "built_now": built,
        "store": stats,
        "queries": len(queries),
        "examples": [q.text for q in queries[:5]],
        "embed_ms": summary(embed_ms),
        "open_ms": open_ms,
        "cold_first_search_ms": cold_ms,
        "second_search_ms": second_ms,
        "rss_mb": {"before_open": rss_before, "after_cold_load": rss_loaded, "after_searches": rss_searched,
                   "peak_so_far": peak_rss_mb()},
        "latency": latency,
        "facts_subject": subject,
        "vectors": quality,
    }
    if profiler is not None:
        buf = io.StringIO()
        stats_ = pstats.Stats(profiler, stream=buf)
        stats_.sort_stats("cumulative").print_stats(30)
        stats_.sort_stats("tottime").print_stats(15)
        out["profile"] = buf.getvalue()
    return out


def checks(results: Sequence[dict[str, Any]]) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for r in results:
        if r["facts_loaded"] == MILLION:
            hybrid, at = r["latency"]["hybrid"], f"at {MILLION:,} facts"
            out[f"hybrid median <= {MILLION_HYBRID_MEDIAN_MS:g} ms {at}"] = (
                hybrid["median_ms"] <= MILLION_HYBRID_MEDIAN_MS)
            out[f"hybrid p95 <= {MILLION_HYBRID_P95_MS:g} ms {at}"] = hybrid["p95_ms"] <= MILLION_HYBRID_P95_MS
            out[f"facts(subject) median <= {MILLION_SUBJECT_MS:g} ms {at}"] = (
                r["facts_subject"]["median_ms"] <= MILLION_SUBJECT_MS)
            out[f"first search after opening <= {MILLION_FIRST_SEARCH_MS:g} ms {at}"] = (
                r["cold_first_search_ms"] <= MILLION_FIRST_SEARCH_MS)
            out[f"RSS after the searches <= {MILLION_RSS_MB:g} MiB {at}"] = (
                r["rss_mb"]["after_searches"] <= MILLION_RSS_MB)
        if r["facts_loaded"] != TARGET_SIZE:
            continue
        hybrid, bfs = r["latency"]["hybrid"], r["latency"]["hybrid_node_distance (bfs)"]
        at = f"at {TARGET_SIZE:,} facts"
        out[f"hybrid median <= {TARGET_HYBRID_MEDIAN_MS:g} ms {at}"] = hybrid["median_ms"] <= TARGET_HYBRID_MEDIAN_MS
        out[f"hybrid p95 <= {TARGET_HYBRID_P95_MS:g} ms {at}"] = hybrid["p95_ms"] <= TARGET_HYBRID_P95_MS
        out[f"hybrid + bfs from a centre median <= {TARGET_BFS_MEDIAN_MS:g} ms {at}"] = (
            bfs["median_ms"] <= TARGET_BFS_MEDIAN_MS
        )
    return out


def report(r: dict[str, Any]) -> None:
    s = r["store"]
    print(f"\n{r['facts_loaded']:,} facts  ({'built now' if r['built_now'] else 'reused'}: {r['db']})")
    print(f"  store   {s['db_bytes'] / 2**20:.1f} MiB  facts {s['facts']:,} (current {s['current']:,},"
          f" with a vector {s['with_vector']:,})")
    print(f"  queries {r['queries']}, e.g. " + "; ".join(repr(t) for t in r["examples"][:3]))
    e = r["embed_ms"]
    print(f"  query embedding (untimed below)  median {e['median_ms']:.3f} ms  p95 {e['p95_ms']:.3f} ms")
    print(f"  open {r['open_ms']:.1f} ms;  first search (cold: loads the group's vectors)"
          f" {r['cold_first_search_ms']:.1f} ms, the same search again {r['second_search_ms']:.1f} ms")
    m = r["rss_mb"]
    print(f"  RSS {m['before_open']:.0f} MiB before open -> {m['after_cold_load']:.0f} MiB after the cold load"
          f" -> {m['after_searches']:.0f} MiB after the timed searches; peak so far {m['peak_so_far']:.0f} MiB")
    f = r["facts_subject"]
    print(f"  facts(subject) median {f['median_ms']:.2f} ms  p95 {f['p95_ms']:.2f} ms  ({f['mean_rows']:.1f} facts)")
    v = r["vectors"]
    print(f"  vector search {'HNSW (usearch)' if v['approximate'] else 'exact'}: recall@10 {v['recall_at_10']:.3f}"
          f" against brute force; hybrid top 10 the same as with brute-force candidates: {v['hybrid_top10_same']:.1%}")
    print(f"\n  {'fact search':<30}{'median ms':>10}{'p95 ms':>10}{'mean ms':>10}{'max ms':>10}"
          f"{'hits':>7}{'left out':>10}{'top=person':>12}")
    for name, x in r["latency"].items():
        print(f"  {name:<30}{x['median_ms']:>10.2f}{x['p95_ms']:>10.2f}{x['mean_ms']:>10.2f}{x['max_ms']:>10.2f}"
              f"{x['mean_hits']:>7.1f}{x['mean_left_out']:>10.1f}{x['top_hit_has_person']:>12.0%}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--facts", default=",".join(str(n) for n in SIZES),
                    help="comma-separated store sizes in facts (default 10000,100000)")
    ap.add_argument("--entities", type=int, default=10_000, help="distinct entities (default 10000, as core.py)")
    ap.add_argument("--queries", type=int, default=100, help="timed searches per mode (default 100)")
    ap.add_argument("--seed", type=int, default=42, help="workload and query seed (default 42)")
    ap.add_argument("--db", type=Path,
                    help="SQLite file to use for a single --facts size: built there when missing, reused when"
                         f" present (default: a cached file per size and seed under {CACHE})")
    ap.add_argument("--rebuild", action="store_true", help="build the store again even when it exists")
    ap.add_argument("--store", default="sqlite",
                    help=STORE_HELP + "; on PostgreSQL the SQLite store is built (or reused), then copied"
                    " into a new database with kronograph migrate")
    ap.add_argument("--profile", action="store_true",
                    help="cProfile the timed hybrid and hybrid_node_distance searches (sync API); top functions")
    ap.add_argument("--ann-threshold", type=int,
                    help="facts per group from which SQLite searches an HNSW index instead of exactly"
                    " (default: the store's, kronograph.store.sqlite.vector_table.ANN_THRESHOLD)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON (instead of the tables)")
    ap.add_argument("--build-into", type=Path, help=argparse.SUPPRESS)  # the child process that builds a store
    args = ap.parse_args(argv)
    try:
        sizes = [int(n) for n in args.facts.split(",") if n.strip()]
    except ValueError:
        ap.error(f"--facts: expected comma-separated integers, got {args.facts!r}")
    if not sizes or min(sizes) < 1:
        ap.error("--facts: give at least one positive size")
    if args.build_into is not None:
        build(args.build_into, sizes[0], args.entities, args.seed)
        return 0
    if args.db is not None and len(sizes) != 1:
        ap.error("--db names one store: give a single --facts size with it")
    if args.queries <= WARMUP:
        ap.error(f"--queries must be more than the {WARMUP} warm-up searches")

    if args.ann_threshold is not None:
        from kronograph.store.sqlite import vector_table

        vector_table.ANN_THRESHOLD = args.ann_threshold
    revision = source_revision()
    server = open_bench_store(args.store, Path("unused.db"))
    try:
        results = [run_size(args, n, args.profile, server) for n in sizes]
    finally:
        server.close()
    profiles = {r["facts_loaded"]: r.pop("profile", "") for r in results}
    ok = checks(results)
    machine = {"python": platform.python_version(), server.kind: server.version, "cpus": os.cpu_count(),
               "platform": platform.platform(), "numpy": np.__version__}
    if args.json:
        options = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
        out = {"kronograph": revision, "machine": machine, "args": options, "profiled": args.profile,
               "results": results, "peak_rss_mb": peak_rss_mb(), "checks": ok}
        print(json.dumps(out, indent=2))
    else:
        print(f"\nkronograph search benchmark  (kronograph {revision}, python {machine['python']},"
              f" {server.kind} {server.version}, numpy {machine['numpy']}, {machine['cpus']} cpus, seed {args.seed})")
        print(f"one group, {server.kind} store, {args.entities:,} entities,"
              f" offline embedder ({HashingEmbedder().name}), scopes={SCOPES}, limit 10,"
              f" {WARMUP} warm-up searches per mode")
        if args.profile:
            print("  (profiled: cProfile inflates the hybrid and node-distance times below)")
        for r in results:
            report(r)
        print(f"\npeak RSS {peak_rss_mb():.0f} MiB (this process; stores are built in a child process)")
        if not ok:
            print(f"(no targets checked: they apply at {TARGET_SIZE:,} and {MILLION:,} facts)")
        for name, passed in ok.items():
            print(f"{'PASS' if passed else 'FAIL'}  {name}")
    if args.profile:
        where = sys.stderr if args.json else sys.stdout
        for size, text in profiles.items():
            print(f"\n== profile at {size:,} facts: {', '.join(PROFILED)} ==\n{text}", file=where)
    return 0 if all(ok.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
