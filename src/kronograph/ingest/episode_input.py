"""One ``add_episode`` call, validated, and the form it is kept in until it
completes (so that a crash can be resumed from the store alone)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from pydantic import ValidationError

from ..errors import InvalidInputError
from ..ids import new_id
from ..model import Episode, EpisodeKind, EpisodeStatus, trusted
from ..time import as_utc, parse_time
from .json_map import JsonMapping
from .ontology import Ontology, TypesArg

__all__ = ["ACTOR_MAX", "EpisodeInput", "actor_text", "episode_input"]

_KINDS = {"message": EpisodeKind.MESSAGE, "text": EpisodeKind.TEXT, "json": EpisodeKind.JSON}


@dataclass(frozen=True, slots=True)
class EpisodeInput:
    group_id: str
    episode_id: str
    content: str
    kind: EpisodeKind
    reference_time: datetime
    time_zone: str  # of the reference time as given ("UTC" for naive input)
    utc_offset: int  # its offset from UTC then, in seconds: relative dates are read in it
    name: str
    source_description: str | None
    saga: str | None
    previous_episode_ids: tuple[str, ...] | None
    ontology: Ontology
    metadata: dict[str, Any]
    json_mapping: JsonMapping | None
    content_hash: str
    actor: str | None = None  # who filed it: a user, an agent, an API key id

    @property
    def local_reference_time(self) -> datetime:
        """The reference time in the zone it was given in: "yesterday" and
        "last week" mean the caller's days, not UTC's."""
        return self.reference_time.astimezone(timezone(timedelta(seconds=self.utc_offset)))

    def episode(self, received_at: datetime, *, store_raw_content: bool) -> Episode:
        return trusted(
            Episode,
            uuid=self.episode_id, group_id=self.group_id, name=self.name, kind=self.kind,
            content=self.content if store_raw_content else None, content_hash=self.content_hash,
            source_description=self.source_description, reference_time=self.reference_time,
            created_at=received_at, saga=self.saga, status=EpisodeStatus.RECEIVED.value,
            metadata=self.metadata, error=None, actor=self.actor,
        )

    def pending(self, *, store_raw_content: bool) -> dict[str, Any]:
        """What resuming needs beyond the episode's row. Raw content is kept here
        only while the episode is unfinished, and only when the row cannot hold it."""
        out: dict[str, Any] = {
            "time_zone": self.time_zone,
            "utc_offset": self.utc_offset,
            "previous_episode_ids": list(self.previous_episode_ids) if self.previous_episode_ids is not None else None,
            "ontology": self.ontology.as_dict(),
            "json_mapping": self.json_mapping.model_dump(mode="json") if self.json_mapping is not None else None,
        }
        if not store_raw_content:
            out["content"] = self.content
        return out

    @classmethod
    def resumed(cls, episode: Episode, pending: Mapping[str, Any], ontology: Ontology | None = None) -> EpisodeInput:
        """Rebuild the input of an unfinished episode from what the store kept."""
        content = episode.content if episode.content is not None else pending.get("content")
        if content is None:
            raise InvalidInputError("content", "the episode's content was not kept, so it cannot be resumed")
        previous = pending.get("previous_episode_ids")
        mapping = pending.get("json_mapping")
        return cls(
            group_id=episode.group_id,
            episode_id=episode.uuid,
            content=content,
            kind=EpisodeKind(episode.kind),
            reference_time=episode.reference_time,
            time_zone=pending.get("time_zone", "UTC"),
            utc_offset=int(pending.get("utc_offset", 0)),
            name=episode.name,
            source_description=episode.source_description,
            saga=episode.saga,
            previous_episode_ids=tuple(previous) if previous is not None else None,
            ontology=ontology or Ontology.from_dict(pending.get("ontology", {})),
            metadata=dict(episode.metadata),
            json_mapping=JsonMapping.model_validate(mapping) if mapping else None,
            content_hash=episode.content_hash or content_hash(content),
            actor=episode.actor,
        )


ACTOR_MAX = 200  # characters: an actor is a short id, not a free text


def actor_text(field: str, value: Any) -> str | None:
    """An actor (who filed an episode or a fact): None, or a short non-empty
    string without NUL, stripped."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInputError(field, f"expected a string, got {type(value).__name__}")
    _storable(field, value)
    text = value.strip()
    if not text:
        raise InvalidInputError(field, "must not be empty")
    if len(text) > ACTOR_MAX:
        raise InvalidInputError(field, f"must be at most {ACTOR_MAX} characters, got {len(text)}")
    return text


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()


def _optional_text(field: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInputError(field, f"expected a string, got {type(value).__name__}")
    _storable(field, value)
    return value.strip() or None


def _storable(field: str, value: Any) -> None:
    """Text every backend can store: PostgreSQL's text and JSON types refuse
    NUL. ``value`` is a string or a parsed JSON value, whose keys and strings
    are checked (a NUL there is ``\\u0000`` in its text; a literal backslash
    before ``u0000`` is not one)."""
    if _has_nul(value):
        raise InvalidInputError(field, "must not contain a NUL character (U+0000)")


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, Mapping):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_nul(v) for v in value)
    return False


def _content(kind: EpisodeKind, content: Any) -> str:
    if kind == EpisodeKind.JSON and not isinstance(content, str):
        try:
            content = json.dumps(content, ensure_ascii=False, sort_keys=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError("content", f"cannot be written as JSON: {exc}") from None
    if isinstance(content, str):
        _storable("content", content)
    if not isinstance(content, str):
        raise InvalidInputError("content", f"expected a string, got {type(content).__name__}")
    if not content.strip():
        raise InvalidInputError("content", "must not be empty")
    if kind == EpisodeKind.JSON:
        try:
            parsed = json.loads(content)
        except ValueError as exc:
            raise InvalidInputError("content", f"not valid JSON: {exc}") from None
        _storable("content", parsed)  # its strings become names and attributes
    return content


def episode_input(
    group_id: str,
    content: Any,
    *,
    kind: str,
    reference_time: datetime | str | None,
    name: str | None,
    source_description: str | None,
    episode_id: str | None,
    saga: str | None,
    previous_episode_ids: Iterable[str] | None,
    entity_types: TypesArg,
    fact_types: TypesArg,
    excluded_entity_types: Iterable[str] | None,
    metadata: Mapping[str, Any] | None,
    json_mapping: JsonMapping | Mapping[str, Any] | None,
    now: datetime,
    actor: str | None = None,
) -> EpisodeInput:
    """Validate one episode's arguments; raises InvalidInputError naming the field."""
    if kind not in _KINDS:
        raise InvalidInputError("kind", f"must be one of {sorted(_KINDS)}, not {kind!r}")
    episode_kind = _KINDS[kind]
    text = _content(episode_kind, content)
    if reference_time is None:
        when, zone, offset = now, "UTC", 0
    else:
        try:
            raw = reference_time if isinstance(reference_time, datetime) else datetime.fromisoformat(
                reference_time.strip().replace("Z", "+00:00").replace("z", "+00:00")
            )
            zone = str(raw.tzinfo) if raw.tzinfo is not None else "UTC"
            delta = raw.utcoffset()
            offset = int(delta.total_seconds()) if delta is not None else 0
            when = parse_time(raw)
        except (TypeError, ValueError, AttributeError) as exc:
            raise InvalidInputError(
                "reference_time", f"not a datetime or ISO 8601 time: {reference_time!r} ({exc})"
            ) from None
    eid = _optional_text("episode_id", episode_id) or new_id()
    if previous_episode_ids is not None:
        if isinstance(previous_episode_ids, str):
            raise InvalidInputError("previous_episode_ids", "expected a list of episode ids, got a single string")
        ids = tuple(previous_episode_ids)
        for item in ids:
            if not isinstance(item, str) or not item.strip():
                raise InvalidInputError("previous_episode_ids", f"not an episode id: {item!r}")
            _storable("previous_episode_ids", item)
        previous: tuple[str, ...] | None = ids
    else:
        previous = None
    if metadata is not None and not isinstance(metadata, Mapping):
        raise InvalidInputError("metadata", f"expected a dict, got {type(metadata).__name__}")
    try:
        dumped = json.dumps(dict(metadata or {}), allow_nan=False)  # NaN and Infinity are not JSON
        meta = json.loads(dumped)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError("metadata", f"must be JSON-serialisable: {exc}") from None
    _storable("metadata", meta)
    mapping: JsonMapping | None = None
    if json_mapping is not None:
        try:
            mapping = JsonMapping.model_validate(json_mapping)
        except ValidationError as exc:
            raise InvalidInputError("json_mapping", "; ".join(e["msg"] for e in exc.errors())) from None
    return EpisodeInput(
        group_id=group_id,
        episode_id=eid,
        content=text,
        kind=episode_kind,
        reference_time=as_utc(when),
        time_zone=zone,
        utc_offset=offset,
        name=_optional_text("name", name) or eid,
        source_description=_optional_text("source_description", source_description),
        saga=_optional_text("saga", saga),
        previous_episode_ids=previous,
        ontology=Ontology.build(entity_types, fact_types, excluded_entity_types),
        metadata=meta,
        json_mapping=mapping,
        content_hash=content_hash(text),
        actor=actor_text("actor", actor),
    )
