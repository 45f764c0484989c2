"""psycopg's and the pool's errors turned into kronograph's at the store's
seam, so callers above it catch one StoreError and never see a password."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ...errors import StoreError
from .connection import redact
from .pipelined import refusal

__all__ = ["is_database_error", "store_error", "translating"]


def is_database_error(exc: BaseException) -> bool:
    import psycopg
    import psycopg_pool

    return isinstance(exc, psycopg.Error | psycopg_pool.PoolTimeout)


def store_error(url: str, exc: Exception) -> StoreError:
    return StoreError(redact(f"PostgreSQL error on {url}: {exc}"))


@contextmanager
def translating(url: str) -> Iterator[None]:
    """psycopg's and the pool's errors as StoreError, naming the server."""
    try:
        yield
    except Exception as exc:
        refused = refusal(exc)  # a check of the write's pipeline failed: a conflict, not a failure
        if refused is not None:
            raise refused from exc
        if is_database_error(exc):
            raise store_error(url, exc) from exc
        raise
