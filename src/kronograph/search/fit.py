"""How well an item fits what a question asks, beyond its words: whether it
is about an entity the query names, and whether its answer is of the kind
the question wants ("where" a place, "who" a person, "when" a date, "which
company" an organization).

Each function returns a share of the best score in the ranking, added to the
item's own score (see ``engine``): a soft boost that reorders near matches
and never filters. Pure functions over what the ranking already holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from ..model import Entity, Fact
from .question import Question, stem

__all__ = [
    "EPISODE_NAME_BOOST", "KIND_BOOST", "NAME_BOOST", "RELATION_BOOST", "entity_fit", "episode_fit", "fact_fit",
    "kinds_of_labels",
]

NAME_BOOST = 0.3  # an item about an entity the query names (times how surely it is named)
EPISODE_NAME_BOOST = 0.15  # an episode that mentions one: speakers are named in most of their messages
KIND_BOOST = 0.2  # an answer of the kind asked for
RELATION_BOOST = 0.15  # a relation the question's words name ("what does Sam use": USES; "sister": SIBLING_OF)

# Label words of each answer kind (labels are matched by their words:
# ``HomeCity`` and ``home_city`` hold "city").
_LABEL_KINDS: dict[str, str] = {
    **dict.fromkeys(
        "person people human user individual contact character customer employee friend family member author"
        " patient client".split(), "person"),
    **dict.fromkeys(
        "location place city town country state region area address venue gpe landmark neighbourhood"
        " neighborhood village site continent building island".split(), "place"),
    **dict.fromkeys(
        "organization organisation org company business employer corporation firm startup institution school"
        " university college team club agency brand nonprofit bank".split(), "organization"),
    **dict.fromkeys("date time year day month period".split(), "time"),
}
def _stems(words: str, value: str) -> dict[str, str]:
    return {stem(w): value for w in words.split()}


# Relation words that answer each kind, by stem (question.stem).
_RELATION_KINDS: dict[str, str] = {
    **_stems("lives resides based located moved born from hometown visited travelled traveled stays relocated"
             " headquartered situated", "place"),
    **_stems("works employed joined founded cofounded hired interns ceo cto cfo attends studies studied",
             "organization"),
    **_stems("sibling brother sister married spouse wife husband partner friends parent mother father child son"
             " daughter knows met meets engaged colleague reports cousin uncle aunt", "person"),
}
# Words of one family name the same relations: "sister" asks for SIBLING_OF,
# "job" for WORKS_AT (by stem).
_FAMILIES: dict[str, str] = {
    **_stems("sister brother sibling mother father parent son daughter child children family cousin aunt uncle"
             " grandmother grandfather grandparent", "kin"),
    **_stems("job works employed employer company boss career occupation profession", "work"),
    **_stems("home lives resides house apartment hometown address", "home"),
    **_stems("married marries wife husband spouse engaged wedding", "marriage"),
    **_stems("school studies university college degree graduated attends", "study"),
}
_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_DATED = re.compile(
    r"\b(1[89]\d\d|20\d\d|january|february|march|april|may|june|july|august|september|october|november|december)\b",
    re.IGNORECASE,
)


def _words(name: str) -> list[str]:
    """The words of a label or relation: ``LIVES_IN``, ``livesIn`` and ``lives in`` alike."""
    return [w.casefold() for w in _PARTS.findall(name)]


def kinds_of_labels(labels: Iterable[str]) -> frozenset[str]:
    """The answer kinds entity labels stand for (``Location`` and ``City``: place)."""
    return _label_kinds(tuple(labels))


@lru_cache(maxsize=4096)  # a group has few distinct label sets
def _label_kinds(labels: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_LABEL_KINDS[w] for label in labels for w in _words(label) if w in _LABEL_KINDS)


def forget_words() -> None:
    """Drop the memoised relation and label words (after a forget)."""
    _relation_words_fit.cache_clear()
    _label_kinds.cache_clear()


def _relation_fit(relation: str, question: Question) -> tuple[frozenset[str], bool]:
    """The kinds a relation answers, and whether the question names it: one of
    its words is one of the question's, or of the same family."""
    return _relation_words_fit(relation, question.words)


@lru_cache(maxsize=4096)  # a ranking holds few relations, asked of by the same words fact after fact
def _relation_words_fit(relation: str, words: tuple[str, ...]) -> tuple[frozenset[str], bool]:
    stems = {stem(w) for w in _words(relation)}
    asked = {stem(w) for w in words}
    families = {_FAMILIES[s] for s in stems if s in _FAMILIES}
    said = bool(asked & stems) or any(_FAMILIES.get(s) in families for s in asked)
    return frozenset(_RELATION_KINDS[s] for s in stems if s in _RELATION_KINDS), said


def fact_fit(
    fact: Fact, question: Question, named: Mapping[str, float], labels: Mapping[str, tuple[str, ...]]
) -> float:
    """The boost of a fact: ``NAME_BOOST`` times how surely the query names
    one of its ends; ``KIND_BOOST`` when its answer end (the end the query
    does not name; the object when it names both or neither) is of a kind the
    question wants, or its relation answers that kind ("when": events,
    closed intervals and facts that state a date); ``RELATION_BOOST`` when
    the question names its relation ("what does Sam use": ``USES``)."""
    subject, object_ = named.get(fact.subject_uuid, 0.0), named.get(fact.object_uuid, 0.0)
    answer = fact.subject_uuid if object_ and not subject else fact.object_uuid
    kinds, said = _relation_fit(fact.relation, question)
    wanted = question.wants
    fits = bool(wanted & (kinds | kinds_of_labels(labels.get(answer, ()))))
    if "time" in wanted and (fact.event or fact.invalid_at is not None or _DATED.search(fact.fact)):
        fits = True
    return NAME_BOOST * max(subject, object_) + (KIND_BOOST if fits else 0.0) + (RELATION_BOOST if said else 0.0)


def entity_fit(entity: Entity, question: Question, named: Mapping[str, float]) -> float:
    """The boost of an entity: named by the query, or of a kind it wants."""
    fits = bool(question.wants & kinds_of_labels(entity.labels))
    return NAME_BOOST * named.get(entity.uuid, 0.0) + (KIND_BOOST if fits else 0.0)


def episode_fit(mentioned: Iterable[str], named: Mapping[str, float]) -> float:
    """The boost of an episode that mentions entities the query names (the surest one counts)."""
    return EPISODE_NAME_BOOST * max((named.get(u, 0.0) for u in mentioned), default=0.0)
