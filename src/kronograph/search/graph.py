"""Breadth-first shortest hops from centre entities.

Search walks the graph with :func:`store_hops`: one recursive query in the
store (``Store.reachable``), not one round trip per level. The walk in
Python stays as the reference the stores are tested against, written once
as a generator that yields each frontier and is sent back that frontier's
neighbours; :func:`shortest_hops` and :func:`shortest_hops_async` only drive
it, one with a plain call and one with an await, so the two cannot drift
apart.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Generator, Mapping
from datetime import datetime

from ..errors import InvalidInputError
from ..store.protocol import SearchReads

__all__ = ["shortest_hops", "shortest_hops_async", "store_hops"]

Neighbours = Mapping[str, Collection[str]]
_Walk = Generator[tuple[str, ...], Neighbours, dict[str, int]]


def _check(center_ids: Collection[str], depth: int) -> None:
    if isinstance(center_ids, str):
        raise InvalidInputError("center_ids", "expected a collection of ids, got one string")
    if depth < 0:
        raise InvalidInputError("depth", f"must not be negative, got {depth}")


def _walk(center_ids: Collection[str], depth: int) -> _Walk:
    """Yield the frontier of each level; receive each frontier node's
    adjacent ids; return every node's distance, 0 for the centres.

    A node is given the level at which it is first reached, which in a
    breadth-first walk is its shortest distance; cycles end there, as a
    node already reached is never put on a frontier again.
    """
    _check(center_ids, depth)
    hops = dict.fromkeys(center_ids, 0)
    frontier = tuple(hops)
    for level in range(1, depth + 1):
        if not frontier:
            break
        adjacent = yield frontier
        reached: list[str] = []
        for node in frontier:
            for other in adjacent.get(node, ()):
                if other not in hops:
                    hops[other] = level
                    reached.append(other)
        frontier = tuple(reached)
    return hops


def shortest_hops(
    center_ids: Collection[str], neighbours: Callable[[Collection[str]], Neighbours], *, depth: int
) -> dict[str, int]:
    """Shortest-path hops from the nearest centre, for every node within
    ``depth`` hops. ``neighbours(frontier)`` is called once per level and
    maps each frontier node to its adjacent ids."""
    walk = _walk(center_ids, depth)
    try:
        frontier = next(walk)
        while True:
            frontier = walk.send(neighbours(frontier))
    except StopIteration as done:
        return done.value


async def shortest_hops_async(
    center_ids: Collection[str], neighbours: Callable[[Collection[str]], Awaitable[Neighbours]], *, depth: int
) -> dict[str, int]:
    """:func:`shortest_hops`, awaiting ``neighbours`` for each level."""
    walk = _walk(center_ids, depth)
    try:
        frontier = next(walk)
        while True:
            frontier = walk.send(await neighbours(frontier))
    except StopIteration as done:
        return done.value


async def store_hops(
    store: SearchReads, group_id: str, center_ids: Collection[str], *, depth: int, at: datetime | None = None
) -> dict[str, int]:
    """:func:`shortest_hops` over the group's unexpired facts (valid at ``at``),
    walked by the store in one query: the same distances, one round trip."""
    _check(center_ids, depth)
    return await store.reachable(group_id, list(dict.fromkeys(center_ids)), depth, at)
