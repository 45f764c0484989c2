"""The one error a migration raises on purpose."""

from __future__ import annotations

from ..errors import KronographError
from ..redact import redact_text

__all__ = ["MigrationError"]


class MigrationError(KronographError):
    """A migration was refused (a wrong URL, a source that is not a current
    kronograph memory, a target that already holds data) or failed; the
    target was left as it was. The message names what is wrong (redacted:
    it may quote PostgreSQL's error)."""

    def __init__(self, message: str) -> None:
        super().__init__(redact_text(message))
