"""One way for the thread tests to read a message after the ones before it, as the pipeline does."""

from __future__ import annotations

from datetime import UTC, datetime

from kronograph.ingest.offline import OfflineExtractor
from kronograph.ingest.offline.thread import Said, read_thread

REF = datetime(2024, 5, 15, 14, 30, tzinfo=UTC)
SAM = "Sam Carter"


def facts(content: str, speaker: str = SAM) -> set[tuple[str, str, str]]:
    """The facts of one user message, read alone."""
    result = OfflineExtractor().extract(content, reference_time=REF, speaker=speaker, role="user")
    return {(f.subject, f.relation, f.object) for f in result.facts}


def last_facts(*messages: str) -> set[tuple[str, str, str]]:
    """The facts of the last message, read after the ones before it ("A: ..." is the assistant's)."""
    said: list[Said] = []
    result = None
    for message in messages:
        role = "assistant" if message.startswith("A: ") else "user"
        text = message.removeprefix("A: ")
        speaker = SAM if role == "user" else "Assistant"
        result = OfflineExtractor().extract(
            text, reference_time=REF, speaker=speaker, role=role, addressee="Assistant",
            thread=read_thread(said) if said else None,
        )
        said.append(Said(role, speaker, text, REF))
    assert result is not None
    return {(f.subject, f.relation, f.object) for f in result.facts}
