"""Model replies on their way to the store's reply cache.

A stage's replies are written in the same transaction as the stage's
checkpoint (one commit, not one per reply); ``StoreReplyCache`` is the model
client's cache, kept in the store, that hands replies to the running stage.
"""

from __future__ import annotations

from contextvars import ContextVar

from ..store.protocol import Store
from ..time import Clock

__all__ = ["StoreReplyCache", "buffer_reply", "replies"]

# Model replies a stage received, written to the reply cache together with the
# stage's checkpoint (one commit, not one per reply). Outside a stage: None.
replies: ContextVar[list[tuple[str, str, str]] | None] = ContextVar("kronograph_replies", default=None)


def buffer_reply(key: str, model: str, text: str) -> bool:
    """Keep a reply for the running stage's checkpoint write; False outside a stage."""
    pending = replies.get()
    if pending is None:
        return False
    pending.append((key, model, text))
    return True


class StoreReplyCache:
    """The model client's reply cache, kept in the store."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self.store, self.clock = store, clock
        self._keys: set[str] | None = None  # what the store held when first asked, plus what was put since

    async def get(self, key: str) -> str | None:
        if self._keys is None:
            self._keys = await self.store.cached_reply_keys()
        if key not in self._keys:
            return None  # a new prompt (the usual case) costs no query
        return await self.store.cached_reply(key)

    async def put(self, key: str, model: str, text: str) -> None:
        if self._keys is not None:
            self._keys.add(key)
        if not buffer_reply(key, model, text):  # within a stage, it is written with the stage's checkpoint
            await self.store.cache_reply(key, model, text, self.clock())
