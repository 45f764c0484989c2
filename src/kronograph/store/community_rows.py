"""Communities from database rows, for every backend: one row per member
(or one with no member), by community and then member rank."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..model import Community
from ..time import from_micros

__all__ = ["communities"]


def communities(group_id: str, rows: Iterable[tuple[Any, ...]]) -> list[Community]:
    """Rows of (uuid, name, summary, method, built_at, entity uuid, entity
    name, attached_at) as Communities: largest first, then by name and uuid."""
    found: dict[str, tuple[tuple[Any, ...], list[str], list[str], int]] = {}
    for uuid, name, summary, method, built_at, member, member_name, attached_at in rows:
        entry = found.setdefault(uuid, ((name, summary, method, built_at), [], [], 0))
        if member is not None:
            entry[1].append(member)
            entry[2].append(member_name)
            if attached_at is not None:
                found[uuid] = (entry[0], entry[1], entry[2], entry[3] + 1)
    out = [
        Community(
            uuid=uuid, group_id=group_id, name=head[0], summary=head[1], method=head[2],
            built_at=from_micros(int(head[3])), members=tuple(names), member_uuids=tuple(members),
            size=len(members), attached=attached,
        )
        for uuid, (head, members, names, attached) in found.items()
    ]
    out.sort(key=lambda c: (-c.size, c.name, c.uuid))
    return out
