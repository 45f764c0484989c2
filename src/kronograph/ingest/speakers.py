"""Who says a message, and to whom: the speaker is whom "I", "me" and "my"
mean, the addressee whom "you" means. In a user's message the speaker is the
group's user and "you" the assistant; in an assistant's message the other way
round; other roles (system, tool, ...) have no one behind them unless named."""

from __future__ import annotations

from typing import Any

from .. import checks

__all__ = ["ROLE_MAX", "SPEAKER_MAX", "role_text", "speaker_text", "speakers"]

ROLE_MAX = 64  # characters: "user", "assistant", "system", "tool" or a caller's own word
SPEAKER_MAX = checks.ID_MAX  # characters: a person's or an agent's name


def role_text(field: str, value: Any, *, optional: bool = True) -> str | None:
    """A message's role: a short identifier, kept as given (compared casefolded)."""
    return checks.identifier(field, value, optional=optional, max_length=ROLE_MAX)


def speaker_text(field: str, value: Any) -> str | None:
    """A speaker's name: None, or a short name with no control characters."""
    return checks.identifier(field, value, optional=True, max_length=SPEAKER_MAX)


def speakers(
    role: str | None, speaker: str | None, *, user_name: str | None, assistant_name: str | None
) -> tuple[str | None, str | None]:
    """``(speaker, addressee)`` of a message: the name given, else the group's
    user for role ``user`` and the assistant for role ``assistant``; "you"
    is the other one of the two."""
    kind = role.casefold() if role else None
    if kind == "user":
        return speaker or user_name, assistant_name
    if kind == "assistant":
        return speaker or assistant_name, user_name
    return speaker, None
