"""Who is working on an unfinished episode, so that nobody else takes it over.

An episode's pending record names its owner (host and process). Another
process on the same machine is asked directly (is it alive?); a memory in
this process registers the episodes it is working on; an owner on another
machine cannot be asked, so its claim lapses after ``LEASE_SECONDS`` without
a status change.
"""

from __future__ import annotations

import os
import socket
from datetime import datetime
from typing import Any

from ..store.protocol import Store
from ..store.records import EpisodeProgress

__all__ = ["LEASE_SECONDS", "held_elsewhere", "owner", "working"]


def owner() -> dict[str, Any]:
    return {"host": socket.gethostname(), "pid": os.getpid()}


# Episodes being worked on in this process, by store: another memory on the
# same store in this process must not take them over.
_working: set[tuple[str, str, str]] = set()


def store_key(store: Store) -> str:
    path = getattr(store, "path", None)
    return str(path) if path not in (None, ":memory:") else f"id:{id(store)}"


class working:
    """Marks an episode as being worked on by this process, while in the block."""

    def __init__(self, store: Store, group_id: str, episode_id: str) -> None:
        self.key = (store_key(store), group_id, episode_id)

    def __enter__(self) -> None:
        _working.add(self.key)

    def __exit__(self, *exc: object) -> None:
        _working.discard(self.key)


LEASE_SECONDS = 600.0  # an owner on another machine holds an untouched episode this long


def held_elsewhere(store: Store, progress: EpisodeProgress, now: datetime) -> bool:
    """Whether a live worker (another process on this machine, or another
    memory in this one) is working on the episode. An owner on another host
    cannot be asked: its claim lapses after ``LEASE_SECONDS`` untouched."""
    episode = progress.episode
    if (store_key(store), episode.group_id, episode.uuid) in _working:
        return True
    who = (progress.pending or {}).get("owner") or {}
    if not who:
        return False
    if who.get("host") != socket.gethostname():
        return (now - progress.updated_at).total_seconds() < LEASE_SECONDS
    pid = who.get("pid")
    if not isinstance(pid, int) or pid == os.getpid():
        return False  # ours, and not in flight: a failed or interrupted attempt
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
