"""The JSON a model must answer with: how to ask for it, and how to read it
out of what models actually send back (reasoning in ``<think>`` tags, code
fences, a sentence before or after the object)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["NoJSONObjectError", "extract_json_object", "schema_instruction"]

_THINK_BLOCK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)


class NoJSONObjectError(ValueError):
    """The text holds no complete JSON object."""

    def __init__(self, text: str) -> None:
        self.text = text
        preview = text.strip().replace("\n", " ")
        if len(preview) > 200:
            preview = preview[:200] + "…"
        super().__init__(f"no complete JSON object in the answer: {preview!r}" if preview else "the answer is empty")


def schema_instruction(schema: Mapping[str, Any]) -> str:
    """The plain-text request for JSON, for models with no native structured
    output (appended to the system prompt)."""
    return (
        "Answer with one JSON object and nothing else (no prose, no code fences), "
        "following this JSON schema:\n" + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    )


def strip_thinking(text: str) -> str:
    """``text`` without reasoning blocks: closed ``<think>…</think>`` blocks go,
    everything up to a stray closing tag goes (the opening one was in the
    prompt template), and an unclosed opening tag is dropped itself."""
    text = _THINK_BLOCK.sub("", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end():]
    return _THINK_OPEN.sub("", text)


def extract_json_object(text: str) -> dict[str, Any]:
    """The first complete top-level JSON object in a model's answer.

    Looks inside code fences first, then at the whole text; within each, scans
    for balanced braces (braces inside strings do not count) and returns the
    first span that decodes to an object. Raises :class:`NoJSONObjectError`."""
    cleaned = strip_thinking(text)
    places = [m.group(1) for m in _FENCE.finditer(cleaned)]
    places.append(cleaned)
    for place in places:
        found = _first_object(place)
        if found is not None:
            return found
    raise NoJSONObjectError(text)


def _first_object(text: str) -> dict[str, Any] | None:
    """The first top-level balanced ``{…}`` span that decodes to an object. A
    span that does not decode is skipped whole (its inner braces are not
    top-level); an opening brace that never closes is skipped alone."""
    start = text.find("{")
    while start != -1:
        end = _matching_brace(text, start)
        if end is None:
            start = text.find("{", start + 1)
            continue
        try:
            value = json.loads(text[start:end + 1])
        except ValueError:
            value = None
        if isinstance(value, dict):
            return _without_nul(value)
        start = text.find("{", end + 1)
    return None


def _without_nul(value: Any) -> Any:
    """The answer with NUL characters (a JSON ``\\u0000``) dropped from every
    string: they mean nothing in a name or a fact, and PostgreSQL cannot store them."""
    if isinstance(value, str):
        return value.replace("\x00", "") if "\x00" in value else value
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_nul(v) for v in value]
    return value


def _matching_brace(text: str, start: int) -> int | None:
    depth = 0
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
    return None
