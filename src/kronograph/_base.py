"""The base every public model shares: frozen, no extra fields, times
always aware UTC, and ``trusted`` for building one from values already
valid. Its own module so that model modules (:mod:`.model`,
:mod:`.community`) can share it without importing each other."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict

from .time import as_utc

__all__ = ["M", "UtcDatetime", "_Model", "trusted"]

M = TypeVar("M", bound=BaseModel)


def trusted(cls: type[M], **values: Any) -> M:
    """Build a model from values already known to be valid (our store's, our
    code's) without validating them again: what ``model_construct`` makes
    (tests/test_model.py checks), so every field must be given. It sets the
    slots as pydantic's own ``__copy__`` does: on the hot path of every read,
    ``model_construct`` is 3 times slower, a prototype's ``model_copy`` 1.3."""
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "__pydantic_fields_set__", set(values))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


UtcDatetime = Annotated[datetime, AfterValidator(as_utc)]
"""A datetime that is always aware UTC once validated (naive input is read as UTC)."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
