"""Child process of the crash test: ingest the fixture into a database until
done (or killed). Run as ``python -m tests.crash_child DB N``.

A killed child's lease on the episode it was working on holds it for
``LEASE`` seconds more (its pid may have been reused, its host is this one:
neither says it is dead); the next child waits that out, then resumes it."""

from __future__ import annotations

import sys
import time

from kronograph import Memory
from kronograph.model import EpisodeStatus

from .chat_fixture import chat

LEASE = 1.0
HELD = {EpisodeStatus.RECEIVED, EpisodeStatus.EXTRACTING, EpisodeStatus.RESOLVING, EpisodeStatus.COMMITTING}

if __name__ == "__main__":
    path, n = sys.argv[1], int(sys.argv[2])
    with Memory(path, model=None, lease_seconds=LEASE) as memory:  # opening resumes what a kill left unfinished
        for item in chat(n, seed=11):
            result = memory.add_episode("g", **item)
            deadline = time.monotonic() + 30 * LEASE
            while result.status in HELD and time.monotonic() < deadline:  # a killed child's lease, not out yet
                time.sleep(LEASE / 5)
                result = memory.add_episode("g", **item)
            if not result.ok:
                sys.exit(f"{item['episode_id']}: {result.status} {result.error}")
    print("done")
