"""bench/citus.py: the scale-out benchmark runs end to end (on SQLite, the one
backend that needs no server) and counts the servers' CPU from /proc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .bench_modules import BENCH, load_bench

bench = load_bench("citus", "bench_citus")


def test_sqlite_run_ingests_every_group_and_times_each_kind_of_read(tmp_path: Path) -> None:
    if not (BENCH.parent.parent / "shared" / "data" / "workloads" / "team-chat-1000.json").exists():
        pytest.skip("the standard workloads (../shared/data/workloads) are not beside this checkout")
    out = tmp_path / "r.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(BENCH.parent / "src"),
                                                                         os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, str(BENCH / "citus.py"), "--backends", "sqlite", "--episodes", "3", "--groups", "2",
         "--readers", "1", "--tasks", "2", "--calls", "2", "--json", str(out)],
        capture_output=True, text=True, timeout=240, env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(out.read_text())["results"]["sqlite"]
    ingest = result["ingest"]
    assert ingest["calls"] == 6  # 3 episodes into each of 2 groups
    assert ingest["model_calls"] >= 6  # the scripted model extracted every episode
    assert ingest["writers"] == "1 process x 2 tasks"
    assert ingest["server_cpu_s"] == 0.0 and ingest["client_cpu_s"] > 0
    calls = {kind: r["calls"] for kind, r in result["reads"].items()}
    assert calls == {"search, one group": 4, "search, all groups": 2, "facts(subject)": 4}
    assert "episodes/s" in done.stdout and "SQLite" in done.stdout


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_server_cpu_counts_the_postmaster_and_its_children(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time\nt = time.process_time()\n"
                              "while time.process_time() - t < 0.3: pass\ntime.sleep(30)"])
    try:
        (tmp_path / "data").mkdir()
        (tmp_path / "data" / "postmaster.pid").write_text(f"{os.getpid()}\n/some/dir\n")
        before = bench.server_cpu_s([tmp_path])[0]
        time.sleep(1.5)  # the child (ours: a "backend" of this "postmaster") burns 0.3 s of CPU meanwhile
        after = bench.server_cpu_s([tmp_path])[0]
        assert after - before >= 0.2
        assert bench.server_cpu_s([tmp_path / "none"]) == [0.0]  # no server there: nothing counted
    finally:
        child.kill()
        child.wait()


def test_the_table_shows_the_coordinators_share_only_for_a_cluster() -> None:
    phase = {"wall_s": 2.0, "per_s": 5.0, "median_ms": 1.0, "p95_ms": 2.0, "machine_busy": 1.0, "calls": 10,
             "client_cpu_s": 0.1, "writers": "w"}
    reads = {kind: dict(phase) for kind in bench.READS}
    results = {
        "postgres": {"version": "18", "layout": "one", "ingest": {**phase, "server_cpu_s": 0.2, "node_cpu_s": [0.2]},
                     "reads": reads},
        "citus": {"version": "18", "layout": "three", "reads": reads,
                  "ingest": {**phase, "server_cpu_s": 0.6, "node_cpu_s": [0.3, 0.2, 0.1]}},
    }
    for r in reads.values():
        r.update(server_cpu_s=0.0, node_cpu_s=[])
    line = next(x for x in bench.table(results) if x.startswith("ingest: CPU ms per episode"))
    assert "10.0 + 20.0 " in line  # one server: client + server
    assert line.endswith("10.0 + 60.0 (30.0 coord.)")  # the cluster: the coordinator's part of the 60
