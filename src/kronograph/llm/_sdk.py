"""What the three SDK providers share: importing an optional SDK with an
error that names the extra to install, and sorting HTTP failures into
worth-retrying and not."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType

from ..errors import ModelError, TransientModelError
from .backoff import retry_after_seconds

__all__ = ["TRANSIENT_STATUS", "require_sdk", "status_error"]

# 408 request timeout, 409 lock contention, 425 too early, 429 rate limit; every 5xx (529: overloaded)
TRANSIENT_STATUS = frozenset({408, 409, 425, 429})


def require_sdk(module: str, extra: str) -> ModuleType:
    """Import an optional SDK, or explain which extra brings it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"kronograph needs the '{module}' package for this provider: pip install 'kronograph[{extra}]'"
        ) from exc


def is_transient_status(status: int) -> bool:
    return status in TRANSIENT_STATUS or status >= 500


def status_error(
    who: str, status: int, message: str, headers: Mapping[str, str] | None = None, *, retry_after: float | None = None
) -> ModelError:
    """The kronograph error for an HTTP error status from ``who`` (``"openai:gpt-4o"``)."""
    if is_transient_status(status):
        wait = retry_after if retry_after is not None else retry_after_seconds(headers)
        return TransientModelError(f"{who}: HTTP {status}: {message}", retry_after=wait)
    hint = ""
    if status == 401:
        hint = " (check the API key)"
    elif status == 403:
        hint = " (the key may lack access to this model)"
    elif status == 404:
        hint = " (check the model name and base URL)"
    return ModelError(f"{who}: HTTP {status}{hint}: {message}")
