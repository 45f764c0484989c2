"""AsyncMemory's overview reads, for a person opening a group (the web view's
landing page) or an episode: what the group holds at a glance, and what one
episode did.

A base class of :class:`~kronograph.memory.AsyncMemory`, on
:class:`~kronograph._changes.Changes`. Both are group-scoped: the overview
counts the group's facts and entities and ranks its entities in the
database (:mod:`kronograph.store.sql.overview_queries`), and reads only
its latest episodes; an episode's detail reads the facts citing it, the
entities it mentioned and the change feed from its arrival on, filtered to it.
"""

from __future__ import annotations

from . import checks
from ._arguments import _id
from ._changes import MAX_CHANGES, Changes
from .errors import InvalidInputError, NotFoundError
from .model import Fact
from .overview import ConnectedEntity, EpisodeDetail, GroupOverview

__all__ = ["Overviews"]

_MOST = 100  # the most latest episodes or connected entities one overview lists


class Overviews(Changes):
    """The overview part of :class:`~kronograph.memory.AsyncMemory`."""

    async def overview(self, group_id: str, *, episodes: int = 10, entities: int = 10) -> GroupOverview:
        """A group at a glance: its episodes by status, entities, current and
        retired facts and events, open contradiction candidates, the latest
        ``episodes`` episodes (newest received first) and the ``entities``
        most connected entities (most facts holding now, then by name); each
        list at most 100."""
        g = self._group(group_id)
        for name, value in (("episodes", episodes), ("entities", entities)):
            checks.count(name, value)
            if value > _MOST:
                raise InvalidInputError(name, f"at most {_MOST}, got {value}")
        store = await self._ready()
        now = self._now()
        statuses = await store.episode_statuses(g)
        current, retired, events, entities_count = await store.overview_counts(g, now)
        top = await store.most_connected(g, now, entities)
        latest = await store.latest_episodes(g, episodes)
        return GroupOverview(
            group_id=g, episodes=dict(sorted(statuses.items())), entities=entities_count,
            current_facts=current, retired_facts=retired, events=events,
            open_contradictions=await store.open_contradiction_count(g, now), latest_episodes=latest,
            connected=[ConnectedEntity(uuid=u, name=name, facts=n) for u, name, n in top],
        )

    async def episode_detail(self, group_id: str, episode_id: str) -> EpisodeDetail:
        """One episode and what it did: the entities it mentioned or its facts
        name, the facts citing it (every interval and version, oldest first)
        and the facts it retired (as they stand now, from the change feed
        since it arrived, its first 10,000 changes); NotFoundError if the
        group has no such episode."""
        g = self._group(group_id)
        eid = _id("episode_id", episode_id)
        store = await self._ready()
        episode = await store.episode(g, eid)
        if episode is None:
            raise NotFoundError(f"no episode {eid!r} in group {g!r}")
        produced = sorted((r.to_fact() for r in await store.facts_citing(g, eid)),
                          key=lambda f: (f.valid_at, f.created_at, f.uuid))
        named = {*await store.mentioned_entities(g, eid),
                 *(u for f in produced for u in (f.subject_uuid, f.object_uuid))}
        mentioned = await store.entities_by_uuid(g, named)
        retired: dict[str, Fact] = {}
        for change in await self.changes(g, episode.created_at, limit=MAX_CHANGES):
            if change.kind == "retired" and change.episode_id == eid and change.fact is not None:
                retired[change.fact.uuid] = change.fact
        return EpisodeDetail(
            episode=episode, entities=sorted(mentioned, key=lambda e: e.name.casefold()), produced=produced,
            retired=list(retired.values()),
        )
