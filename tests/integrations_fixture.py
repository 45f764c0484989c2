"""The memory the integrations' tests read: Alice (the group's user) moved
jobs, Bob lives in another group."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from kronograph import Memory

from .conftest import StepClock

ALICE = [
    {"role": "user", "content": "I moved to Berlin in 2023. I work at Acme Robotics.",
     "created_at": "2024-05-01T10:00:00"},
    {"role": "user", "content": "I left Acme and joined Initech in January 2025.", "created_at": "2025-02-01T10:00:00"},
]


@contextmanager
def seeded_memory() -> Iterator[Memory]:
    """Alice's two messages in "alice" (her job changed in 2025), Bob's facts in "bob"; the clock at 2025-03-01."""
    with Memory(":memory:", model=None, clock=StepClock(datetime(2025, 3, 1, tzinfo=UTC))) as memory:
        memory.add_messages("alice", ALICE, user_name="Alice")
        memory.add_episode("bob", "Bob lives in Paris. Bob works at Globex.", kind="text")
        yield memory
