"""Who is calling, and which groups they may touch.

A key comes as ``Authorization: Bearer <secret>`` or ``X-API-Key: <secret>``.
No key or an unknown one: 401. A group the key may not touch answers 404
with a body that does not depend on whether the group exists, so a key
learns nothing of other tenants. Management endpoints need an admin key
(403 otherwise). In local mode (``--local``, loopback only) every caller is
an admin and no key is needed.

A write is recorded with the calling key as its ``actor`` (``key:<id>``;
``local`` in local mode); an ``actor`` the body names is kept beside it, as
``on_behalf_of``, never in its place (:meth:`Caller.attribution`).

The dependencies are coroutines though they never wait: FastAPI runs a plain
``def`` dependency on a worker thread, a hand-off (and back) per dependency
per request that cost more than the check itself (a SHA-256 of the key and a
dictionary lookup; no slow hash is needed for a random 256-bit secret).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, TypedDict

from fastapi import Depends, Path, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from .errors import ApiError
from .keys import ApiKey, KeyRing, key_actor
from .limits import ID_MAX
from .schemas import Identifier

__all__ = ["LOCAL_ACTOR", "Attribution", "Caller", "GroupPath", "Who", "admin", "caller", "group_of"]

LOCAL_ACTOR = "local"  # the actor of a write in local mode, where no key is given

_bearer = HTTPBearer(auto_error=False, description="An API key: `Authorization: Bearer kg_...`")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="The same key as `X-API-Key: kg_...`")


class Attribution(TypedDict):
    """Who a write is recorded as made by (keyword arguments of the memory's writes)."""

    actor: str | None
    on_behalf_of: str | None


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
    def actor(self) -> str:
        """Who every write of this caller is recorded as: its key, whatever the body says."""
        return LOCAL_ACTOR if self.key is None else key_actor(self.key)

    def attribution(self, named: str | None = None) -> Attribution:
        """``actor`` and ``on_behalf_of`` for a write: the key, and whom the body named."""
        return {"actor": self.actor, "on_behalf_of": named}


async def caller(
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


async def admin(who: Annotated[Caller, Depends(caller)]) -> Caller:
    """An admin caller, or 403."""
    if not who.admin:
        raise ApiError(403, "this endpoint needs an admin key")
    return who


async def group_of(
    group: Annotated[Identifier, Path(description="The group (tenant).", min_length=1, max_length=ID_MAX)],
    who: Annotated[Caller, Depends(caller)],
) -> str:
    """The group of the path, if the caller may touch it; else the same 404
    whether or not the group exists."""
    if not who.allows(group):
        raise ApiError(404, f"no group {group!r} for this key")
    return group


GroupPath = Annotated[str, Depends(group_of)]
Who = Annotated[Caller, Depends(caller)]
