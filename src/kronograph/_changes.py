"""AsyncMemory's change feed: what the memory learned, retired, restored and
removed between two transaction times, for an agent catching up and for a
view's feed.

A base class of :class:`~kronograph.memory.AsyncMemory` (as
:mod:`kronograph._repair` is), on :class:`~kronograph._lifecycle.Lifecycle`.
The store reads every version recorded in the window with the version it
superseded (:mod:`kronograph.store.change_rows`);
what kind of change each is follows here, from the two states alone, so a
version reads the same whatever wrote it (ingestion, a retraction, a merge).
"""

from __future__ import annotations

from typing import Any

from . import checks
from ._arguments import TimeLike, _time
from ._lifecycle import Lifecycle
from .errors import InvalidInputError
from .model import Change, Fact
from .store.change_rows import ChangeKey, ChangeWindow, Prior, StoredChange

__all__ = ["MAX_CHANGES", "Changes", "change_of", "cursor_key"]

MAX_CHANGES = 10_000  # the most one call returns: page with ``after`` for more
_EVENT_KINDS = {"entities_merged": "merged", "entities_split": "split"}
# Causes of a version that no episode caused: a merge's marker keeps the
# episode of the version it copies, which did not cause the deletion.
_NO_EPISODE = {"entity_merged", "entity_split"}


class Changes(Lifecycle):
    """The change-feed part of :class:`~kronograph.memory.AsyncMemory`."""

    async def changes(
        self, group_id: str, since: TimeLike, until: TimeLike | None = None, *, limit: int = 1000,
        after: str | None = None,
    ) -> list[Change]:
        """What the memory recorded at or after ``since`` and before ``until``
        (transaction time; None: up to now), oldest first: facts ``learned``,
        ``retired`` (closed or superseded), ``restored``, ``removed`` and
        ``changed``, and entities ``merged`` and ``split``; each change once,
        with the fact as it stood right after it. At most ``limit`` (up to
        10,000); to read on, call again with ``after`` set to the last
        change's ``cursor`` (same ``since``). See ``docs/temporal-model.md``."""
        g = self._group(group_id)
        start = _time("since", since)
        if start is None:
            raise InvalidInputError("since", "required: the time to read changes from")
        end = _time("until", until)
        if end is not None and end < start:
            raise InvalidInputError("until", f"{end.isoformat()} is before since {start.isoformat()}")
        checks.count("limit", limit)
        if limit > MAX_CHANGES:
            raise InvalidInputError("limit", f"at most {MAX_CHANGES:,}, got {limit:,}: page with after")
        window = ChangeWindow(since=start, until=end, after=cursor_key(after), limit=limit)
        return [change_of(row) for row in await (await self._ready()).changes(g, window)]


def cursor_key(cursor: str | None) -> ChangeKey | None:
    """The key a :attr:`Change.cursor` stands for; InvalidInputError for
    anything this memory did not give."""
    if cursor is None:
        return None
    parts = cursor.split(":", 5) if isinstance(cursor, str) else []
    try:
        if len(parts) != 6 or parts[0] != "c1":
            raise ValueError
        at, rank, current, seq = (int(p) for p in parts[1:5])
        if rank not in (0, 1) or current not in (0, 1) or seq < 0:
            raise ValueError
    except ValueError:
        raise InvalidInputError("after", f"not a change cursor: {cursor!r} (give a Change's cursor)") from None
    return at, rank, parts[5], current, seq


def _cursor(key: ChangeKey) -> str:
    at, rank, uuid, current, seq = key
    return f"c1:{at}:{rank}:{current}:{seq}:{uuid}"


def change_of(row: StoredChange) -> Change:
    """A stored version or entity event as the change it records."""
    if row.fact is None:
        return Change(kind=_EVENT_KINDS.get(row.cause, "changed"), recorded_at=row.recorded_at,  # type: ignore[arg-type]
                      cause=row.cause, detail=_entity_detail(row.cause, row.detail or {}), cursor=_cursor(row.key))
    kind = _kind(row.status, row.fact, row.prior)
    episode = None if row.cause in _NO_EPISODE else row.episode_id
    return Change(kind=kind, recorded_at=row.recorded_at, fact=row.fact, episode_id=episode,  # type: ignore[arg-type]
                  cause=row.cause, detail=_fact_detail(row.fact, row.prior), cursor=_cursor(row.key))


def _kind(status: str | None, fact: Fact, prior: Prior | None) -> str:
    """What a version did to the fact, from its state and the one it superseded
    (the rule that names a version's cause, ``ingest.timeline._cause``)."""
    if status == "deleted":
        return "removed"
    if prior is None:
        return "learned"
    if prior.status == "deleted":
        return "restored"
    if (prior.expired_at is None) != (fact.expired_at is None):
        return "retired" if fact.expired_at is not None else "restored"
    if (prior.invalid_at is None) != (fact.invalid_at is None):
        return "retired" if fact.invalid_at is not None else "restored"
    return "changed"


_COMPARED = ("subject", "object", "valid_at", "invalid_at", "expired_at", "tier")


def _fact_detail(fact: Fact, prior: Prior | None) -> dict[str, Any]:
    """What moved from the superseded version: ``before`` and ``after`` of each
    field that differs (ends, interval, expiry, tier), the episodes added and removed."""
    if prior is None or prior.status == "deleted":
        return {}
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for name in _COMPARED:
        old, new = getattr(prior, name), getattr(fact, name)
        if old != new:
            before[name], after[name] = old, new
    out: dict[str, Any] = {"before": before, "after": after} if before else {}
    added = [e for e in fact.episodes if e not in prior.episodes]
    gone = [e for e in prior.episodes if e not in fact.episodes]
    if added:
        out["episodes_added"] = added
    if gone:
        out["episodes_removed"] = gone
    return out


def _entity_detail(kind: str, detail: dict[str, Any]) -> dict[str, Any]:
    """A merge's or split's record, cut to what a reader wants: the entity
    kept and those merged into it or split back out, by uuid and name."""
    if "merge_id" not in detail:
        return dict(detail)  # erased by forget ({"redacted": true}), or of an unknown shape
    if kind == "entities_merged":
        merged = detail.get("merged") or []
        return {
            "merge_id": detail["merge_id"], "kept": detail.get("keep_name"), "kept_uuid": detail.get("keep"),
            "absorbed": [m.get("name") for m in merged], "absorbed_uuids": [m.get("uuid") for m in merged],
            "facts_changed": len(detail.get("changed") or ()),
            "facts_joined": [[d.get("uuid"), d.get("into")] for d in detail.get("deleted") or ()],
        }
    return {
        "merge_id": detail["merge_id"], "kept": detail.get("keep_name"), "kept_uuid": detail.get("keep"),
        "restored": detail.get("restored_names"), "restored_uuids": detail.get("restored") or [],
        "facts_restored": list(detail.get("restored_facts") or ()),
        "facts_changed": len(detail.get("changed") or ()),
    }
