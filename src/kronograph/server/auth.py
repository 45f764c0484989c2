"""Who is calling, and which groups they may touch.

A key comes as ``Authorization: Bearer <secret>`` or ``X-API-Key: <secret>``.
No key or an unknown one: 401. A group the key may not touch answers 404
with a body that does not depend on whether the group exists, so a key
learns nothing of other tenants. Management endpoints need an admin key
(403 otherwise). In local mode (``--local``, loopback only) every caller is
an admin and no key is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Path, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from .errors import ApiError
from .keys import ApiKey, KeyRing
from .schemas import Identifier

__all__ = ["Caller", "GroupPath", "admin", "caller", "group_of"]

_bearer = HTTPBearer(auto_error=False, description="An API key: `Authorization: Bearer kg_...`")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="The same key as `X-API-Key: kg_...`")


@dataclass(frozen=True, slots=True)
class Caller:
    """The key a request came with (None in local mode)."""

    key: ApiKey | None
    local: bool = False

    @property
    def admin(self) -> bool:
        return self.local or (self.key is not None and self.key.admin)

    def allows(self, group_id: str) -> bool:
        return self.local or (self.key is not None and self.key.allows(group_id))

    @property
    def actor(self) -> str | None:
        """Who files what this caller writes, unless the body names someone."""
        return None if self.key is None else f"key:{self.key.id}"


def caller(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header: Annotated[str | None, Depends(_header)],
) -> Caller:
    """The authenticated caller, or 401."""
    if request.app.state.local:
        return Caller(key=None, local=True)
    keys: KeyRing = request.app.state.keys
    secret = bearer.credentials if bearer is not None else header
    if not secret:
        raise ApiError(401, "an API key is required: Authorization: Bearer <key> or X-API-Key: <key>")
    key = keys.authenticate(secret)
    if key is None:
        raise ApiError(401, "unknown or revoked API key")
    return Caller(key=key)


def admin(who: Annotated[Caller, Depends(caller)]) -> Caller:
    """An admin caller, or 403."""
    if not who.admin:
        raise ApiError(403, "this endpoint needs an admin key")
    return who


def group_of(
    group: Annotated[Identifier, Path(description="The group (tenant).", min_length=1, max_length=200)],
    who: Annotated[Caller, Depends(caller)],
) -> str:
    """The group of the path, if the caller may touch it; else the same 404
    whether or not the group exists."""
    if not who.allows(group):
        raise ApiError(404, f"no group {group!r} for this key")
    return group


GroupPath = Annotated[str, Depends(group_of)]
