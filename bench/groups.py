"""Many-groups benchmark for kronograph: one group's reads among 10,000 others.

Builds (or reuses) a SQLite file of 10,000 groups of 100 facts each: a few
template groups are loaded through ``add_fact`` with the workload of
``bench/core.py`` (a small entity pool per group), then copied row for row
under new group ids and uuids (SQL, in batches of interleaved groups, the
full-text triggers firing as for any insert), which takes a minute where a
million ``add_fact`` calls would take hours here. The same templates alone
make a store of 10 groups. In each store it times, over random groups (a
new one each call, as a service with many tenants sees them): hybrid fact
search, ``facts(subject)`` and ``timeline``; the first search in a group not
touched since the store was opened (cold), and the same search again. Exit
status 0 when search p95 is within target and the many-group store is no
slower than the few-group one beyond the noise (see ``--help``).
Run ``.venv/bin/python bench/groups.py --help`` for the options; see bench/README.md.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import os
import platform
import pstats
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from datetime import timedelta
from pathlib import Path
from typing import Any

from kronograph import HashingEmbedder, Memory

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import percentile, source_revision  # noqa: E402  (a sibling script)
from core import (  # noqa: E402  (a sibling script)
    CLOCK_START,
    FACTS_PER_EPISODE,
    RELATION_TYPES,
    VALID_SPAN,
    VALID_START,
    WORKLOAD,
    StepClock,
    pools,
)
from stores import STORE_HELP, BenchStore, open_bench_store  # noqa: E402

CACHE = Path(tempfile.gettempdir()) / "kronograph-bench-groups"
GROUPS, FEW, FACTS, ENTITIES, TEMPLATES = 10_000, 10, 100, 40, 10
SCOPES = ("facts",)
WARMUP = 20
TARGET_SEARCH_P95_MS = 15.0
TARGET_RATIO = 1.5  # many-group p95 over few-group p95: "unaffected", with room for the noise of a shared machine
TEMPLATES_Q = ("where does {p} live", "where does {p} work", "who does {p} know", "what does {p} like",
               "{p} lives in {city}", "does {p} work at {company}", "{p} knows {q}", "{p} likes {thing}")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def gid(i: int) -> str:
    return f"g{i:05d}"


def summary(samples: tuple[list[float], list[float]]) -> dict[str, float]:
    """Wall-clock median / p95 / max, and the median CPU time of this process
    (what a call costs, apart from waiting for a CPU on a shared machine)."""
    wall, cpu = samples
    return {
        "median_ms": statistics.median(wall) if wall else 0.0,
        "p95_ms": percentile(wall, 0.95),
        "max_ms": max(wall, default=0.0),
        "cpu_median_ms": statistics.median(cpu) if cpu else 0.0,
        "n": len(wall),
    }


# -- the stores -----------------------------------------------------------------


def cache_path(kind: str, groups: int, facts: int, templates: int, seed: int) -> Path:
    """Keyed by shape, seed, schema version and embedder: a change to any rebuilds."""
    from kronograph.store.sqlite.schema import MIGRATIONS  # only for the cache key

    embedder = HashingEmbedder().name.replace(":", "-")
    return CACHE / (f"{kind}-groups{groups}-facts{facts}-templates{templates}-seed{seed}"
                    f"-schema{MIGRATIONS[-1][0]}-{embedder}.db")


def load_templates(path: Path, templates: int, facts: int, entities: int, seed: int) -> float:
    """Groups g00000.. through ``add_fact``, core.py's workload each (its
    relation mix, people who move and change jobs); seconds taken."""
    relations = list(WORKLOAD)
    weights = [WORKLOAD[r][0] for r in relations]
    names = pools(entities)
    rng = random.Random(seed)
    clock = StepClock(CLOCK_START, timedelta(milliseconds=10))
    memory = Memory(path, clock=clock, relation_types=RELATION_TYPES)
    t0 = time.perf_counter()
    try:
        for g in range(templates):
            for i in range(facts):
                relation = rng.choices(relations, weights)[0]
                _, pool, label = WORKLOAD[relation]
                subject, obj = rng.choice(names["people"]), rng.choice(names[pool])
                while obj == subject:
                    obj = rng.choice(names[pool])
                memory.add_fact(
                    gid(g), subject, relation, obj, valid_at=VALID_START + VALID_SPAN * ((i + rng.random()) / facts),
                    episode_id=f"ep-{i // FACTS_PER_EPISODE:06d}", subject_labels=("Person",), object_labels=(label,),
                )
    finally:
        memory.close()
    return time.perf_counter() - t0


def _group_tables(conn: sqlite3.Connection) -> list[tuple[str, list[str], str | None, bool]]:
    """(table, columns to copy, its integer key left to SQLite, has rowid) of
    every ordinary table with a group_id column."""
    out = []
    for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE"
                                  " 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%_fts_%'"):
        info = conn.execute(f"PRAGMA table_info('{name}')").fetchall()
        cols = [r[1] for r in info]
        if "group_id" not in cols:
            continue
        keys = [r for r in info if r[5]]
        auto = keys[0][1] if len(keys) == 1 and keys[0][2].upper() == "INTEGER" else None
        out.append((name, [c for c in cols if c != auto], auto, "WITHOUT ROWID" not in sql.upper()))
    return out


def clone(path: Path, templates: int, groups: int, batch: int = 100) -> float:
    """Groups ``templates``..``groups - 1`` as copies of the templates (group
    ``g`` of template ``g % templates``) under new uuids: the time-ordered
    prefix kept, the rest a hash of the copy. Rows of a batch of copies are
    interleaved, as groups written at the same time are."""

    def new_uuids(text: Any, copy: int) -> Any:
        if not isinstance(text, str) or "-" not in text:
            return text
        return _UUID.sub(lambda m: m[0][:24] + hashlib.md5(f"{m[0]}{copy}".encode()).hexdigest()[:12], text)

    t0 = time.perf_counter()
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.create_function("kg_new_uuids", 2, new_uuids, deterministic=True)
        conn.create_function("kg_gid", 2, lambda g, copy: gid(copy * templates + int(g[1:])), deterministic=True)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("CREATE TEMP TABLE copies(k INTEGER PRIMARY KEY)")
        tables = _group_tables(conn)
        texts = {}
        for name, cols, _, _ in tables:  # only the columns holding a uuid are rewritten
            texts[name] = {c for c in cols if c != "group_id" and conn.execute(
                f"SELECT 1 FROM {name} WHERE CAST({c} AS TEXT) GLOB '*[0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-*'"
                " LIMIT 1").fetchone()}
        copies = range(1, -(-groups // templates))
        for start in range(0, len(copies), batch):
            ks = [k for k in copies[start:start + batch]]
            conn.execute("BEGIN")
            conn.execute("DELETE FROM copies")
            conn.executemany("INSERT INTO copies VALUES (?)", [(k,) for k in ks])
            last = groups - 1
            for name, cols, _, has_rowid in tables:
                exprs = ", ".join("kg_gid(t.group_id, c.k)" if col == "group_id"
                                  else f"kg_new_uuids(t.{col}, c.k)" if col in texts[name] else f"t.{col}"
                                  for col in cols)
                order = " ORDER BY t.rowid, c.k" if has_rowid else ""
                conn.execute(
                    f"INSERT INTO {name}({', '.join(cols)}) SELECT {exprs} FROM {name} t CROSS JOIN copies c"
                    f" WHERE t.group_id < ? AND c.k * ? + CAST(substr(t.group_id, 2) AS INTEGER) <= ?{order}",
                    (gid(templates), templates, last),
                )
            conn.execute("COMMIT")
            done = min(groups, (ks[-1] + 1) * templates)
            print(f"  {done:>6,} groups  {time.perf_counter() - t0:6.1f} s", file=sys.stderr, flush=True)
        conn.execute("ANALYZE")  # the statistics of the store as it now is (PRAGMA optimize may skip them)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return time.perf_counter() - t0


def ensure_stores(args: argparse.Namespace) -> dict[str, Path]:
    """The few-group store (the templates) and the many-group one (a copy of
    it, the rest cloned), built when missing; their paths."""
    few = cache_path("few", FEW, args.facts, args.templates, args.seed)
    many = cache_path("many", args.groups, args.facts, args.templates, args.seed)
    if args.rebuild:
        for p in (few, many):
            for old in (p, Path(f"{p}-wal"), Path(f"{p}-shm")):
                old.unlink(missing_ok=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    for path, count in ((few, FEW), (many, args.groups)):
        if path.exists():
            print(f"reusing {path}", file=sys.stderr, flush=True)
            continue
        partial = path.with_name(path.name + ".partial")
        for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            leftover.unlink(missing_ok=True)
        print(f"building {count:,} groups of {args.facts} facts into {path}", file=sys.stderr, flush=True)
        loaded = min(args.templates, count)
        seconds = load_templates(partial, loaded, args.facts, args.entities, args.seed)
        print(f"  {loaded} template groups through add_fact in {seconds:.1f} s", file=sys.stderr)
        seconds = clone(partial, loaded, count)
        print(f"  cloned to {count:,} groups in {seconds:.1f} s", file=sys.stderr)
        for extra in (Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            extra.unlink(missing_ok=True)
        partial.rename(path)
    return {"few": few, "many": many}


def store_stats(path: Path) -> dict[str, Any]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        count = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                 for t in ("groups", "facts", "entities", "episodes")}
    return {**count, "db_bytes": path.stat().st_size}


# -- timing ---------------------------------------------------------------------


class Asker:
    """Seeded calls on random groups: a query from the workload's vocabulary
    (the people of a group are those of every group: one entity pool)."""

    def __init__(self, memory: Memory, groups: int, entities: int, seed: int) -> None:
        self.memory, self.groups, self.rng = memory, groups, random.Random(seed)
        self.names = pools(entities)
        self.embedder = HashingEmbedder()
        self.untouched = list(range(groups))
        self.rng.shuffle(self.untouched)

    def group(self, fresh: bool = False) -> str:
        """A random group; ``fresh``: one no call of this run has touched."""
        if fresh and self.untouched:
            return gid(self.untouched.pop())
        return gid(self.rng.randrange(self.groups))

    def query(self) -> tuple[str, list[float]]:
        n, rng = self.names, self.rng
        person, other = rng.sample(n["people"], 2)
        text = rng.choice(TEMPLATES_Q).format(p=person, q=other, city=rng.choice(n["cities"]),
                                              company=rng.choice(n["companies"]), thing=rng.choice(n["things"]))
        return text, self.embedder.embed_sync([text])[0].tolist()

    def search(self, group: str) -> Callable[[], Any]:
        text, vector = self.query()  # embedded outside the timing (query_vector=)
        return lambda: self.memory.search(group, text, scopes=SCOPES, query_vector=vector)

    def facts(self, group: str) -> Callable[[], Any]:
        person = self.rng.choice(self.names["people"])
        return lambda: self.memory.facts(group, subject=person)

    def timeline(self, group: str) -> Callable[[], Any]:
        person = self.rng.choice(self.names["people"])
        return lambda: self.memory.timeline(group, person)


def timed(
    calls: list[Callable[[], Any]], profile: cProfile.Profile | None = None
) -> tuple[list[float], list[float]]:
    """Each call's wall-clock and CPU time (ms)."""
    wall, cpu = [], []
    for call in calls:
        if profile is not None:
            profile.enable()
        c0, t0 = time.process_time(), time.perf_counter()
        call()
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        if profile is not None:
            profile.disable()
    return wall, cpu


def run_store(spec: str | Path, groups: int, args: argparse.Namespace, profile: bool) -> dict[str, Any]:
    t0 = time.perf_counter()
    memory = Memory(spec, relation_types=RELATION_TYPES)
    open_ms = (time.perf_counter() - t0) * 1000
    ask = Asker(memory, groups, args.entities, args.seed + 1)
    profiler = cProfile.Profile() if profile else None
    q = args.queries
    try:
        # cold: the first call in a group not touched since the store was opened
        cold_groups = [ask.group(fresh=True) for _ in range(min(q, groups))]
        cold_calls = [ask.search(g) for g in cold_groups]
        cold = timed(cold_calls)
        again = timed(cold_calls)  # the same searches again, each group now read once
        timed([ask.search(ask.group()) for _ in range(WARMUP)])
        out = {
            "open_ms": open_ms,
            "search, first in a group (cold)": summary(cold),
            "search, the same again": summary(again),
            "search, a random group each": summary(timed([ask.search(ask.group()) for _ in range(q)], profiler)),
            "facts(subject), a random group each": summary(timed([ask.facts(ask.group()) for _ in range(q)])),
            "timeline(entity), a random group each": summary(timed([ask.timeline(ask.group()) for _ in range(q)])),
        }
    finally:
        memory.close()
    if profiler is not None:
        buf = io.StringIO()
        stats = pstats.Stats(profiler, stream=buf)
        stats.sort_stats("cumulative").print_stats(30)
        stats.sort_stats("tottime").print_stats(15)
        out["profile"] = buf.getvalue()
    return out


def copy_to_postgres(path: Path, server: BenchStore) -> str:
    from kronograph.migrate import migrate_memory_sync

    url = server.fresh_database()
    print(f"copying {path.name} into PostgreSQL", file=sys.stderr, flush=True)
    report = migrate_memory_sync(path, url)
    if not report.ok:
        raise SystemExit(f"the copy into PostgreSQL does not check out: {report}")
    return url


def checks(results: dict[str, dict[str, Any]]) -> dict[str, bool]:
    key = "search, a random group each"
    many, few = results["many"][key]["p95_ms"], results["few"][key]["p95_ms"]
    return {
        f"search p95 <= {TARGET_SEARCH_P95_MS:g} ms among {results['many']['store']['groups']:,} groups":
            many <= TARGET_SEARCH_P95_MS,
        f"search p95 among many groups <= {TARGET_RATIO}x among {FEW}": many <= TARGET_RATIO * max(few, 1.0),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--groups", type=int, default=GROUPS, help=f"groups in the many-group store (default {GROUPS})")
    ap.add_argument("--facts", type=int, default=FACTS, help=f"facts per group (default {FACTS})")
    ap.add_argument("--entities", type=int, default=ENTITIES, help=f"entity pool per group (default {ENTITIES})")
    ap.add_argument("--templates", type=int, default=TEMPLATES,
                    help=f"groups loaded through add_fact, the rest copied from them (default {TEMPLATES})")
    ap.add_argument("--queries", type=int, default=200, help="timed calls of each kind (default 200)")
    ap.add_argument("--seed", type=int, default=42, help="workload and query seed (default 42)")
    ap.add_argument("--rebuild", action="store_true", help="build the stores again even when cached")
    ap.add_argument("--store", default="sqlite",
                    help=STORE_HELP + "; on PostgreSQL the SQLite stores are built (or reused), then copied with"
                    " kronograph migrate (slow for 10,000 groups)")
    ap.add_argument("--profile", action="store_true",
                    help="cProfile the random-group searches of the many-group store; top functions")
    ap.add_argument("--json", action="store_true", help="print the results as JSON (instead of the tables)")
    args = ap.parse_args(argv)
    if args.templates < FEW or args.groups < args.templates:
        ap.error(f"--templates must be at least {FEW} and at most --groups")

    revision = source_revision()
    paths = ensure_stores(args)
    server = open_bench_store(args.store, Path("unused.db"))
    results: dict[str, dict[str, Any]] = {}
    try:
        for name, count in (("few", FEW), ("many", args.groups)):
            spec: str | Path = paths[name]
            if server.kind == "postgres":
                spec = copy_to_postgres(paths[name], server)
            print(f"timing the {name}-group store", file=sys.stderr, flush=True)
            results[name] = {"store": store_stats(paths[name]), "db": str(paths[name]),
                             **run_store(spec, count, args, args.profile and name == "many")}
    finally:
        server.close()
    profile = results["many"].pop("profile", "")
    ok = checks(results)
    machine = {"python": platform.python_version(), server.kind: server.version, "cpus": os.cpu_count(),
               "platform": platform.platform()}
    if args.json:
        options = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
        print(json.dumps({"kronograph": revision, "machine": machine, "args": options, "results": results,
                          "checks": ok}, indent=2))
    else:
        print(f"\nkronograph many-groups benchmark  (kronograph {revision}, python {machine['python']},"
              f" {server.kind} {server.version}, {machine['cpus']} cpus, seed {args.seed})")
        print(f"groups of {args.facts} facts ({args.entities} entities each, {args.templates} templates through"
              f" add_fact, the rest copies), scopes={SCOPES}, hybrid, limit 10, {args.queries} calls each")
        if args.profile:
            print("  (profiled: cProfile inflates the many-group random-group search times)")
        for name, r in results.items():
            s = r["store"]
            print(f"\n{s['groups']:,} groups: {s['facts']:,} facts, {s['entities']:,} entities,"
                  f" {s['db_bytes'] / 2**20:.0f} MiB  ({r['db']}); open {r['open_ms']:.0f} ms")
            print(f"  {'':<40}{'median ms':>10}{'p95 ms':>10}{'max ms':>10}{'cpu ms':>9}")
            for label, x in r.items():
                if isinstance(x, dict) and "p95_ms" in x:
                    print(f"  {label:<40}{x['median_ms']:>10.2f}{x['p95_ms']:>10.2f}{x['max_ms']:>10.2f}"
                          f"{x['cpu_median_ms']:>9.2f}")
        print()
        for label, passed in ok.items():
            print(f"{'PASS' if passed else 'FAIL'}  {label}")
    if profile:
        print(f"\n== profile: searches on random groups of {args.groups:,} ==\n{profile}",
              file=sys.stderr if args.json else sys.stdout)
    return 0 if all(ok.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
