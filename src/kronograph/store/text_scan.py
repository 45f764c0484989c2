"""Where a name or a text still occurs in a group: every stored text column.

``forget`` plans its purge from this scan and verifies it with the same scan,
so a column left out here would be a column a purge could leak through. The
columns are therefore not listed by hand: each backend reads its own schema
(every table with a ``group_id`` column, every column of a text or JSON type)
and :func:`text_tables` keeps all of them but the identifiers and codes of
:data:`NOT_TEXT`. A column added by a later migration is scanned from the day
it exists. A store answers the coarse question (a word of the needle occurs
in the column, case-insensitively; JSON as its text); :func:`mentions` then
keeps only whole-word occurrences of the whole needle.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "NOT_SCANNED", "NOT_TEXT", "PENDING_ERASURE",
    "TABLE_KEYS", "Erasure", "TextHit", "TextTable", "coarse_forms", "mentions",
    "needle_forms", "text_tables",
]


@dataclass(frozen=True, slots=True)
class TextTable:
    """A table holding text of a group: its key column and its text columns."""

    name: str
    key: str
    columns: tuple[str, ...]


# What a purge acts on in each table that holds a group's text (a uuid, a fact
# uuid, an audit event's sequence number, a saga's name, a reply's key). A
# table with text that is not here is still scanned (keyed by its group), and
# whatever is found in it is a leftover: forget then never says ``verified``.
TABLE_KEYS: dict[str, str] = {
    "episodes": "uuid",
    "entities": "uuid",
    "entity_aliases": "entity_uuid",
    "facts": "uuid",
    "fact_sources": "fact_uuid",
    "fact_history": "fact_uuid",
    "retracted_facts": "fact_uuid",
    "audit_events": "seq",
    "saga_summaries": "saga",
    "communities": "uuid",
    "model_replies": "key",
    "group_settings": "name",
    # A contradiction row's text (a recorded link's note, who filed it): the
    # rows filed from that contradicting fact (or episode) go (Purge.contradictions).
    "contradictions": "fact_uuid",
}

# Columns of a text type that hold identifiers or codes kronograph writes,
# never words: uuids and hashes (a needle of hexadecimal letters, "cafe" say,
# would match them), references to episodes and facts (an id, not its
# content: docs/forgetting.md asks for ids that carry no personal data),
# enumerations (kind, status, cause, method, a fact's tier, a contradiction's reason), and an entity's initials
# (derived from its name, and gone with it). Everything else is scanned.
NOT_TEXT: frozenset[str] = frozenset({
    "group_id", "uuid", "content_hash", "key",
    "source_uuid", "target_uuid", "fact_uuid", "entity_uuid", "community_uuid", "cursor_uuid", "a", "b",
    "episode_id", "cause_episode", "invalidated_by", "episodes",
    "kind", "status", "cause", "method", "acronym", "tier", "reason",
})


# Tables never scanned: the erasure log (kronograph.erasure) is append-only, so
# nothing could erase a hit in it, and holds no erased text by construction (a
# request id or reason naming what a forget erases is refused; it keeps counts).
NOT_SCANNED: frozenset[str] = frozenset({"erasure_log"})


def text_tables(columns: Mapping[str, Iterable[str]]) -> tuple[TextTable, ...]:
    """The tables to scan, from a schema's text columns by table (tables with
    a ``group_id`` column only): every column but those of :data:`NOT_TEXT`."""
    out: list[TextTable] = []
    for table in sorted(columns):
        if table in NOT_SCANNED:
            continue
        scanned = tuple(c for c in columns[table] if c not in NOT_TEXT)
        if scanned:
            out.append(TextTable(table, TABLE_KEYS.get(table, "group_id"), scanned))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class TextHit:
    """A column of a row that contains one of the needles asked about."""

    table: str
    key: str
    column: str
    text: str


@dataclass(frozen=True, slots=True)
class Erasure:
    """What a backend did to make a purge's deleted content unrecoverable
    from its files, and whether it could finish (``complete``); ``detail``
    says what ran, or what held it back."""

    complete: bool
    detail: str


# The store setting, one per group (``PENDING_ERASURE + group_id``), that
# records an erasure a reader held back (its value: when); the next forget in
# the group or its ``doctor --repair`` finishes it. It names nothing forgotten.
# An erasure that completes is complete for every group: all are cleared.
PENDING_ERASURE = "forget.erasure_pending:"

_WORDS = re.compile(r"[^\W_]+")


def needle_forms(needle: str) -> list[str]:
    """The casefolded forms a needle may be stored in: as written, and as JSON
    writes it with non-ASCII characters escaped (``Zo\\u00eb``)."""
    plain = needle.casefold()
    escaped = json.dumps(plain)[1:-1].casefold()
    return [plain] if escaped == plain else [plain, escaped]


def coarse_forms(needles: Iterable[str]) -> list[str]:
    """What a store looks for in a column, casefolded (and lower-cased, for a
    server whose ``lower`` is not Python's casefold): the longest word of each
    form of each needle. Every text :func:`mentions` accepts contains one."""
    out: set[str] = set()
    for needle in needles:
        for form in needle_forms(needle):
            words = _WORDS.findall(form)
            if words:
                longest = max(words, key=len)
                out.update((longest, longest.lower()))
    return sorted(out)


@lru_cache(maxsize=1024)
def _pattern(form: str) -> re.Pattern[str] | None:
    """A form's words in order, as whole words, whatever separates them
    (space, ``_``, ``-``, punctuation or nothing): ``Zorblax Quentin`` is in
    ``REPORTS_TO_ZORBLAX_QUENTIN`` and ``zorblax-quentin``."""
    words = _WORDS.findall(form)
    if not words:
        return None
    body = r"[\W_]*".join(re.escape(w) for w in words)
    return re.compile(rf"(?<![^\W_]){body}(?![^\W_])")


def mentions(text: str, needles: Iterable[str]) -> bool:
    """Whether ``text`` contains one of the needles as a whole word (or words),
    case-insensitively: ``Ann`` is in "Ann's car" and ``KNOWS_ANN``, not in
    "Annapolis"."""
    folded = text.casefold()
    for needle in needles:
        for form in needle_forms(needle):
            pattern = _pattern(form)
            if pattern is not None and pattern.search(folded):
                return True
    return False
