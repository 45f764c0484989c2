"""Where a name or a text still occurs in a group: every stored text column.

``forget`` plans its purge from this scan and verifies it with the same scan,
so a column left out here would be a column a purge could leak through. Both
backends read the same list; each says in its own SQL how to find a needle
in a column (case-insensitively; JSON columns as their text). A store answers
the coarse question (the needle occurs in the column); :func:`mentions` then
keeps only whole-word occurrences.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["TEXT_TABLES", "TextHit", "TextTable", "mentions", "needle_forms"]


@dataclass(frozen=True, slots=True)
class TextTable:
    """A table holding text of a group: its key column and its text columns."""

    name: str
    key: str
    columns: tuple[str, ...]


# Every column of a group's tables that can hold words from an episode, a
# name or a model's answer. Keys: what a purge acts on (a uuid, a fact uuid,
# an audit event's sequence number).
TEXT_TABLES: tuple[TextTable, ...] = (
    TextTable("episodes", "uuid", ("name", "content", "source_description", "metadata", "pending", "checkpoint",
                                   "result", "error")),
    TextTable("entities", "uuid", ("name", "aliases", "summary", "attributes", "provenance")),
    TextTable("entity_aliases", "entity_uuid", ("alias_key",)),
    TextTable("facts", "uuid", ("relation", "fact", "attributes")),
    TextTable("fact_sources", "fact_uuid", ("provenance",)),
    TextTable("fact_history", "fact_uuid", ("subject", "object", "relation", "fact")),
    TextTable("retracted_facts", "fact_uuid", ("subject_key", "object_key")),
    TextTable("audit_events", "seq", ("detail",)),
    TextTable("saga_summaries", "saga", ("summary", "state")),
    TextTable("communities", "uuid", ("name", "summary")),
    TextTable("model_replies", "key", ("reply",)),  # the group's reply cache: answers about its text
)


@dataclass(frozen=True, slots=True)
class TextHit:
    """A column of a row that contains one of the needles asked about."""

    table: str
    key: str
    column: str
    text: str


def needle_forms(needle: str) -> list[str]:
    """The casefolded forms a needle may be stored in: as written, and as JSON
    writes it with non-ASCII characters escaped (``Zo\\u00eb``)."""
    plain = needle.casefold()
    escaped = json.dumps(plain)[1:-1].casefold()
    return [plain] if escaped == plain else [plain, escaped]


def mentions(text: str, needles: Iterable[str]) -> bool:
    """Whether ``text`` contains one of the needles as a whole word (or words),
    case-insensitively: ``Ann`` is in "Ann's car", not in "Annapolis"."""
    folded = text.casefold()
    for needle in needles:
        for form in needle_forms(needle):
            if form and re.search(rf"(?<!\w){re.escape(form)}(?!\w)", folded):
                return True
    return False
