"""A child ingesting 300 episodes is killed at random points; after each
restart the memory resumes, and in the end every episode is complete exactly
once and the graph is the one an uninterrupted run builds."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from kronograph import Memory

from .chat_fixture import chat, graph

N = 300
ROOT = Path(__file__).resolve().parent.parent


def _child(db: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}  # this checkout's code
    return subprocess.Popen(
        [sys.executable, "-m", "tests.crash_child", str(db), str(N)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def _unfinished(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'fact_sources'").fetchone():
            return []  # killed before the schema was made
        return conn.execute("SELECT uuid, status FROM episodes WHERE status != 'complete'").fetchall()


def _complete(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'fact_sources'").fetchone():
                return 0
            return int(conn.execute("SELECT COUNT(*) FROM episodes WHERE status = 'complete'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def _no_partial_episode(db: Path) -> None:
    """Whatever facts exist cite complete episodes only."""
    with sqlite3.connect(db, timeout=5) as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'fact_sources'").fetchone():
            return
        orphans = conn.execute(
            "SELECT COUNT(*) FROM fact_sources s JOIN episodes p ON p.group_id = s.group_id"
            " AND p.uuid = s.episode_id WHERE p.status != 'complete'"
        ).fetchone()[0]
    assert orphans == 0


def test_killed_ingestion_resumes_to_exactly_the_uninterrupted_graph(tmp_path):
    rng = random.Random(5)
    db = tmp_path / "crash.db"
    kills = 0
    partial_seen = False
    # Kill at random points of the run: after a random number of completed
    # episodes plus a random few milliseconds, so some kills land mid-episode.
    targets = sorted(rng.sample(range(10, N - 10), 5))
    for target in targets:
        child = _child(db)
        deadline = time.monotonic() + 60
        while child.poll() is None and _complete(db) < target and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.01))
        if child.poll() is not None:
            out, err = child.communicate()
            assert child.returncode == 0, err.decode()
            continue
        child.send_signal(signal.SIGKILL)
        child.wait()
        kills += 1
        partial_seen |= bool(_unfinished(db))
        _no_partial_episode(db)
    child = _child(db)  # the last run resumes and finishes
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err.decode()
    assert kills >= 3
    assert _unfinished(db) == []
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*), COUNT(DISTINCT uuid) FROM episodes").fetchone() == (N, N)
    reference = Memory(model=None)
    for item in chat(N, seed=11):
        reference.add_episode("g", **item)
    with Memory(db, model=None) as resumed:
        assert graph(resumed, "g") == graph(reference, "g")
    print(f"{kills} kills; an unfinished episode was caught {'' if partial_seen else 'never '}")
