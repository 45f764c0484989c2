"""The rules every value taken from a caller obeys, in one place: the library's
entry points, the REST service's request models and the API key file all
apply these, so a string the service accepts is a string the library
accepts and the store keeps, and the group id a key names is exactly the id
the store uses.

* **Text** (content, names, fact text, queries, every string inside metadata
  and JSON): any Unicode a UTF-8 store can keep: no lone surrogate
  (``"\\ud800"``) and no NUL (PostgreSQL's text and JSON types refuse it).
* **Identifiers** (group ids, episode ids, saga names, relation names,
  labels, actors, uuids): text that is also non-empty, NFC, without leading
  or trailing white space, without control, format, separator or unassigned
  characters, with no white space but the plain space, and short. They are
  refused, never silently repaired: two spellings of one id cannot name two
  things, or the same thing in two places.
* **JSON values** (metadata, JSON episode content): objects with string keys,
  arrays, strings as above, finite numbers, booleans and null, nested at
  most :data:`MAX_JSON_DEPTH` deep.
* **Numbers and flags**: a count is an ``int`` (never a ``bool`` or a
  ``float``), a flag a ``bool``, a float finite.

Each rule is a ``*_problem`` function answering what is wrong (or None), for
pydantic validators, and a wrapper raising :class:`InvalidInputError` naming
the argument, for the library. This module imports nothing else of ours but
the errors.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Literal, overload

from .errors import InvalidInputError

__all__ = [
    "ID_MAX",
    "MAX_JSON_DEPTH",
    "NAME_MAX",
    "count",
    "flag",
    "identifier",
    "identifier_problem",
    "json_problem",
    "json_value",
    "number",
    "text",
    "text_problem",
]

ID_MAX = 200  # characters: group ids, episode ids, sagas, actors, uuids
NAME_MAX = 1000  # characters: relation names and labels
MAX_JSON_DEPTH = 128  # nested objects and arrays in one JSON value
_MAX_INT_BITS = 13_000  # about 3,900 digits: Python's int-to-text limit is 4,300

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "a format (invisible) character",
    "Cs": "a lone surrogate",
    "Cn": "an unassigned code point",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}


def _describe(char: str) -> str:
    return f"U+{ord(char):04X}"


def text_problem(value: Any) -> str | None:
    """What keeps ``value`` from being stored as text, or None."""
    if not isinstance(value, str):
        return f"expected a string, got {type(value).__name__}"
    found = _UNSTORABLE.search(value)
    if found is None:
        return None
    char = found.group()
    if char == "\x00":
        return "must not contain a NUL character (U+0000)"
    return f"must not contain a lone surrogate ({_describe(char)} at {found.start()}): it is not valid Unicode text"


def identifier_problem(value: Any, max_length: int = ID_MAX) -> str | None:
    """What keeps ``value`` from being an identifier, or None."""
    problem = text_problem(value)
    if problem is not None:
        return problem
    if not value:
        return "must not be empty"
    if len(value) > max_length:
        return f"must be at most {max_length} characters, got {len(value)}"
    if value[0].isspace() or value[-1].isspace():
        return "must not begin or end with white space"
    if value.isascii() and value.isprintable():  # the usual case: no refused category, only plain spaces, NFC
        return None
    for i, char in enumerate(value):
        category = unicodedata.category(char)
        if category in _REFUSED_CATEGORIES:
            return f"must not contain {_REFUSED_CATEGORIES[category]} ({_describe(char)} at {i})"
        if char != " " and char.isspace():
            return f"must not contain white space other than a plain space ({_describe(char)} at {i})"
    if not unicodedata.is_normalized("NFC", value):
        return "must be in Unicode normal form NFC"
    return None


def json_problem(value: Any, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """What keeps ``value`` (parsed JSON, or Python data meant as JSON) from
    being stored as JSON, or None. Walked without recursion, so no depth
    can overflow the stack."""
    stack: list[tuple[Any, int, str]] = [(value, 1, "")]
    while stack:
        item, depth, where = stack.pop()
        at = f" at {where if len(where) <= 80 else '…' + where[-79:]}" if where else ""
        if isinstance(item, str):
            problem = text_problem(item)
            if problem is not None:
                return f"a string{at} {problem}"
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if item.bit_length() > _MAX_INT_BITS:
                return f"a number{at} has more than 4,000 digits"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"a number{at} is {item}, which JSON cannot hold"
        elif isinstance(item, Mapping | list | tuple):
            if depth > max_depth:
                return f"nested deeper than {max_depth} levels{at}"
            if isinstance(item, Mapping):
                for key, child in item.items():
                    if not isinstance(key, str):
                        return f"a key{at} is a {type(key).__name__}; JSON keys are strings"
                    problem = text_problem(key)
                    if problem is not None:
                        return f"a key{at} {problem}"
                    stack.append((child, depth + 1, f"{where}.{key}" if where else key))
            else:
                stack.extend((child, depth + 1, f"{where}[{i}]") for i, child in enumerate(item))
        else:
            return f"a value{at} is a {type(item).__name__}, which JSON cannot hold"
    return None


def _check(field: str, problem: str | None) -> None:
    if problem is not None:
        raise InvalidInputError(field, problem)


@overload
def text(field: str, value: Any, *, optional: Literal[False] = False, strip: bool = True) -> str: ...
@overload
def text(field: str, value: Any, *, optional: bool, strip: bool = True) -> str | None: ...
def text(field: str, value: Any, *, optional: bool = False, strip: bool = True) -> str | None:
    """Free text, stripped (by default): refused when empty or unstorable."""
    if value is None and optional:
        return None
    _check(field, text_problem(value))
    out = value.strip() if strip else value
    if not out.strip():
        raise InvalidInputError(field, "must not be empty")
    return out  # type: ignore[no-any-return]


@overload
def identifier(field: str, value: Any, *, optional: Literal[False] = False, max_length: int = ID_MAX) -> str: ...
@overload
def identifier(field: str, value: Any, *, optional: bool, max_length: int = ID_MAX) -> str | None: ...
def identifier(field: str, value: Any, *, optional: bool = False, max_length: int = ID_MAX) -> str | None:
    """An identifier, exactly as given (never stripped or normalised)."""
    if value is None and optional:
        return None
    _check(field, identifier_problem(value, max_length))
    return value  # type: ignore[no-any-return]


def json_value(field: str, value: Any, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """A JSON value, checked (returned as given)."""
    _check(field, json_problem(value, max_depth))
    return value


@overload
def count(field: str, value: Any, *, minimum: int = 1, optional: Literal[False] = False) -> int: ...
@overload
def count(field: str, value: Any, *, minimum: int = 1, optional: bool) -> int | None: ...
def count(field: str, value: Any, *, minimum: int = 1, optional: bool = False) -> int | None:
    """A whole number of at least ``minimum``: an ``int``, never a ``bool`` or a ``float``."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(field, f"expected a whole number, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise InvalidInputError(field, f"must be at least {minimum}, got {value}")
    return value


def flag(field: str, value: Any) -> bool:
    """A ``bool``: not 0, 1, ``"no"`` or any other truthy stand-in."""
    if not isinstance(value, bool):
        raise InvalidInputError(field, f"expected true or false, got {type(value).__name__} {value!r}")
    return value


def number(field: str, value: Any, *, positive: bool = False) -> float:
    """A finite real number (an ``int`` or a ``float``, not a ``bool``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(field, f"expected a number, got {type(value).__name__} {value!r}")
    if not math.isfinite(value):
        raise InvalidInputError(field, f"must be a finite number, got {value!r}")
    if positive and not value > 0:
        raise InvalidInputError(field, f"must be more than 0, got {value!r}")
    return float(value)
