"""Load test of the REST service: `kronograph serve` on 127.0.0.1 over a
SQLite file with the offline extractor; 4 writers (one group each) post
episodes into the durable queue while 16 readers search, query facts and read
timelines, for 60 s. Two runs, each on a fresh server and file: *paced*, where
every client waits a random (exponential) 100 ms on average between its
requests, as an agent asks; and *saturated*, where nobody waits (the
throughput the one server process gives). Reports latency per route (p50, p95,
p99, count) and requests per second, errors (must be 0) and lost episodes
(must be 0: every accepted episode complete at the end).

    .venv/bin/python bench/service.py [--seconds 60] [--writers 4] [--readers 16] [--runs paced,saturated]

``--cpu`` instead measures what one request costs the process, route by
route: the app in this process (no HTTP server, no load generator beside
it), the same groups seeded with ``--episodes`` each, CPU time of every
thread per request (medians of ``--blocks`` blocks); ``--profile`` adds
cProfile's view of the search route with the store run inline (its reads on
this thread, where the profiler sees them).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import percentile, source_revision  # noqa: E402

from kronograph.server.keys import KeyRing  # noqa: E402

FIRST = ["Alice", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kira", "Lars",
         "Mina", "Nils", "Olga", "Pavel", "Rosa", "Sven", "Tara", "Umar"]
LAST = ["Smith", "Novak", "Okafor", "Petrov", "Quinn", "Rossi", "Sato", "Tanaka", "Urban", "Vega", "Weber", "Young"]
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Wonka", "Cyberdyne", "Tyrell"]
CITIES = ["Paris", "Lyon", "Berlin", "Madrid", "Oslo", "Lisbon", "Vienna", "Prague", "Dublin", "Rome"]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _sentence(rng: random.Random) -> tuple[str, str]:
    person = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    if rng.random() < 0.5:
        return person, f"{person} works at {rng.choice(COMPANIES)}."
    return person, f"{person} lives in {rng.choice(CITIES)}."


async def _pause(rng: random.Random, pace: float) -> None:
    """An agent's think time: exponential, ``pace`` seconds on average (none at 0)."""
    if pace > 0:
        await asyncio.sleep(rng.expovariate(1 / pace))


async def _writer(client: httpx.AsyncClient, group: str, stop: float, lat: list[float], errors: list[str],
                  accepted: list[tuple[str, str]], seed: int, pace: float) -> None:
    rng = random.Random(seed)
    n = 0
    while time.monotonic() < stop:
        await _pause(rng, pace)
        _, text = _sentence(rng)
        eid = f"{group}-{n}"
        n += 1
        started = time.perf_counter()
        try:
            r = await client.post(f"/v1/groups/{group}/episodes", json={"content": text, "episode_id": eid})
        except httpx.HTTPError as exc:
            errors.append(f"write {exc!r}")
            continue
        lat.append(time.perf_counter() - started)
        if r.status_code == 202:
            accepted.append((group, eid))
        else:
            errors.append(f"write {r.status_code} {r.text[:200]}")


async def _reader(client: httpx.AsyncClient, groups: list[str], stop: float, lat: dict[str, list[float]],
                  errors: list[str], seed: int, pace: float) -> None:
    rng = random.Random(seed)
    kinds = ["search", "facts", "timeline"]
    i = rng.randrange(3)
    while time.monotonic() < stop:
        await _pause(rng, pace)
        kind = kinds[i % 3]
        i += 1
        group = rng.choice(groups)
        person = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        started = time.perf_counter()
        try:
            if kind == "search":
                r = await client.post(f"/v1/groups/{group}/search", json={"query": f"where does {person} work",
                                                                            "limit": 10})
            elif kind == "facts":
                r = await client.get(f"/v1/groups/{group}/facts", params={"subject": person})
            else:
                r = await client.get(f"/v1/groups/{group}/timeline", params={"entity": person})
        except httpx.HTTPError as exc:
            errors.append(f"{kind} {exc!r}")
            continue
        lat[kind].append(time.perf_counter() - started)
        if r.status_code != 200:
            errors.append(f"{kind} {r.status_code} {r.text[:200]}")


async def _drain(client: httpx.AsyncClient, timeout: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        text = (await client.get("/v1/metrics")).text
        if 'state="queued"} 0' in text and 'state="processing"} 0' in text:
            break
        await asyncio.sleep(0.25)
    return time.monotonic() - started


async def _run(url: str, secret: str, args: argparse.Namespace, pace: float) -> dict[str, Any]:
    groups = [f"w{i}" for i in range(args.writers)]
    headers = {"Authorization": f"Bearer {secret}"}
    limits = httpx.Limits(max_connections=args.writers + args.readers + 4)
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60, limits=limits) as client:
        for g in groups:  # something to read from the first second
            await client.post(f"/v1/groups/{g}/episodes?wait=true", json={"content": "Alice Smith works at Acme."})
        write_lat: list[float] = []
        read_lat: dict[str, list[float]] = {"search": [], "facts": [], "timeline": []}
        errors: list[str] = []
        accepted: list[tuple[str, str]] = []
        begun = time.monotonic()
        stop = begun + args.seconds
        await asyncio.gather(
            *(_writer(client, g, stop, write_lat, errors, accepted, i, pace) for i, g in enumerate(groups)),
            *(_reader(client, groups, stop, read_lat, errors, 100 + i, pace) for i in range(args.readers)),
        )
        elapsed = time.monotonic() - begun
        drain = await _drain(client, 600)
        complete = 0
        for g in groups:
            found = (await client.get(f"/v1/groups/{g}/episodes")).json()["episodes"]
            complete += sum(1 for e in found if e["status"] == "complete" and e["uuid"].startswith(g + "-"))
        failed_line = next(line for line in (await client.get("/v1/metrics")).text.splitlines()
                           if line.startswith("kronograph_queue_failed"))
    rows = {"write (enqueue)": write_lat, **read_lat}
    return {
        "pace_ms": round(pace * 1000), "seconds": round(elapsed, 1), "writers": args.writers,
        "readers": args.readers,
        "kinds": {k: {"requests": len(v), "per_second": round(len(v) / elapsed, 1),
                      **{f"p{q}_ms": round(percentile(v, q / 100) * 1000, 1) for q in (50, 95, 99)}}
                  for k, v in rows.items()},
        "errors": len(errors), "error_samples": errors[:5],
        "accepted": len(accepted), "complete": complete, "lost": len(accepted) - complete,
        "failed": int(failed_line.split()[-1]),
        "drain_seconds_after_load": round(drain, 1),
        "ingested_per_second": round(complete / (elapsed + drain), 1),
    }


def _cpu_seconds(pid: int) -> float | None:
    """CPU seconds a process has used (Linux; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _serve(args: argparse.Namespace, pace: float) -> dict[str, Any]:
    """One run on a fresh server process and SQLite file."""
    ring = KeyRing()
    _, secret = ring.add("bench", admin=True)
    env = {**os.environ, "KRONOGRAPH_API_KEYS": json.dumps({"keys": [k.to_json() for k in ring.keys]})}
    port = _port()
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "service.db")
        cmd = [sys.executable, "-c", "from kronograph.cli import main; main()", "serve", "--db", db, "--port",
               str(port), "--offline", "--workers", str(args.workers)]
        log = open(Path(tmp) / "serve.log", "wb")
        server = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    if httpx.get(url + "/v1/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            result = asyncio.run(_run(url, secret, args, pace))
            cpu = _cpu_seconds(server.pid)
            served = sum(row["requests"] for row in result["kinds"].values())
            if cpu is not None and served:  # the server's own CPU (both threads and the loop), per request served
                result["server_cpu_s"] = round(cpu, 1)
                result["server_cpu_ms_per_request"] = round(cpu * 1000 / served, 1)
            return result
        finally:
            server.terminate()
            server.wait(30)
            log.close()


async def _cpu(args: argparse.Namespace, db: str, inline: bool) -> dict[str, Any]:
    """CPU ms per request by route, the app in process; ``inline``: the store's
    reads on this thread, under cProfile (the search route only)."""
    from kronograph.memory import AsyncMemory
    from kronograph.server.app import create_app
    from kronograph.store.sqlite.store import SQLiteStore

    memory = AsyncMemory(SQLiteStore(db, threaded=False) if inline else db, model=None)
    ring = KeyRing()
    _, secret = ring.add("bench", admin=True)
    app = create_app(memory, ring, run_queue=False)
    rng = random.Random(1)
    groups = [f"w{i}" for i in range(args.writers)]
    if not inline:
        for g in groups:
            for n in range(args.episodes):
                await memory.add_episode(g, _sentence(rng)[1], episode_id=f"{g}-{n}")
    transport = httpx.ASGITransport(app=app)
    kinds = ("search", "facts", "timeline")
    out: dict[str, list[float]] = {k: [] for k in kinds}
    profile = cProfile.Profile() if inline else None
    async with httpx.AsyncClient(transport=transport, base_url="http://bench",
                                 headers={"Authorization": f"Bearer {secret}"}) as client:
        async def ask(kind: str) -> None:
            group, person = rng.choice(groups), f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            if kind == "search":
                r = await client.post(f"/v1/groups/{group}/search", json={"query": f"where does {person} work",
                                                                          "limit": 10})
            elif kind == "facts":
                r = await client.get(f"/v1/groups/{group}/facts", params={"subject": person})
            else:
                r = await client.get(f"/v1/groups/{group}/timeline", params={"entity": person})
            if r.status_code != 200:
                raise SystemExit(f"{kind}: {r.status_code} {r.text[:200]}")

        for kind in kinds:  # warm: the readers started, the memos filled
            for _ in range(20):
                await ask(kind)
        for _ in range(1 if inline else args.blocks):
            for kind in ("search",) if inline else kinds:
                if profile is not None:
                    profile.enable()
                started = time.process_time()
                for _ in range(50):
                    await ask(kind)
                out[kind].append((time.process_time() - started) * 1000 / 50)
                if profile is not None:
                    profile.disable()
    await memory.aclose()
    result: dict[str, Any] = {k: round(statistics.median(v), 2) for k, v in out.items() if v}
    if profile is not None:
        buf = io.StringIO()
        stats = pstats.Stats(profile, stream=buf)
        stats.sort_stats("cumulative").print_stats(40)
        stats.sort_stats("tottime").print_stats(20)
        result["profile"] = buf.getvalue()
    return result


def _cpu_run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "cpu.db")
        result = asyncio.run(_cpu(args, db, inline=False))
        print(f"CPU ms per request, the app in process ({args.writers} groups of {args.episodes} episodes, "
              f"median of {args.blocks} blocks of 50): " + ", ".join(f"{k} {v}" for k, v in result.items()))
        if args.profile:
            print(asyncio.run(_cpu(args, db, inline=True))["profile"])
        if args.json:
            args.json.write_text(json.dumps({"cpu_ms": result, "revision": source_revision()}, indent=2))
    return 0


def _print(name: str, result: dict[str, Any]) -> None:
    print(f"\n{name} run ({result['pace_ms']} ms between a client's requests on average, {result['seconds']} s)")
    print(f"{'route':<16} {'requests':>9} {'per s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    for kind, row in result["kinds"].items():
        print(f"{kind:<16} {row['requests']:>9,} {row['per_second']:>8} {row['p50_ms']:>8} {row['p95_ms']:>8}"
              f" {row['p99_ms']:>8}")
    print(f"accepted {result['accepted']:,} episodes, complete {result['complete']:,}, lost {result['lost']}, "
          f"failed {result['failed']}, errors {result['errors']}; queue drained {result['drain_seconds_after_load']} s "
          f"after the load; {result['ingested_per_second']} episodes ingested per second overall")
    if "server_cpu_ms_per_request" in result:
        print(f"server CPU {result['server_cpu_s']} s, {result['server_cpu_ms_per_request']} ms per request served"
              " (drain and checks included)")
    if result["error_samples"]:
        print("errors, first few:", *result["error_samples"], sep="\n  ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="each run's length")
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--readers", type=int, default=16)
    parser.add_argument("--pace", type=float, default=0.1, help="the paced run's mean wait between a client's requests")
    parser.add_argument("--runs", default="paced,saturated", help="which runs, comma separated")
    parser.add_argument("--workers", type=int, default=4, help="the queue's --workers")
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    parser.add_argument("--cpu", action="store_true", help="CPU per request by route, the app in process")
    parser.add_argument("--episodes", type=int, default=300, help="--cpu: episodes seeded per group")
    parser.add_argument("--blocks", type=int, default=3, help="--cpu: blocks of 50 requests per route")
    parser.add_argument("--profile", action="store_true", help="--cpu: also cProfile the search route")
    args = parser.parse_args()
    if args.cpu:
        return _cpu_run(args)
    paces = {"paced": args.pace, "saturated": 0.0}
    runs = [r.strip() for r in args.runs.split(",") if r.strip()]
    if not runs or any(r not in paces for r in runs):
        parser.error(f"--runs takes paced and/or saturated, not {args.runs!r}")
    results = {}
    for name in runs:
        results[name] = _serve(args, paces[name])
        _print(name, results[name])
    if args.json:
        args.json.write_text(json.dumps({**results, "revision": source_revision()}, indent=2))
    ok = all(r["errors"] == 0 and r["lost"] == 0 and r["failed"] == 0 for r in results.values())
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
