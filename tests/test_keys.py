"""API keys: made with a secret shown once, kept hashed, bound to groups."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from kronograph.errors import InvalidInputError
from kronograph.server.keys import ENV_KEYS, ENV_KEYS_FILE, KeyRing, hash_secret


def test_a_key_is_kept_hashed_and_found_by_its_secret(tmp_path: Path) -> None:
    ring = KeyRing()
    key, secret = ring.add("planner", ["team", "alice"])
    admin, admin_secret = ring.add("ops", admin=True)
    path = tmp_path / "keys.json"
    ring.save(path)
    text = path.read_text()
    assert secret not in text and admin_secret not in text and hash_secret(secret) in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    loaded = KeyRing.load(path)
    found = loaded.authenticate(secret)
    assert found == key and found.allows("team") and found.allows("alice") and not found.allows("bob")
    assert loaded.authenticate(admin_secret).allows("anything")  # type: ignore[union-attr]
    assert loaded.authenticate(secret + "x") is None and loaded.authenticate("") is None
    assert loaded.authenticate(None) is None
    loaded.revoke(key.id)
    assert loaded.authenticate(secret) is None and len(loaded) == 1


def test_keys_come_from_the_environment_or_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ring = KeyRing()
    _, secret = ring.add("a", ["g"])
    path = tmp_path / "k.json"
    ring.save(path)
    monkeypatch.delenv(ENV_KEYS, raising=False)
    monkeypatch.setenv(ENV_KEYS_FILE, str(path))
    assert KeyRing.from_environment().authenticate(secret) is not None
    monkeypatch.setenv(ENV_KEYS, path.read_text())
    monkeypatch.setenv(ENV_KEYS_FILE, str(tmp_path / "none.json"))
    assert KeyRing.from_environment().authenticate(secret) is not None
    monkeypatch.delenv(ENV_KEYS)
    assert len(KeyRing.from_environment()) == 0  # an absent file: no key, no access


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not valid JSON"),
        ('{"keys": {}}', 'expected {"keys"'),
        ('{"keys": [{"id": "a", "hash": "md5:x", "groups": ["g"]}]}', "'hash' must be"),
        ('{"keys": [{"id": "a", "hash": "sha256:' + "0" * 64 + '", "groups": []}]}', "at least one group"),
        ('{"keys": [{"id": "a", "hash": "sha256:' + "0" * 64 + '", "groups": ["g"], "admin": "yes"}]}',
         "'admin' must be"),
    ],
)
def test_a_bad_key_file_is_refused_naming_the_problem(text: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message.replace("{", r"\{").replace("(", r"\(")):
        KeyRing.parse(text, "keys.json")


def test_a_key_needs_a_group_or_admin() -> None:
    with pytest.raises(InvalidInputError, match="at least one group"):
        KeyRing().add("nobody")
    two = KeyRing.parse(json.dumps({"keys": []}))
    assert len(two) == 0


def test_a_ring_follows_its_file(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    writer = KeyRing.load(path)  # no file yet: no key
    key, secret = writer.add("a", ["g"])
    writer.save(path)
    serving = KeyRing.load(path)
    assert serving.authenticate(secret) == key
    _, later = writer.add("b", ["h"])
    writer.save(path)
    assert serving.authenticate(later) is not None  # added: works at once, no restart
    writer.revoke(key.id)
    writer.save(path)
    assert serving.authenticate(secret) is None  # revoked: refused at once
    path.write_text("{ broken")
    assert serving.authenticate(later) is not None  # a broken file changes nothing
