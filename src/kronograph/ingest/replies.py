"""Model replies on their way to the store's reply cache.

A stage's replies are written in the same transaction as the stage's
checkpoint (one commit, not one per reply); ``StoreReplyCache`` is the model
client's cache, kept in the store per group, that hands replies to the
running stage.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ..store.protocol import Replies
from ..time import Clock

__all__ = ["StoreReplyCache", "buffer_reply", "collecting", "replies"]

# Model replies a stage received, written to the reply cache together with the
# stage's checkpoint (one commit, not one per reply). Outside a stage: None.
replies: ContextVar[list[tuple[str, str, str]] | None] = ContextVar("kronograph_replies", default=None)
# The group of the running stage, so that a reply is only buffered for its own group.
stage_group: ContextVar[str | None] = ContextVar("kronograph_stage_group", default=None)


@contextmanager
def collecting(group_id: str) -> Iterator[None]:
    """A stage of one of the group's episodes: the replies it is given are buffered."""
    token, group_token = replies.set([]), stage_group.set(group_id)
    try:
        yield
    finally:
        stage_group.reset(group_token)
        replies.reset(token)


def buffer_reply(group_id: str, key: str, model: str, text: str) -> bool:
    """Keep a reply for the running stage's checkpoint write; False outside a
    stage of that group."""
    pending = replies.get()
    if pending is None or stage_group.get() != group_id:
        return False
    pending.append((key, model, text))
    return True


class StoreReplyCache:
    """The model client's reply cache, kept in the store, one per group."""

    def __init__(self, store: Replies, clock: Clock) -> None:
        self.store, self.clock = store, clock
        # Per group: the keys the store held when first asked, plus what was put since.
        self._keys: dict[str, set[str]] = {}

    async def get(self, group_id: str, key: str) -> str | None:
        keys = self._keys.get(group_id)
        if keys is None:
            keys = self._keys[group_id] = await self.store.cached_reply_keys(group_id)
        if key not in keys:
            return None  # a new prompt (the usual case) costs no query
        return await self.store.cached_reply(group_id, key)

    async def put(self, group_id: str, key: str, model: str, text: str) -> None:
        keys = self._keys.get(group_id)
        if keys is not None:
            keys.add(key)
        if not buffer_reply(group_id, key, model, text):  # within a stage, it is written with its checkpoint
            await self.store.cache_reply(group_id, key, model, text, self.clock())
