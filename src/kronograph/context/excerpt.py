"""Words that carry a match, and long episodes cut to their relevant sentences.

A query's *terms* are its words folded to lower case, without function
words (:data:`~kronograph.maintain.saga_text.STOP_WORDS`) and with a plain
English ending taken off (``lives`` and ``living`` both match ``live``).
An episode longer than the excerpt's length is cut to its sentences that
share the most terms with the query (ties: the earlier), in their own order
and verbatim, joined by ``" … "`` (the best one whole up to twice that
length); with no sentence sharing a term, its first sentence. Whitespace is folded to single spaces so each excerpt is
one line.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from functools import lru_cache

from ..maintain.saga_text import STOP_WORDS

__all__ = ["EXCERPT_CHARS", "excerpt", "speaker_in", "stem", "terms"]

EXCERPT_CHARS = 200  # an episode longer than this is cut to its relevant sentences

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")
_ENDINGS = ("ings", "ing", "ies", "ied", "es", "ed", "s")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude English stem: one common ending off a word of five letters or more."""
    if len(word) >= 5:
        for ending in _ENDINGS:
            if word.endswith(ending) and len(word) - len(ending) >= 3:
                word = word[: -len(ending)]
                return word[:-1] if ending in ("ies", "ied") else word
    return word


@lru_cache(maxsize=8192)
def terms(text: str) -> frozenset[str]:
    """The stems of ``text``'s content words."""
    out = set()
    for raw in _WORD.findall(text.casefold()):
        word = raw.split("'")[0].split("’")[0]
        if word not in STOP_WORDS and (len(word) > 1 or word.isdigit()):
            out.add(stem(word))
    return frozenset(out)


def _sentences(text: str) -> list[str]:
    return [" ".join(s.split()) for s in _SENTENCE.split(text) if s and s.strip()]


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


_SPEAKER = re.compile(r"^\s*([A-Z][\w'’.\-]*(?:\s+[A-Z][\w'’.\-]*){0,2}):\s+(?=\S)")


def speaker_in(text: str) -> str | None:
    """The name a message's text starts with (``Sam: ...``, up to three capitalised words), if any."""
    found = _SPEAKER.match(text)
    return found.group(1) if found else None


def excerpt(text: str, wanted: Collection[str], limit: int = EXCERPT_CHARS) -> str:
    """``text`` on one line, cut to its sentences most about ``wanted`` (stems) within ``limit`` characters.
    A message's speaker (``Sam: ...``) stays in front and is not matched: every line Sam said has it."""
    whole = " ".join(text.split())
    if len(whole) <= limit:
        return whole
    said = _SPEAKER.match(whole)
    if said is not None:
        return f"{said.group(1)}: {excerpt(whole[said.end():], wanted, limit - said.end())}"
    parts = _sentences(text)
    scored = sorted(range(len(parts)), key=lambda i: (-len(terms(parts[i]) & set(wanted)), i))
    chosen: list[int] = []
    length = 0
    for i in scored:
        if chosen and not terms(parts[i]) & set(wanted):
            break  # the sentences that share no term are not worth their place beside those that do
        extra = len(parts[i]) + (3 if chosen else 0)
        if length + extra > limit:
            continue
        chosen.append(i)
        length += extra
    if not chosen:
        return _cut(parts[scored[0]], limit)
    return _join(parts, sorted(chosen))


def _join(parts: list[str], chosen: Iterable[int]) -> str:
    out = ""
    last = -1
    for i in chosen:
        out += (" … " if last >= 0 and i != last + 1 else " " if last >= 0 else "") + parts[i]
        last = i
    return out
