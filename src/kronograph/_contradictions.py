"""AsyncMemory's contradictions: recording a disagreement without
overwriting, listing what stands contradicted, settling a candidate, a
fact's tier, and each group's policy (:mod:`kronograph.authority`).

A base class of :class:`~kronograph.memory.AsyncMemory` (as
:mod:`kronograph._changes` is). Candidates are flagged where facts are
written (:mod:`kronograph.ingest.contradiction_check`); here an agent or a
person files a ``contradicts`` link of its own, which leaves the fact it
disagrees with untouched, and reads them back.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from ._arguments import _id
from ._lifecycle import Lifecycle
from ._retry import retry_on_conflict
from .authority import POLICY_SETTING, ContradictionPolicy, actor_weight, tier_text
from .errors import InvalidInputError, NotFoundError
from .ingest.contradiction_check import contradiction_policy
from .ingest.episode_input import actor_text
from .ingest.judge import refuse_writes_from_a_judge
from .ingest.timeline import supersede
from .maintain.overrides import check_override, reason_text
from .model import AuditEvent, Contradiction, ContradictionReason, Fact, fold_relation
from .store import FactQuery, Store
from .store.plan import Plan
from .store.records import ContradictionRecord

__all__ = ["Contradictions", "read_contradictions"]


class Contradictions(Lifecycle):
    """The contradictions part of :class:`~kronograph.memory.AsyncMemory`."""

    async def contradiction_policy(self, group_id: str) -> ContradictionPolicy:
        """How the group weighs contradictions: its tiers' and actors' weights
        (the defaults of :mod:`kronograph.authority` until set)."""
        g = self._group(group_id)
        return contradiction_policy(await (await self._ready()).group_settings(g))

    async def set_contradiction_policy(
        self, group_id: str, policy: ContradictionPolicy | dict[str, Any], *, actor: str | None = None,
    ) -> ContradictionPolicy:
        """Replace the group's contradiction policy (a dict is validated as
        one); recorded with an audit event. Returns it as stored."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        try:
            chosen = policy if isinstance(policy, ContradictionPolicy) else ContradictionPolicy.model_validate(policy)
        except ValueError as exc:
            raise InvalidInputError("policy", str(exc).splitlines()[0] if str(exc) else "invalid") from None
        who = actor_text("actor", actor)
        store = await self._ready()

        async def attempt() -> ContradictionPolicy:
            plan = Plan(group_id=g, now=self._now(), expected_revision=await store.revision(g))
            plan.settings[POLICY_SETTING] = chosen.model_dump(mode="json")
            plan.audit.append(AuditEvent(group_id=g, kind="contradiction_policy_set", recorded_at=plan.now,
                                         detail={"policy": plan.settings[POLICY_SETTING]}, actor=who))
            await store.apply(plan)
            self._services.policies.put(g, chosen)  # this memory's writes weigh by it at once
            return chosen

        return await retry_on_conflict(attempt, kind="settings", hold=self._lock(g))

    async def contradict(
        self, group_id: str, fact_uuid: str, contradicted_uuid: str, *, note: str | None = None,
        actor: str | None = None, on_behalf_of: str | None = None,
    ) -> Contradiction:
        """File that the fact ``fact_uuid`` (the filer's own, usually) disagrees
        with ``contradicted_uuid``, without touching either: a recorded
        disagreement, scored as a candidate is, listed by
        :meth:`contradictions` while both stand, with an audit event.
        ``note`` says why. Filing the same link again changes nothing."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        own, other = _id("fact_uuid", fact_uuid), _id("contradicted_uuid", contradicted_uuid)
        if own == other:
            raise InvalidInputError("contradicted_uuid", "a fact does not contradict itself")
        why = reason_text("note", note)
        who = actor_text("actor", actor), actor_text("on_behalf_of", on_behalf_of)
        store = await self._ready()

        async def attempt() -> Contradiction:
            now = self._now()
            plan = Plan(group_id=g, now=now, expected_revision=await store.revision(g))
            found = {f.uuid: f for f in await store.facts(g, FactQuery(as_of=now, uuids=(own, other)))}
            for field, uuid in (("fact_uuid", own), ("contradicted_uuid", other)):
                if uuid not in found:
                    raise NotFoundError(f"no current fact {uuid!r} in group {g!r} ({field})")
            target = found[other]
            policy = contradiction_policy(await store.group_settings(g))
            authority = policy.tier_weight(target.tier, self._relation_authority(target))
            weight = actor_weight(policy, who[0])
            row = ContradictionRecord(
                group_id=g, fact_uuid=own, target_uuid=other, kind="recorded", reason="recorded",
                target_authority=authority, actor_weight=weight, score=round(authority * weight, 6),
                similarity=None, note=why, actor=who[0], episode_id=None, created_at=now,
            )
            plan.contradictions.append(row)
            plan.audit.append(AuditEvent(
                group_id=g, kind="contradiction_recorded", recorded_at=now,
                detail={"fact": own, "contradicts": other, "authority": authority, "actor_weight": weight,
                        "score": row.score, **({"note": why} if why else {})},
            ))
            plan.attribute(*who)
            await store.apply(plan)
            return _public(row, target)

        return await retry_on_conflict(attempt, kind="contradiction", hold=self._lock(g))

    async def contradictions(
        self, group_id: str, *, fact_uuid: str | None = None, open_only: bool = True,
    ) -> list[Contradiction]:
        """The group's contradictions (candidates flagged at write time and
        links filed with :meth:`contradict`), highest score first; only those
        naming ``fact_uuid`` on either side, when given. ``open_only``: only
        those whose two sides still stand and that nobody dismissed."""
        g = self._group(group_id)
        uuid = _id("fact_uuid", fact_uuid, optional=True)
        return await read_contradictions(await self._ready(), g, fact_uuids=None if uuid is None else (uuid,),
                                         open_only=open_only, at=self._now())

    async def dismiss_contradiction(
        self, group_id: str, fact_uuid: str, contradicted_uuid: str, *, reason: str, actor: str | None = None,
    ) -> int:
        """Settle the open contradictions between the two facts (a candidate
        that turned out to agree, say): they stop counting as open; the rows
        and their audit events stay. ``reason`` is required and recorded.
        Returns how many were dismissed."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        own, other = _id("fact_uuid", fact_uuid), _id("contradicted_uuid", contradicted_uuid)
        why = reason_text("reason", reason)
        if why is None:
            raise InvalidInputError("reason", "required: why the contradiction is settled")
        who = actor_text("actor", actor)
        store = await self._ready()

        async def attempt() -> int:
            now = self._now()
            plan = Plan(group_id=g, now=now, expected_revision=await store.revision(g))
            rows = [r for r in await store.contradictions(g, fact_uuids=(own,), open_only=True, at=now)
                    if r.fact_uuid == own and r.target_uuid == other]
            if not rows:
                raise NotFoundError(f"no open contradiction of {own!r} against {other!r} in group {g!r}")
            plan.dismiss_contradictions.extend((r.fact_uuid, r.target_uuid, r.kind) for r in rows)
            plan.audit.append(AuditEvent(
                group_id=g, kind="contradiction_dismissed", recorded_at=now, actor=who,
                detail={"fact": own, "contradicts": other, "reason": why},
            ))
            await store.apply(plan)
            return len(rows)

        return await retry_on_conflict(attempt, kind="contradiction", hold=self._lock(g))

    async def set_tier(
        self, group_id: str, fact_uuid: str, tier: str | None, *, actor: str | None = None,
        reason: str | None = None,
    ) -> Fact:
        """Give a fact its governance tier by hand (None: none), as a new
        version of the fact (its history keeps the old one). Changing the
        tier of another actor's standing rule or decision needs a ``reason``."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        uuid = _id("fact_uuid", fact_uuid)
        chosen = tier_text("tier", tier)
        why = reason_text("reason", reason)
        who = actor_text("actor", actor)
        store = await self._ready()
        override = await check_override(store, g, uuid, actor=who, reason=why, at=self._now())

        async def attempt() -> Fact:
            now = self._now()
            plan = Plan(group_id=g, now=now, expected_revision=await store.revision(g))
            hood = await store.conflict_neighbourhood(g, [uuid], 0)
            record = hood.records.get(uuid)
            if record is None or record.expired_at is not None:
                raise NotFoundError(f"no current fact {uuid!r} in group {g!r}")
            if record.tier == chosen:
                return record.to_fact()
            updated = supersede(plan, record, record.with_(tier=chosen), "tier", None)
            plan.audit.append(AuditEvent(
                group_id=g, kind="tier_set", recorded_at=now, actor=who,
                detail={"fact": uuid, "from": record.tier, "to": chosen, **({"reason": why} if why else {}),
                        **({"override": override.detail()} if override else {})},
            ))
            await store.apply(plan)
            return updated.to_fact()

        return await retry_on_conflict(attempt, kind="tier", hold=self._lock(g))

    def _relation_authority(self, fact: Fact) -> float:
        declared = self._relation_types.get(fold_relation(fact.relation))
        return declared.authority if declared is not None else 0.5


async def read_contradictions(
    store: Store, group_id: str, *, fact_uuids: tuple[str, ...] | None, open_only: bool, at: datetime,
) -> list[Contradiction]:
    """The group's contradiction rows with the facts they contradict, as they stand."""
    rows = await store.contradictions(group_id, fact_uuids=fact_uuids, open_only=open_only, at=at)
    wanted = tuple(sorted({r.target_uuid for r in rows}))
    facts = {f.uuid: f for f in await store.facts(
        group_id, FactQuery(as_of=at, uuids=wanted, include_retired=True, include_expired=True))} if wanted else {}
    return [_public(r, facts[r.target_uuid]) for r in rows if r.target_uuid in facts]


def _public(row: ContradictionRecord, target: Fact) -> Contradiction:
    return Contradiction(
        fact=row.fact_uuid, contradicts=target, kind=cast(Any, row.kind), reason=cast(ContradictionReason, row.reason),
        authority=row.target_authority, actor_weight=row.actor_weight, score=row.score, similarity=row.similarity,
        note=row.note, actor=row.actor, episode_id=row.episode_id, created_at=row.created_at,
        dismissed_at=row.dismissed_at,
    )
