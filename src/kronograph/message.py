"""A chat message, the first way in: ``add_messages`` makes one episode of
each, with its speaker and role recorded (see :mod:`kronograph.ingest.speakers`).

A message is a :class:`Message` or a dict of its fields. Every message of a
call is checked before anything is stored, and a bad one is named by its
position and field (``messages[3].role: must not be empty``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from . import checks
from .errors import InvalidInputError
from .ingest.speakers import ROLE_MAX, SPEAKER_MAX
from .time import read_time

__all__ = ["Message", "read_messages"]


def _raise(problem: str | None) -> None:
    if problem is not None:
        raise ValueError(problem)


class Message(BaseModel):
    """One message of a conversation.

    ``role``: ``"user"``, ``"assistant"``, ``"system"``, ``"tool"`` or any
    other word; ``content``: what was said; ``name``: who said it (default:
    the group's user for role ``user``, the assistant's name for role
    ``assistant``); ``created_at``: when it was sent (the episode's reference
    time; naive is UTC; default the clock); ``id``: its episode id (adding it
    again is idempotent); ``metadata``: kept with the episode."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str
    content: str
    name: str | None = None
    created_at: datetime | str | None = None
    id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("role", mode="before")
    @classmethod
    def _role(cls, value: Any) -> Any:
        _raise(checks.identifier_problem(value, ROLE_MAX))
        return value

    @field_validator("content", mode="before")
    @classmethod
    def _content(cls, value: Any) -> Any:
        _raise(checks.text_problem(value))
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, value: Any) -> Any:
        if value is not None:
            _raise(checks.identifier_problem(value, SPEAKER_MAX))
        return value

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> Any:
        if value is not None:
            _raise(checks.identifier_problem(value))
        return value

    @field_validator("created_at", mode="before")
    @classmethod
    def _created_at(cls, value: Any) -> Any:
        if value is None:
            return None
        try:
            return read_time(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a datetime or ISO 8601 time: {value!r} ({exc})") from None

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata(cls, value: Any) -> Any:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise ValueError(f"expected a dict, got {type(value).__name__}")
        _raise(checks.json_problem(dict(value)))
        return dict(value)


def _problem(exc: ValidationError) -> tuple[str, str]:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "missing":
        message = "is required"
    elif first["type"] == "extra_forbidden":
        message = f"unknown field; a message has {sorted(Message.model_fields)}"
    return where, message


def read_messages(messages: Any, *, label: str = "messages") -> list[Message]:
    """Every message checked, or InvalidInputError naming the first bad one
    (``messages[3].role``)."""
    if isinstance(messages, Mapping | str | bytes | Message) or not isinstance(messages, Iterable):
        raise InvalidInputError(label, "expected a list of messages (dicts or Message)")
    out: list[Message] = []
    for i, item in enumerate(messages):
        if isinstance(item, Message):
            out.append(item)
            continue
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"{label}[{i}]", f"expected a dict or a Message, got {type(item).__name__}")
        try:
            out.append(Message.model_validate(dict(item)))
        except ValidationError as exc:
            where, message = _problem(exc)
            raise InvalidInputError(f"{label}[{i}].{where}", message) from None
    return out
