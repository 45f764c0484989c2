"""Ingestion benchmark for kronograph: what ``add_episode`` costs per episode.

Ingests a standard team-chat workload (``shared/data/workloads``) episode by
episode, in order, into a fresh memory through the public ``AsyncMemory.add_episode``
with an instant scripted model (``bench/scripted_model.py``), and reports per
episode: model calls and prompt characters (the user's main cost), the
framework's own time (``add_episode`` wall time minus the time spent inside the
model), peak memory, and how many facts the run retired compared with the
workload's expected state changes. After ingestion it builds the entity
summaries (``summarize_entities``) and the communities (``build_communities``)
once, with the same model, and reports their calls and prompt characters, in
all and per episode ingested, against their bounds: ceil(entities / 20) and
ceil(communities / 10) calls (at most 20), never a call per node per episode.
Exit status 0 when every target is met.
Run ``.venv/bin/python bench/ingest.py --help`` for the options; see bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import math
import os
import platform
import pstats
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from kronograph import AsyncMemory, EpisodeResult, Fact, Memory
from kronograph.maintain.communities import BATCH as COMMUNITY_BATCH
from kronograph.maintain.communities import MAX_MODEL_CALLS as COMMUNITY_MAX_CALLS
from kronograph.maintain.summaries import BATCH as SUMMARY_BATCH

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import percentile, source_revision  # noqa: E402  (a sibling script)
from scripted_model import ScriptedProvider  # noqa: E402  (a sibling script, not a package)
from stores import BenchStore, open_bench_store  # noqa: E402

GROUP = "bench"
PURPOSES = ("extract", "dedupe", "judge")
# The on-demand work measured after ingestion: (what, the scripted model's schema name).
MAINTENANCE = (("summaries", "SummaryAnswer"), ("communities", "CommunitySummaryAnswer"))
WORKLOADS = Path(__file__).resolve().parents[2] / "shared" / "data" / "workloads"
DEFAULT_WORKLOADS = ("team-chat-1000.json", "team-chat-5000.json")
EDGE = 100  # episodes in the first / last window compared for growth
BLOCK = 1_000  # framework time is also reported as the median of each block of this many episodes
TARGET_CALLS_MEDIAN, TARGET_CALLS_P95 = 2, 3
TARGET_CHARS_MEDIAN = 8_000
TARGET_FRAMEWORK_MS = 5.0
TARGET_GROWTH = 1.5  # last-100 / first-100 median framework time: "flat" up to this ratio
TARGET_PEAK_MB = 300.0


class ReplayClock:
    """Transaction time for a replay: just after the episode being ingested
    (as if each message were ingested when it was sent), moving forward by a
    microsecond on every read so that times stay strictly increasing."""

    def __init__(self) -> None:
        self.now = datetime.fromisoformat("2000-01-01T00:00:00+00:00")

    def at(self, when: datetime) -> None:
        self.now = max(self.now, when + timedelta(seconds=1))

    def __call__(self) -> datetime:
        self.now += timedelta(microseconds=1)
        return self.now


def summary(values: Sequence[float]) -> dict[str, float]:
    return {
        "median": statistics.median(values) if values else 0.0,
        "p95": percentile(values, 0.95),
        "mean": statistics.fmean(values) if values else 0.0,
        "max": max(values, default=0.0),
    }


class Driver:
    """One fresh memory behind a blocking interface, through the async core
    (``AsyncMemory`` on a private event loop) or the sync shell (``Memory``).
    ``add`` times ``add_episode`` where it runs: inside the coroutine for the
    async API, so that driving the loop is not counted."""

    def __init__(self, api: str, store: str, provider: ScriptedProvider, clock: ReplayClock) -> None:
        self.api = api
        if api == "sync":
            self.sync: Memory | None = Memory(store, model=provider, clock=clock)
        else:
            self.sync = None
            self.loop = asyncio.new_event_loop()
            self.core = AsyncMemory(store, model=provider, clock=clock)

    async def _timed(self, content: str, **kw: Any) -> tuple[EpisodeResult, float]:
        t0 = time.perf_counter()
        result = await self.core.add_episode(GROUP, content, **kw)
        return result, time.perf_counter() - t0

    def add(self, content: str, **kw: Any) -> tuple[EpisodeResult, float]:
        if self.sync is not None:
            t0 = time.perf_counter()
            result = self.sync.add_episode(GROUP, content, **kw)
            return result, time.perf_counter() - t0
        return self.loop.run_until_complete(self._timed(content, **kw))

    def _run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def maintain(self) -> dict[str, Any]:
        """Build every entity summary, then the communities, once each: their sizes and seconds."""
        t0 = time.perf_counter()
        if self.sync is not None:
            built = self.sync.summarize_entities(GROUP, refresh_stale_only=False)
            t1 = time.perf_counter()
            communities = self.sync.build_communities(GROUP)
        else:
            built = self._run(self.core.summarize_entities(GROUP, refresh_stale_only=False))
            t1 = time.perf_counter()
            communities = self._run(self.core.build_communities(GROUP))
        t2 = time.perf_counter()
        return {
            "summaries": {"items": sum(1 for s in built if s.facts), "all": len(built), "seconds": t1 - t0,
                          "by_model": sum(1 for s in built if s.method == "model")},
            "communities": {"items": len(communities.communities), "all": len(communities.communities),
                            "seconds": t2 - t1, "unassigned": communities.unassigned,
                            "by_model": sum(1 for c in communities.communities if c.method == "model")},
        }

    def contents(self) -> tuple[list[Fact], int]:
        """Every fact (retired, expired and events too) and the number of entities."""
        if self.sync is not None:
            facts = self.sync.facts(GROUP, include_retired=True, include_expired=True, include_events=True)
            return facts, len(self.sync.entities(GROUP))
        every = self.core.facts(GROUP, include_retired=True, include_expired=True, include_events=True)
        facts = self.loop.run_until_complete(every)
        return facts, len(self.loop.run_until_complete(self.core.entities(GROUP)))

    def close(self) -> None:
        if self.sync is not None:
            self.sync.close()
        else:
            self.loop.run_until_complete(self.core.aclose())
            self.loop.close()


def ingest(
    episodes: Sequence[dict[str, Any]],
    store: str,
    provider: ScriptedProvider,
    *,
    api: str = "async",
    profile: cProfile.Profile | None = None,
    maintain: bool = False,
) -> dict[str, Any]:
    """Ingest ``episodes`` one by one, in order, into a fresh memory; per-episode
    samples and the final retirement counts; with ``maintain``, then the
    summaries and communities, with their model calls and prompt characters."""
    clock = ReplayClock()
    driver = Driver(api, store, provider, clock)
    samples: dict[str, list[float]] = {
        "calls": [], "chars": [], "framework_ms": [], "wall_ms": [], "model_ms": [], "framework_cpu_ms": [],
    }
    for purpose in PURPOSES:
        samples[f"calls.{purpose}"] = []
        samples[f"chars.{purpose}"] = []
    totals: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    retired_ids: set[str] = set()
    progress = max(1, len(episodes) // 10)
    start = time.perf_counter()
    try:
        for i, ep in enumerate(episodes):
            reference = datetime.fromisoformat(ep["reference_time"].replace("Z", "+00:00"))
            clock.at(reference)
            model_before, model_cpu_before = provider.seconds, provider.cpu_seconds
            cpu0 = time.process_time()
            if profile is not None:
                profile.enable()
            result, wall = driver.add(
                ep["content"],
                kind="message",
                reference_time=reference,
                name=ep.get("name"),
                source_description=ep.get("source_description"),
            )
            cpu = time.process_time() - cpu0
            if profile is not None:
                profile.disable()
            model = provider.seconds - model_before
            samples["framework_cpu_ms"].append((cpu - (provider.cpu_seconds - model_cpu_before)) * 1000)
            samples["wall_ms"].append(wall * 1000)
            samples["model_ms"].append(model * 1000)
            samples["framework_ms"].append((wall - model) * 1000)
            usage = result.usage
            samples["calls"].append(usage.calls)
            samples["chars"].append(usage.prompt_chars)
            for purpose in PURPOSES:
                row = usage.by_purpose.get(purpose, {})
                samples[f"calls.{purpose}"].append(row.get("calls", 0))
                samples[f"chars.{purpose}"].append(row.get("prompt_chars", 0))
            statuses[str(result.status.value if hasattr(result.status, "value") else result.status)] += 1
            totals["entities"] += len(result.entities)
            totals["created"] += len(result.created)
            totals["merged"] += len(result.merged)
            totals["retired_in_results"] += len(result.retired)
            retired_ids.update(f.uuid for f in result.retired)
            if (i + 1) % progress == 0:
                print(f"  {i + 1:>6,} episodes  {time.perf_counter() - start:6.1f} s", file=sys.stderr, flush=True)
        seconds = time.perf_counter() - start
        maintenance: dict[str, Any] = {}
        if maintain:
            calls, chars = Counter(provider.calls), Counter(provider.prompt_chars)
            maintenance = driver.maintain()
            for what, schema in MAINTENANCE:
                maintenance[what]["calls"] = provider.calls[schema] - calls[schema]
                maintenance[what]["prompt_chars"] = provider.prompt_chars[schema] - chars[schema]
        every, entities = driver.contents()
    finally:
        driver.close()
    closed = [f for f in every if f.invalid_at is not None and f.expired_at is None]
    expired = [f for f in every if f.expired_at is not None]
    return {
        "seconds": seconds,
        "samples": samples,
        "totals": dict(totals),
        "statuses": dict(statuses),
        "retired_distinct_in_results": len(retired_ids),
        "facts": len(every),
        "entities": entities,
        "closed": len(closed),
        "expired": len(expired),
        "closed_by_relation": dict(Counter(f.relation for f in closed).most_common()),
        "maintenance": maintenance,
    }


def memory_peak(episodes: Sequence[dict[str, Any]], store: str, api: str) -> float:
    """tracemalloc's peak (MiB) over a second, untimed ingestion of the same episodes:
    tracing slows Python down, so it never runs during the timed pass."""
    tracemalloc.start()
    try:
        ingest(episodes, store, ScriptedProvider(), api=api)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _store(args: argparse.Namespace, tmp: Path) -> BenchStore:
    """A fresh store for one pass: in memory, a file in ``tmp``, or PostgreSQL."""
    if args.store == "memory":
        return BenchStore("sqlite", ":memory:", "")
    return open_bench_store("sqlite" if args.store == "file" else args.store, tmp / "ingest.db")


def run_workload(path: Path, args: argparse.Namespace, profile: cProfile.Profile | None) -> dict[str, Any]:
    data = json.loads(path.read_text())
    episodes = data["episodes"][: args.episodes] if args.episodes else data["episodes"]
    changes = data.get("meta", {}).get("expected_state_changes", {})
    expected = sum(changes.values())
    if args.episodes and args.episodes < len(data["episodes"]):
        expected = round(expected * len(episodes) / len(data["episodes"]))  # pro rata: a rough guide only
    print(f"{path.name}: ingesting {len(episodes):,} episodes ({args.store} store, {args.api} API)",
          file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="kronograph-ingest-") as tmp:
        store = _store(args, Path(tmp))
        provider = ScriptedProvider()
        run = ingest(episodes, store.spec, provider, api=args.api, profile=profile, maintain=True)
        rss = rss_mb()
        db_bytes = store.stats()["db_bytes"] if args.store != "memory" else 0
        store.close()
    peak = None
    if not args.no_tracemalloc:
        print(f"{path.name}: second pass under tracemalloc", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory(prefix="kronograph-ingest-") as tmp:
            store = _store(args, Path(tmp))
            peak = memory_peak(episodes, store.spec, args.api)
            store.close()
    s = run.pop("samples")
    fw, cpu = s["framework_ms"], s["framework_cpu_ms"]
    first, last = fw[:EDGE], fw[-EDGE:]
    growth = statistics.median(last) / statistics.median(first) if len(fw) >= 2 * EDGE else None
    retired = run["closed"] + run["expired"]
    maintenance = run["maintenance"]
    for what, batch in (("summaries", SUMMARY_BATCH), ("communities", COMMUNITY_BATCH)):
        m = maintenance[what]
        m["bound"] = math.ceil(m["items"] / batch)
        if what == "communities":
            m["bound"] = min(m["bound"], COMMUNITY_MAX_CALLS)
        m["calls_per_episode"] = m["calls"] / len(episodes)
        m["prompt_chars_per_episode"] = m["prompt_chars"] / len(episodes)
    return {
        "workload": path.name,
        "episodes": len(episodes),
        "store": args.store,
        "api": args.api,
        "seconds": run["seconds"],
        "calls": {"all": summary(s["calls"]), **{p: summary(s[f"calls.{p}"]) for p in PURPOSES}},
        "prompt_chars": {"all": summary(s["chars"]), **{p: summary(s[f"chars.{p}"]) for p in PURPOSES}},
        "calls_total": {"all": sum(s["calls"]), **{p: sum(s[f"calls.{p}"]) for p in PURPOSES}},
        "scripted_model_calls": dict(provider.calls),
        "framework_ms": {
            **summary(fw),
            f"first_{EDGE}_median": statistics.median(first) if first else 0.0,
            f"last_{EDGE}_median": statistics.median(last) if last else 0.0,
            "last_over_first": growth,
            f"block_{BLOCK}_medians": [statistics.median(fw[i : i + BLOCK]) for i in range(0, len(fw), BLOCK)],
        },
        "framework_cpu_ms": {
            **summary(cpu),
            f"first_{EDGE}_median": statistics.median(cpu[:EDGE]) if cpu else 0.0,
            f"last_{EDGE}_median": statistics.median(cpu[-EDGE:]) if cpu else 0.0,
        },
        "wall_ms": summary(s["wall_ms"]),
        "model_ms": summary(s["model_ms"]),
        "tracemalloc_peak_mb": peak,
        "max_rss_mb": rss,
        "db_bytes": db_bytes,
        "statuses": run["statuses"],
        "totals": run["totals"],
        "facts": run["facts"],
        "entities": run["entities"],
        "maintenance": maintenance,
        "invalidations": {
            "closed": run["closed"],
            "expired": run["expired"],
            "retired": retired,
            "retired_distinct_in_results": run["retired_distinct_in_results"],
            "closed_by_relation": run["closed_by_relation"],
            "expected": expected,
            "expected_by_kind": changes,
            "percent_of_expected": 100.0 * retired / expected if expected else None,
        },
    }


def checks(r: dict[str, Any]) -> dict[str, bool]:
    calls, chars, fw = r["calls"]["all"], r["prompt_chars"]["all"], r["framework_ms"]
    out = {
        f"calls median <= {TARGET_CALLS_MEDIAN}": calls["median"] <= TARGET_CALLS_MEDIAN,
        f"calls p95 <= {TARGET_CALLS_P95}": calls["p95"] <= TARGET_CALLS_P95,
        f"prompt chars median <= {TARGET_CHARS_MEDIAN:,}": chars["median"] <= TARGET_CHARS_MEDIAN,
        f"framework median <= {TARGET_FRAMEWORK_MS} ms": fw["median"] <= TARGET_FRAMEWORK_MS,
        f"peak RSS <= {TARGET_PEAK_MB:.0f} MB": r["max_rss_mb"] <= TARGET_PEAK_MB,
    }
    if fw["last_over_first"] is not None:
        out[f"framework last/first {EDGE} <= {TARGET_GROWTH}"] = fw["last_over_first"] <= TARGET_GROWTH
    for what, m in r["maintenance"].items():
        out[f"{what}: model calls <= {m['bound']} (bounded, not per node or episode)"] = m["calls"] <= m["bound"]
    if r["tracemalloc_peak_mb"] is not None:
        out[f"tracemalloc peak <= {TARGET_PEAK_MB:.0f} MB"] = r["tracemalloc_peak_mb"] <= TARGET_PEAK_MB
    return out


def report(r: dict[str, Any]) -> None:
    """The human-readable table for one workload."""
    print(f"\n{r['workload']}: {r['episodes']:,} episodes, {r['store']} store, {r['api']} API,"
          f" {r['seconds']:.1f} s in all,"
          f" statuses {r['statuses']}")
    t = r["totals"]
    print(f"  facts created {t.get('created', 0):,}  merged {t.get('merged', 0):,}"
          f"  stored: facts {r['facts']:,}, entities {r['entities']:,}")
    print(f"\n  {'per episode':<26}{'median':>9}{'p95':>9}{'mean':>9}{'max':>9}   target")
    rows = [
        ("model calls", r["calls"]["all"], ".1f", f"<= {TARGET_CALLS_MEDIAN} median, <= {TARGET_CALLS_P95} p95"),
        *((f"  {p}", r["calls"][p], ".1f", "") for p in PURPOSES),
        ("prompt chars", r["prompt_chars"]["all"], ",.0f", f"<= {TARGET_CHARS_MEDIAN:,} median"),
        *((f"  {p}", r["prompt_chars"][p], ",.0f", "") for p in PURPOSES),
        ("framework ms", r["framework_ms"], ".2f", f"<= {TARGET_FRAMEWORK_MS} median"),
        ("  (its CPU ms, all threads)", r["framework_cpu_ms"], ".2f", ""),
        ("  (add_episode wall ms)", r["wall_ms"], ".2f", ""),
        ("  (inside the model ms)", r["model_ms"], ".2f", ""),
    ]
    for name, s, fmt, target in rows:
        cells = "".join(f"{format(s[k], fmt):>9}" for k in ("median", "p95", "mean", "max"))
        print(f"  {name:<26}{cells}   {target}")
    fw, c = r["framework_ms"], r["calls_total"]
    print(f"  calls in all: {c['all']:,} (" + ", ".join(f"{p} {c[p]:,}" for p in PURPOSES)
          + f"); the scripted model saw {r['scripted_model_calls']}")
    growth = "n/a" if fw["last_over_first"] is None else f"{fw['last_over_first']:.2f}"
    print(f"  framework ms, median of the first {EDGE} {fw[f'first_{EDGE}_median']:.2f} -> last {EDGE}"
          f" {fw[f'last_{EDGE}_median']:.2f}: ratio {growth}   target <= {TARGET_GROWTH} (flat)")
    fc = r["framework_cpu_ms"]
    print(f"  framework CPU ms, median of the first {EDGE} {fc[f'first_{EDGE}_median']:.2f} -> last {EDGE}"
          f" {fc[f'last_{EDGE}_median']:.2f}")
    blocks = fw[f"block_{BLOCK}_medians"]
    if len(blocks) > 1:
        print(f"  framework ms, median per {BLOCK:,} episodes: " + "  ".join(f"{b:.2f}" for b in blocks)
              + f"   last/first {blocks[-1] / blocks[0]:.2f}")
    peak = "skipped" if r["tracemalloc_peak_mb"] is None else f"{r['tracemalloc_peak_mb']:.1f} MiB"
    print(f"  memory: tracemalloc peak {peak}, process max RSS {r['max_rss_mb']:.0f} MiB"
          f"   target <= {TARGET_PEAK_MB:.0f} MB" + (f"; db {r['db_bytes'] / 2**20:.1f} MiB" if r["db_bytes"] else ""))
    for what, m in r["maintenance"].items():
        print(f"  {what} (once, after ingestion): {m['items']:,} built from facts"
              f" ({m['by_model']:,} by the model) in {m['seconds']:.2f} s; model calls {m['calls']:,}"
              f" (bound {m['bound']:,}), prompt chars {m['prompt_chars']:,};"
              f" per episode ingested {m['calls_per_episode']:.4f} calls, {m['prompt_chars_per_episode']:,.0f} chars")
    inv = r["invalidations"]
    pct = "n/a" if inv["percent_of_expected"] is None else f"{inv['percent_of_expected']:.0f}%"
    print(f"  invalidations: {inv['retired']:,} facts retired ({inv['closed']:,} closed, {inv['expired']:,} expired)"
          f" vs {inv['expected']:,} expected state changes = {pct}")
    print(f"    closed by relation {inv['closed_by_relation']}; expected {inv['expected_by_kind']}")
    print()
    for name, ok in checks(r).items():
        print(f"  {'PASS' if ok else 'FAIL'}  {name}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--workload", type=Path, action="append",
                    help="workload JSON file (repeatable; default: team-chat-1000 and team-chat-5000)")
    ap.add_argument("--episodes", type=int, help="ingest only the first N episodes of each workload")
    ap.add_argument("--store", default="file",
                    help="file: SQLite in a temp dir (default); memory: SQLite :memory:; postgres: a throwaway"
                    " local PostgreSQL (fsync off); or the postgresql:// URL of a server where each pass creates"
                    " (and drops) a database")
    ap.add_argument("--api", choices=("async", "sync"), default="async",
                    help="async: AsyncMemory, the core (default); sync: Memory, the blocking shell")
    ap.add_argument("--no-tracemalloc", action="store_true", help="skip the second pass that measures the peak")
    ap.add_argument("--profile", action="store_true",
                    help="run cProfile over the ingestion and print the top 25 functions by cumulative time")
    ap.add_argument("--json", action="store_true", help="print the results as JSON (instead of the tables)")
    args = ap.parse_args(argv)
    paths = args.workload or [WORKLOADS / name for name in DEFAULT_WORKLOADS]
    for path in paths:
        if not path.is_file():
            ap.error(f"no workload file {path}")

    revision = source_revision()
    profile = cProfile.Profile() if args.profile else None
    results = [run_workload(path, args, profile) for path in paths]
    machine = {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
    }
    ok = all(all(checks(r).values()) for r in results)
    if args.json:
        out = {"kronograph": revision, "machine": machine, "profiled": args.profile,
               "results": [{**r, "checks": checks(r)} for r in results]}
        print(json.dumps(out, indent=2))
    else:
        print(f"\nkronograph ingestion benchmark  (kronograph {revision}, python {machine['python']},"
              f" sqlite {machine['sqlite']}, {machine['cpus']} cpus, scripted model)")
        if args.profile:
            print("  (profiled: cProfile inflates every time below)")
        for r in results:
            report(r)
    if profile is not None:
        buf = io.StringIO()
        order = os.environ.get("KRONOGRAPH_PROFILE_SORT", "cumulative")
        pstats.Stats(profile, stream=buf).sort_stats(order).print_stats(25)
        if os.environ.get("KRONOGRAPH_PROFILE_OUT"):  # the whole profile, for pstats or snakeviz
            profile.dump_stats(os.environ["KRONOGRAPH_PROFILE_OUT"])
        print(buf.getvalue(), file=sys.stderr if args.json else sys.stdout)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
