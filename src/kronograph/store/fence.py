"""An episode's state, written only by whoever holds it.

A worker on an episode holds a lease on it (see
:mod:`kronograph.ingest.ownership`). Every state it writes (a status, a
checkpoint, the final ``complete``, ``retryable`` or ``quarantined``) names
it as the writer (``EpisodeState.owner``), and the update applies only while
the episode's lease is that owner's or nobody's, and the episode is not
complete: a worker that stalled past its lease and was taken over writes
nothing more about the episode, whatever it was doing. Such a write refuses
its whole plan with :class:`LeaseLostError`, so that the worker learns it
and answers as for an episode another worker holds. A state written without
an owner (enqueueing an episode) is not fenced; nor is anything that is not
an episode's state (forgetting or deleting episodes, ``add_fact``).

Each backend runs these statements with its own placeholder (``mark``).
"""

from __future__ import annotations

from typing import Any

from ..errors import LeaseLostError

__all__ = ["holder_sql", "refusal", "update_params", "update_sql"]


def update_sql(columns: list[str], owner: str | None, mark: str) -> str:
    """The update of an episode's state: its ``columns``, then the group and
    uuid, then (fenced) the owner, as :func:`update_params` gives them."""
    sets = ", ".join(f"{column} = {mark}" for column in columns)
    fenced = f" AND (lease_owner IS NULL OR lease_owner = {mark})" if owner is not None else ""
    return f"UPDATE episodes SET {sets} WHERE group_id = {mark} AND uuid = {mark} AND status != 'complete'{fenced}"


def update_params(values: list[Any], group_id: str, uuid: str, owner: str | None) -> tuple[Any, ...]:
    return (*values, group_id, uuid) if owner is None else (*values, group_id, uuid, owner)


def holder_sql(mark: str) -> str:
    """Where a fenced update changed nothing: the episode's status and holder."""
    return f"SELECT status, lease_owner FROM episodes WHERE group_id = {mark} AND uuid = {mark}"


def refusal(group_id: str, uuid: str, found: Any) -> LeaseLostError | None:
    """The error for a fenced update that changed nothing, given the episode's
    (status, lease_owner) as it is now; None when the episode is gone (a
    deleted episode's state is no one's to write, as before: nothing)."""
    if found is None:
        return None
    status, holder = found
    return LeaseLostError(group_id, uuid, status, None if status == "complete" else holder)
