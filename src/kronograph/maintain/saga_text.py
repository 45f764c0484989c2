"""The extractive running summary of a saga, with no model: pure functions.

Each episode's text is split into sentences, and each sentence scored by
what it carries (Luhn's idea, read locally): distinct content words, names
(capitalised words past the first) and numbers count, long sentences are
discounted, and sentences of fewer than four words (greetings, "ok") score
nothing. The summary is the best-scoring sentences that fit in
``SUMMARY_CHARS``, shown in saga order.

What is kept between runs (the *pool*) is only the sentences selected, each
with its score and its place in the saga, so a run reads only the episodes
past the cursor: the new sentences compete with the kept ones, greedily by
(score, newest first). A sentence dropped once is never reconsidered, so the
result can differ a little from a selection over the whole saga at once
(a rebuild). Deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = [
    "SENTENCE_CHARS", "STOP_WORDS", "SUMMARY_CHARS", "Item", "cut", "fold", "render", "score", "sentences",
    "split_parts",
]

SUMMARY_CHARS = 1_200  # the extractive summary's length, at most
SENTENCE_CHARS = 300  # a sentence longer than this is cut
MIN_WORDS = 4

# [score, created_at in microseconds, episode uuid, sentence index, text]: JSON-ready.
Item = list[Any]

_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[^\W_][\w'’-]*", re.UNICODE)
_STOP = frozenset(
    """a about above after again all also am an and any are as at be because been before being below between both
    but by can could did do does doing down during each few for from further had has have having he her here hers
    him his how i if in into is it its just me more most my no nor not now of off on once only or other our ours out
    over own same she should so some such than that the their theirs them then there these they this those through
    to too under until up very was we were what when where which while who whom why will with would you your yours
    yes ok okay thanks thank hi hello hey oh well really just like get got going go""".split()
)
STOP_WORDS = _STOP  # also what a context block's excerpts do not match on


def cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:.") + "…"


def sentences(text: str) -> list[str]:
    """The text's sentences, whitespace folded, each cut to ``SENTENCE_CHARS``."""
    out = []
    for raw in _SPLIT.split(text):
        sentence = " ".join(raw.split())
        if sentence:
            out.append(cut(sentence, SENTENCE_CHARS))
    return out


def score(sentence: str) -> float:
    """How much a sentence carries: distinct content words, names and numbers
    (names and numbers count twice), discounted for length."""
    words = _WORD.findall(sentence)
    if len(words) < MIN_WORDS:
        return 0.0
    content = {w.casefold() for w in words if w.casefold() not in _STOP and len(w) > 2}
    names = {w for w in words[1:] if w[0].isupper() and w.casefold() not in _STOP}
    numbers = {w for w in words if any(c.isdigit() for c in w)}
    raw = len(content) + len(names) + 2 * len(numbers)
    return round(raw / (1 + len(words) / 25), 4)


def fold(pool: Iterable[Item], new: Iterable[Item], limit: int = SUMMARY_CHARS) -> list[Item]:
    """The sentences of ``pool`` and ``new`` to keep: the best scoring first
    (the newest on a tie), each once, as many as fit in ``limit`` characters
    joined by spaces; in saga order."""
    chosen: list[Item] = []
    seen: set[str] = set()
    length = 0
    candidates = [item for item in (*pool, *new) if item[0] > 0]
    for item in sorted(candidates, key=lambda i: (-i[0], -i[1], _desc(i[2]), -i[3])):
        text = item[4]
        if text.casefold() in seen:
            continue
        extra = len(text) + (1 if chosen else 0)
        if length + extra > limit:
            continue
        chosen.append(item)
        seen.add(text.casefold())
        length += extra
    return sorted(chosen, key=lambda i: (i[1], i[2], i[3]))


def _desc(text: str) -> tuple[int, ...]:
    """A key that sorts strings in reverse byte order."""
    return tuple(-b for b in text.encode())


def render(pool: Sequence[Item]) -> str | None:
    return " ".join(item[4] for item in pool) or None


def split_parts(text: str, limit: int) -> list[str]:
    """``text`` in parts of at most ``limit`` characters, cut at a space where
    the part's second half has one (that space is dropped), else mid-word."""
    parts = []
    while len(text) > limit:
        cut = text.rfind(" ", limit // 2, limit + 1)
        cut = limit if cut <= 0 else cut
        parts.append(text[:cut])
        text = text[cut:].lstrip(" ") if cut < limit else text[cut:]
    if text:
        parts.append(text)
    return parts
