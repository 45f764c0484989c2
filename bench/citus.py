"""Scale-out benchmark for kronograph: groups ingested in parallel, then searched,
on SQLite, one PostgreSQL and a Citus cluster, side by side.

Starts the backends itself: a SQLite file, one local PostgreSQL 18
(``EmbeddedPostgres``, fsync off) and a Citus 14 cluster of a coordinator and
two workers (the tests' ``CitusCluster``, Citus built once per machine by
``tests/citus_build.py``), all on this machine. On each it ingests the same
episodes of a standard team-chat workload (``shared/data/workloads``) into 8
groups at once, with the instant scripted model of ``bench/ingest.py``:
writer processes (as a service's workers would be), each an ``AsyncMemory``
running one task per group it owns, every group's episodes in order; SQLite
gets one process for all groups (one server process per file, as
``docs/deployment.md`` says). Then reader processes, several tasks each, time
hybrid search in one group, hybrid search over all the groups and
``facts(subject)``. Reports wall time, episodes/s, per-call median and p95,
calls/s and the machine's CPU use during each phase.
Run ``.venv/bin/python bench/citus.py --help`` for the options; see bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import platform
import re
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import percentile, source_revision  # noqa: E402  (a sibling script)
from scripted_model import ScriptedProvider  # noqa: E402  (a sibling script, not a package)

ROOT = Path(__file__).resolve().parents[1]
WORKLOAD = "team-chat-1000.json"
BACKENDS = ("sqlite", "postgres", "citus")
TITLES = {"sqlite": "SQLite", "postgres": "PostgreSQL", "citus": "Citus 1+2"}
READS = ("search, one group", "search, all groups", "facts(subject)")


def default_workload() -> Path:
    """``team-chat-1000.json`` in ``shared/`` beside this checkout, or beside
    the main checkout when this one is a git worktree of it."""
    roots = [ROOT]
    git = ROOT / ".git"
    if git.is_file() and git.read_text().startswith("gitdir:"):
        gitdir = Path(git.read_text().removeprefix("gitdir:").strip())
        if gitdir.parent.name == "worktrees":
            roots.append(gitdir.parent.parent.parent)
    for root in roots:
        path = root.parent / "shared" / "data" / "workloads" / WORKLOAD
        if path.is_file():
            return path
    raise SystemExit(f"no {WORKLOAD} in ../shared/data/workloads: pass --workload FILE")


def cpu_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine, from /proc/stat (0, 0 elsewhere)."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def server_cpu_s(roots: Sequence[Path]) -> list[float]:
    """CPU seconds each PostgreSQL server under ``roots`` has used: its
    postmaster's own and its reaped children's, plus its live children's
    (the backends serving connections, the background workers). Read from
    /proc, so it counts the servers' work apart from the rest of the machine."""
    masters: dict[int, int] = {}  # postmaster pid -> its place in roots
    for i, root in enumerate(roots):
        try:
            masters[int((root / "data" / "postmaster.pid").read_text().split()[0])] = i
        except (OSError, ValueError, IndexError):
            continue
    ticks = [0] * len(roots)
    if not masters:
        return [0.0] * len(roots)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        pid, ppid = int(entry.name), int(fields[1])
        node = masters.get(pid, masters.get(ppid))
        if node is not None:
            ticks[node] += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    return [t / os.sysconf("SC_CLK_TCK") for t in ticks]


def stats(values: Sequence[float]) -> dict[str, float]:
    return {"median_ms": statistics.median(values) if values else 0.0, "p95_ms": percentile(values, 0.95),
            "n": len(values)}


# -- the work of one process (spawned: it imports kronograph afresh) --------------


async def _ingest(spec: str, groups: list[str], episodes: list[dict[str, Any]], barrier: Any) -> dict[str, Any]:
    from kronograph import AsyncMemory

    provider = ScriptedProvider()
    memory = AsyncMemory(spec, model=provider, resume=False)
    await memory.groups()  # open the store (and its pool) before the clock starts
    latencies: list[float] = []

    async def one_group(group: str) -> None:
        for ep in episodes:
            t0 = time.perf_counter()
            await memory.add_episode(
                group, ep["content"], kind="message", name=ep.get("name"),
                reference_time=datetime.fromisoformat(ep["reference_time"].replace("Z", "+00:00")),
                source_description=ep.get("source_description"),
            )
            latencies.append((time.perf_counter() - t0) * 1000)

    barrier.wait()
    start, cpu0 = time.monotonic(), time.process_time()
    try:
        await asyncio.gather(*(one_group(g) for g in groups))
    finally:
        end, cpu = time.monotonic(), time.process_time() - cpu0
        await memory.aclose()
    return {"start": start, "end": end, "latencies": latencies, "cpu_s": cpu,
            "model_calls": sum(provider.calls.values())}


async def _read(spec: str, kind: str, groups: list[str], queries: list[str], subjects: list[str], tasks: int,
                calls: int, seed: int, barrier: Any) -> dict[str, Any]:
    from kronograph import AsyncMemory

    memory = AsyncMemory(spec, resume=False)

    def call(i: int) -> Callable[[], Any]:
        group = groups[i % len(groups)]
        if kind == "search, one group":
            return lambda: memory.search(group, queries[i % len(queries)])
        if kind == "search, all groups":
            return lambda: memory.search(groups, queries[i % len(queries)])
        return lambda: memory.facts(group, subject=subjects[i % len(subjects)])

    for i in range(len(groups)):  # warm: each group read once, untimed
        await call(seed + i)()
    latencies: list[float] = []

    async def reader(t: int) -> None:
        for n in range(calls):
            i = seed + t * 7919 + n * 31
            t0 = time.perf_counter()
            await call(i)()
            latencies.append((time.perf_counter() - t0) * 1000)

    barrier.wait()
    start, cpu0 = time.monotonic(), time.process_time()
    try:
        await asyncio.gather(*(reader(t) for t in range(tasks)))
    finally:
        end, cpu = time.monotonic(), time.process_time() - cpu0
        await memory.aclose()
    return {"start": start, "end": end, "latencies": latencies, "cpu_s": cpu}


def _child(out: Any, work: Callable[..., Any], *args: Any) -> None:
    try:
        out.put(asyncio.run(work(*args)))
    except BaseException as exc:  # the parent reports it
        out.put({"error": f"{type(exc).__name__}: {exc}"})
        args[-1].abort()  # the barrier: nobody waits for a process that will not come
        raise


def in_processes(
    work: Callable[..., Any], per_process: list[tuple[Any, ...]], servers: Sequence[Path]
) -> dict[str, Any]:
    """Run ``work`` in one spawned process per argument tuple, started together
    at a barrier; their latencies pooled, wall time from the first start to
    the last end, and the CPU the clients, the servers (under ``servers``) and
    the whole machine used in between."""
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(len(per_process) + 1), ctx.Queue()
    procs = [ctx.Process(target=_child, args=(out, work, *args, barrier)) for args in per_process]
    for p in procs:
        p.start()
    try:
        barrier.wait(timeout=300)
    except threading.BrokenBarrierError:
        for p in procs:
            p.join(timeout=60)
        raise SystemExit(f"a worker process failed: {out.get(timeout=5).get('error', '?')}") from None
    busy0, total0 = cpu_jiffies()
    server0 = server_cpu_s(servers)
    results = [out.get(timeout=3600) for _ in procs]
    busy1, total1 = cpu_jiffies()
    nodes = [b - a for a, b in zip(server0, server_cpu_s(servers), strict=True)]
    for p in procs:
        p.join()
    failed = [r["error"] for r in results if "error" in r]
    if failed:
        raise SystemExit(f"a worker process failed: {failed[0]}")
    wall = max(r["end"] for r in results) - min(r["start"] for r in results)
    latencies = [x for r in results for x in r["latencies"]]
    return {"wall_s": wall, "calls": len(latencies), "per_s": len(latencies) / wall if wall else 0.0,
            **stats(latencies), "client_cpu_s": sum(r["cpu_s"] for r in results), "server_cpu_s": sum(nodes),
            "node_cpu_s": nodes,
            "machine_busy": (busy1 - busy0) / (total1 - total0) if total1 > total0 else 0.0,
            **({"model_calls": sum(r["model_calls"] for r in results)} if "model_calls" in results[0] else {})}


# -- the backends -----------------------------------------------------------------


class Backend:
    """A store to benchmark: its URL or path, its version, and how to stop it."""

    def __init__(self, kind: str, spec: str, version: str, stop: Callable[[], None], layout: str,
                 roots: Sequence[Path] = ()) -> None:
        self.kind, self.spec, self.version, self.stop, self.layout = kind, spec, version, stop, layout
        self.roots = list(roots)  # the servers' folders, for their CPU time


def _admin(url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(statement)


def _server_version(url: str, citus: bool = False) -> str:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SHOW server_version").fetchone()
        version = str(row[0]) if row else "?"
        if citus:
            row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'citus'").fetchone()
            version += f", citus {row[0] if row else '?'}"
    return version


def start_backend(kind: str, tmp: Path) -> Backend:
    if kind == "sqlite":
        return Backend(kind, str(tmp / "bench.db"), sqlite3.sqlite_version, lambda: None, "a file")
    if kind == "postgres":  # as bench/stores.py starts it, keeping the server to read its CPU time
        from kronograph.store.postgres.embedded import EmbeddedPostgres

        server = EmbeddedPostgres()
        try:
            name = f"bench_{uuid.uuid4().hex[:8]}"
            _admin(server.url, f'CREATE DATABASE "{name}"')
            url = server.database_url(name)
            version = _server_version(url)
        except BaseException:
            server.stop()
            raise
        return Backend(kind, url, version, server.stop, "one server", [server.root])
    sys.path.insert(0, str(ROOT))
    from tests import citus_build, citus_server  # the tests' cluster, by import

    source = citus_build.archive()
    if source is None:
        raise SystemExit(f"no Citus source archive (../shared/vendor/{citus_build.ARCHIVE_NAME})")
    cluster = citus_server.CitusCluster(citus_build.citus_install(source))
    try:
        url = cluster.fresh_database(f"bench_{uuid.uuid4().hex[:8]}", keep=True)
        version = _server_version(url, citus=True)
    except BaseException:
        cluster.stop()
        raise
    layout = (f"coordinator + {len(cluster.workers)} workers,"
              f" {citus_server.SETTINGS['citus.shard_count']} shards a table")
    return Backend(kind, url, version, cluster.stop, layout, [node.root for node in cluster.nodes])


def citus_spread(url: str, groups: list[str]) -> dict[str, int]:
    """How many of the groups each worker holds (by port)."""
    import psycopg

    sql = ("SELECT p.nodeport, count(*) FROM unnest(%s::text[]) g"
           " JOIN pg_dist_shard_placement p ON p.shardid = get_shard_id_for_distribution_column('groups', g)"
           " GROUP BY p.nodeport ORDER BY p.nodeport")
    with psycopg.connect(url) as conn:
        return {str(port): int(n) for port, n in conn.execute(sql, (groups,)).fetchall()}


def run_backend(kind: str, args: argparse.Namespace, episodes: list[dict[str, Any]], queries: list[str],
                subjects: list[str], tmp: Path) -> dict[str, Any]:
    from kronograph import Memory

    print(f"{kind}: starting", file=sys.stderr, flush=True)
    backend = start_backend(kind, tmp)
    try:
        Memory(backend.spec).close()  # create (on Citus: distribute) the schema, untimed
        groups = [f"g{i}" for i in range(args.groups)]
        writers = 1 if kind == "sqlite" else min(args.processes, args.groups)
        owned = [groups[w::writers] for w in range(writers)]
        print(f"{kind}: ingesting {len(episodes)} episodes into each of {args.groups} groups"
              f" ({writers} process(es))", file=sys.stderr, flush=True)
        ingest = in_processes(_ingest, [(backend.spec, mine, episodes) for mine in owned], backend.roots)
        ingest["writers"] = f"{writers} process{'es' if writers > 1 else ''} x {len(owned[0])} tasks"
        reads: dict[str, Any] = {}
        for read_kind in READS:
            calls = args.calls if read_kind != "search, all groups" else max(1, args.calls // 4)
            print(f"{kind}: {read_kind}, {args.readers} x {args.tasks} readers", file=sys.stderr, flush=True)
            reads[read_kind] = in_processes(
                _read, [(backend.spec, read_kind, groups, queries, subjects, args.tasks, calls, 1000 * r)
                        for r in range(args.readers)], backend.roots)
        result = {"backend": TITLES[kind], "version": backend.version, "layout": backend.layout,
                  "ingest": ingest, "reads": reads}
        if kind == "citus":
            result["groups_per_worker"] = citus_spread(backend.spec, groups)
        return result
    finally:
        backend.stop()


# -- the report -------------------------------------------------------------------


def cpu_per_call(phase: dict[str, Any]) -> str:
    """CPU milliseconds per call of the clients and of the servers (in the client, for SQLite);
    on a cluster, the coordinator's part."""
    calls = max(1, phase["calls"])
    text = f"{1000 * phase['client_cpu_s'] / calls:.1f} + {1000 * phase['server_cpu_s'] / calls:.1f}"
    nodes = phase.get("node_cpu_s", [])
    if len(nodes) > 1:  # a cluster: the coordinator's part of the servers' (the first node)
        text += f" ({1000 * nodes[0] / calls:.1f} coord.)"
    return text


def table(results: dict[str, dict[str, Any]]) -> list[str]:
    kinds = list(results)
    rows: list[tuple[str, list[str]]] = [
        ("version", [results[k]["version"] for k in kinds]),
        ("layout", [results[k]["layout"] for k in kinds]),
        ("writers", [results[k]["ingest"]["writers"] for k in kinds]),
        ("ingest: wall s", [f"{results[k]['ingest']['wall_s']:.1f}" for k in kinds]),
        ("ingest: episodes/s", [f"{results[k]['ingest']['per_s']:.1f}" for k in kinds]),
        ("ingest: episode ms median / p95",
         [f"{results[k]['ingest']['median_ms']:.1f} / {results[k]['ingest']['p95_ms']:.1f}" for k in kinds]),
        ("ingest: CPU ms per episode, client + server", [cpu_per_call(results[k]["ingest"]) for k in kinds]),
        ("ingest: machine CPU busy", [f"{results[k]['ingest']['machine_busy']:.0%}" for k in kinds]),
    ]
    for read in READS:
        rows.append((f"{read}: ms median / p95",
                     [f"{results[k]['reads'][read]['median_ms']:.2f} / {results[k]['reads'][read]['p95_ms']:.2f}"
                      for k in kinds]))
        rows.append((f"{read}: calls/s", [f"{results[k]['reads'][read]['per_s']:.0f}" for k in kinds]))
        rows.append((f"{read}: CPU ms per call, client + server",
                     [cpu_per_call(results[k]["reads"][read]) for k in kinds]))
    width = max(len(label) for label, _ in rows) + 2
    cols = [max(len(TITLES[k]), *(len(v[i]) for _, v in rows)) + 2 for i, k in enumerate(kinds)]
    lines = ["".ljust(width) + "".join(TITLES[k].rjust(c) for k, c in zip(kinds, cols, strict=True))]
    lines += [label.ljust(width) + "".join(v.rjust(c) for v, c in zip(values, cols, strict=True))
              for label, values in rows]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--workload", type=Path, default=None, help=f"workload JSON (default ../shared/.../{WORKLOAD})")
    ap.add_argument("--episodes", type=int, default=100, help="episodes ingested into each group (default 100)")
    ap.add_argument("--groups", type=int, default=8, help="groups, ingested in parallel (default 8)")
    ap.add_argument("--processes", type=int, default=2,
                    help="writer processes on PostgreSQL and Citus, the groups split among them (default 2);"
                    " SQLite always gets one")
    ap.add_argument("--readers", type=int, default=2, help="reader processes (default 2)")
    ap.add_argument("--tasks", type=int, default=4, help="concurrent reading tasks per reader process (default 4)")
    ap.add_argument("--calls", type=int, default=25,
                    help="timed calls per reading task and kind (default 25; a quarter of it over all groups)")
    ap.add_argument("--backends", default=",".join(BACKENDS), help=f"which, in order (default {','.join(BACKENDS)})")
    ap.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write every number as JSON")
    args = ap.parse_args(argv)
    kinds = [k.strip() for k in args.backends.split(",") if k.strip()]
    if not kinds or any(k not in BACKENDS for k in kinds):
        ap.error(f"--backends: a comma-separated list of {', '.join(BACKENDS)}")

    revision = source_revision()
    path = args.workload or default_workload()
    data = json.loads(path.read_text())
    episodes = data["episodes"][: args.episodes]
    queries = [q["query"] for q in data.get("queries", [])] or [ep["content"][:60] for ep in episodes]
    speakers = {m[1] for ep in episodes if (m := re.match(r"([^:]{1,60}):", ep["content"]))}
    subjects = sorted(speakers) or ["Alice"]
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="kronograph-citus-bench-") as tmp:
        for kind in kinds:
            results[kind] = run_backend(kind, args, episodes, queries, subjects, Path(tmp))
    load = os.getloadavg()
    machine = {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
               "load_average": load}
    print(f"\nkronograph scale-out benchmark  (kronograph {revision}, python {machine['python']},"
          f" {machine['cpus']} cpus, load {load[0]:.1f} at the end)")
    print(f"{path.name}: {len(episodes)} episodes into each of {args.groups} groups, scripted model;"
          f" reads: {args.readers} processes x {args.tasks} tasks, hybrid search limit 10")
    if "citus" in results:
        print(f"Citus: groups per worker (by port) {results['citus']['groups_per_worker']}")
    print("\n".join(table(results)))
    if args.json is not None:
        options = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
        args.json.write_text(json.dumps({"kronograph": revision, "date": datetime.now().isoformat(timespec="seconds"),
                                         "machine": machine, "workload": path.name, "args": options,
                                         "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
