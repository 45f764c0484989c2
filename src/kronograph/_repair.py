"""AsyncMemory's entity repair: ``merge_entities`` and ``split_entity``.

A base class of :class:`~kronograph.memory.AsyncMemory` (as
:mod:`kronograph._maintenance` is), on :class:`~kronograph._lifecycle.Lifecycle`,
whose services and plumbing (``_ready``, ``_group``, ``_lock``, ``_now``) it
uses; the work is in :mod:`kronograph.maintain.repair`.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._arguments import _id
from ._lifecycle import Lifecycle
from .errors import InvalidInputError
from .ingest.episode_input import actor_text
from .ingest.judge import refuse_writes_from_a_judge
from .ingest.pipeline import OFFLINE_RELATION_TYPES
from .maintain.repair import MergeResult, SplitResult
from .maintain.repair import merge_entities as _merge_entities
from .maintain.repair import split_entity as _split_entity
from .metrics import span
from .model import RelationType

__all__ = ["Repair"]


class Repair(Lifecycle):
    """The entity-repair part of :class:`~kronograph.memory.AsyncMemory`."""

    async def merge_entities(
        self, group_id: str, keep: str, merge: str | Iterable[str], *, actor: str | None = None,
        on_behalf_of: str | None = None,
    ) -> MergeResult:
        """Merge one or more entities into ``keep``, in one transaction: their
        facts (current, retired and expired, with sources and history),
        mentions, labels and attributes (``keep``'s own win) move to ``keep``,
        their names become its aliases (a read by an old name finds ``keep``),
        and they are removed. The rules ingestion applies re-run on what the
        move put together: a fact that became a loop on ``keep`` is closed at
        the merge (not deleted); two facts that became the same statement are
        one, their sources combined; facts of a declared relation now in one
        slot get their timeline (two current ``LIVES_IN`` of one subject: the
        older closes at the newer's start). ``keep``'s summary goes stale.

        Entities are named by uuid, or by a name that names exactly one entity
        of the group (NotFoundError / InvalidInputError otherwise); merging an
        entity into itself is refused. The audit event ``entities_merged``
        records what moved and changed, with ``actor``; the result's
        ``merge_id`` undoes it (:meth:`split_entity`)."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        kept = _id("keep", keep)
        refs = [merge] if isinstance(merge, str) else list(merge) if isinstance(merge, Iterable) else [merge]
        merged = list(dict.fromkeys(_id(f"merge[{i}]", ref) for i, ref in enumerate(refs)))
        if not merged:
            raise InvalidInputError("merge", "name at least one entity to merge")
        who = actor_text("actor", actor), actor_text("on_behalf_of", on_behalf_of)
        store = await self._ready()
        offline = await self._services.model() is None and self._judge is None

        def relation_type(key: str) -> RelationType | None:  # as ingestion decides (see ingest.pipeline)
            declared = self._relation_types.get(key)
            return declared if declared is not None or not offline else OFFLINE_RELATION_TYPES.get(key)

        with span("merge_entities", group_id=g):
            return await _merge_entities(
                store, g, kept or "", [m or "" for m in merged], clock=self._now, relation_type=relation_type,
                actor=who[0], on_behalf_of=who[1], hold=self._lock(g),
            )

    async def split_entity(
        self, group_id: str, merge_id: str, *, actor: str | None = None, on_behalf_of: str | None = None
    ) -> SplitResult:
        """Undo a merge by its ``merge_id`` (``MergeResult.merge_id``, or the
        ``entities_merged`` audit event's), in one transaction: the merged
        entities come back with their uuids, names, aliases, labels,
        attributes, summaries and mentions; the facts that moved get their
        ends back; facts the merge joined as duplicates come back and leave
        the fact they joined; the loops it closed reopen, the links it added
        go, as do links made since between a fact that moves back and one it
        no longer shares an entity with; and every touched fact's timeline is
        recomputed from its links.

        What cannot be undone: facts learned since the merge that touch the
        kept entity stay with it (even if they were about the merged one);
        a later episode's effect on a moved fact's interval is recomputed,
        not rolled back; a restored fact loses the sources whose episodes
        were removed since (and does not come back if none is left); the
        merged entities' community memberships and fragment-candidate
        records are not restored (the next community build and ingestion
        recompute them); their name vectors are embedded again. A merge
        whose kept entity is gone, a second split, or an unknown id is an
        error (InvalidInputError / NotFoundError)."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        mid = _id("merge_id", merge_id)
        who = actor_text("actor", actor), actor_text("on_behalf_of", on_behalf_of)
        store = await self._ready()
        with span("split_entity", group_id=g):
            return await _split_entity(
                store, g, mid or "", clock=self._now, embed=self._services.embed_for(g), actor=who[0],
                on_behalf_of=who[1], hold=self._lock(g),
            )
