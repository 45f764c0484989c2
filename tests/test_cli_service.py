"""``kronograph keys`` and ``kronograph serve``'s checks, through the CLI runner
(the running service itself is tested in test_server*.py)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kronograph.cli import app
from kronograph.server.keys import KeyRing

runner = CliRunner()


def _run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == code, (args, result.output, result.exception)
    assert "Traceback" not in result.output
    return result.output


def test_keys_add_prints_the_secret_once_and_keeps_only_its_hash(tmp_path: Path) -> None:
    keys = tmp_path / "keys.json"
    out = _run("keys", "add", "planner", "--group", "team", "-g", "alice", "--keys", str(keys))
    secret = next(line for line in out.splitlines() if line.startswith("kg_"))
    assert secret not in keys.read_text()
    key = KeyRing.load(keys).authenticate(secret)
    assert key is not None and key.groups == {"team", "alice"} and not key.admin
    assert (keys.stat().st_mode & 0o777) == 0o600
    listed = _run("keys", "list", "--keys", str(keys))
    assert key.id in listed and "planner" in listed and secret not in listed
    _run("keys", "add", "ops", "--admin", "--keys", str(keys))
    assert len(json.loads(keys.read_text())["keys"]) == 2
    _run("keys", "revoke", key.id, "--keys", str(keys))
    assert KeyRing.load(keys).authenticate(secret) is None
    assert "no key" in _run("keys", "revoke", key.id, "--keys", str(keys), code=2)
    assert "group" in _run("keys", "add", "nobody", "--keys", str(keys), code=2)


def test_serve_local_refuses_a_non_loopback_host(tmp_path: Path) -> None:
    out = _run("serve", "--local", "--host", "0.0.0.0", "--db", str(tmp_path / "x.db"), code=2)
    assert "loopback" in out
