"""What an episode's ingestion has paid a model for so far: its checkpoint.

The checkpoint is written with the episode's status (``resolving`` after a
paid extraction, ``committing`` after paid entity or judge answers), so a
resumption after a crash, a retryable failure or a takeover asks no question
already answered. It is stored as JSON in the episode's row, in the layout
every earlier version wrote (keys ``extraction``, ``provenance``, ``unread``,
``usage``, ``entities``, ``verdicts``): a key an older version did not write
reads as absent, a key this one no longer knows is dropped.

Two fields are never stored: ``extracting`` (admission already wrote the
``extracting`` status) and ``state`` (the ``committing`` state, written in
the commit's own transaction).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..llm.protocol import Usage
from ..store.plan import Plan
from .entity_match import Choice
from .schema import Extraction

__all__ = ["Checkpoint", "JudgedFact", "Verdicts"]


@dataclass(frozen=True, slots=True)
class JudgedFact:
    """A judge's answer about one new fact, its ids mapped to uuids: what it
    contradicts and duplicates among the candidates it was ``shown``, and the
    ids it named outside them (``refused``: the guard ignores those)."""

    contradicts: tuple[str, ...] = ()
    duplicate_of: str | None = None
    shown: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> JudgedFact:
        return cls(
            contradicts=tuple(data.get("contradicts") or ()), duplicate_of=data.get("duplicate_of"),
            shown=tuple(data.get("shown") or ()), refused=tuple(data.get("refused") or ()),
        )

    def to_json(self) -> dict[str, Any]:
        return {"contradicts": list(self.contradicts), "duplicate_of": self.duplicate_of,
                "shown": list(self.shown), "refused": list(self.refused)}


Verdicts = dict[int, JudgedFact]  # by the new fact's index in the episode


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The model outputs of one episode so far; ``None``: not made yet."""

    extraction: Extraction | None = None
    provenance: Mapping[str, Any] = field(default_factory=dict)  # the extractor's (see .extract)
    unread: tuple[str, ...] = ()  # sentences that gave no fact (see .notes)
    usage: Usage | None = None  # what the model calls so far cost, written with what they answered
    entities: Mapping[str, Choice] | None = None  # which stored entity each draft is (see .entity_match)
    verdicts: Verdicts | None = None  # the judge's answers by fact (see .episode_judge)
    extracting: bool = False  # not stored: its status is ``extracting`` already
    state: Plan | None = None  # not stored: the ``committing`` state, written in the commit's transaction

    @property
    def decided(self) -> bool:
        """Whether the entity choices and the judge's verdicts are made."""
        return self.entities is not None and self.verdicts is not None

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Checkpoint:
        """A checkpoint as stored (by this version or an earlier one)."""
        if not data:
            return cls()
        usage, verdicts, entities = data.get("usage"), data.get("verdicts"), data.get("entities")
        return cls(
            extraction=Extraction.model_validate(data["extraction"]) if "extraction" in data else None,
            provenance=dict(data.get("provenance") or {}),
            unread=tuple(data.get("unread") or ()),
            usage=Usage.from_dict(usage) if isinstance(usage, Mapping) else None,
            entities=dict(entities) if entities is not None else None,
            verdicts={int(i): JudgedFact.from_json(v) for i, v in verdicts.items()} if verdicts is not None else None,
        )

    def to_json(self) -> dict[str, Any]:
        """The stored form: what :meth:`from_json` reads back."""
        out: dict[str, Any] = {}
        if self.extraction is not None:
            out["extraction"] = self.extraction.model_dump(mode="json")
            out["provenance"] = dict(self.provenance)
            out["unread"] = list(self.unread)
        if self.usage is not None:
            out["usage"] = self.usage.as_dict()
        if self.entities is not None:
            out["entities"] = dict(self.entities)
        if self.verdicts is not None:
            out["verdicts"] = {str(i): v.to_json() for i, v in self.verdicts.items()}
        return out

    def undecided(self) -> Checkpoint:
        """Without the decisions (and their pending state) the group moved under."""
        return replace(self, entities=None, verdicts=None, state=None)
