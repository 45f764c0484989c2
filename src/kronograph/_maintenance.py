"""AsyncMemory's maintenance and governance methods: summaries of entities
and sagas, communities, reconcile, the conflicts audit, forget and export.

A base class of :class:`~kronograph.memory.AsyncMemory`, so the public API
stays one object while each module keeps to one concept: this one holds what
reads or rewrites a group as a whole, ``memory`` the per-call reads and
writes. It extends :class:`~kronograph._lifecycle.Lifecycle` and uses what
that defines (the shared services: store, clock, model, embedder; the
plumbing: ``_ready``, ``_group``, ``_lock``, ``_now``; the settings) and the
memory's public reads, declared below for the type checker.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from . import checks
from ._arguments import _id, _text
from ._contradictions import read_contradictions
from ._lifecycle import Lifecycle
from ._retry import retry_on_conflict
from .erasure import ErasureChain, ErasureReceipt, verify_chain
from .errors import InvalidInputError, NotFoundError
from .ingest.contradiction_check import contradiction_policy
from .ingest.episode_input import actor_text, data_subject_text
from .ingest.group_user import group_settings
from .ingest.judge import refuse_writes_from_a_judge
from .maintain import communities as _communities
from .maintain.conflicts import sweep_conflicts
from .maintain.forget import forget as _forget
from .maintain.overrides import reason_text
from .maintain.receipts import Requester, append_verification
from .maintain.reconcile import ReconcileReport
from .maintain.reconcile import reconcile as _reconcile
from .maintain.sagas import MAX_CALLS, saga_infos, stored_saga_summary
from .maintain.sagas import summarize_saga as _summarize_saga
from .maintain.summaries import summarize as _summarize
from .metrics import span
from .model import (
    Community,
    CommunityBuild,
    CommunityUpdate,
    Entity,
    EntitySummary,
    Fact,
    ForgetReport,
    GroupExport,
    PossibleContradiction,
    SagaInfo,
    SagaSummary,
    normalise_name,
)
from .search.engine import SCOPES
from .search.types import SearchResults
from .store import FactQuery
from .store.text_scan import mentions

__all__ = ["Maintenance"]


class Maintenance(Lifecycle):
    """The maintenance part of :class:`~kronograph.memory.AsyncMemory`."""

    if TYPE_CHECKING:  # public reads of the memory (see memory.py), which forget's proof and audit use
        async def search(self, group_ids: str | Iterable[str], query: str, **options: Any) -> SearchResults: ...
        async def timeline(self, group_id: str, entity: str, relation: str | None = None) -> list[Fact]: ...
        async def entities(self, group_id: str, *, name: str | None = None, label: str | None = None
                           ) -> list[Entity]: ...
        async def facts(self, group_id: str, **query: Any) -> list[Fact]: ...

    async def forget(
        self, group_id: str, *, entity: str | None = None, episode_id: str | None = None,
        data_subject: str | None = None, dry_run: bool = False, actor: str | None = None,
        on_behalf_of: str | None = None, request_id: str | None = None, reason: str | None = None,
    ) -> ForgetReport:
        """Erase an entity (a name or uuid), an episode or everything filed
        under a data subject's key for good, and prove it: see
        :mod:`kronograph.maintain.forget`. After the purge, every stored text
        is scanned for the name and every search scope is searched by every
        method, and ``facts``/``timeline`` asked; the report's ``leftovers``
        lists anything found, or an erasure from the store's files that a
        reader held back (``verified`` is True when none; what it means on
        each backend: docs/forgetting.md). ``dry_run`` reports what would go
        and changes nothing. ``actor`` (and ``on_behalf_of``) go on its audit
        event; with ``request_id`` and ``reason`` on its erasure receipt (the
        report's ``receipt``; :meth:`erasures` lists them), refused if they
        name what goes."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        if sum(x is not None for x in (entity, episode_id, data_subject)) != 1:
            raise InvalidInputError("entity", "give exactly one of entity=, episode_id= and data_subject=")
        name = _text("entity", entity, optional=True)
        eid = _id("episode_id", episode_id, optional=True)
        key = data_subject_text("data_subject", data_subject)
        checks.flag("dry_run", dry_run)
        who = Requester(
            request_id=_id("request_id", request_id, optional=True), reason=reason_text("reason", reason),
            actor=actor_text("actor", actor), on_behalf_of=actor_text("on_behalf_of", on_behalf_of),
        )
        store = await self._ready()
        # An episode's own words probe the searches afterwards (kept here, never in the report).
        ids = [eid] if eid is not None else (await store.data_subject_items(g, key))[0][:5] if key is not None else []
        probes = [p.content[:300] for p in await store.episodes_by_uuid(g, ids) if p.content]
        with span("forget", group_id=g):
            # The group's lock is held for the purge's reads and commit only: rebuilding
            # what it cleared embeds, which may wait on a network.
            report = await _forget(
                store, g, entity=name, episode_id=eid, data_subject=key, clock=self._now,
                embed=self._services.embed_for(g), dry_run=dry_run, requester=who, hold=self._lock(g),
            )
        if dry_run:
            return report
        _drop_text_memos()
        leftovers = report.leftovers + await self._still_returned(g, report, probes)
        await store.drop_memos(g)  # the checks' searches asked for the forgotten words
        if report.receipt is not None:
            await append_verification(store, report.receipt, len(leftovers), clock=self._now, hold=self._lock(g))
        return report.model_copy(update={"leftovers": leftovers, "verified": not leftovers})

    async def erasures(self, group_id: str, *, request_id: str | None = None) -> list[ErasureReceipt]:
        """The group's erasure log, oldest first: each forget's ``erasure``
        entry and, after it, its ``verification`` entry (only those of
        ``request_id`` when given). See :mod:`kronograph.erasure`."""
        g = self._group(group_id)
        rid = _id("request_id", request_id, optional=True)
        return await (await self._ready()).erasures(g, rid)

    async def verify_erasure_log(self, group_id: str) -> ErasureChain:
        """Recompute every digest of the group's erasure log and the chain
        between its entries: ``ok`` when none was changed, removed or reordered."""
        g = self._group(group_id)
        return verify_chain(g, await (await self._ready()).erasures(g))

    async def _still_returned(self, group_id: str, report: ForgetReport, probes: list[str]) -> list[str]:
        """What reads and searches still return of a forgotten name, episode,
        fact or entity: every scope by every search method, timeline, entities,
        and the export (every episode, entity, fact interval and expired record,
        community, saga summary and audit event)."""
        gone = {*report.episodes, *report.facts, *report.entities}
        out: list[str] = []

        def check(where: str, uuid: str, text: str) -> None:
            if uuid in gone or mentions(text, report.needles):
                out.append(f"{where}: {uuid}")

        for query in [*report.needles, *probes]:
            for recipe in ("bm25", "cosine", "hybrid"):
                found = await self.search(group_id, query, recipe=recipe, limit=50, include_retired=True,
                                          include_events=True)
                for scope in SCOPES:
                    for hit in getattr(found, scope):
                        check(f"search {scope} {recipe}", hit.item.uuid, hit.item.model_dump_json())
            for fact in await self.timeline(group_id, query) if query in report.needles else ():
                check("timeline", fact.uuid, fact.model_dump_json())
            for entity in await self.entities(group_id, name=query) if query in report.needles else ():
                check("entities", entity.uuid, entity.model_dump_json())
        exported = await self.export(group_id)

        def scan() -> None:  # the whole group's text: on a worker thread, off the event loop
            for kind, item in exported.records():
                if kind == "erasure":  # the log holds no erased text by construction, and nothing erases it
                    continue
                key = str(getattr(item, "uuid", None) or getattr(item, "saga", ""))
                check(f"export {kind}", key, item.model_dump_json())

        await asyncio.to_thread(scan)
        return out

    async def summarize_entities(
        self, group_id: str, names_or_uuids: str | Iterable[str] | None = None, *, refresh_stale_only: bool = True
    ) -> list[EntitySummary]:
        """Rebuild entity summaries from current facts and return those built:
        of the entities named (a name matches every entity of that name,
        case-insensitively; a uuid its entity) or of the whole group; with
        ``refresh_stale_only`` only those whose facts changed since their
        summary was built. By the model when one is configured (one call per
        batch of entities), else extractively; NotFoundError for a name or uuid
        the group does not have. See :mod:`kronograph.maintain.summaries`."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        checks.flag("refresh_stale_only", refresh_stale_only)
        wanted = [names_or_uuids] if isinstance(names_or_uuids, str) else names_or_uuids
        if wanted is not None and not isinstance(wanted, Iterable):
            raise InvalidInputError("names_or_uuids", f"expected a name or a list of names, not {wanted!r}")
        store = await self._ready()
        uuids: set[str] | None = None
        if wanted is not None:
            uuids = set()
            for i, item in enumerate(wanted):
                text = _text(f"names_or_uuids[{i}]", item)
                found = {e.uuid for e in await store.entities_by_uuid(g, [text])}
                found |= {e.uuid for e in await store.entities(g, name_key=normalise_name(text))}
                if not found:
                    raise NotFoundError(f"no entity named {text!r} (nor with that uuid) in group {g!r}")
                uuids |= found
        model = await self._services.model()
        with span("summarize_entities", group_id=g):
            return await _summarize(store, g, clock=self._now, uuids=uuids, stale_only=refresh_stale_only, model=model)

    async def summarize_saga(self, group_id: str, saga: str, *, max_calls: int = MAX_CALLS) -> SagaSummary:
        """Bring a saga's running summary up to date and return it: the
        episodes added since the last run (all of them, when a removal made
        it stale) folded in, by the model when one is configured (at most
        ``max_calls`` calls, about 4,000 characters of episodes each), else
        extractively. Summary, cursor and coverage are saved together. See
        :mod:`kronograph.maintain.sagas`."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        name = _id("saga", saga)
        checks.count("max_calls", max_calls)
        store = await self._ready()
        model = await self._services.model()
        # Not the group's lock: a run waits on a model, and ingestion into the
        # group must go on meanwhile (its episodes land past the run's bound).
        # Runs on one saga take turns; a write that lost a race is redone.
        async with self._saga_locks.setdefault((g, name), asyncio.Lock()):
            with span("summarize_saga", group_id=g):
                return await retry_on_conflict(
                    lambda: _summarize_saga(store, g, name, clock=self._now, model=model, max_calls=max_calls),
                    attempts=3,
                )

    async def saga_summary(self, group_id: str, saga: str) -> SagaSummary:
        """A saga's summary as stored, rebuilding nothing (``version`` 0 when
        it was never built); NotFoundError for a saga the group does not have."""
        g = self._group(group_id)
        name = _id("saga", saga)
        return await stored_saga_summary(await self._ready(), g, name)

    async def sagas(self, group_id: str) -> list[SagaInfo]:
        """The group's sagas by name, each with its episodes and its lag: how
        many are not yet in its summary."""
        return await saga_infos(await self._ready(), self._group(group_id))

    async def build_communities(
        self,
        group_id: str,
        *,
        resolution: float = 1.0,
        batch_size: int = _communities.BATCH,
        max_model_calls: int = _communities.MAX_MODEL_CALLS,
    ) -> CommunityBuild:
        """Cluster the group's current entity graph (Louvain, fixed seed: the
        same graph gives the same communities and uuids) and replace its
        communities in one transaction; each is named after its most central
        members, summarised (by the model when one is configured,
        ``batch_size`` communities per call and at most ``max_model_calls``
        calls; else, and for the rest, extractively) and embedded for search.
        ``resolution`` above 1 gives smaller communities. Needs networkx (the
        ``communities`` extra). See :mod:`kronograph.maintain.communities`."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        store = await self._ready()
        model = await self._services.model()
        with span("build_communities", group_id=g):  # the group's lock: for the commit only
            return await _communities.build(
                store, g, clock=self._now, embed=self._services.embed_for(g), model=model,
                batch_size=batch_size, max_model_calls=max_model_calls, resolution=resolution, hold=self._lock(g),
            )

    async def update_communities(self, group_id: str) -> CommunityUpdate:
        """Without clustering again: attach each entity that is in no community
        to the community most of its weighted neighbours are in, and rebuild
        the touched communities' names, summaries (extractively, no model call)
        and vectors. Reports what was attached, what stayed unassigned and
        whether a full :meth:`build_communities` is advised."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        store = await self._ready()
        with span("update_communities", group_id=g):  # the group's lock: for the commit only
            return await _communities.update(
                store, g, clock=self._now, embed=self._services.embed_for(g), hold=self._lock(g)
            )

    async def communities(self, group_id: str) -> list[Community]:
        """The group's communities, largest first, members most central first."""
        return await (await self._ready()).communities(self._group(group_id))

    async def export(self, group_id: str) -> GroupExport:
        """Everything the group holds, as the reads return it (see
        :class:`~kronograph.model.GroupExport`); ``kronograph export`` writes
        it as JSON Lines. Reads only, no model."""
        g = self._group(group_id)
        store = await self._ready()
        exported_at = self._now()
        sagas = [await stored_saga_summary(store, g, s.saga) for s in await saga_infos(store, g)]
        return GroupExport(
            group_id=g, exported_at=exported_at, episodes=await store.episodes(g, None),
            entities=await store.entities(g),
            facts=await store.facts(g, FactQuery(as_of=exported_at, include_retired=True, include_expired=True)),
            communities=await store.communities(g), sagas=sagas, audit_events=await store.audit_events(g),
            contradictions=await read_contradictions(store, g, fact_uuids=None, open_only=False, at=exported_at),
            settings=group_settings(g, values) if (values := await store.group_settings(g)) else None,
            erasures=await store.erasures(g),
        )

    async def audit(self, group_id: str, mode: str = "conflicts") -> list[PossibleContradiction]:
        """Sweep a group. ``mode="conflicts"``: every pair of current facts that
        may disagree (the rules ingestion flags by, see
        :mod:`kronograph.maintain.conflicts`), whether or not it was flagged
        when admitted. Reads only; writes nothing."""
        g = self._group(group_id)
        if not isinstance(mode, str) or mode != "conflicts":
            raise InvalidInputError("mode", f"must be 'conflicts', not {mode!r}")
        current = await self.facts(g)
        policy = contradiction_policy(await (await self._ready()).group_settings(g))
        return sweep_conflicts(current, self._relation_types, policy)

    async def reconcile(
        self, group_id: str, repair: bool = False, *, actor: str | None = None, on_behalf_of: str | None = None
    ) -> ReconcileReport:
        """Check a group for defects (see :mod:`kronograph.maintain.reconcile`):
        episodes without mentions, facts citing missing episodes, overlapping
        intervals of declared single-valued relations, entity fragment
        candidates, orphan entities and stale summaries. ``repair=True`` fixes
        the safe ones (dangling sources, orphans; stale summaries rebuilt
        extractively, no model call), each with an audit event naming ``actor``
        (and ``on_behalf_of``), and reports the rest."""
        if checks.flag("repair", repair):
            refuse_writes_from_a_judge()
        g = self._group(group_id)
        who = actor_text("actor", actor), actor_text("on_behalf_of", on_behalf_of)
        store = await self._ready()
        return await _reconcile(
            store, g, relation_types=self._relation_types, clock=self._now, repair=repair,
            actor=who[0], on_behalf_of=who[1], hold=self._lock(g),
        )


def _drop_text_memos() -> None:
    """Forgotten words must not outlive the forget in a memo of text read earlier: the offline reader's
    threads, the context block's terms and search's relation and label words (each cleared only if it
    was ever loaded; the store drops what it kept of the group itself)."""
    thread = sys.modules.get("kronograph.ingest.offline.thread")
    if thread is not None:
        thread.forget_read_text()
    excerpt = sys.modules.get("kronograph.context.excerpt")
    if excerpt is not None:
        excerpt.terms.cache_clear()
        excerpt.stem.cache_clear()
    fit = sys.modules.get("kronograph.search.fit")
    if fit is not None:  # relation and label words, memoised by search
        fit.forget_words()
