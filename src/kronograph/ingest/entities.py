"""Entity resolution for named entities: normalised name, then labels.

Two mentions are the same entity when their names normalise alike and their
labels are compatible. Labels are compared by family, so ``Company`` and
``Organization`` agree while ``Organization`` and ``Food`` do not; a mention
with no labels (or only ``Entity``) agrees with anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..model import Entity

__all__ = ["clean_labels", "compatible", "choose_entity", "label_family"]

# A small built-in map from common label spellings to a family. Unknown labels
# are their own family (compared case-insensitively).
_FAMILIES: dict[str, str] = {
    "organization": "organization",
    "organisation": "organization",
    "org": "organization",
    "company": "organization",
    "business": "organization",
    "corporation": "organization",
    "startup": "organization",
    "institution": "organization",
    "person": "person",
    "people": "person",
    "human": "person",
    "individual": "person",
    "user": "person",
    "location": "place",
    "place": "place",
    "city": "place",
    "country": "place",
    "region": "place",
    "food": "food",
    "fruit": "food",
    "dish": "food",
    "drink": "food",
    "beverage": "food",
}
_GENERIC = {"entity", "thing", "object", "unknown", ""}


def label_family(label: str) -> str:
    key = label.strip().casefold()
    return _FAMILIES.get(key, key)


def clean_labels(labels: Iterable[str]) -> tuple[str, ...]:
    """Labels as given, trimmed, without duplicates or generic ones, in order."""
    seen: set[str] = set()
    out: list[str] = []
    for label in labels:
        text = label.strip()
        key = text.casefold()
        if key in _GENERIC or key in seen:
            continue
        seen.add(key)
        out.append(text)
    return tuple(out)


def _families(labels: Iterable[str]) -> set[str]:
    return {label_family(label) for label in labels if label.strip().casefold() not in _GENERIC}


def compatible(a: Iterable[str], b: Iterable[str]) -> bool:
    fa, fb = _families(a), _families(b)
    return not fa or not fb or bool(fa & fb)


def choose_entity(labels: Sequence[str], candidates: Sequence[Entity]) -> Entity | None:
    """The existing entity a mention with ``labels`` refers to, among entities of
    the same normalised name; ``None`` means a new entity.

    A candidate sharing a label family beats an unlabelled one; ties go to the
    oldest entity, so the choice is deterministic.
    """
    wanted = _families(labels)
    best: tuple[int, object, str] | None = None
    chosen: Entity | None = None
    for entity in candidates:
        if not compatible(labels, entity.labels):
            continue
        rank = 0 if (wanted & _families(entity.labels)) else 1
        key = (rank, entity.created_at, entity.uuid)
        if best is None or key < best:
            best, chosen = key, entity
    return chosen
