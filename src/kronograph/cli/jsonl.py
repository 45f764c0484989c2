"""Reading an ``import`` file: JSON Lines, one episode object a line, every line checked before anything is written."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from ..sync import Memory
from .output import fail
from .session import message

__all__ = ["read_episodes", "read_text"]

# How check_episodes names an item: ``episodes[3]: ...`` for the item, ``episodes[3].content: ...`` for a field.
_ITEM = re.compile(r"episodes\[(\d+)\](?:: |\.)")


def _check(checker: Memory, group: str, lines: list[tuple[int, dict[str, Any]]], path: Path) -> None:
    """Validate ``(line number, episode)`` pairs as ``add_episodes`` will; a bad one stops the import, by its line."""
    try:
        checker.check_episodes(group, [value for _, value in lines])
    except InvalidInputError as exc:
        item = _ITEM.match(str(exc))
        if item is None:  # not about one item: the group
            fail(message(exc))
        fail(f"{path} line {lines[int(item.group(1))][0]}: {str(exc)[item.end() :]}")


def read_text(path: Path) -> str:
    """The text of ``path`` (``-``: stdin), or a one-line failure."""
    try:
        return sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read {path}: {exc}")


def read_episodes(path: Path, group: str, text: str | None = None) -> list[dict[str, Any]]:
    """Every non-blank line of ``path`` (``-``: stdin; or ``text``, read from it already) as an episode, each
    validated, ids checked across lines.

    Line by line, so the first bad line in the file is the one reported, whatever is wrong with it. The check
    runs on a scratch in-memory memory: a bad file leaves nothing behind, not even an empty database.
    """
    if text is None:
        text = read_text(path)
    items: list[dict[str, Any]] = []
    seen: dict[str, tuple[int, Any]] = {}
    with Memory(":memory:", model=None, resume=False) as checker:
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path} line {number}"
            try:
                value = json.loads(line)
            except ValueError as exc:
                fail(f"{where}: not valid JSON ({exc})")
            if not isinstance(value, dict):
                fail(f"{where}: expected a JSON object with add_episode's fields, got {type(value).__name__}")
            _check(checker, group, [(number, value)], path)
            episode_id = value.get("episode_id")
            if isinstance(episode_id, str) and episode_id.strip():
                first = seen.setdefault(episode_id.strip(), (number, value["content"]))
                if first[1] != value["content"]:
                    fail(f"{where}: episode_id {episode_id!r} repeats line {first[0]}'s with other content")
            items.append(value)
    if not items:
        fail(f"{path} holds no episodes")
    return items
