"""The exception tree, in one place.

::

    KronographError
    ├── InvalidInputError      bad argument; nothing was written (also a ValueError)
    ├── NotFoundError          the named episode, fact or entity does not exist (also a KeyError)
    ├── ClosedError            the memory or store was used after close()
    ├── JudgeError             the contradiction judge failed; nothing was written
    ├── ModelError             a language model failed or answered what cannot be used
    │   ├── TransientModelError
    │   │                      worth retrying: rate limit, 5xx, timeout, dropped connection
    │   └── ModelOutputError   the answer did not validate, even after a repair round
    ├── EpisodeFailedError     an episode ended retryable or quarantined (raise_for_status)
    ├── EmbeddingError         an embedder failed, or its dimension is not the store's
    └── StoreError             the backend failed; its own exception is the __cause__
        ├── SchemaError        the database schema is newer than this library, or broken
        └── ConcurrentWriteError
            │                  another writer changed the group between read and write;
            │                  the memory retries these itself
            └── LeaseLostError an episode's state, written by a worker whose lease on it
                               lapsed and was taken over (or which another finished); the
                               pipeline answers as for an episode another worker holds

Backend exceptions (sqlite3, psycopg) are translated at the store seam and never
leak to callers. The message of a model, embedding, judge or store error may
quote a provider or a database: it is redacted as the error is made
(:func:`kronograph.redact.redact_text`: API keys, tokens, passwords, private
hosts), so it can be stored, logged and answered as it is.
"""

from __future__ import annotations

from typing import Any

from .redact import redact_text

__all__ = [
    "ClosedError",
    "ConcurrentWriteError",
    "InvalidInputError",
    "EmbeddingError",
    "EpisodeFailedError",
    "JudgeError",
    "ModelError",
    "ModelOutputError",
    "TransientModelError",
    "KronographError",
    "LeaseLostError",
    "NotFoundError",
    "SchemaError",
    "StoreError",
]


class KronographError(Exception):
    """Base class of every error kronograph raises on purpose."""


class InvalidInputError(KronographError, ValueError):
    """An argument is wrong; the message names it. Nothing was stored."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class NotFoundError(KronographError, KeyError):
    """The thing asked for does not exist in that group."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class ClosedError(KronographError):
    """The memory (or its store) has been closed."""


class _Redacted(Exception):
    """An error whose message may quote a provider or a database: redacted."""

    def __init__(self, message: Any = "", *args: Any) -> None:
        super().__init__(redact_text(str(message)), *args)


class StoreError(_Redacted, KronographError):
    """The storage backend failed."""


class SchemaError(StoreError):
    """The database schema cannot be used by this version of kronograph."""


class ConcurrentWriteError(StoreError):
    """The group changed between the read and the write of one unit of work."""


class LeaseLostError(ConcurrentWriteError):
    """An episode's new state came from a worker that no longer holds it: its
    lease lapsed and another worker took the episode over, or finished it.
    Nothing of the plan was written; ``status`` and ``holder`` are the
    episode's now (``holder`` None when it is complete)."""

    def __init__(self, group_id: str, episode_id: str, status: str, holder: str | None) -> None:
        self.group_id, self.episode_id, self.status, self.holder = group_id, episode_id, status, holder
        now = f"held by {holder}" if holder is not None else status
        super().__init__(f"episode {episode_id!r} of group {group_id!r} is {now}: this worker's lease on it is gone")


class JudgeError(_Redacted, KronographError):
    """The contradiction judge failed or answered something that is not a Verdict.
    Nothing was written; the judge's own exception is the __cause__."""


class ModelError(_Redacted, KronographError):
    """A language model call failed; the provider's own exception is the __cause__."""


class TransientModelError(ModelError):
    """A model call failed in a way worth retrying later (429, 5xx, timeout).
    ``retry_after`` is the server's hint in seconds, when it gave one."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class ModelOutputError(ModelError):
    """The model's answer could not be parsed or validated, even after it was
    shown its error once. ``text`` is its last answer."""

    def __init__(self, message: str, *, text: str = "") -> None:
        self.text = text
        super().__init__(message)


class EmbeddingError(_Redacted, KronographError):
    """An embedder failed, or produced vectors of another dimension than the
    store records for its embeddings."""


class EpisodeFailedError(KronographError):
    """An episode ended ``retryable`` or ``quarantined``; nothing of it was written."""

    def __init__(self, episode_id: str, status: str, error: str) -> None:
        self.episode_id, self.status, self.error = episode_id, status, error
        super().__init__(f"episode {episode_id!r} is {status}: {error}")
