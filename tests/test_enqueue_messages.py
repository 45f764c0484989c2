"""``enqueue_messages``: a conversation accepted into the durable queue, one
episode a message, checked whole first; the queue then ingests it as
``add_messages`` would. On every backend."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kronograph import Memory
from kronograph.errors import InvalidInputError

CHAT = [
    {"role": "user", "content": "I work at Initech.", "id": "m1", "created_at": "2024-01-01"},
    {"role": "assistant", "content": "Do you like Initech?", "id": "m2", "created_at": "2024-01-01T00:01"},
    {"role": "user", "content": "I live in Oslo.", "id": "m3", "created_at": "2024-02-01"},
]


def test_queued_messages_are_ingested_in_order_as_add_messages_would(
    memory_factory: Callable[..., Memory],
) -> None:
    memory = memory_factory(model=None)
    queued = memory.enqueue_messages("g", CHAT, thread="t", user_name="Ann Lee", actor="agent-7")
    assert [(e.uuid, e.status, e.speaker, e.role, e.saga) for e in queued] == [
        ("m1", "queued", "Ann Lee", "user", "t"), ("m2", "queued", "Assistant", "assistant", "t"),
        ("m3", "queued", "Ann Lee", "user", "t")]
    assert memory.settings("g").user_name == "Ann Lee"
    assert memory.process_queue() == 3
    assert {f.triple for f in memory.facts("g")} == {"Ann Lee WORKS_AT Initech", "Ann Lee LIVES_IN Oslo"}
    assert {e.actor for e in memory.episodes("g")} == {"agent-7"}
    again = memory.enqueue_messages("g", CHAT[:1])  # idempotent by id
    assert [(e.uuid, e.status) for e in again] == [("m1", "complete")]


def test_a_bad_message_queues_nothing(memory_factory: Callable[..., Memory]) -> None:
    memory = memory_factory(model=None)
    memory.enqueue_messages("g", CHAT[:1])
    for messages, field in [
        ([CHAT[2], {"role": "user"}], "messages[1].content"),
        ([CHAT[2], {"role": "user", "content": "other", "id": "m1"}], "messages[1].id"),
    ]:
        with pytest.raises(InvalidInputError) as caught:
            memory.enqueue_messages("g", messages, user_name="Zed")
        assert caught.value.field == field
    assert [e.uuid for e in memory.episodes("g")] == ["m1"] and memory.settings("g").user_name is None
