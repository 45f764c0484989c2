"""A group's settings and its user: the person behind role ``user``.

The settings live in the store (``group_settings``, one JSON value a name),
written by plans like everything else. The user's name is one of them;
the user entity is the person-like entity of that name (or alias). When the
name changes ("Sam" becomes "Sam Carter"), the entity is renamed and keeps
the old name as an alias, in the transaction that saves the new name.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..model import AuditEvent, Entity, GroupSettings, normalise_name
from ..store.plan import Plan
from ..store.protocol import ResolutionReads, Store
from .entities import choose_entity
from .people import person_like

__all__ = ["USER_NAME", "find_user", "group_settings", "save_user_name"]

USER_NAME = "user_name"


def group_settings(group_id: str, values: dict[str, Any]) -> GroupSettings:
    name = values.get(USER_NAME)
    return GroupSettings(group_id=group_id, user_name=name if isinstance(name, str) else None, values=values)


async def find_user(store: ResolutionReads, group_id: str, user_name: str) -> Entity | None:
    """The person-like entity named ``user_name``, else known by it as an alias."""
    key = normalise_name(user_name)
    named = [e for e in await store.entities_named(group_id, [key]) if person_like(e.labels)]
    if named:
        return choose_entity(("Person",), named)
    matches = (await store.entity_matches(group_id, [user_name], 10)).get(key, [])
    return choose_entity(("Person",), [m.entity for m in matches if m.how == "alias" and person_like(m.entity.labels)])


async def save_user_name(
    store: Store, group_id: str, user_name: str, now: datetime, vector: bytes | None = None
) -> GroupSettings:
    """Record ``user_name`` as the group's user; the user entity of the name
    it replaces is renamed (with ``vector``, its new name's, when given), the
    old name kept as an alias (one transaction; the caller holds the group's
    lock and retries a concurrent write)."""
    values = await store.group_settings(group_id)
    old = values.get(USER_NAME)
    if old == user_name:
        return group_settings(group_id, values)
    plan = Plan(group_id=group_id, now=now, expected_revision=await store.revision(group_id))
    plan.settings[USER_NAME] = user_name
    detail: dict[str, Any] = {"setting": USER_NAME}
    if isinstance(old, str) and normalise_name(old) != normalise_name(user_name):
        user = await find_user(store, group_id, old)
        taken = await store.entities_named(group_id, [normalise_name(user_name)])
        if user is not None and not taken:
            plan.entity_names[user.uuid] = user_name
            if vector is not None:
                plan.renamed_embeddings[user.uuid] = vector
            plan.entity_aliases.append((user.uuid, user.name))
            plan.stale_entities.add(user.uuid)
            detail["renamed"] = user.uuid
    plan.audit.append(AuditEvent(group_id=group_id, kind="settings_changed", recorded_at=now, detail=detail))
    await store.apply(plan)
    return group_settings(group_id, {**values, USER_NAME: user_name})
