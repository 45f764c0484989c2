"""The hand-written part of the blocking ``Memory``: what is really sync.

``Memory`` itself (:mod:`kronograph.sync`) is generated from ``AsyncMemory``
by ``tools/gen_sync.py``: its constructor and every method, each running its
async twin to completion through :meth:`SyncShell._call`. What has no async
twin to copy lives here: closing (the store, then the private event loop),
``with``, the warning for a memory dropped open, and the portal call itself.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from datetime import datetime
from types import TracebackType
from typing import Any, Self

from ._portal import Portal
from .errors import ClosedError
from .memory import AsyncMemory
from .store import Store

__all__ = ["SyncShell", "SyncView"]


class _SyncCore(AsyncMemory):
    _threaded = False
    _warns_unclosed = False  # its Memory does


class SyncShell:
    """The base of the generated ``Memory``: its ``__init__`` sets ``_core``
    (an AsyncMemory whose store runs inline) and ``_portal``."""

    _core: AsyncMemory
    _portal: Portal

    @property
    def store(self) -> Store:
        """The store this memory reads and writes (as ``AsyncMemory.store``)."""
        return self._core.store

    def close(self) -> None:
        """Close the store and the private event loop; ``with`` does it.
        Dropped open, a memory warns (``ResourceWarning``)."""
        if self._core._closed:
            return
        try:
            self._portal.call(self._core.aclose())
        finally:
            self._portal.close()

    def __del__(self) -> None:
        core, portal = self.__dict__.get("_core"), self.__dict__.get("_portal")
        if core is None or portal is None or core._closed:
            return  # never built, or closed
        warnings.warn(
            f"unclosed Memory on {core.store!r}: use 'with Memory(...)' or call close()",
            ResourceWarning, source=self, stacklevel=2,
        )
        portal.abandon()  # the store releases its file when it is collected with the core

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _call(self, coro: Any) -> Any:
        if self._core._closed:
            coro.close()
            raise ClosedError("this memory is closed")
        return self._portal.call(coro)


class SyncView:
    """The base of a generated blocking view (``Memory.at``'s ``MemoryAt``):
    the async view and the memory's portal call its reads run through."""

    def __init__(self, view: Any, call: Callable[[Any], Any]) -> None:
        self._view = view
        self._call = call

    @property
    def moment(self) -> datetime:
        """The moment of the view, aware UTC."""
        moment: datetime = self._view.moment
        return moment

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.moment.isoformat()})"
