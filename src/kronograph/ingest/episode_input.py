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

from .. import checks
from ..authority import tier_text
from ..errors import InvalidInputError
from ..ids import new_id
from ..model import Episode, EpisodeKind, EpisodeStatus, trusted
from ..time import as_utc, read_time
from .json_map import JsonMapping, map_json
from .ontology import Ontology, TypesArg
from .speakers import role_text, speaker_text, speakers

__all__ = ["ACTOR_MAX", "DEFAULT_ASSISTANT", "EpisodeInput", "actor_text", "data_subject_text", "episode_input"]

DEFAULT_ASSISTANT = "Assistant"  # whom "you" means in a user's message, unless named

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
    on_behalf_of: str | None = None  # whom the actor filed it for, as it said
    speaker: str | None = None  # who said it: whom "I" and "my" mean
    role: str | None = None  # the message's role: "user", "assistant", "system", "tool"...
    addressee: str | None = None  # whom "you" means
    user_name: str | None = None  # the group's user (the person behind role "user"), when known
    tier: str | None = None  # the tier of the facts it states (kronograph.authority)
    data_subject: str | None = None  # whose data it is (a customer id); its facts inherit it

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
            metadata=self.metadata, error=None, actor=self.actor, on_behalf_of=self.on_behalf_of,
            speaker=self.speaker, role=self.role, data_subject=self.data_subject,
        )

    def pending(self, *, with_content: bool) -> dict[str, Any]:
        """What resuming needs beyond the episode's row, and ``with_content`` its
        text: kept here only while the episode is unfinished, and only when the
        row cannot hold it (raw content kept out of the store)."""
        out: dict[str, Any] = {
            "time_zone": self.time_zone,
            "utc_offset": self.utc_offset,
            "previous_episode_ids": list(self.previous_episode_ids) if self.previous_episode_ids is not None else None,
            "ontology": self.ontology.as_dict(),
            "json_mapping": self.json_mapping.model_dump(mode="json") if self.json_mapping is not None else None,
        }
        if self.addressee is not None:
            out["addressee"] = self.addressee
        if self.user_name is not None:
            out["user_name"] = self.user_name
        if self.tier is not None:
            out["tier"] = self.tier
        if with_content:
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
            on_behalf_of=episode.on_behalf_of,
            speaker=episode.speaker,
            role=episode.role,
            addressee=pending.get("addressee"),
            user_name=pending.get("user_name"),
            tier=pending.get("tier"),
            data_subject=episode.data_subject,
        )


ACTOR_MAX = checks.ID_MAX  # characters: an actor is a short id, not a free text


def actor_text(field: str, value: Any) -> str | None:
    """An actor (who filed an episode or a fact): None, or an identifier
    (:mod:`kronograph.checks`), exactly as given."""
    return checks.identifier(field, value, optional=True, max_length=ACTOR_MAX)


def data_subject_text(field: str, value: Any) -> str | None:
    """A data subject's key (a customer id): None, or an identifier of at most
    200 characters (:mod:`kronograph.checks`), exactly as given."""
    return checks.identifier(field, value, optional=True, max_length=checks.ID_MAX)


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()


def _optional_text(field: str, value: Any) -> str | None:
    if value is None:
        return None
    problem = checks.text_problem(value)
    if problem is not None:
        raise InvalidInputError(field, problem)
    return value.strip() or None  # type: ignore[no-any-return]


def _json_content(content: Any, mapping: JsonMapping | None) -> str:
    """A JSON episode's text, refused now for whatever the JSON mapper would
    refuse later (not an object or an array of objects, nested too deep, an
    unstorable string), so a bad record never reaches the queue."""
    if isinstance(content, str):
        checks.json_value("content", content)
        try:
            parsed = json.loads(content)
        except (ValueError, RecursionError) as exc:
            raise InvalidInputError("content", f"not valid JSON: {exc}") from None
    else:
        parsed = content
    checks.json_value("content", parsed)  # before dumping: no depth can overflow the stack
    if not isinstance(content, str):
        try:
            content = json.dumps(content, ensure_ascii=False, sort_keys=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError("content", f"cannot be written as JSON: {exc}") from None
    try:
        map_json(parsed, root_name="check", mapping=mapping)  # deterministic and cheap: its refusals, now
    except InvalidInputError:
        raise
    except (ValueError, TypeError, RecursionError) as exc:
        raise InvalidInputError("content", f"cannot be mapped: {exc}") from None
    return content  # type: ignore[no-any-return]


def _content(kind: EpisodeKind, content: Any, mapping: JsonMapping | None) -> str:
    if kind == EpisodeKind.JSON:
        text = _json_content(content, mapping)
    else:
        checks.text("content", content, strip=False)
        text = content
    if not text.strip():
        raise InvalidInputError("content", "must not be empty")
    return text


def _reference_time(value: Any, now: datetime) -> tuple[datetime, str, int]:
    """The reference time in UTC, and the zone and offset it was given in."""
    if value is None:
        return now, "UTC", 0
    try:
        raw = read_time(value)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError("reference_time", f"not a datetime or ISO 8601 time: {value!r} ({exc})") from None
    delta = raw.utcoffset()
    return as_utc(raw), (str(raw.tzinfo) if delta is not None else "UTC"), (int(delta.total_seconds()) if delta else 0)


def _metadata(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError("metadata", f"expected a dict, got {type(value).__name__}")
    checks.json_value("metadata", dict(value))
    return json.loads(json.dumps(dict(value)))  # a copy the caller cannot change under us


def _json_mapping(value: Any) -> JsonMapping | None:
    if value is None:
        return None
    try:
        mapping = value if isinstance(value, JsonMapping) else JsonMapping.model_validate(value)
    except ValidationError as exc:
        problem = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInputError("json_mapping", problem) from None
    checks.json_value("json_mapping", mapping.model_dump(mode="json"))  # kept as JSON while unfinished
    return mapping


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
    on_behalf_of: str | None = None,
    speaker: str | None = None,
    role: str | None = None,
    addressee: str | None = None,
    user_name: str | None = None,
    assistant_name: str | None = DEFAULT_ASSISTANT,
    tier: str | None = None,
    data_subject: str | None = None,
) -> EpisodeInput:
    """Validate one episode's arguments; raises InvalidInputError naming the field.
    ``speaker`` and ``addressee`` default from ``role`` (see :func:`.speakers.speakers`)."""
    if not isinstance(kind, str) or kind not in _KINDS:
        raise InvalidInputError("kind", f"must be one of {sorted(_KINDS)}, not {kind!r}")
    episode_kind = _KINDS[kind]
    mapping = _json_mapping(json_mapping)
    text = _content(episode_kind, content, mapping)
    when, zone, offset = _reference_time(reference_time, now)
    eid = checks.identifier("episode_id", episode_id, optional=True) or new_id()
    if previous_episode_ids is not None:
        if isinstance(previous_episode_ids, str | Mapping):
            raise InvalidInputError("previous_episode_ids", "expected a list of episode ids")
        try:
            previous: tuple[str, ...] | None = tuple(previous_episode_ids)
        except TypeError:
            raise InvalidInputError("previous_episode_ids", "expected a list of episode ids") from None
        for item in previous or ():
            checks.identifier("previous_episode_ids", item)
    else:
        previous = None
    meta = _metadata(metadata)
    said_as = role_text("role", role)
    said_by, said_to = speakers(
        said_as, speaker_text("speaker", speaker), user_name=user_name, assistant_name=assistant_name
    )
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
        saga=checks.identifier("saga", saga, optional=True),
        previous_episode_ids=previous,
        ontology=Ontology.build(entity_types, fact_types, excluded_entity_types),
        metadata=meta,
        json_mapping=mapping,
        content_hash=content_hash(text),
        actor=actor_text("actor", actor),
        on_behalf_of=actor_text("on_behalf_of", on_behalf_of),
        speaker=said_by,
        role=said_as,
        addressee=speaker_text("addressee", addressee) or said_to,
        user_name=user_name,
        tier=tier_text("tier", tier),
        data_subject=data_subject_text("data_subject", data_subject),
    )
