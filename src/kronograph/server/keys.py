"""API keys bound to groups: who may touch which groups over the network.

A key is a random secret shown once, when it is made; the service keeps only
its SHA-256 (a 256-bit random secret needs no slow hash: there is nothing to
guess). A key names the groups it may read and write; an admin key may touch
every group and the management endpoints (metrics, the list of all groups).

Keys live in a JSON file (``kronograph keys add`` writes it) or in the
environment variable ``KRONOGRAPH_API_KEYS`` holding the same JSON, so a
container needs no file. A ring loaded from a file follows it: a key added or
revoked there takes effect on the next request, with no restart (a file
that no longer parses is ignored, with a warning, until it does)::

    {"keys": [{"id": "k3f9a0c2", "name": "planner agent", "hash": "sha256:…",
               "groups": ["team", "alice"], "admin": false, "created_at": "…"}]}
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._files import write_private
from ..checks import identifier_problem, text_problem
from ..errors import InvalidInputError

__all__ = ["ENV_KEYS", "ENV_KEYS_FILE", "ApiKey", "KeyRing", "hash_secret", "key_actor"]

_log = logging.getLogger("kronograph.server")

ENV_KEYS = "KRONOGRAPH_API_KEYS"  # the key file's JSON itself
ENV_KEYS_FILE = "KRONOGRAPH_API_KEYS_FILE"  # a path to it
_PREFIX = "kg_"


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def hash_secret(secret: str) -> str:
    return "sha256:" + hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A key as stored: never the secret, only its hash."""

    id: str
    name: str
    hash: str
    groups: frozenset[str] = frozenset()
    admin: bool = False
    created_at: str = ""

    def allows(self, group_id: str) -> bool:
        """Whether this key may touch ``group_id``."""
        return self.admin or group_id in self.groups

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "hash": self.hash, "groups": sorted(self.groups),
                "admin": self.admin, "created_at": self.created_at}


def key_actor(key: ApiKey) -> str:
    """The ``actor`` of every write made with ``key``; a body's ``actor`` is
    kept beside it as ``on_behalf_of``, never in its place."""
    return f"key:{key.id}"


def _key(raw: Any, where: str) -> ApiKey:
    if not isinstance(raw, Mapping):
        raise InvalidInputError("keys", f"{where}: expected an object, got {type(raw).__name__}")
    for name in ("id", "hash"):
        if not isinstance(raw.get(name), str) or not raw[name]:
            raise InvalidInputError("keys", f"{where}: {name!r} must be a non-empty string")
    if not str(raw["hash"]).startswith("sha256:") or len(raw["hash"]) != 7 + 64:
        raise InvalidInputError("keys", f"{where}: 'hash' must be 'sha256:' and 64 hex digits")
    groups = raw.get("groups", [])
    if not isinstance(groups, list):
        raise InvalidInputError("keys", f"{where}: 'groups' must be a list of group names")
    for g in groups:
        problem = identifier_problem(g)
        if problem is not None:
            raise InvalidInputError("keys", f"{where}: group {g!r} {problem}")
    admin = raw.get("admin", False)
    if not isinstance(admin, bool):
        raise InvalidInputError("keys", f"{where}: 'admin' must be true or false")
    if not groups and not admin:
        raise InvalidInputError("keys", f"{where}: a key needs at least one group (or admin: true)")
    return ApiKey(id=raw["id"], name=str(raw.get("name") or raw["id"]), hash=raw["hash"].lower(),
                  groups=frozenset(groups), admin=admin, created_at=str(raw.get("created_at") or ""))


@dataclass(slots=True)
class KeyRing:
    """The keys a service accepts, found by the hash of the secret given."""

    keys: list[ApiKey] = field(default_factory=list)
    _by_hash: dict[str, ApiKey] = field(default_factory=dict, repr=False)
    _source: Path | None = field(default=None, repr=False)  # the file it follows
    _stamp: tuple[int, int] | None = field(default=None, repr=False)  # its mtime and size when read

    def __post_init__(self) -> None:
        ids = [k.id for k in self.keys]
        if len(set(ids)) != len(ids):
            raise InvalidInputError("keys", "two keys have the same id")
        self._by_hash = {k.hash: k for k in self.keys}

    # -- loading and saving ----------------------------------------------------
    @classmethod
    def parse(cls, text: str, where: str = "keys") -> KeyRing:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise InvalidInputError("keys", f"{where}: not valid JSON ({exc})") from None
        raw = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(raw, list):
            raise InvalidInputError("keys", f'{where}: expected {{"keys": [...]}}')
        return cls([_key(item, f"{where}: key {n}") for n, item in enumerate(raw, 1)])

    @classmethod
    def load(cls, path: str | Path) -> KeyRing:
        """The keys of a file; an absent file is an empty ring (no key, no access)."""
        p = Path(path)
        ring = cls.parse(p.read_text(encoding="utf-8"), str(p)) if p.exists() else cls()
        ring._source, ring._stamp = p, _stamp(p)
        return ring

    def _follow(self) -> None:
        """Read the file again if it changed since it was read."""
        if self._source is None:
            return
        stamp = _stamp(self._source)
        if stamp == self._stamp:
            return
        try:
            fresh = KeyRing.load(self._source)
        except (InvalidInputError, OSError) as exc:
            _log.warning("kronograph: the keys file changed but cannot be read; keeping the keys before: %s", exc)
            self._stamp = stamp
            return
        self.keys, self._by_hash, self._stamp = fresh.keys, fresh._by_hash, fresh._stamp

    @classmethod
    def from_environment(cls, default_file: str | Path | None = None) -> KeyRing:
        """``$KRONOGRAPH_API_KEYS`` (the JSON) if set, else the file named by
        ``$KRONOGRAPH_API_KEYS_FILE`` or ``default_file``."""
        inline = os.environ.get(ENV_KEYS)
        if inline:
            return cls.parse(inline, f"${ENV_KEYS}")
        path = os.environ.get(ENV_KEYS_FILE) or default_file
        return cls.load(path) if path else cls()

    def save(self, path: str | Path) -> None:
        """Write the file (owner read/write only), atomically, through a
        private temporary file of an unpredictable name (see ``_files``)."""
        write_private(path, json.dumps({"keys": [k.to_json() for k in self.keys]}, indent=2) + "\n")

    # -- making and revoking -------------------------------------------------------
    def add(self, name: str, groups: Iterable[str] = (), *, admin: bool = False) -> tuple[ApiKey, str]:
        """A new key and its secret (shown once; only its hash is kept)."""
        if name:
            problem = text_problem(name)
            if problem is not None:
                raise InvalidInputError("name", problem)
        chosen = list(dict.fromkeys(groups))
        for g in chosen:
            problem = identifier_problem(g)
            if problem is not None:
                raise InvalidInputError("groups", f"{g!r} is not a group id: it {problem}")
        chosen.sort()
        if not chosen and not admin:
            raise InvalidInputError("groups", "a key needs at least one group (or admin)")
        key_id = "k" + secrets.token_hex(4)
        while any(k.id == key_id for k in self.keys):
            key_id = "k" + secrets.token_hex(4)
        secret = f"{_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        key = ApiKey(id=key_id, name=name or key_id, hash=hash_secret(secret), groups=frozenset(chosen),
                     admin=admin, created_at=datetime.now(UTC).isoformat(timespec="seconds"))
        self.keys.append(key)
        self._by_hash[key.hash] = key
        return key, secret

    def revoke(self, key_id: str) -> ApiKey:
        for key in self.keys:
            if key.id == key_id:
                self.keys.remove(key)
                del self._by_hash[key.hash]
                return key
        raise InvalidInputError("key_id", f"no key {key_id!r}")

    # -- checking --------------------------------------------------------------------
    def authenticate(self, secret: str | None) -> ApiKey | None:
        """The key whose secret this is, or None."""
        if not secret:
            return None
        self._follow()
        digest = hash_secret(secret.strip())
        key = self._by_hash.get(digest)
        return key if key is not None and hmac.compare_digest(key.hash, digest) else None

    def __len__(self) -> int:
        return len(self.keys)
