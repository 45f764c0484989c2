"""Each group's episodes resolve and commit in the order they came in.

An episode (or a batch) takes a ticket as it arrives, before it awaits
anything; it then extracts alongside the others and waits for its turn (every
earlier ticket of its group done) only to resolve and commit. The turn orders
episodes among themselves; the group's write lock, which every writer takes,
is held only from the reads a plan depends on to its commit, so an
``add_fact`` or a ``forget`` never waits on an episode's model calls.
"""

from __future__ import annotations

import asyncio

__all__ = ["Ticket", "Turns"]


class Turns:
    """The tickets of every group of one memory."""

    def __init__(self) -> None:
        self._last: dict[str, asyncio.Future[None]] = {}

    def take(self, group_id: str) -> Ticket:
        """A ticket behind every one taken before in the group (no await: the
        order of calls is the order of tickets)."""
        mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        before = self._last.get(group_id)
        self._last[group_id] = mine
        return Ticket(self, group_id, before, mine)

    def _forget(self, group_id: str, future: asyncio.Future[None]) -> None:
        if self._last.get(group_id) is future:
            del self._last[group_id]


class Ticket:
    """One place in a group's order; ``async with`` gives it up on the way out."""

    def __init__(
        self, turns: Turns, group_id: str, before: asyncio.Future[None] | None, mine: asyncio.Future[None]
    ) -> None:
        self._turns, self._group_id, self._before, self._mine = turns, group_id, before, mine

    async def wait(self) -> None:
        """Until every earlier ticket of the group is done."""
        if self._before is not None and not self._before.done():
            await asyncio.shield(self._before)

    def done(self) -> None:
        """Let the next ticket go; one given up before its turn (cancelled, or
        failed early) lets it go only once the ticket before it is done."""
        if self._mine.done():
            return
        before = self._before
        if before is None or before.done():
            self._finish()
        else:
            before.add_done_callback(lambda _: self._finish())

    def _finish(self) -> None:
        if not self._mine.done():
            self._mine.set_result(None)
        self._turns._forget(self._group_id, self._mine)

    async def __aenter__(self) -> Ticket:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.done()
