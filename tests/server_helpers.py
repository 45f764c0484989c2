"""A live REST service for tests: uvicorn on 127.0.0.1 and a free port, in a
thread of the test process, over a memory the test can also read."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from kronograph import AsyncMemory
from kronograph.server.app import create_app
from kronograph.server.keys import KeyRing
from kronograph.server.limits import Limits

F = ["Alice", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kira", "Lars"]
L = ["Smith", "Novak", "Okafor", "Petrov", "Quinn", "Rossi", "Sato", "Tanaka", "Urban", "Vega"]
C = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Wonka"]


def sentence(i: int) -> str:
    """A distinct statement per i (< 120) the offline extractor reads as one fact."""
    return f"{F[i % 12]} {L[i // 12 % 10]} works at {C[i % 8]}."


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Live:
    url: str
    memory: AsyncMemory
    secrets: dict[str, str]  # key name -> secret
    app: object

    def client(self, key: str | None = None, **kwargs: object) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.secrets[key]}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30.0, **kwargs)  # type: ignore[arg-type]


@contextmanager
def live_server(db: Path | str, *, keys: dict[str, tuple[list[str], bool]] | None = None, local: bool = False,
                limits: Limits | None = None, workers: int = 2, host: str = "127.0.0.1",
                log_level: str = "warning", relation_types: dict[str, Any] | None = None) -> Iterator[Live]:
    """uvicorn serving ``create_app`` in a thread until the block ends.
    ``keys``: name -> (groups, admin); ``host``: the address the app is told
    it serves (it listens on 127.0.0.1 whatever it is told); ``relation_types``: the memory's."""
    ring = KeyRing()
    secrets = {}
    for name, (groups, admin) in (keys or {}).items():
        _, secrets[name] = ring.add(name, groups, admin=admin)
    memory = AsyncMemory(db, model=None, relation_types=relation_types)
    app = create_app(memory, ring, local=local, limits=limits, workers=workers, poll=0.05, host=host)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level=log_level, lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield Live(url=f"http://127.0.0.1:{port}", memory=memory, secrets=secrets, app=app)
    finally:
        server.should_exit = True
        thread.join(30)
        asyncio.run(memory.aclose())


def wait_complete(client: httpx.Client, group: str, episode_id: str, timeout: float = 30.0) -> dict:
    """Poll an episode until it leaves the queue and its processing."""
    deadline = time.monotonic() + timeout
    while True:
        body = client.get(f"/v1/groups/{group}/episodes/{episode_id}").json()
        if body["status"] in ("complete", "retryable", "quarantined") or time.monotonic() > deadline:
            return body
        time.sleep(0.02)
