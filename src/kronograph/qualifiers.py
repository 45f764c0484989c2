"""Qualifiers: the keys that make one relation hold several values at once.

"Q2 deliveries were 400k" and "Q3 deliveries were 380k" are two values of one
relation that do not replace each other: each is filed with its ``period``.
A relation declares its qualifier keys (``RelationType(qualifiers=("period",))``);
a fact gives a value for some of them; cardinality, restatement and the
judge then apply per *slot*: subject, relation and qualifiers together.

Keys are identifier-like (a letter or ``_``, then letters, digits or ``_``;
at most :data:`KEY_MAX` characters) and folded to lower case. Values are
text: stripped, runs of white space folded to one space, at most
:data:`VALUE_MAX` characters, no control character; their case is kept and
compared exactly (``2024-Q2`` and ``2024-q2`` are two slots). A fact holds at
most :data:`MAX_QUALIFIERS`. Stored as canonical JSON text (keys sorted), or
NULL for none. The key rule is the model's (a relation's declaration is
checked by it); this module imports only the model, the checks and the errors.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from . import checks
from .errors import InvalidInputError
from .model import MAX_QUALIFIERS, QUALIFIER_KEY_MAX, qualifier_key_problem, qualifier_keys

__all__ = [
    "KEY_MAX", "MAX_QUALIFIERS", "VALUE_MAX", "Qualifiers", "decode", "describe", "encode", "kept", "key_problem",
    "matches", "normalise_value", "parse_pairs", "qualifier_keys", "qualifiers", "value_problem", "wanted",
]

VALUE_MAX = 200
KEY_MAX = QUALIFIER_KEY_MAX
key_problem = qualifier_key_problem

Qualifiers = dict[str, str]

_SPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def value_problem(value: Any) -> str | None:
    """What is wrong with a qualifier value (before it is normalised), or None."""
    if not isinstance(value, str):
        return f"expected a string, not {type(value).__name__}"
    problem = checks.text_problem(value)
    if problem is not None:
        return problem
    if _CONTROL.search(value):
        return "contains a control character"
    if not value.strip():
        return "must not be empty"
    if len(normalise_value(value)) > VALUE_MAX:
        return f"is longer than {VALUE_MAX} characters"
    return None


def normalise_value(value: str) -> str:
    """A value as stored and compared: stripped, white space runs folded; case kept."""
    return _SPACE.sub(" ", value).strip()


def qualifiers(
    field: str, value: Mapping[str, Any] | None, declared: Iterable[str] | None, relation: str = "",
) -> Qualifiers:
    """A caller's qualifiers, checked against the keys its relation declares
    (``declared``; None or empty: the relation declares none) and normalised:
    InvalidInputError naming the key on anything wrong."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(field, f"expected a mapping of key to value, not {type(value).__name__}")
    allowed = set(declared or ())
    if len(value) > MAX_QUALIFIERS:
        raise InvalidInputError(field, f"at most {MAX_QUALIFIERS} qualifiers")
    out: Qualifiers = {}
    for key, raw in value.items():
        problem = key_problem(key)
        if problem is not None:
            raise InvalidInputError(field, problem)
        folded = key.casefold()
        if folded not in allowed:
            said = f"declares {sorted(allowed)}" if allowed else "declares no qualifiers"
            raise InvalidInputError(
                f"{field}[{key!r}]", f"relation {relation!r} {said}: declare it with RelationType(qualifiers=...)",
            )
        problem = value_problem(raw)
        if problem is not None:
            raise InvalidInputError(f"{field}[{key!r}]", problem)
        if folded in out:
            raise InvalidInputError(f"{field}[{key!r}]", "given twice")
        out[folded] = normalise_value(raw)
    return dict(sorted(out.items()))


def encode(value: Mapping[str, str] | None) -> str | None:
    """The stored form: canonical JSON text (keys sorted), None for none."""
    if not value:
        return None
    return json.dumps(dict(sorted(value.items())), ensure_ascii=False, separators=(",", ":"))


def decode(value: Any) -> Qualifiers:
    """The stored form back (text, a value a driver decoded, or NULL)."""
    if not value:
        return {}
    data = json.loads(value) if isinstance(value, str) else value
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def describe(value: Mapping[str, str] | None) -> str:
    """How a fact's text shows its qualifiers: ``" (period 2024-Q2)"``, or ""."""
    if not value:
        return ""
    return " (" + ", ".join(f"{k} {v}" for k, v in sorted(value.items())) + ")"


def wanted(field: str, value: Mapping[str, Any] | None) -> tuple[tuple[str, str], ...]:
    """A read's qualifier filter (every pair must match), checked and
    normalised as a write's are, sorted by key; a key need not be declared
    (one no fact carries matches nothing)."""
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise InvalidInputError(field, f"expected a mapping of key to value, not {type(value).__name__}")
    out: dict[str, str] = {}
    for key, raw in value.items():
        problem = key_problem(key)
        if problem is not None:
            raise InvalidInputError(field, problem)
        problem = value_problem(raw)
        if problem is not None:
            raise InvalidInputError(f"{field}[{key!r}]", problem)
        out[key.casefold()] = normalise_value(raw)
    if len(out) > MAX_QUALIFIERS:
        raise InvalidInputError(field, f"at most {MAX_QUALIFIERS} qualifiers")
    return tuple(sorted(out.items()))


def matches(carried: Mapping[str, str], asked: Iterable[tuple[str, str]]) -> bool:
    """Whether a fact's qualifiers hold every asked pair."""
    return all(carried.get(k) == v for k, v in asked)


def kept(value: Mapping[str, Any], declared: Iterable[str]) -> tuple[Qualifiers, list[str]]:
    """An extractor's qualifiers: those of ``declared`` keys with a valid
    value, normalised; and a note for each dropped (``"unit: not declared"``),
    naming a key only where it is a valid key (never storing text a caller
    could not have filed). A number (``2025``) is read as its text."""
    allowed = set(declared)
    out: Qualifiers = {}
    dropped: list[str] = []
    for key, raw in value.items():
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            raw = str(raw)
        if key_problem(key) is not None:
            dropped.append("(a key that is not identifier-like)")
            continue
        folded = key.casefold()
        if folded not in allowed:
            dropped.append(f"{folded}: not declared for this relation")
        elif value_problem(raw) is not None:
            dropped.append(f"{folded}: {value_problem(raw)}")
        elif folded not in out:
            out[folded] = normalise_value(raw)
    return dict(sorted(out.items())), dropped[:MAX_QUALIFIERS]


def parse_pairs(field: str, items: Iterable[str]) -> dict[str, str]:
    """``KEY=VALUE`` texts (a command line's or a query string's) as a mapping,
    checked as :func:`wanted` checks them; a key given twice is refused."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise InvalidInputError(field, "expected KEY=VALUE (a key, '=', then its value)")
        key = key.strip()
        if key.casefold() in {k.casefold() for k in out}:
            raise InvalidInputError(field, f"qualifier {key!r} given twice")
        out[key] = value
    wanted(field, out)
    return out
