"""What a group holds at a glance, and what one episode did: the read models
of ``AsyncMemory.overview`` and ``AsyncMemory.episode_detail`` (the web
view's overview and episode pages read them over REST)."""

from __future__ import annotations

from pydantic import Field

from ._base import _Model
from .model import Entity, Episode, Fact

__all__ = ["ConnectedEntity", "EpisodeDetail", "GroupOverview"]


class ConnectedEntity(_Model):
    """An entity and how many facts touching it hold now (``GroupOverview``)."""

    uuid: str
    name: str
    facts: int


class GroupOverview(_Model):
    """What a group holds, at a glance (``AsyncMemory.overview``): its episodes
    by status, its entities, its current and retired facts (events apart),
    its open contradiction candidates, its latest episodes (newest first) and
    its most connected entities (most current facts first)."""

    group_id: str
    episodes: dict[str, int] = Field(default_factory=dict)
    entities: int = 0
    current_facts: int = 0
    retired_facts: int = 0
    events: int = 0
    open_contradictions: int = 0
    latest_episodes: list[Episode] = Field(default_factory=list)
    connected: list[ConnectedEntity] = Field(default_factory=list)


class EpisodeDetail(_Model):
    """An episode and what it did (``AsyncMemory.episode_detail``): the
    entities it mentioned, the facts citing it (``produced``, every interval)
    and the facts whose retirement it caused (``retired``, as they stand)."""

    episode: Episode
    entities: list[Entity] = Field(default_factory=list)
    produced: list[Fact] = Field(default_factory=list)
    retired: list[Fact] = Field(default_factory=list)
