"""Which entities a query names: exactly, by an alias, by one word of a
longer name ("Raman" for Priya Raman), or by a near spelling ("Mayaa").

The store is asked once, for a bounded set of candidates (:func:`lookup`:
the query's phrases as name keys, its words, and a short prefix of each
long word); which of them the query really names is then decided here, in
pure Python, the same for every backend. A named entity's facts, episodes
and the entity itself are favoured by search (see :mod:`.fit`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..model import Entity, acronym, normalise_name
from .question import Question

__all__ = ["EXACT", "FUZZY", "PARTIAL", "NameLookup", "Named", "edit_distance", "lookup", "named_in"]

EXACT = 1.0  # the name, an alias, or the initials of a name of several words
PARTIAL = 0.7  # one word of a name of several words
FUZZY = 0.5  # a near spelling of a name's word
_FUZZY_MIN = 4  # shorter words are too often another word one letter away
_KEEP = 8  # the most entities one query names
# What one lookup asks for at most, the likeliest names (written with a
# capital) first: a long query (a context built from messages) stays one
# bounded read.
_MOST_KEYS, _MOST_WORDS, _MOST_PREFIXES = 48, 24, 8


@dataclass(frozen=True, slots=True)
class NameLookup:
    """What the store is asked for: entities whose name, alias or initials
    is one of ``keys``; whose name holds one of ``words``; or whose name has
    a word starting with one of ``prefixes`` (``limit`` rows in all, the
    exact ones first)."""

    keys: tuple[str, ...]
    words: tuple[str, ...]
    prefixes: tuple[str, ...]
    limit: int = 64

    def __bool__(self) -> bool:
        return bool(self.keys)


@dataclass(frozen=True, slots=True)
class Named:
    """An entity the query names, how (``name``, ``alias``, ``acronym``,
    ``partial``, ``fuzzy``) and how surely (``EXACT`` ... ``FUZZY``)."""

    entity: Entity
    how: str
    strength: float


def _prefix(word: str) -> str | None:
    """The start a near spelling must share: two letters of a short word, three of a longer one."""
    if len(word) < _FUZZY_MIN:
        return None
    return word[:3] if len(word) >= 6 else word[:2]


def lookup(question: Question) -> NameLookup:
    """The store request for ``question``: O(its length), and never more than
    48 keys, 24 words and 8 prefixes, capitalised words first."""
    if question.only_function_words:
        return NameLookup((), (), ())
    big = question.capitalised

    def first(items: list[str], likely: Callable[[str], bool], most: int) -> tuple[str, ...]:
        return tuple(sorted(dict.fromkeys(items), key=lambda x: not likely(x))[:most])  # stable: order kept

    keys = first([normalise_name(p) for p in question.phrases], lambda k: bool(big.intersection(k.split())),
                 _MOST_KEYS)
    words = first([w for w in question.words if len(w) > 1 and not w.isdigit()], big.__contains__, _MOST_WORDS)
    prefixes = tuple(dict.fromkeys(p for w in words if (p := _prefix(w)) is not None))[:_MOST_PREFIXES]
    return NameLookup(keys, words, prefixes)


def edit_distance(a: str, b: str, most: int) -> int:
    """Optimal string alignment distance (a transposition counts one),
    stopped early: ``most + 1`` once it must exceed ``most``."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    before: list[int] | None = None
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        new = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            new[j] = min(row[j] + 1, new[j - 1] + 1, row[j - 1] + (ca != cb))
            if before is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                new[j] = min(new[j], before[j - 2] + 1)
        if min(new) > most:
            return most + 1
        before, row = row, new
    return row[-1]


def _allowed(word: str) -> int:
    return 1 if len(word) < 7 else 2


def named_in(question: Question, candidates: Iterable[Entity]) -> list[Named]:
    """The candidates ``question`` names, surest first (at most eight).

    A phrase that is a name or alias names it outright and its words are
    spent; a word left over names the entities of several words that hold
    it; a word still left (four letters or more) names those with a word
    one edit away (two, from seven letters), but only when it was written
    with a capital or nothing else in the query named anything: "live"
    must not find Olive whenever "where does Sam live" is asked."""
    entities = list({e.uuid: e for e in candidates}.values())
    if not entities or question.only_function_words:
        return []
    found: dict[str, Named] = {}

    def add(entity: Entity, how: str, strength: float) -> None:
        if entity.uuid not in found or found[entity.uuid].strength < strength:
            found[entity.uuid] = Named(entity, how, strength)

    spent: set[str] = set()
    forms = {e.uuid: _forms(e) for e in entities}
    for phrase in question.phrases:
        key = normalise_name(phrase)
        if spent.issuperset(key.split()):
            continue
        hit = False
        for entity in entities:
            name_key, alias_keys, initials = forms[entity.uuid]
            how = "name" if key == name_key else "alias" if key in alias_keys else None
            if how is None and initials is not None and key.replace(".", "").replace(" ", "") == initials:
                how = "acronym"
            if how is not None:
                add(entity, how, EXACT)
                hit = True
        if hit:
            spent.update(key.split())
    left = [w for w in question.words if w not in spent]
    for word in left:
        for entity in entities:
            name_words = forms[entity.uuid][0].split()
            if len(name_words) > 1 and word in name_words:
                add(entity, "partial", PARTIAL)
                spent.add(word)
    for word in (w for w in question.words if w not in spent and len(w) >= _FUZZY_MIN):
        if found and word not in question.capitalised:
            continue
        for entity in entities:
            name_key, alias_keys, _ = forms[entity.uuid]
            words = {w for form in (name_key, *alias_keys) for w in form.split() if len(w) >= _FUZZY_MIN}
            if any(w[0] == word[0] and edit_distance(word, w, _allowed(word)) <= _allowed(word) for w in words):
                add(entity, "fuzzy", FUZZY)
    return sorted(found.values(), key=lambda n: (-n.strength, n.entity.name, n.entity.uuid))[:_KEEP]


def _forms(entity: Entity) -> tuple[str, frozenset[str], str | None]:
    """The entity's name key, alias keys and initials."""
    return normalise_name(entity.name), frozenset(normalise_name(a) for a in entity.aliases), acronym(entity.name)
