"""The communities of an entity graph (``build_communities``,
``update_communities``): what they hold and what each call did."""

from __future__ import annotations

from pydantic import Field

from ._base import UtcDatetime, _Model

__all__ = ["Community", "CommunityAttachment", "CommunityBuild", "CommunityUpdate"]


class Community(_Model):
    """A cluster of the entity graph (``build_communities``): its ``name``
    from its most central members, a ``summary`` of its most informative
    internal facts (``method`` ``"extractive"`` or ``"model"``), its members'
    names and uuids, most central first, and how many of them
    ``update_communities`` ``attached`` since it was built."""

    uuid: str
    group_id: str
    name: str
    summary: str | None = None
    members: tuple[str, ...] = ()
    member_uuids: tuple[str, ...] = ()
    size: int
    method: str
    built_at: UtcDatetime
    attached: int = 0


class CommunityBuild(_Model):
    """What ``build_communities`` wrote: the group's communities (replacing
    the ones before), how many entities are in none (isolated, or alone in
    their cluster), and the model calls the summaries took."""

    communities: list[Community] = Field(default_factory=list)
    unassigned: int = 0
    model_calls: int = 0


class CommunityAttachment(_Model):
    """An entity ``update_communities`` put in a community."""

    entity_uuid: str
    entity: str
    community_uuid: str
    community: str
    weight: int  # its current facts with members of that community


class CommunityUpdate(_Model):
    """What ``update_communities`` did: entities attached, entities left in
    no community (no current fact with any member), the communities whose
    name, summary and vector were rebuilt, and whether a full rebuild is
    advised (``rebuild_advised``: more than a fifth of the members were
    attached since the build, or none has been built)."""

    attached: list[CommunityAttachment] = Field(default_factory=list)
    unassigned: list[str] = Field(default_factory=list)  # entity uuids
    refreshed: list[Community] = Field(default_factory=list)
    rebuild_advised: bool = False
