"""The erasure log's entries for one forget (see :mod:`kronograph.erasure`).

``forget`` builds its ``erasure`` entry here and puts it in the purge's plan
(one transaction: no purge without its receipt, no receipt without its
purge); once the store and the reads are checked, :func:`append_verification`
appends the ``verification`` entry in a transaction of its own. Both are
chained to the group's latest entry, read under the plan's expected revision:
a concurrent forget makes the plan stale, and it is redone.

What a caller writes on a receipt (request id, reason, actor) is refused if
it names what the forget erases, so the log, which nothing can erase, never
holds erased text.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from .._retry import retry_on_conflict
from ..erasure import ErasureReceipt, sealed
from ..errors import InvalidInputError
from ..ids import new_id
from ..model import ForgetReport
from ..store.plan import Plan
from ..store.protocol import Store
from ..store.text_scan import mentions
from ..time import Clock

__all__ = ["Requester", "Target", "append_verification", "erasure_entry", "refuse_erased_text"]

Target = Literal["entity", "episode", "data_subject"]


@dataclass(frozen=True, slots=True)
class Requester:
    """Who asks for a forget and why, as it goes on the receipt (validated)."""

    request_id: str | None = None
    reason: str | None = None
    actor: str | None = None
    on_behalf_of: str | None = None

    def fields(self) -> dict[str, str | None]:
        return {"request_id": self.request_id, "reason": self.reason, "actor": self.actor,
                "on_behalf_of": self.on_behalf_of}


def refuse_erased_text(who: Requester, names: Iterable[str], key: str | None) -> None:
    """InvalidInputError (nothing is written) if a field of the receipt names
    what is erased: one of ``names`` as a whole word, or the data subject's
    ``key`` anywhere in it (case-insensitively)."""
    needles = sorted({n for n in names if n})
    for field, value in who.fields().items():
        if value is None:
            continue
        if mentions(value, needles) or (key is not None and key.casefold() in value.casefold()):
            raise InvalidInputError(
                field, "names what this forget erases; the erasure log keeps it for good, so it must not"
            )


def _counts(report: ForgetReport) -> dict[str, int]:
    return {
        "episodes": len(report.episodes), "facts": len(report.facts), "entities": len(report.entities),
        "facts_changed": len(report.changed_facts), "summaries_rebuilt": len(report.summaries_rebuilt),
        "sagas_rebuilt": len(report.sagas_rebuilt), "communities_rebuilt": len(report.communities_rebuilt),
        "audit_events_redacted": report.audit_events_redacted,
        "cached_replies_dropped": report.cached_replies_dropped,
    }


async def _head(store: Store, group_id: str) -> tuple[int, str]:
    """The group's latest entry: (its seq, its digest); (0, "") for an empty log."""
    last = await store.erasures(group_id, last_only=True)
    return (last[0].seq, last[0].digest) if last else (0, "")


async def erasure_entry(
    store: Store, group_id: str, by: Target, report: ForgetReport, who: Requester, now: datetime
) -> ErasureReceipt:
    """The purge's ``erasure`` entry (counts only), chained to the group's latest."""
    seq, previous = await _head(store, group_id)
    return sealed(ErasureReceipt(
        receipt_id=new_id(), group_id=group_id, seq=seq + 1, entry="erasure", by=by, recorded_at=now,
        counts=_counts(report), previous=previous, request_id=who.request_id, reason=who.reason, actor=who.actor,
        on_behalf_of=who.on_behalf_of,
    ))


async def append_verification(
    store: Store, receipt: ErasureReceipt, leftovers: int, *, clock: Clock, hold: asyncio.Lock | None
) -> ErasureReceipt:
    """Append the ``verification`` entry of ``receipt``: verified when no leftover was found."""

    async def attempt() -> ErasureReceipt:
        g = receipt.group_id
        plan = Plan(group_id=g, now=clock(), expected_revision=await store.revision(g))
        seq, previous = await _head(store, g)
        entry = sealed(ErasureReceipt(
            receipt_id=receipt.receipt_id, group_id=g, seq=seq + 1, entry="verification", by=receipt.by,
            request_id=receipt.request_id, reason=receipt.reason, actor=receipt.actor,
            on_behalf_of=receipt.on_behalf_of, recorded_at=plan.now, verified=leftovers == 0, leftovers=leftovers,
            previous=previous,
        ))
        plan.erasures.append(entry)
        await store.apply(plan)
        return entry

    return await retry_on_conflict(attempt, kind="forget", hold=hold)
