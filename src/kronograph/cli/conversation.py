"""Reading a conversation for ``import``: JSON Lines whose lines are messages
(``role`` and ``content``, and ``name``, ``created_at``, ``id``), or a JSON
file holding a list of messages or ``{"messages": [...], "user_name": ...}``.

Every message is checked before anything is written; a bad one is reported
by its line (JSON Lines) or its place (``messages[3]``), with what is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from ..message import Message, read_messages
from .output import fail

__all__ = ["Conversation", "is_message", "read_conversation"]

_MESSAGE_FIELDS = frozenset(Message.model_fields)
_OPTIONS = ("user_name", "thread", "assistant_name")  # what a JSON file may say beside its messages


@dataclass(frozen=True, slots=True)
class Conversation:
    """A file's messages (checked), and what the file said about them."""

    messages: list[dict[str, Any]]
    options: dict[str, str] = field(default_factory=dict)


def is_message(value: Any) -> bool:
    """A line that is a message rather than an episode: ``role`` and only a message's fields."""
    return isinstance(value, dict) and "role" in value and set(value) <= _MESSAGE_FIELDS


def _checked(messages: list[Any], where: str) -> None:
    try:
        read_messages(messages)
    except InvalidInputError as exc:
        fail(f"{where}: {exc}")


def _document(value: Any, path: Path) -> Conversation:
    """A JSON file: a list of messages, or an object with ``messages`` and the options."""
    options: dict[str, str] = {}
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"messages", *_OPTIONS})
        if unknown:
            fail(f"{path}: unknown field {unknown[0]!r}; a conversation file has messages, {', '.join(_OPTIONS)}")
        for name in _OPTIONS:
            if value.get(name) is not None:
                if not isinstance(value[name], str):
                    fail(f"{path}: {name}: expected a string, got {type(value[name]).__name__}")
                options[name] = value[name]
        value = value.get("messages")
    if not isinstance(value, list):
        fail(f"{path}: expected a list of messages, or an object with a list of messages under 'messages'")
    _checked(value, str(path))
    return Conversation(messages=value, options=options)


def _lines(lines: list[tuple[int, Any]], path: Path) -> Conversation:
    """JSON Lines of messages: each checked alone, so the first bad line is the one reported."""
    seen: dict[str, tuple[int, Any]] = {}
    for number, value in lines:
        where = f"{path} line {number}"
        if not isinstance(value, dict):
            fail(f"{where}: expected a JSON object (a message with role and content), got {type(value).__name__}")
        try:
            read_messages([value])
        except InvalidInputError as exc:
            fail(f"{where}: {str(exc).removeprefix('messages[0].')}")
        if isinstance(value.get("id"), str):
            first = seen.setdefault(value["id"], (number, value["content"]))
            if first[1] != value["content"]:
                fail(f"{where}: id {value['id']!r} repeats line {first[0]}'s with other content")
    return Conversation(messages=[value for _, value in lines])


def read_conversation(text: str, path: Path) -> Conversation | None:
    """The conversation ``text`` holds, or None when it is not one (JSON Lines of episodes)."""
    try:
        whole = json.loads(text)
    except ValueError as exc:
        if path.suffix == ".json":
            fail(f"{path}: not valid JSON ({exc})")
        whole = None
    if isinstance(whole, list) or (isinstance(whole, dict) and "messages" in whole):
        return _document(whole, path)
    lines: list[tuple[int, Any]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            lines.append((number, json.loads(line)))
        except ValueError as exc:
            if not lines:
                return None  # the episodes' reader says what is wrong with it
            fail(f"{path} line {number}: not valid JSON ({exc})")
    if not lines or not is_message(lines[0][1]):
        return None
    return _lines(lines, path)
