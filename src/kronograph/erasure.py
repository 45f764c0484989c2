"""Erasure receipts: what an auditor files after a ``forget``.

Every forget that erases (not a dry run) appends entries to the group's
erasure log, a table the database keeps append-only (SQLite triggers,
a PostgreSQL trigger refuse every UPDATE and DELETE):

* an ``erasure`` entry, written in the purge's own transaction: the purge and
  its receipt commit together or not at all;
* a ``verification`` entry, appended once the store and every read have been
  checked (that result exists only after the purge commits), carrying the
  same ``receipt_id``, whether it was verified and how many leftovers.

A purge whose verification entry is missing (the process died in between) is
therefore visible as an erasure entry with no verification after it.

An entry says what was targeted (``by``: entity, episode or data_subject),
never the name, the episode's text or the key; how many items of each kind
went (``counts``); who asked (``actor``, ``on_behalf_of``, ``request_id``,
``reason``: refused if they name what is erased). ``previous`` is the
``digest`` of the group's entry before it ("" for the first), and ``digest``
is the SHA-256 of the entry's own fields, canonically serialised: the log is a
hash chain :func:`verify_chain` recomputes.

This module imports nothing else from kronograph but its time helpers (the
model imports it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .time import as_utc, to_micros

__all__ = ["ErasureChain", "ErasureReceipt", "receipt_digest", "verify_chain"]

_Utc = Annotated[datetime, AfterValidator(as_utc)]


class ErasureReceipt(BaseModel):
    """One entry of a group's erasure log (see the module's docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    receipt_id: str
    group_id: str
    seq: int  # its place in the group's log, from 1
    entry: Literal["erasure", "verification"]
    by: Literal["entity", "episode", "data_subject"]
    request_id: str | None = None
    reason: str | None = None
    actor: str | None = None
    on_behalf_of: str | None = None
    recorded_at: _Utc
    # How many of each kind went (episodes, facts, entities, summaries_rebuilt,
    # sagas_rebuilt, communities_rebuilt, audit_events_redacted,
    # cached_replies_dropped, ...); empty on a verification entry.
    counts: dict[str, int] = Field(default_factory=dict)
    verified: bool | None = None  # on a verification entry
    leftovers: int | None = None  # on a verification entry: how many traces were found
    previous: str = ""  # the digest of the group's entry before this one
    digest: str = ""


def _canonical(receipt: ErasureReceipt) -> bytes:
    fields: dict[str, Any] = receipt.model_dump(mode="json", exclude={"digest", "recorded_at"})
    fields["recorded_at"] = to_micros(receipt.recorded_at)  # as stored: microseconds, UTC
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def receipt_digest(receipt: ErasureReceipt) -> str:
    """SHA-256 (hex) over every field of ``receipt`` but ``digest`` itself."""
    return hashlib.sha256(_canonical(receipt)).hexdigest()


def sealed(receipt: ErasureReceipt) -> ErasureReceipt:
    """``receipt`` with its digest set."""
    return receipt.model_copy(update={"digest": receipt_digest(receipt)})


class ErasureChain(BaseModel):
    """The result of re-checking a group's erasure log: ``ok`` when every
    entry's digest matches its fields and names the entry before it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    group_id: str
    entries: int
    ok: bool
    problems: list[str] = Field(default_factory=list)


def verify_chain(group_id: str, receipts: Iterable[ErasureReceipt]) -> ErasureChain:
    """Recompute each digest and the links between entries (oldest first)."""
    problems: list[str] = []
    previous = ""
    n = 0
    for n, receipt in enumerate(receipts, start=1):
        if receipt.seq != n:
            problems.append(f"entry {receipt.seq}: expected entry {n} (an entry is missing)")
        if receipt.previous != previous:
            problems.append(f"entry {receipt.seq}: does not follow the entry before it")
        if receipt_digest(receipt) != receipt.digest:
            problems.append(f"entry {receipt.seq}: its digest does not match its fields")
        previous = receipt.digest
    return ErasureChain(group_id=group_id, entries=n, ok=not problems, problems=problems)
