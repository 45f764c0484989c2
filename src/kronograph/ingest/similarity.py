"""Name similarity for entity resolution: pure functions, no I/O.

Resolution first asks the store for entities whose names are *near* a new
mention's; this module decides, with no model, which of them it may be:

- ``merge``: one candidate is clearly it (the mention joins that entity);
- ``ambiguous``: some are plausible but none clearly wins (a model may be
  asked, else the mention stays a separate entity, flagged as a possible
  fragment);
- ``new``: none is plausible.

Structure decides before spelling does. Each pair of names is first tested
by rules, strongest first, and the first that holds fixes the score:

==========  =====  =====================================================
kind        score  holds when
==========  =====  =====================================================
exact       1.00   the normalised names are equal (always merges)
equivalent  0.95   equal after folding accents, punctuation, honorifics
                   (``Dr``) and legal suffixes (``Inc.``, ``GmbH``)
reordered   0.90   the same words in another order (``Moreno, Alice``)
acronym     0.90   ``IBM`` ~ ``International Business Machines``;
                   0.75 for two letters, which collide too easily
prefix      0.88   the shorter name's words open the longer one
                   (``Acme`` ~ ``Acme Robotics``)
anchored    0.88   same first and last word, the longer one has more
                   between (``Alice Moreno`` ~ ``Alice B. Moreno``)
initials    0.86   the same words but some given as initials
                   (``A. Moreno`` ~ ``Alice Moreno``)
subset      0.78   all the shorter name's words occur in the longer one
                   (``Moreno`` ~ ``Alice Moreno``): plausible, never alone
                   enough to merge
fuzzy       ≤0.92  only typos apart (``Acme Robotcs``): string similarity,
                   blended 70/30 with cosine similarity when both vectors
                   exist; capped below the rules
semantic    0.60   names conflict but the vectors are nearly identical
                   (cosine ≥ 0.92): worth asking a model, never a merge
==========  =====  =====================================================

And some pairs are excluded outright, whatever their spelling or vectors:
labels that are not :func:`~kronograph.ingest.entities.compatible`; an
identifier (``SR-2023-052``, ``v2.3.1``) on either side unless the names are
exactly equal, because codes one character apart are different things;
names carrying different numbers (``2023 Report`` / ``2024 Report``);
names with a word each that the other lacks and that is no typo of it
(``Alice Moreno`` / ``Alice Chen``, ``Acme Robotics`` / ``Acme Bank``); and
containment through a single very common word (``New`` / ``New York``).

Thresholds (:data:`MERGE_AT` 0.85, :data:`MARGIN` 0.08, :data:`PLAUSIBLE_AT`
0.60) are set against the table: a single structural match (prefix,
initials, acronym) merges on its own, but two of them (``Acme`` against
``Acme Robotics`` *and* ``Acme Bank``) sit within the margin of each other
and stay ambiguous; a subset match (0.78) or a two-letter acronym (0.75)
is only ever plausible. Cosine weighs only where spelling is weakest
(fuzzy, semantic): for rule matches it would mostly re-measure spelling
(the hashing embedder) or topic (a model), and would punish ``IBM`` for
looking nothing like ``International Business Machines``.

Known gaps: nicknames (``Bob`` / ``Robert``) and transliterations are not
matched; they stay separate unless a model or an alias joins them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Literal

import numpy as np

from ..model import Entity, normalise_name
from .entities import compatible, label_family

__all__ = [
    "MARGIN",
    "MERGE_AT",
    "PLAUSIBLE_AT",
    "MergeDecision",
    "ScoredCandidate",
    "acronym_of",
    "contains_words",
    "decide_merge",
    "is_identifier",
    "name_tokens",
    "score_candidates",
    "string_similarity",
]

MERGE_AT = 0.85
"""A best candidate scoring at least this merges, given the margin."""
MARGIN = 0.08
"""…and only when it leads the runner-up by at least this much."""
PLAUSIBLE_AT = 0.60
"""Candidates scoring at least this make an ``ambiguous`` outcome rather than ``new``."""
MAX_PLAUSIBLE = 8
"""At most this many plausible candidates are handed on (a model prompt stays small)."""

_TYPO_AT = 0.8  # two words at least this similar (difflib ratio) may be one word misspelt
_SEMANTIC_AT = 0.92
_FUZZY_CAP = 0.92
_COSINE_WEIGHT = 0.3

Kind = Literal[
    "exact", "equivalent", "reordered", "acronym", "prefix", "anchored", "initials", "subset", "fuzzy", "semantic"
]
Outcome = Literal["merge", "ambiguous", "new"]

STOP_WORDS = frozenset(
    {"of", "the", "and", "for", "a", "an", "in", "on", "at", "to", "de", "du", "des", "del", "la", "le", "les"}
    | {"der", "die", "das", "von", "van", "und", "y", "e", "et"}
)
LEGAL_SUFFIXES = frozenset(
    {"inc", "incorporated", "ltd", "limited", "llc", "llp", "lp", "plc", "corp", "corporation", "co", "company"}
    | {"gmbh", "ag", "kg", "sa", "sas", "sarl", "srl", "spa", "bv", "nv", "oy", "ab", "as", "pty", "pte", "kk"}
)
HONORIFICS = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame", "herr", "frau"})
COMMON_WORDS = (
    STOP_WORDS
    | LEGAL_SUFFIXES
    | HONORIFICS
    | frozenset(
        {"new", "old", "north", "south", "east", "west", "central", "upper", "lower", "great", "big", "little"}
        | {"united", "national", "international", "global", "general", "first", "royal", "saint", "san", "st"}
        | {"group", "holding", "holdings", "bank", "university", "college", "school", "institute", "city", "state"}
        | {"team", "project", "services", "systems", "solutions", "partners", "labs", "lab", "technologies", "tech"}
    )
)

_WORD = re.compile(r"[^\W_]+")


@lru_cache(maxsize=65_536)
def name_tokens(name: str) -> tuple[str, ...]:
    """A name's words, case- and accent-folded, punctuation dropped
    (``O'Brien`` is one word, ``Hewlett-Packard`` two)."""
    text = unicodedata.normalize("NFKD", name.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return tuple(_WORD.findall(text.replace("'", "").replace("\u2019", "")))


@lru_cache(maxsize=65_536)
def _core(name: str) -> tuple[str, ...]:
    """The words that identify: leading honorifics and trailing legal suffixes dropped."""
    words = list(name_tokens(name))
    while len(words) > 1 and words[0] in HONORIFICS:
        words.pop(0)
    while len(words) > 1 and words[-1] in LEGAL_SUFFIXES:
        words.pop()
    return tuple(words)


def _has_digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


def is_identifier(name: str) -> bool:
    """True for codes (``SR-2023-052``, ``INV-0042``, ``PR #123``, ``v2.3.1``,
    ``ABC123``, ``Apollo 11``): at least half the words carry a digit.
    Identifiers only ever match exactly, since ``SR-2023-052`` and
    ``SR-2023-053`` differ by one character and are different things."""
    words = name_tokens(name)
    return bool(words) and 2 * sum(_has_digit(w) for w in words) >= len(words)


def _abbreviation(name: str) -> str | None:
    """The letters of a name that could be an acronym: ``IBM``, ``N.Y.C.``."""
    words = _core(name)
    if len(words) == 1 and words[0].isalpha() and 2 <= len(words[0]) <= 8:
        return words[0]
    if 2 <= len(words) <= 8 and all(len(w) == 1 and w.isalpha() for w in words):
        return "".join(words)
    return None


def acronym_of(short: str, long: str, *, ignore_stop_words: bool = True) -> bool:
    """True when ``short`` is the initials of ``long``'s words: ``NYC`` ~
    ``New York City``, ``MIT`` ~ ``Massachusetts Institute of Technology``
    (stop words such as "of" may be skipped), ``BoA`` ~ ``Bank of America``."""
    letters = _abbreviation(short)
    words = _core(long)
    if letters is None or len(words) < 2:
        return False
    if "".join(w[0] for w in words) == letters:
        return True
    if ignore_stop_words:
        kept = [w for w in words if w not in STOP_WORDS]
        return len(kept) >= 2 and "".join(w[0] for w in kept) == letters
    return False


def _same_word(a: str, b: str) -> bool:
    """Equal, or one is the other's initial (``a`` ~ ``alice``)."""
    return a == b or (len(a) == 1 and b.startswith(a)) or (len(b) == 1 and a.startswith(b))


def _containment(a: tuple[str, ...], b: tuple[str, ...]) -> Kind | None:
    """How the shorter word list sits inside the longer: prefix, anchored, subset."""
    short, long = (a, b) if len(a) < len(b) else (b, a)
    if not short or len(short) == len(long):
        return None
    if all(_same_word(s, w) for s, w in zip(short, long, strict=False)):
        return "prefix"
    rest = list(long)
    for word in short:
        match = next((i for i, w in enumerate(rest) if _same_word(word, w)), None)
        if match is None:
            return None
        rest.pop(match)
    if len(short) >= 2 and _same_word(short[0], long[0]) and _same_word(short[-1], long[-1]):
        return "anchored"
    return "subset"


def _trivial(words: tuple[str, ...]) -> bool:
    """Too little to identify anything by containment: one common word, or one letter."""
    return len(words) == 1 and (words[0] in COMMON_WORDS or len(words[0]) < 2)


def contains_words(a: str, b: str) -> bool:
    """True when one name's words lead, or all occur in, the other's:
    ``Acme`` ~ ``Acme Robotics``, ``Moreno`` ~ ``Alice Moreno``, but not
    ``New`` ~ ``New York`` (a single common word says nothing)."""
    wa, wb = _core(a), _core(b)
    kind = _containment(wa, wb)
    return kind is not None and not _trivial(min(wa, wb, key=len))


def _ratio(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def _word_similarity(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    if not a or not b:
        return 1.0 if a == b else 0.0
    sa, sb = set(a), set(b)
    common = " ".join(sorted(sa & sb))
    left = f"{common} {' '.join(sorted(sa - sb))}".strip()
    right = f"{common} {' '.join(sorted(sb - sa))}".strip()
    token_set = max(_ratio(common, left), _ratio(common, right), _ratio(left, right)) if common else _ratio(left, right)
    token_sort = _ratio(" ".join(sorted(a)), " ".join(sorted(b)))
    return (token_set + token_sort) / 2


def string_similarity(a: str, b: str) -> float:
    """Spelling similarity in [0, 1]: the mean of a token-set ratio (words in
    common count fully) and a token-sort ratio (word order ignored, extra
    words cost), over the names' core words. Standard library only."""
    return _word_similarity(_core(a), _core(b))


def _conflict(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Each name has a word the other lacks that is no typo of it: ``Alice Moreno``
    / ``Alice Chen``. Such names denote different things however alike they look."""
    rest_a, rest_b = list(a), list(b)
    for word in a:
        match = next((i for i, w in enumerate(rest_b) if _same_word(word, w)), None)
        if match is not None:
            rest_b.pop(match)
            rest_a.remove(word)
    if not rest_a or not rest_b:
        return False
    fewer, more = (rest_a, rest_b) if len(rest_a) <= len(rest_b) else (rest_b, rest_a)
    return any(max(_ratio(w, o) for o in more) < _TYPO_AT for w in fewer)


def _numbers(words: tuple[str, ...]) -> list[str]:
    return sorted(w for w in words if _has_digit(w))


@dataclass(frozen=True, slots=True)
class _Match:
    score: float
    kind: Kind
    similarity: float


def _match(name: str, other: str, cosine: float | None) -> _Match | None:
    """How ``name`` relates to one name (or alias) of a candidate; ``None`` excludes the pair."""
    if normalise_name(name) == normalise_name(other):
        return _Match(1.0, "exact", 1.0)
    if is_identifier(name) or is_identifier(other):
        return None
    a, b = _core(name), _core(other)
    if not a or not b or _numbers(a) != _numbers(b):
        return None
    similarity = _word_similarity(a, b)
    if a == b:
        return _Match(0.95, "equivalent", similarity)
    if sorted(a) == sorted(b):
        return _Match(0.90, "reordered", similarity)
    for short, long in ((name, other), (other, name)):
        if acronym_of(short, long):
            letters = _abbreviation(short) or ""
            return _Match(0.90 if len(letters) >= 3 else 0.75, "acronym", similarity)
    contained = _containment(a, b)
    if contained is not None:
        if _trivial(min(a, b, key=len)):
            return None
        return _Match({"prefix": 0.88, "anchored": 0.88}.get(contained, 0.78), contained, similarity)
    if len(a) == len(b) and all(_same_word(x, y) for x, y in zip(a, b, strict=True)):
        return _Match(0.86, "initials", similarity)
    if _conflict(a, b):
        if cosine is not None and cosine >= _SEMANTIC_AT:
            return _Match(PLAUSIBLE_AT, "semantic", similarity)
        return None
    score = similarity if cosine is None else (1 - _COSINE_WEIGHT) * similarity + _COSINE_WEIGHT * cosine
    return _Match(min(score, _FUZZY_CAP), "fuzzy", similarity)


def _cosine(u: np.ndarray | None, v: np.ndarray | None) -> float | None:
    if u is None or v is None or u.shape != v.shape:
        return None
    norm = float(np.linalg.norm(u) * np.linalg.norm(v))
    return float(np.dot(u, v)) / norm if norm > 0 else None


@dataclass(frozen=True, slots=True)
class ScoredCandidate:
    """An existing entity a mention may refer to, and why."""

    entity: Entity
    score: float
    kind: Kind
    matched: str  # the entity's name or the alias that matched best
    similarity: float  # string similarity to ``matched``
    cosine: float | None  # between the mention's and the entity's vectors, when both exist
    shares_label: bool  # a label family in common with the mention (not merely compatible)


@dataclass(frozen=True, slots=True)
class MergeDecision:
    """What to do with a mention: ``entity`` is set for a merge; ``candidates``
    lists the plausible ones, best first (for a model, or a fragment flag)."""

    outcome: Outcome
    entity: Entity | None
    candidates: tuple[ScoredCandidate, ...]
    reason: str


def score_candidates(
    name: str,
    labels: Sequence[str],
    vector: np.ndarray | None,
    candidates: Sequence[tuple[Entity, np.ndarray | None]],
) -> list[ScoredCandidate]:
    """Scores each candidate entity (with its name vector, if any) against a
    mention, best first; excluded candidates are left out."""
    if not normalise_name(name):
        return []
    wanted = {label_family(label) for label in labels}
    scored: list[ScoredCandidate] = []
    for entity, entity_vector in candidates:
        if not compatible(labels, entity.labels):
            continue
        cosine = _cosine(vector, entity_vector)
        best: tuple[_Match, str] | None = None
        for other in (entity.name, *entity.aliases):
            match = _match(name, other, cosine)
            if match is not None and (best is None or match.score > best[0].score):
                best = (match, other)
        if best is None:
            continue
        match, matched = best
        shares = bool(wanted & {label_family(label) for label in entity.labels})
        scored.append(
            ScoredCandidate(entity, round(match.score, 4), match.kind, matched, match.similarity, cosine, shares)
        )
    return sorted(scored, key=_rank)


def _rank(c: ScoredCandidate) -> tuple[float, bool, object, str]:
    # Best score first; among equals, one sharing a label, then the oldest: deterministic.
    return (-c.score, not c.shares_label, c.entity.created_at, c.entity.uuid)


def decide_merge(
    scored: Sequence[ScoredCandidate],
    *,
    merge_at: float = MERGE_AT,
    margin: float = MARGIN,
    plausible_at: float = PLAUSIBLE_AT,
) -> MergeDecision:
    """Merge only when one candidate is clearly best; otherwise say whether
    anything was plausible. An exact name or alias match always merges."""
    ranked = sorted(scored, key=_rank)
    plausible = tuple(c for c in ranked if c.score >= plausible_at)[:MAX_PLAUSIBLE]
    if not ranked:
        return MergeDecision("new", None, (), "no candidate")
    top = ranked[0]
    if top.kind == "exact":
        others = sum(1 for c in ranked if c.kind == "exact") - 1
        note = f"; {others} more exact match(es), the labelled then oldest chosen" if others else ""
        return MergeDecision("merge", top.entity, plausible, f"exact match on {top.matched!r}{note}")
    runner = ranked[1] if len(ranked) > 1 else None
    if top.score >= merge_at and (runner is None or top.score - runner.score >= margin):
        lead = "the only candidate" if runner is None else f"{top.score - runner.score:.2f} ahead of the next"
        return MergeDecision("merge", top.entity, plausible, f"{top.kind} match on {top.matched!r}, {lead}")
    if plausible:
        names = ", ".join(f"{c.matched!r} ({c.kind} {c.score:.2f})" for c in plausible)
        return MergeDecision("ambiguous", None, plausible, f"no clear winner among {names}")
    best = f"best candidate {top.matched!r} scored {top.score:.2f}"
    return MergeDecision("new", None, (), f"{best}, below {plausible_at}")
