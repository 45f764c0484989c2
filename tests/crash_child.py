"""Child process of the crash test: ingest the fixture into a database until
done (or killed). Run as ``python -m tests.crash_child DB N``."""

from __future__ import annotations

import sys

from kronograph import Memory

from .chat_fixture import chat

if __name__ == "__main__":
    path, n = sys.argv[1], int(sys.argv[2])
    with Memory(path, model=None) as memory:  # opening resumes what a kill left unfinished
        for item in chat(n, seed=11):
            result = memory.add_episode("g", **item)
            if not result.ok:
                sys.exit(f"{item['episode_id']}: {result.status} {result.error}")
    print("done")
