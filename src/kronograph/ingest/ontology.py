"""Custom entity and fact types: pydantic models the caller declares.

An ``Ontology`` is their plain-data form (names, descriptions, attribute
fields, cardinalities, exclusions), which is what a prompt shows, what an
episode records for its resumption, and what attributes are checked against.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from pydantic import BaseModel, ValidationError

from .. import checks
from ..errors import InvalidInputError
from ..model import Cardinality, RelationType, SameTimePolicy, fold_relation

__all__ = ["Ontology", "TypeSpec"]

TypesArg = Mapping[str, type[BaseModel]] | Sequence[type[BaseModel]] | None


@dataclass(frozen=True, slots=True)
class TypeSpec:
    """One declared type: its fields are ``{name: description}``."""

    name: str
    description: str
    fields: dict[str, str]
    cardinality: Cardinality | None = None
    event: bool | None = None  # a fact type's ``event: ClassVar[bool]`` (see RelationType.event)
    same_time: str | None = None  # a fact type's ``same_time: ClassVar[str]``: "hold" or "correct"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "description": self.description, "fields": self.fields}
        if self.cardinality is not None:
            out["cardinality"] = self.cardinality.value
        if self.event is not None:
            out["event"] = self.event
        if self.same_time is not None:
            out["same_time"] = self.same_time
        return out


def _named(arg: TypesArg, what: str) -> dict[str, type[BaseModel]]:
    if arg is None:
        return {}
    if isinstance(arg, str | bytes) or not isinstance(arg, Mapping | Sequence | set | frozenset | tuple):
        raise InvalidInputError(what, f"expected a dict of name to pydantic model, or a list of models, not {arg!r}")
    items = arg.items() if isinstance(arg, Mapping) else ((getattr(c, "__name__", repr(c)), c) for c in arg)
    out: dict[str, type[BaseModel]] = {}
    for name, cls in items:
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
            raise InvalidInputError(what, f"{name!r} must be a pydantic model class, not {cls!r}")
        out[checks.identifier(what, name, max_length=checks.NAME_MAX) or ""] = cls
    return out


def _type_name(annotation: Any) -> str:
    return annotation.__name__ if isinstance(annotation, type) else str(annotation)


def _spec(name: str, cls: type[BaseModel], what: str) -> TypeSpec:
    fields = {key: info.description or _type_name(info.annotation) for key, info in cls.model_fields.items()}
    raw = getattr(cls, "cardinality", None)
    cardinality: Cardinality | None = None
    if raw is not None and not isinstance(raw, property):
        try:
            cardinality = Cardinality(raw)
        except ValueError:
            allowed = [c.value for c in Cardinality]
            raise InvalidInputError(what, f"{name}.cardinality must be one of {allowed}") from None
    event = getattr(cls, "event", None)
    if isinstance(event, property):
        event = None
    if event is not None and not isinstance(event, bool):
        raise InvalidInputError(what, f"{name}.event must be True or False, not {event!r}")
    same_time = getattr(cls, "same_time", None)
    if isinstance(same_time, property):
        same_time = None
    if same_time is not None and same_time not in ("correct", "hold"):
        raise InvalidInputError(what, f"{name}.same_time must be 'correct' or 'hold', not {same_time!r}")
    if same_time == "hold" and cardinality in (None, Cardinality.MANY_TO_MANY):
        raise InvalidInputError(what, f"{name}.same_time='hold' needs a cardinality other than many_to_many")
    doc = (cls.__doc__ or "").strip()
    if doc.startswith(f"{cls.__name__}(") or "BaseModel" in doc[:40]:
        doc = ""  # pydantic's generated docstring says nothing useful
    return TypeSpec(
        name=name, description=" ".join(doc.split()), fields=fields, cardinality=cardinality, event=event,
        same_time=same_time,
    )


@dataclass(frozen=True, slots=True)
class Ontology:
    entity_types: dict[str, TypeSpec] = field(default_factory=dict)
    fact_types: dict[str, TypeSpec] = field(default_factory=dict)
    excluded: frozenset[str] = frozenset()
    # The classes themselves, when this ontology was built from them (not when
    # it was read back from an episode awaiting resumption).
    classes: dict[str, type[BaseModel]] = field(default_factory=dict, compare=False)

    @classmethod
    def build(
        cls, entity_types: TypesArg = None, fact_types: TypesArg = None, excluded: Iterable[str] | None = None
    ) -> Ontology:
        ents = _named(entity_types, "entity_types")
        facts = _named(fact_types, "fact_types")
        if isinstance(excluded, str | Mapping):
            raise InvalidInputError("excluded_entity_types", "expected a list of type names")
        try:
            names = tuple(excluded or ())
        except TypeError:
            raise InvalidInputError("excluded_entity_types", "expected a list of type names") from None
        for name in names:
            checks.identifier("excluded_entity_types", name, max_length=checks.NAME_MAX)
        built = cls(
            entity_types={n: _spec(n, c, "entity_types") for n, c in ents.items()},
            fact_types={n: _spec(n, c, "fact_types") for n, c in facts.items()},
            excluded=frozenset(x.casefold() for x in names),
            classes={**{f"entity:{n}": c for n, c in ents.items()}, **{f"fact:{n}": c for n, c in facts.items()}},
        )
        checks.json_value("entity_types", built.as_dict())  # kept as JSON while the episode is unfinished
        return built

    @property
    def empty(self) -> bool:
        return not (self.entity_types or self.fact_types or self.excluded)

    def as_dict(self) -> dict[str, Any]:
        return {
            "entity_types": [s.as_dict() for s in self.entity_types.values()],
            "fact_types": [s.as_dict() for s in self.fact_types.values()],
            "excluded": sorted(self.excluded),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ontology:
        def specs(rows: Iterable[Mapping[str, Any]]) -> dict[str, TypeSpec]:
            return {
                r["name"]: TypeSpec(
                    name=r["name"],
                    description=r.get("description", ""),
                    fields=dict(r.get("fields", {})),
                    cardinality=Cardinality(r["cardinality"]) if r.get("cardinality") else None,
                    event=r.get("event"),
                    same_time=r.get("same_time"),
                )
                for r in rows
            }

        return cls(
            entity_types=specs(data.get("entity_types", ())),
            fact_types=specs(data.get("fact_types", ())),
            excluded=frozenset(data.get("excluded", ())),
        )

    @property
    def version(self) -> str:
        """A short hash of the declared types, recorded with what they produced."""
        if self.empty:
            return "default"
        text = json.dumps(self.as_dict(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def relation_types(self) -> dict[str, RelationType]:
        """Cardinalities, events and same-time policies the fact types declare, by folded relation key."""
        return {
            fold_relation(name): RelationType(
                cardinality=spec.cardinality or Cardinality.MANY_TO_MANY, description=spec.description or None,
                event=spec.event, same_time=cast(SameTimePolicy, spec.same_time or "correct"),
            )
            for name, spec in self.fact_types.items()
            if spec.cardinality is not None or spec.event is not None
        }

    def is_excluded(self, labels: Iterable[str]) -> bool:
        return any(label.casefold() in self.excluded for label in labels)

    def attributes(self, kind: str, type_name: str | None, values: Mapping[str, Any]) -> dict[str, Any]:
        """The attributes of an extracted entity (``kind="entity"``) or fact that
        its declared type defines, validated by the type's model when it is at
        hand; what does not validate is dropped, never stored half-right."""
        specs = self.entity_types if kind == "entity" else self.fact_types
        spec = specs.get(type_name or "")
        if spec is None or not values:
            return {}
        known = {k: v for k, v in values.items() if k in spec.fields and v is not None}
        model = self.classes.get(f"{kind}:{type_name}")
        if model is None or not known:
            return known
        out: dict[str, Any] = {}
        for key, value in known.items():  # field by field: one bad value costs only itself
            try:
                checked = model.__pydantic_validator__.validate_assignment(
                    model.model_construct(), key, value
                )
                out[key] = getattr(checked, key)
            except (ValidationError, TypeError, ValueError):
                continue
        return json.loads(json.dumps(out, default=str))
