"""The one error a migration raises on purpose."""

from __future__ import annotations

from ..errors import KronographError

__all__ = ["MigrationError"]


class MigrationError(KronographError):
    """A migration was refused (a wrong URL, a source that is not a current
    kronograph memory, a target that already holds data) or failed; the
    target was left as it was. The message names what is wrong."""
