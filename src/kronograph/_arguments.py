"""Checking the public API's arguments: one place, one wording, so that
every method names the argument that is wrong the same way."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, overload

from pydantic import ValidationError

from . import checks
from .errors import InvalidInputError
from .model import RelationType, fold_relation
from .search.engine import SCOPES
from .search.recipes import Recipe, recipe_named
from .search.types import SearchFilters
from .time import parse_time

__all__ = ["SearchArguments", "TimeLike", "search_arguments"]

TimeLike = datetime | str


@overload
def _text(field: str, value: Any, *, optional: Literal[False] = False) -> str: ...
@overload
def _text(field: str, value: Any, *, optional: bool) -> str | None: ...
def _text(field: str, value: Any, *, optional: bool = False) -> str | None:
    """Free text (a name, a query), stripped: see :mod:`kronograph.checks`."""
    return checks.text(field, value, optional=optional)


@overload
def _id(field: str, value: Any, *, optional: Literal[False] = False, max_length: int = checks.ID_MAX) -> str: ...
@overload
def _id(field: str, value: Any, *, optional: bool, max_length: int = checks.ID_MAX) -> str | None: ...
def _id(field: str, value: Any, *, optional: bool = False, max_length: int = checks.ID_MAX) -> str | None:
    """An identifier (group, episode, saga, uuid), exactly as given: see :mod:`kronograph.checks`."""
    return checks.identifier(field, value, optional=optional, max_length=max_length)


def _time(field: str, value: TimeLike | None) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_time(value)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(field, f"not a datetime or ISO 8601 time: {value!r} ({exc})") from None


def _labels(field: str, value: Any, *, lookup: bool = False) -> tuple[str, ...]:
    """Labels (identifiers, or free text to look one up by with ``lookup``)."""
    if isinstance(value, str):
        raise InvalidInputError(field, "expected a list of labels, got a single string")
    try:
        labels = tuple(value)
    except TypeError:
        raise InvalidInputError(field, f"expected a list of labels, got {type(value).__name__}") from None
    for label in labels:
        if lookup:
            _text(field, label)
        else:
            _id(field, label, max_length=checks.NAME_MAX)
    return labels


def _relation_types(value: Mapping[str, RelationType | Mapping[str, Any]] | None) -> dict[str, RelationType]:
    out: dict[str, RelationType] = {}
    for name, spec in (value or {}).items():
        key = fold_relation(_id("relation_types", name, max_length=checks.NAME_MAX) or "")
        try:
            out[key] = spec if isinstance(spec, RelationType) else RelationType.model_validate(spec)
        except ValidationError as exc:
            problem = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise InvalidInputError(f"relation_types[{name!r}]", problem) from None
    return out


def _groups(group_ids: Any) -> tuple[str, ...]:
    if isinstance(group_ids, str):
        return (_id("group_id", group_ids) or "",)
    try:
        groups = tuple(dict.fromkeys(_id("group_id", g) or "" for g in group_ids))
    except TypeError:
        raise InvalidInputError("group_ids", f"expected a group id or a list of them, not {group_ids!r}") from None
    if not groups:
        raise InvalidInputError("group_ids", "name at least one group")
    return groups


@dataclass(frozen=True, slots=True)
class SearchArguments:
    groups: tuple[str, ...]
    query: str
    scopes: tuple[str, ...]
    recipe: Recipe
    limit: int
    as_of: datetime | None
    known_at: datetime | None
    centers: tuple[str, ...]
    filters: SearchFilters | None


def search_arguments(
    group_ids: Any,
    query: Any,
    *,
    scopes: Iterable[str],
    recipe: Any,
    limit: Any,
    as_of: TimeLike | None,
    known_at: TimeLike | None,
    include_retired: bool,
    center_entity: Any,
    filters: Any,
) -> SearchArguments:
    """``search``'s arguments, checked."""
    groups = _groups(group_ids)
    text = _text("query", query)
    wanted = tuple(dict.fromkeys(_labels("scopes", scopes, lookup=True)))
    for scope in wanted:
        if scope not in SCOPES:
            raise InvalidInputError("scopes", f"unknown scope {scope!r}; the scopes are {list(SCOPES)}")
    if isinstance(recipe, str):
        try:
            chosen = recipe_named(recipe)
        except ValueError as exc:
            raise InvalidInputError("recipe", str(exc)) from None
    elif isinstance(recipe, Recipe):
        chosen = recipe
    else:
        raise InvalidInputError("recipe", f"expected a recipe name or a Recipe, not {type(recipe).__name__}")
    checks.count("limit", limit)
    checks.flag("include_retired", include_retired)
    when, believed = _time("as_of", as_of), _time("known_at", known_at)
    if include_retired and when is not None:
        raise InvalidInputError("as_of", "cannot be combined with include_retired (which returns every interval)")
    if filters is not None and not isinstance(filters, SearchFilters):
        raise InvalidInputError("filters", "expected a SearchFilters")
    try:
        centers = () if center_entity is None else (
            (center_entity,) if isinstance(center_entity, str) else tuple(center_entity)
        )
    except TypeError:
        raise InvalidInputError("center_entity", f"expected a name or a list of names, not {center_entity!r}") from None
    for center in centers:
        _text("center_entity", center)
    return SearchArguments(groups, text, wanted, chosen, limit, when, believed, centers, filters)
