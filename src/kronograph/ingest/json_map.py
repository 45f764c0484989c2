"""JSON episodes mapped to entities and facts by rule, with no model.

Structured records already say what is related to what, so asking a model to
re-read them would cost tokens and add the chance of a wrong answer. The
mapping is deterministic: the same record always gives the same extraction.
See ``docs/json-episodes.md`` for the rules with examples; in short, every
object is an entity, its scalar fields are attributes, and a nested object
(or each object of a list) is a related entity joined by a fact whose
relation is the key.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..checks import MAX_JSON_DEPTH
from ..errors import InvalidInputError
from ..model import fold_relation, normalise_name
from ..time import as_utc, parse_time
from .schema import ExtractedEntity, ExtractedFact, Extraction

__all__ = ["JsonMapping", "map_json", "relation_name"]


class JsonMapping(BaseModel):
    """How JSON maps to the graph. Every key named here is matched
    case-insensitively against the record's keys."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name_keys: tuple[str, ...] = ("name", "title", "full_name", "id", "key")
    """The first of these present with a non-empty string or number names the entity."""
    label_keys: tuple[str, ...] = ("type", "kind", "label")
    """The first of these present with a string (or list of strings) gives the entity's labels."""
    ignore_keys: frozenset[str] = frozenset()
    """Keys dropped wherever they appear, with everything under them."""
    attribute_keys: frozenset[str] = frozenset()
    """Keys whose value stays an attribute as is, even an object or a list of objects
    (an address, coordinates: values, not entities)."""
    relations: dict[str, str] = Field(default_factory=dict)
    """Relation names by key, e.g. ``{"ceo": "CEO_OF"}``; other keys give their own name in upper snake case."""
    reverse_keys: frozenset[str] = frozenset()
    """Keys whose facts point from the nested entity to its parent: with ``ceo``
    here, ``{"name": "Acme", "ceo": {"name": "Alice"}}`` gives Alice CEO_OF Acme."""
    valid_from_keys: tuple[str, ...] = ("valid_from", "since", "start_date")
    """On a nested object: when the fact joining it to its parent became true."""
    valid_to_keys: tuple[str, ...] = ("valid_to", "until", "end_date")
    """On a nested object: when that fact stopped being true."""
    qualifier_keys: tuple[str, ...] = ()
    """On a nested object: keys whose text (or number) values qualify the fact joining it to
    its parent (``("period",)``: ``{"deliveries": [{"name": "400k", "period": "2024-Q2"}]}``).
    Kept only where the relation declares the key (:mod:`kronograph.qualifiers`)."""
    max_depth: int = Field(default=16, ge=1, le=MAX_JSON_DEPTH, strict=True)
    """Deeper nesting is refused rather than mapped halfway."""


DEFAULT_MAPPING = JsonMapping()


def relation_name(key: str) -> str:
    """A JSON key as a relation: ``ceo`` → ``CEO``, ``boardMembers`` and
    ``board-members`` → ``BOARD_MEMBERS``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key.strip())
    words = re.findall(r"[^\W_]+", spaced)
    return "_".join(words).upper() or "RELATED_TO"


@dataclass(frozen=True, slots=True)
class _Keys:
    """The mapping's key lists, case-folded once per call."""

    names: tuple[str, ...]
    labels: tuple[str, ...]
    ignore: frozenset[str]
    attributes: frozenset[str]
    relations: dict[str, str]
    reverse: frozenset[str]
    valid_from: tuple[str, ...]
    valid_to: tuple[str, ...]
    qualifiers: tuple[str, ...]

    @classmethod
    def of(cls, m: JsonMapping) -> _Keys:
        def fold(keys: Any) -> Any:
            return type(keys)(k.casefold() for k in keys)

        return cls(
            fold(m.name_keys),
            fold(m.label_keys),
            fold(m.ignore_keys),
            fold(m.attribute_keys),
            {k.casefold(): v for k, v in m.relations.items()},
            fold(m.reverse_keys),
            fold(m.valid_from_keys),
            fold(m.valid_to_keys),
            fold(m.qualifier_keys),
        )


@dataclass(slots=True)
class _Out:
    entities: dict[str, ExtractedEntity] = field(default_factory=dict)  # by normalised name
    facts: list[ExtractedFact] = field(default_factory=list)
    seen: set[tuple[str, str, str, str]] = field(default_factory=set)

    def entity(self, name: str, labels: list[str], attributes: dict[str, Any]) -> None:
        key = normalise_name(name)
        known = self.entities.get(key)
        if known is None:
            self.entities[key] = ExtractedEntity(name=name, labels=labels, attributes=attributes)
            return
        # The same entity met twice in one record: first values win, nothing is lost.
        for label in labels:
            if label.casefold() not in {x.casefold() for x in known.labels}:
                known.labels.append(label)
        for k, v in attributes.items():
            known.attributes.setdefault(k, v)

    def fact(self, fact: ExtractedFact) -> None:
        key = (normalise_name(fact.subject), fold_relation(fact.relation), normalise_name(fact.object),
               json.dumps(fact.qualifiers, sort_keys=True))
        if key not in self.seen:
            self.seen.add(key)
            self.facts.append(fact)


@dataclass(frozen=True, slots=True)
class _Times:
    """A valid-time interval read from an object, with the raw words for the record."""

    valid_at: str | None = None
    invalid_at: str | None = None
    expression: str | None = None

    def __bool__(self) -> bool:
        return self.expression is not None


@dataclass(frozen=True, slots=True)
class _Link:
    """How a nested object hangs off its parent, and the times its fact takes
    when the object gives none (the top object's times)."""

    parent: str
    key: str
    inherited: _Times


class _Mapper:
    def __init__(self, mapping: JsonMapping) -> None:
        self.mapping = mapping
        self.keys = _Keys.of(mapping)
        self.out = _Out()

    def root(self, obj: dict[str, Any], name: str | None, label: str | None) -> None:
        self.object(obj, fallback=name, extra_label=label, link=None, depth=1)

    def object(
        self, obj: dict[str, Any], *, fallback: str | None, extra_label: str | None, link: _Link | None, depth: int
    ) -> str:
        """Maps one object and everything under it; returns the entity's name."""
        if depth > self.mapping.max_depth:
            raise InvalidInputError(
                "content", f"JSON nested deeper than max_depth={self.mapping.max_depth} (raise it in the JsonMapping)"
            )
        fields = {str(k): v for k, v in obj.items() if str(k).casefold() not in self.keys.ignore}
        folded = {k.casefold(): k for k in reversed(list(fields))}  # first spelling wins
        name_key, name = self._name(fields, folded)
        name = name or fallback or f"record {_digest(fields)}"
        label_key, labels = self._labels(fields, folded)
        if extra_label and extra_label.casefold() not in {x.casefold() for x in labels}:
            labels.insert(0, extra_label)
        times = self._times(fields, folded)
        used = {name_key, label_key}
        qualifiers: dict[str, Any] = {}
        if link is not None:  # on a nested object the times belong to the fact; on the top one, to both
            used.update(folded[k] for k in self.keys.valid_from + self.keys.valid_to if k in folded)
            for k in self.keys.qualifiers:  # and so do its qualifiers
                value = fields.get(folded.get(k, ""))
                if isinstance(value, str | int | float) and not isinstance(value, bool):
                    qualifiers[k] = str(value)
                    used.add(folded[k])

        attributes: dict[str, Any] = {}
        children: list[tuple[str, dict[str, Any], str]] = []  # (key, child, fallback name)
        for key, value in fields.items():
            if key in used or value is None:
                continue
            if key.casefold() in self.keys.attributes:
                attributes[key] = value
                continue
            objects, scalars = _split(value, key)
            if len(objects) == 1 and isinstance(value, dict):
                children.append((key, objects[0], f"{name} {key}"))
            else:
                children.extend((key, child, f"{name} {key} {i}") for i, child in enumerate(objects, 1))
            if scalars is not None:
                attributes[key] = scalars
        self.out.entity(name, labels, attributes)

        if link is not None:
            self._fact(link, name, times or link.inherited, qualifiers)
        for key, child, child_fallback in children:
            inherited = times if link is None else _Times()
            self.object(
                child, fallback=child_fallback, extra_label=None, link=_Link(name, key, inherited), depth=depth + 1
            )
        return name

    def _name(self, fields: dict[str, Any], folded: dict[str, str]) -> tuple[str | None, str | None]:
        for wanted in self.keys.names:
            key = folded.get(wanted)
            if key is None:
                continue
            value = fields[key]
            if isinstance(value, bool) or not isinstance(value, str | int | float):
                continue
            text = str(value).strip()
            if text:
                return key, text
        return None, None

    def _labels(self, fields: dict[str, Any], folded: dict[str, str]) -> tuple[str | None, list[str]]:
        for wanted in self.keys.labels:
            key = folded.get(wanted)
            if key is None:
                continue
            value = fields[key]
            values = value if isinstance(value, list) else [value]
            if values and all(isinstance(v, str) for v in values):
                labels = [v.strip() for v in values if v.strip()]
                if labels:
                    return key, labels
        return None, []

    def _times(self, fields: dict[str, Any], folded: dict[str, str]) -> _Times:
        start, start_raw = _first(fields, folded, self.keys.valid_from)
        end, end_raw = _first(fields, folded, self.keys.valid_to)
        raw = " to ".join(r for r in (start_raw, end_raw) if r is not None) or None
        return _Times(start, end, raw)

    def _fact(self, link: _Link, child: str, times: _Times, qualifiers: dict[str, Any]) -> None:
        relation = self.keys.relations.get(link.key.casefold()) or relation_name(link.key)
        subject, obj = (child, link.parent) if link.key.casefold() in self.keys.reverse else (link.parent, child)
        self.out.fact(
            ExtractedFact(
                subject=subject,
                relation=relation,
                object=obj,
                fact=f"{subject} {_words(relation)} {obj}",
                valid_at=times.valid_at,
                invalid_at=times.invalid_at,
                time_expression=times.expression,
                qualifiers=qualifiers,
                confidence=1.0,
            )
        )


def _first(fields: dict[str, Any], folded: dict[str, str], wanted: tuple[str, ...]) -> tuple[str | None, str | None]:
    """The first of the wanted time keys present: (ISO time or None, raw text)."""
    for name in wanted:
        key = folded.get(name)
        if key is not None and fields[key] is not None:
            raw = fields[key]
            text = raw if isinstance(raw, str) else json.dumps(raw, default=str)
            return _iso(raw), text
    return None, None


def _split(value: Any, key: str) -> tuple[list[dict[str, Any]], Any]:
    """A field's value as (nested objects, what stays an attribute or None)."""
    if isinstance(value, dict):
        return [value], None
    if isinstance(value, list | tuple):
        objects: list[dict[str, Any]] = []
        scalars: list[Any] = []
        stack = list(value)
        while stack:  # nested arrays are flattened
            item = stack.pop(0)
            if isinstance(item, dict):
                objects.append(item)
            elif isinstance(item, list | tuple):
                stack[:0] = list(item)
            elif item is not None:
                scalars.append(_scalar(item, key))
        return objects, (scalars or None)
    return [], _scalar(value, key)


def _scalar(value: Any, key: str) -> Any:
    if isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise InvalidInputError("content", f"the value of {key!r} is a {type(value).__name__}, which JSON cannot hold")


def _iso(value: Any) -> str | None:
    """A date-ish value as an ISO 8601 UTC string; None when it is not one.
    Accepts ISO strings (``2024-03-01``, ``2024-03-01T09:00:00Z``), a bare
    year (``2019``) or year-month (``2019-03``), and numbers as years
    (four digits) or Unix seconds."""
    try:
        if isinstance(value, datetime):
            return as_utc(value).isoformat()
        if isinstance(value, date):
            return datetime(value.year, value.month, value.day, tzinfo=UTC).isoformat()
        if isinstance(value, bool):
            return None
        if isinstance(value, int | float):
            if isinstance(value, int) and 1000 <= value <= 9999:
                return datetime(value, 1, 1, tzinfo=UTC).isoformat()
            return datetime.fromtimestamp(value, UTC).isoformat()
        if isinstance(value, str):
            text = value.strip()
            if re.fullmatch(r"\d{4}", text):
                return datetime(int(text), 1, 1, tzinfo=UTC).isoformat()
            if re.fullmatch(r"\d{4}-\d{2}", text):
                return datetime(int(text[:4]), int(text[5:]), 1, tzinfo=UTC).isoformat()
            return parse_time(text).isoformat()
    except (ValueError, OverflowError, OSError):
        return None
    return None


def _words(relation: str) -> str:
    return " ".join(re.findall(r"[^\W_]+", relation)).lower() or relation.lower()


def _digest(value: Any) -> str:
    """A stable short name for a nameless record: the same content, the same name."""
    try:
        text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    except (ValueError, RecursionError):  # a cyclic Python structure; JSON text cannot be one
        raise InvalidInputError("content", "the data refers to itself, which JSON cannot") from None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def map_json(
    data: Any,
    *,
    root_name: str | None = None,
    root_label: str | None = None,
    mapping: JsonMapping | None = None,
) -> Extraction:
    """Maps a JSON record (an object, an array of objects, or JSON text) to an
    :class:`Extraction`, every fact with confidence 1.0.

    ``root_name`` (usually the episode's name) names the top object when it has
    no name field of its own; ``root_label`` is added to its labels.
    """
    if isinstance(data, str | bytes | bytearray):
        try:
            data = json.loads(data)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            raise InvalidInputError("content", f"not valid JSON: {exc}") from None
    used = mapping or DEFAULT_MAPPING
    mapper = _Mapper(used)
    if isinstance(data, Mapping):
        mapper.root(dict(data), root_name, root_label)
    elif isinstance(data, list):
        if not all(isinstance(item, Mapping) for item in data):
            raise InvalidInputError("content", "a JSON array episode must hold objects only")
        for i, item in enumerate(data, 1):
            mapper.root(dict(item), f"{root_name} {i}" if root_name else None, root_label)
    else:
        raise InvalidInputError(
            "content", f"a JSON episode must be an object or an array of objects, not {_kind(data)}"
        )
    how = "the default mapping" if used == DEFAULT_MAPPING else "a custom mapping"
    return Extraction(
        reasoning=f"mapped from JSON by {how}",
        entities=list(mapper.out.entities.values()),
        facts=mapper.out.facts,
    )


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return f"a {type(value).__name__}"
