"""Counting tokens: exact o200k_base counts from ``bpe-openai`` (the
``tokens`` extra: it ships its vocabulary and works offline) when it is
installed, else an estimate; or the caller's counter.

The estimate needs no vocabulary. It splits the text into pieces: a run of
ASCII letters is one token, plus one per 4 letters past the 7th when it is
lower case (or at most 3 letters long) and one per 3 letters past the 3rd
otherwise (names and rare words split more); a run of digits is one token
per 3 digits; a run of one repeated punctuation character is one token; any
other non-ASCII character two; the total is raised by 5%. Measured on
English chat (LoCoMo's turns and the repository's chat sets, in blocks of
20 turns: ``tests/test_context_tokens.py``), it never undercounts
o200k_base or cl100k_base by more than 10% (the worst block: about 5%), and
overcounts by about 10-15% on the median block. One short message alone can
be undercounted more: the guarantee is for blocks, which is what ``context``
counts.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

from ..errors import InvalidInputError

__all__ = ["ESTIMATE", "CallableCounter", "EstimateCounter", "TokenCounter", "bpe_counter", "counter_for",
           "default_counter"]

ESTIMATE = "estimate"


@runtime_checkable
class TokenCounter(Protocol):
    """Counts the tokens of a text for some model; ``name`` says which."""

    name: str

    def count(self, text: str) -> int: ...


_PIECES = re.compile(r"[A-Za-z]+|\d+|([^\w\s])\1*|[^\x00-\x7f]|\S")


def _piece(piece: str) -> int:
    first = piece[0]
    if first.isdigit():
        return math.ceil(len(piece) / 3)
    if first.isascii() and first.isalpha():
        if piece.islower() or len(piece) <= 3:
            return 1 + max(0, len(piece) - 7) // 4
        return 1 + max(0, len(piece) - 3) // 3
    return 2 if not first.isascii() else 1


class EstimateCounter:
    """A counter that needs no vocabulary (see the module's docstring)."""

    name = ESTIMATE

    def count(self, text: str) -> int:
        return math.ceil(sum(_piece(m.group()) for m in _PIECES.finditer(text)) * 1.05)


class _Bpe:
    """Exact counts of one encoding (o200k_base or cl100k_base)."""

    def __init__(self, encoding: Any) -> None:
        self._encoding = encoding
        self.name = str(encoding.name)

    def count(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(text))


@lru_cache(maxsize=2)
def bpe_counter(encoding: str = "o200k_base") -> TokenCounter | None:
    """The exact counter of ``encoding`` when ``bpe-openai`` is installed, else None.
    Loading a vocabulary takes a few seconds, once per process."""
    try:
        import bpe_openai  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    with warnings.catch_warnings():  # it reads its vocabulary by a deprecated importlib call
        warnings.simplefilter("ignore", DeprecationWarning)
        return _Bpe(bpe_openai.get_encoding(encoding))


def default_counter() -> TokenCounter:
    """o200k_base from ``bpe-openai`` when installed, else the estimate."""
    return bpe_counter() or EstimateCounter()


class CallableCounter:
    """A caller's function of text to a count, checked on every call."""

    def __init__(self, function: Callable[[str], int]) -> None:
        self._function = function
        self.name = getattr(function, "__name__", None) or type(function).__name__

    def count(self, text: str) -> int:
        n = self._function(text)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InvalidInputError("token_counter", f"must return a whole number of at least 0, got {n!r}")
        return n


def counter_for(value: Any) -> TokenCounter:
    """The counter to use for ``token_counter``: the default for None, a
    counter as given, a function wrapped; anything else is refused."""
    if value is None:
        return default_counter()
    if isinstance(value, str):
        if value == ESTIMATE:
            return EstimateCounter()
        found = bpe_counter(value) if value in ("o200k_base", "cl100k_base") else None
        if found is None:
            raise InvalidInputError(
                "token_counter", f"unknown counter {value!r}; name 'estimate', or 'o200k_base' / 'cl100k_base' "
                "with bpe-openai installed (the tokens extra), or pass a counter or a function"
            )
        return found
    if isinstance(value, TokenCounter) and not isinstance(value, type):
        return _Checked(value)
    if callable(value):
        return CallableCounter(value)
    raise InvalidInputError("token_counter", f"expected a counter or a function of text, not {type(value).__name__}")


class _Checked(CallableCounter):
    """A caller's counter, its counts checked."""

    def __init__(self, counter: TokenCounter) -> None:
        super().__init__(counter.count)
        self.name = str(counter.name)
