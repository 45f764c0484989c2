"""Durability of the queue across a hard kill: the service, as a subprocess
on a store, accepts episodes into its queue and is killed (SIGKILL) while it
works; restarted, it finishes every one of them, each exactly once (those
the killed one was working on once their leases run out)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from kronograph import Memory

from .conftest import CITUS, store_url
from .server_helpers import free_port, sentence

GROUPS = ["g0", "g1", "g2", "g3"]
PER_GROUP = 30


def _serve(db: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-c", "from kronograph.cli import main; main()", "serve", "--db", db, "--local",
           "--offline", "--port", str(port), "--workers", "2",
           "--lease", "2"]  # the killed server's episodes are held 2 s after its last heartbeat
    process = subprocess.Popen(cmd, stdout=log.open("ab"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(log.read_text())


def _post(url: str, group: str) -> list[str]:
    accepted = []
    with httpx.Client(base_url=url, timeout=30) as client:
        for i in range(PER_GROUP):
            n = GROUPS.index(group) * PER_GROUP + i
            r = client.post(f"/v1/groups/{group}/episodes", json={"content": sentence(n), "episode_id": f"{group}-{i}"})
            assert r.status_code == 202, r.text
            accepted.append(r.json()["episode_id"])
    return accepted


@pytest.mark.parametrize("backend", ["sqlite", "postgres", CITUS])
def test_a_killed_service_finishes_every_accepted_episode_once(tmp_path: Path, backend: str) -> None:
    db = str(tmp_path / "kg.db") if backend == "sqlite" else store_url(backend)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    process = _serve(db, port, log)
    try:
        with ThreadPoolExecutor(len(GROUPS)) as pool:
            accepted = [e for ids in pool.map(lambda g: _post(url, g), GROUPS) for e in ids]
        os.kill(process.pid, signal.SIGKILL)  # while the worker is still at it
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
    with Memory(db, model=None, resume=False) as memory:
        left = memory.queue_stats()
    assert left.queued + left.processing > 0, "the kill came after all the work: nothing was tested"
    process = _serve(db, port, log)
    try:
        deadline = time.monotonic() + 120
        with httpx.Client(base_url=url, timeout=30) as client:
            while time.monotonic() < deadline:
                text = client.get("/v1/metrics").text
                if 'state="queued"} 0' in text and 'state="processing"} 0' in text:
                    break
                time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    with Memory(db, model=None, resume=False) as memory:
        stats = memory.queue_stats()
        assert (stats.complete, stats.queued, stats.processing, stats.failed) == (len(accepted), 0, 0, 0)
        for group in GROUPS:
            episodes = memory.episodes(group)
            assert sorted(e.uuid for e in episodes) == sorted(e for e in accepted if e.startswith(group + "-"))
            facts = memory.facts(group, include_retired=True, include_expired=True)
            assert len(facts) == PER_GROUP  # one per episode: none lost, none twice
            assert sorted(s for f in facts for s in f.episodes) == sorted(e.uuid for e in episodes)
            assert all(len(memory.fact_sources(group, f.uuid)) == 1 for f in facts)
