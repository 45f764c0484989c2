"""Core benchmark for kronograph: add_fact throughput and read latency.

Loads a seeded, realistic temporal workload (people who move, change jobs, know,
like and use things) into ONE group of a file-backed ``Memory`` through the
public ``add_fact`` API with no judge, then times ``facts`` (current, ``known_at``,
``as_of``) and ``timeline`` on random people. Depends only on kronograph and the
standard library. Exit status 0 when every target is met, 1 otherwise.
Run ``.venv/bin/python bench/core.py --help`` for the options; see bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from kronograph import Memory

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import source_revision  # noqa: E402  (a sibling script)
from stores import STORE_HELP, open_bench_store  # noqa: E402

GROUP = "bench"
BLOCK = 10_000  # report throughput per block of this many facts
FACTS_PER_EPISODE = 5
WARMUP = 20  # untimed queries of each kind first
CLOCK_START = datetime(2025, 1, 1, tzinfo=UTC)  # transaction time starts after every valid time
VALID_START, VALID_SPAN = datetime(2015, 1, 1, tzinfo=UTC), timedelta(days=3650)
TARGET_ADD_PER_S, TARGET_CURRENT_MS, TARGET_KNOWN_AT_MS = 2_000.0, 2.0, 5.0

RELATION_TYPES = {
    "LIVES_IN": {"cardinality": "many_to_one"},
    "WORKS_AT": {"cardinality": "many_to_one"},
    "KNOWS": {"cardinality": "many_to_many"},
    "LIKES": {"cardinality": "many_to_many"},
    "USES": {"cardinality": "many_to_many"},
}
# relation -> (share of facts, object pool, object label)
WORKLOAD = {
    "LIVES_IN": (0.15, "cities", "City"),
    "WORKS_AT": (0.15, "companies", "Company"),
    "KNOWS": (0.30, "people", "Person"),
    "LIKES": (0.20, "things", "Thing"),
    "USES": (0.20, "things", "Thing"),
}


class StepClock:
    """A deterministic transaction-time clock: each call advances by ``step``."""

    def __init__(self, start: datetime, step: timedelta) -> None:
        self.now, self.step = start, step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


def pools(entities: int) -> dict[str, list[str]]:
    """Entity names by pool: 7% companies, 3% cities, 5% things, the rest people."""
    shares = {"companies": ("Company", 0.07), "cities": ("City", 0.03), "things": ("Thing", 0.05)}
    counts = {pool: (noun, max(1, int(entities * share))) for pool, (noun, share) in shares.items()}
    counts["people"] = ("Person", max(2, entities - sum(n for _, n in counts.values())))
    return {pool: [f"{noun} {i:05d}" for i in range(n)] for pool, (noun, n) in counts.items()}


def load(
    memory: Memory, rng: random.Random, names: dict[str, list[str]], n: int, start: int = 0
) -> dict[str, Any]:
    """Add ``n`` facts in increasing valid time; returns timings and counts.
    With ``start``, the first ``start`` facts are drawn but not added (a
    build that was stopped goes on with the same sequence)."""
    relations = list(WORKLOAD)
    weights = [WORKLOAD[r][0] for r in relations]
    slot = VALID_SPAN / max(n, 1)  # valid times spread over the span, in order
    valid = VALID_START
    blocks: list[float] = []
    retired = merged = 0
    began = block_start = time.perf_counter()
    for i in range(n):
        valid = VALID_START + slot * (i + rng.random())
        relation = rng.choices(relations, weights)[0]
        _, pool, label = WORKLOAD[relation]
        subject = rng.choice(names["people"])
        obj = rng.choice(names[pool])
        while obj == subject:
            obj = rng.choice(names[pool])
        if i < start:
            continue
        if i == start:
            began = block_start = time.perf_counter()
        result = memory.add_fact(
            GROUP,
            subject,
            relation,
            obj,
            valid_at=valid,
            episode_id=f"ep-{i // FACTS_PER_EPISODE:06d}",
            subject_labels=("Person",),
            object_labels=(label,),
        )
        retired += len(result.retired)
        merged += result.merged
        if (i + 1) % BLOCK == 0 or i + 1 == n:
            now = time.perf_counter()
            blocks.append((i + 1 - max(start, i // BLOCK * BLOCK)) / (now - block_start))
            block_start = now
            print(f"  {i + 1:>8,} facts  {blocks[-1]:>8,.0f} facts/s", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - began
    return {
        "seconds": seconds,
        "facts_per_s": (n - start) / seconds,
        "block_facts_per_s": blocks,
        "retired": retired,
        "merged": merged,
        "valid_range": (VALID_START, valid),
    }


def timed(queries: int, make: Callable[[], Callable[[], list[Any]]]) -> dict[str, float]:
    """Median / p95 / mean latency in ms of ``queries`` calls (each made by ``make``,
    untimed), after a warm-up; ``mean_rows`` is the mean result length."""
    for _ in range(WARMUP):
        make()()
    samples: list[float] = []
    rows = 0
    for _ in range(queries):
        call = make()
        t0 = time.perf_counter()
        out = call()
        samples.append((time.perf_counter() - t0) * 1000)
        rows += len(out)
    samples.sort()
    return {
        "median_ms": statistics.median(samples),
        "p95_ms": samples[min(len(samples) - 1, int(0.95 * len(samples)))],
        "mean_ms": statistics.fmean(samples),
        "mean_rows": rows / queries,
    }


def between(rng: random.Random, lo: datetime, hi: datetime) -> datetime:
    return lo + timedelta(microseconds=rng.randint(0, (hi - lo) // timedelta(microseconds=1)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, default=100_000, help="facts to add (default 100000)")
    ap.add_argument("--entities", type=int, default=10_000, help="distinct entities (default 10000)")
    ap.add_argument("--queries", type=int, default=500, help="timed queries of each kind (default 500)")
    ap.add_argument("--db", type=Path, help="SQLite file to create and keep (default: a temp file)")
    ap.add_argument("--store", default="sqlite", help=STORE_HELP)
    ap.add_argument("--seed", type=int, default=42, help="workload seed (default 42)")
    ap.add_argument("--json", type=Path, help="also write the results to this file")
    args = ap.parse_args(argv)
    if args.db is not None and args.db.exists():
        ap.error(f"{args.db} exists; remove it or choose another --db")
    tmp = tempfile.TemporaryDirectory(prefix="kronograph-bench-")
    store = open_bench_store(args.store, args.db or Path(tmp.name) / "bench.db")

    revision = source_revision()  # now: the code this process imported
    rng = random.Random(args.seed)
    names = pools(args.entities)
    clock = StepClock(CLOCK_START, timedelta(milliseconds=10))
    print(f"loading {args.facts:,} facts over {args.entities:,} entities into {store.kind}", file=sys.stderr)
    memory = Memory(store.spec, clock=clock, relation_types=RELATION_TYPES)
    known_lo = clock.now
    loaded = load(memory, rng, names, args.facts)
    known_hi = clock.now  # queries below advance the clock further; known_at stays in the load's range
    valid_lo, valid_hi = loaded.pop("valid_range")

    def person() -> str:
        return rng.choice(names["people"])

    q, facts = args.queries, partial(memory.facts, GROUP)
    latency = {
        "facts(subject)": timed(q, lambda: partial(facts, subject=person())),
        "facts(subject, known_at)": timed(
            q, lambda: partial(facts, subject=person(), known_at=between(rng, known_lo, known_hi))
        ),
        "facts(subject, as_of)": timed(
            q, lambda: partial(facts, subject=person(), as_of=between(rng, valid_lo, valid_hi))
        ),
        "timeline(entity)": timed(q, lambda: partial(memory.timeline, GROUP, person())),
    }
    memory.close()
    stats = store.stats()
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    store.close()
    tmp.cleanup()

    median = {name: r["median_ms"] for name, r in latency.items()}
    checks = {
        f"add_fact >= {TARGET_ADD_PER_S:,.0f}/s": loaded["facts_per_s"] >= TARGET_ADD_PER_S,
        f"facts(subject) median <= {TARGET_CURRENT_MS} ms": median["facts(subject)"] <= TARGET_CURRENT_MS,
        f"known_at median <= {TARGET_KNOWN_AT_MS} ms": median["facts(subject, known_at)"] <= TARGET_KNOWN_AT_MS,
    }
    blocks = loaded["block_facts_per_s"]
    print(
        f"\nkronograph core benchmark  (kronograph {revision}, python {platform.python_version()},"
        f" {store.kind} {store.version}, {os.cpu_count()} cpus, seed {args.seed})"
    )
    print(f"load      {args.facts:,} facts, {args.entities:,} entities, 1 group, {store.kind} store, no judge")
    print(f"  total   {loaded['seconds']:.1f} s  =  {loaded['facts_per_s']:,.0f} add_fact/s")
    print(f"  per {BLOCK // 1000}k  " + "  ".join(f"{b:,.0f}" for b in blocks))
    if len(blocks) > 1:
        print(f"  last/first block: {blocks[-1] / blocks[0]:.2f}")
    print(f"  retired {loaded['retired']:,}  merged {loaded['merged']:,}")
    print(
        f"store     {stats['db_bytes'] / 2**20:.1f} MiB  facts {stats['facts']:,}  history rows"
        f" {stats['fact_history']:,} (superseded versions of {stats['facts_with_history']:,} facts)"
        f"  entities {stats['entities']:,}  episodes {stats['episodes']:,}"
    )
    print(f"memory    peak RSS {peak_rss_mb:.0f} MiB")
    print(f"\n{f'query ({q} each)':<28}{'median ms':>10}{'p95 ms':>10}{'mean ms':>10}{'rows':>8}")
    for name, r in latency.items():
        print(f"{name:<28}{r['median_ms']:>10.3f}{r['p95_ms']:>10.3f}{r['mean_ms']:>10.3f}{r['mean_rows']:>8.1f}")
    print()
    for name, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {name}")

    if args.json is not None:
        machine = {"python": platform.python_version(), store.kind: store.version, "cpus": os.cpu_count()}
        options = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
        result: dict[str, Any] = {"args": options, "kronograph": revision, "machine": machine, "load": loaded}
        result |= {"store": stats, "peak_rss_mb": peak_rss_mb, "latency": latency, "checks": checks}
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
