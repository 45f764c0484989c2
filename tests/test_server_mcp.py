"""``kronograph serve`` also serves the MCP endpoint at ``/mcp``, behind the
same keys as REST: the SDK's streamable HTTP client against ``kronograph
serve`` on a free port, with two keys of two groups."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from kronograph.server.keys import KeyRing

from .test_mcp import KRONOGRAPH, _env, _free_port, _keys_decide_the_groups


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    ring = KeyRing()
    key_a, secret_a = ring.add("agent a", ["A"])
    _, secret_b = ring.add("agent b", ["B"])
    keys = tmp_path / "keys.json"
    ring.save(keys)
    port = _free_port()
    process = subprocess.Popen(
        [KRONOGRAPH, "serve", "--db", str(tmp_path / "m.db"), "--offline", "--keys", str(keys), "--port", str(port)],
        env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(base + "/v1/health", timeout=1)
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        yield base, {"A": secret_a, "B": secret_b, "A.id": key_a.id}
    finally:
        process.terminate()
        process.wait(10)


def test_the_service_serves_mcp_behind_the_same_keys(served: tuple[str, dict[str, str]]) -> None:
    base, secrets = served
    asyncio.run(asyncio.wait_for(_keys_decide_the_groups(base + "/mcp", secrets), 120))
    # What MCP filed is what REST reads, for the same key and only for it.
    a = {"Authorization": f"Bearer {secrets['A']}"}
    facts = httpx.get(base + "/v1/groups/A/facts", headers=a, timeout=10).json()["facts"]
    assert any(f["object"] == "Acme" for f in facts)
    assert httpx.get(base + "/v1/groups/B/facts", headers=a, timeout=10).status_code == 404
    denied = httpx.post(base + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                        headers={"Accept": "application/json, text/event-stream"}, timeout=10)
    assert denied.status_code == 401 and denied.json()["error"]["code"] == "unauthorized"
