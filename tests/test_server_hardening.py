"""The service against a hostile caller or page, over real HTTP: DNS
rebinding and cross-site writes in local mode, no third-party script on the
origin, one 500 logged once and cheaply, no name from a query string in the
access log, no forged actor, and MCP held to REST's limits."""

from __future__ import annotations

import asyncio
import logging
import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from kronograph.redact import redact_dsn
from kronograph.server.limits import Limits
from kronograph.server.mcp_tools import Access

from .server_helpers import free_port, live_server, wait_complete
from .test_mcp import KRONOGRAPH, _call, _env, _error, _http_session

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}


def _shape(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code and body["error"]["message"]


# -- item 2: local mode refuses other Host names and other origins' writes ---------------------


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2"])
def test_local_mode_refuses_a_foreign_host_on_every_route(tmp_path: Path, host: str) -> None:
    with live_server(tmp_path / "m.db", local=True, host=host) as live, live.client() as c:
        evil = {"Host": "attacker.example:8000"}
        routes = [("GET", "/v1/health"), ("GET", "/v1/groups"), ("GET", "/"), ("GET", "/static/app.js"),
                  ("GET", "/openapi.json"), ("GET", "/docs"), ("GET", "/v1/groups/g/facts"),
                  ("POST", "/v1/groups/g/facts"), ("DELETE", "/v1/groups/g/episodes/x"), ("GET", "/nowhere")]
        for method, path in routes:
            _shape(c.request(method, path, headers=evil, json={}), 421, "misdirected")
        _shape(c.post("/mcp", headers={**MCP_HEADERS, **evil}, json=INIT), 421, "misdirected")
        # Loopback names, with or without a port, pass.
        for name in ("localhost", "localhost:1234", "127.0.0.1", "127.0.0.2:80", "[::1]:8000"):
            assert c.get("/v1/health", headers={"Host": name}).status_code == 200
        assert c.post("/mcp", headers=MCP_HEADERS, json=INIT).status_code == 200


def test_local_mode_refuses_a_write_from_another_origin(tmp_path: Path) -> None:
    with live_server(tmp_path / "m.db", local=True) as live, live.client() as c:
        fact = {"subject": "Ann", "relation": "LIVES_IN", "object": "Rome"}
        for origin in ("https://attacker.example", "null", "http://127.0.0.1.attacker.example"):
            _shape(c.post("/v1/groups/g/facts", json=fact, headers={"Origin": origin}), 403, "forbidden")
            _shape(c.post("/mcp", json=INIT, headers={**MCP_HEADERS, "Origin": origin}), 403, "forbidden")
        assert c.get("/v1/groups/g/facts").json()["facts"] == []  # nothing was written
        assert c.post("/v1/groups/g/facts", json=fact, headers={"Origin": live.url}).status_code == 201
        assert c.post("/v1/groups/g/facts", json=fact).status_code == 201  # curl sends no Origin
        assert c.get("/v1/groups", headers={"Origin": "https://attacker.example"}).status_code == 200  # a read


def test_a_keyed_service_on_another_host_takes_any_host_name(tmp_path: Path) -> None:
    keys = {"a": (["g"], False)}
    with live_server(tmp_path / "m.db", keys=keys, host="0.0.0.0") as live, live.client("a") as c:
        assert c.get("/v1/groups/g/facts", headers={"Host": "memory.example.com"}).status_code == 200
        assert c.post("/mcp", headers={**MCP_HEADERS, "Host": "memory.example.com"}, json=INIT).status_code == 200


def test_a_keyed_service_on_loopback_behind_a_proxy_takes_the_forwarded_host(tmp_path: Path) -> None:
    """The deployment docs put a reverse proxy on the same machine in front of
    a service on 127.0.0.1; the proxy forwards its own Host. With keys, the key
    is the guard: REST and /mcp both answer (a request without a key is 401)."""
    keys = {"a": (["g"], False)}
    with live_server(tmp_path / "m.db", keys=keys, host="127.0.0.1") as live, live.client("a") as c:
        forwarded = {"Host": "memory.example.com"}
        assert c.get("/v1/groups/g/facts", headers=forwarded).status_code == 200
        assert c.post("/mcp", headers={**MCP_HEADERS, **forwarded}, json=INIT).status_code == 200
    with live_server(tmp_path / "m2.db", keys=keys, host="127.0.0.1") as live, live.client() as anonymous:
        assert anonymous.post("/mcp", headers={**MCP_HEADERS, "Host": "memory.example.com"},
                              json=INIT).status_code == 401


# -- item 7: no third-party script on the origin of the web view ------------------------------


def test_docs_load_nothing_from_elsewhere(tmp_path: Path) -> None:
    with live_server(tmp_path / "m.db", local=True) as live, live.client() as c:
        page = c.get("/docs")
        assert page.status_code == 200 and "/v1/groups/{group}/facts" in page.text
        assert page.headers["content-security-policy"].startswith("default-src 'none'; script-src 'self'")
        for path in ("/docs", "/", "/static/index.html"):
            html = c.get(path).text
            assert "<script" not in html or not re.search(r"""src=["']?(https?:)?//""", html), path
            assert not re.search(r"""(href|src)=["']?(https?:)?//""", html), path
            assert "cdn" not in html.lower(), path
        assert c.get("/redoc").status_code == 404
        assert c.get("/openapi.json", timeout=60).json()["info"]["title"] == "kronograph"


# -- item 10: a 500 is logged once, by the standard logging, and the root logger is left alone --


class _Count(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def _counting(*names: str) -> Iterator[_Count]:
    counter = _Count()
    loggers = [logging.getLogger(n) for n in names]
    for logger in loggers:
        logger.addHandler(counter)
    try:
        yield counter
    finally:
        for logger in loggers:
            logger.removeHandler(counter)


def test_the_root_logger_is_left_alone_and_a_500_is_logged_once(tmp_path: Path) -> None:
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    with live_server(tmp_path / "m.db", local=True) as live, live.client() as c:
        assert c.post("/mcp", headers=MCP_HEADERS, json=INIT).status_code == 200
        assert (list(root.handlers), root.level) == before
        assert not any("rich" in type(h).__module__ for h in root.handlers)

        async def broken() -> list[str]:
            raise RuntimeError("the store said something odd")

        live.memory.groups = broken  # type: ignore[method-assign]
        with _counting("", "uvicorn", "uvicorn.error", "kronograph") as counter:
            for _ in range(3):
                _shape(c.get("/v1/groups"), 500, "internal")
                assert "odd" not in c.get("/v1/groups").text
        failures = [r for r in counter.records if r.exc_info is not None or r.levelno >= logging.ERROR]
        assert len({id(r) for r in failures}) == 6  # one record per failed request, not two
        assert all(r.name == "kronograph.server" for r in failures)
        assert (list(root.handlers), root.level) == before


# -- item 12: the access log names the path, never the query string ---------------------------


def test_the_access_log_keeps_no_query_string(tmp_path: Path) -> None:
    secret = "Zebediah Quarrington"
    with live_server(tmp_path / "m.db", local=True, log_level="info") as live, live.client() as c:
        with _counting("uvicorn.access", "uvicorn", "", "kronograph") as counter:
            c.get("/v1/groups/g/entities", params={"name": secret})
            c.get("/v1/groups/g/timeline", params={"entity": secret})
            c.post("/v1/groups/g/forget", json={"entity": secret, "dry_run": True})
            c.delete("/v1/groups/g/episodes/x", params={"forget": "true", "name": secret})
        lines = [r.getMessage() for r in counter.records]
        assert any("/v1/groups/g/entities" in line for line in lines)
        assert not any("Zebediah" in line or "Quarrington" in line for line in lines)


# -- item 4: the recorded actor is the calling key; a body's actor is whom it acted for --------


def _key_ids(live: Any) -> dict[str, str]:
    return {k.name: k.id for k in live.app.state.keys.keys}


def test_a_body_actor_never_replaces_the_calling_key(tmp_path: Path) -> None:
    keys = {"a": (["g"], False), "b": (["g"], False)}
    with live_server(tmp_path / "m.db", keys=keys) as live, live.client("a") as a:
        ids = _key_ids(live)
        me, other = f"key:{ids['a']}", f"key:{ids['b']}"
        assert a.post("/v1/groups/g/episodes?wait=true", json={
            "content": "Ann Lee works at Acme.", "episode_id": "e1", "actor": other}).status_code == 200
        assert a.post("/v1/groups/g/episodes", json={
            "content": "Bo Chen works at Initech.", "episode_id": "e2", "actor": "user:bo"}).status_code == 202
        assert wait_complete(a, "g", "e2")["status"] == "complete"
        assert a.post("/v1/groups/g/episodes?wait=true", json={"content": "Cy works at Hooli.",
                                                                "episode_id": "e3"}).status_code == 200
        fact = a.post("/v1/groups/g/facts", json={"subject": "Dee", "relation": "LIVES_IN", "object": "Rome",
                                                  "episode_id": "f1", "actor": other}).json()["fact"]
        episodes = {e["uuid"]: e for e in a.get("/v1/groups/g/episodes").json()["episodes"]}
        assert {u: (e["actor"], e["on_behalf_of"]) for u, e in episodes.items()} == {
            "e1": (me, other), "e2": (me, "user:bo"), "e3": (me, None), "f1": (me, other)}
        assert a.get("/v1/groups/g/episodes/e1").json()["actor"] == me
        # Every other write route: retractions, forget (two routes), repairs.
        assert a.delete(f"/v1/groups/g/facts/{fact['uuid']}").status_code == 200
        assert a.delete("/v1/groups/g/episodes/e3").status_code == 200
        assert a.post("/v1/groups/g/forget", json={"entity": "Bo Chen", "actor": other}).status_code == 200
        assert a.delete("/v1/groups/g/episodes/e1", params={"forget": "true"}).status_code == 200
        assert a.post("/v1/groups/g/reconcile", json={"repair": True, "actor": "ops"}).status_code == 200
        events = a.get("/v1/groups/g/audit/events").json()["events"]
        kinds = {e["kind"] for e in events}
        assert {"fact_removed", "episode_removed", "forgotten"} <= kinds
        # every event names the calling key, but those a forget blanked (a contradiction flagged by e1)
        assert all(e["actor"] == me for e in events if e["detail"] != {"redacted": True}), events
        assert {(e["kind"], e["on_behalf_of"]) for e in events if e["kind"] == "forgotten"} == {
            ("forgotten", other), ("forgotten", None)}


def test_an_mcp_write_is_filed_as_the_calling_key(tmp_path: Path) -> None:
    keys = {"a": (["g"], False)}
    with live_server(tmp_path / "m.db", keys=keys) as live, live.client("a") as a:
        me = f"key:{_key_ids(live)['a']}"

        async def run() -> None:
            async with _http_session(live.url + "/mcp", {"Authorization": f"Bearer {live.secrets['a']}"}) as s:
                added = await _call(s, "add_memory", content="Ann Lee works at Acme.", on_behalf_of="user:ann")
                (episode,) = (await _call(s, "get_episodes", episode_ids=[added["episode_id"]]))["episodes"]
                assert (episode["actor"], episode["on_behalf_of"]) == (me, "user:ann")
                await _call(s, "delete_fact", fact_uuid=added["created"][0]["uuid"])

        asyncio.run(asyncio.wait_for(run(), 120))
        (removed,) = [e for e in a.get("/v1/groups/g/audit/events").json()["events"] if e["kind"] == "fact_removed"]
        assert removed["actor"] == me


# -- item 11: MCP takes no more than REST, and says which parameter is wrong -------------------


def test_mcp_tools_keep_the_rest_limits_and_name_the_parameter(tmp_path: Path) -> None:
    limits = Limits(max_content=1_000, max_body=20_000)
    with live_server(tmp_path / "m.db", local=True, limits=limits) as live, live.client() as c:
        _shape(c.post("/v1/groups/g/episodes", json={"content": "x " * 600}), 413, "too_large")

        async def run() -> None:
            async with _http_session(live.url + "/mcp", {}) as s:
                assert (await _error(s, "add_memory", content="x " * 600)).startswith("content: ")
                assert (await _error(s, "search_facts", query="q" * 10_001)).startswith("query: ")
                assert (await _error(s, "get_episodes", episode_ids=[f"e{i}" for i in range(101)])
                        ).startswith("episode_ids: ")
                assert (await _error(s, "timeline", entity="E" * 1_001)).startswith("entity: ")
                refused = await _error(s, "search_facts", query="q", limit=1_000)
                assert refused.startswith("limit: ") and "1000" not in refused  # the value is not echoed back
                assert (await _error(s, "add_memory", content="x", saga="s" * 201)).startswith("saga: ")

        asyncio.run(asyncio.wait_for(run(), 120))
        assert c.get("/v1/groups/g/episodes").json()["episodes"] == []  # nothing was written
        big = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "add_memory", "arguments": {"content": "x" * 30_000}}}
        _shape(c.post("/mcp", json=big, headers=MCP_HEADERS), 413, "too_large")


def test_the_standalone_mcp_endpoint_answers_its_refusals_in_the_error_shape(tmp_path: Path) -> None:
    """``kronograph mcp --http``'s app: the SDK's own 413 and the loopback guard's 421, in the shape."""
    from kronograph import AsyncMemory
    from kronograph.server.keys import KeyRing
    from kronograph.server.mcp_server import mcp_http_app

    async def run() -> None:
        async with AsyncMemory(":memory:", model=None) as memory:
            app = mcp_http_app(memory, KeyRing(), host="127.0.0.3", anonymous=Access.local(),
                               limits=Limits(max_body=2_000))
            async with app.state.mcp.lifespan(), httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.3") as client:
                assert (await client.post("/mcp", json=INIT, headers=MCP_HEADERS)).status_code == 200
                big = {**INIT, "params": {**INIT["params"], "padding": "x" * 5_000}}
                _shape(await client.post("/mcp", json=big, headers=MCP_HEADERS), 413, "too_large")
                _shape(await client.post("/mcp", json=INIT, headers={**MCP_HEADERS, "Host": "evil.example"}),
                       421, "misdirected")

    asyncio.run(asyncio.wait_for(run(), 60))


# -- item 5: a database password is never printed ------------------------------------------------


@pytest.mark.parametrize(("text", "shown"), [
    ("postgresql://kg:s3cret@db.example:5432/memory", "postgresql://kg:***@db.example:5432/memory"),
    ("postgres://kg:p@ss/w:rd@db/memory?sslmode=require", "postgres://kg:***@db/memory?sslmode=require"),
    ("postgresql://kg@db/memory?sslmode=require&password=s3cret", "postgresql://kg@db/memory?sslmode=require&password=***"),
    ("host=db user=kg password=s3cret dbname=memory", "host=db user=kg password=*** dbname=memory"),
    ("host=db password='s3 cret' dbname=m", "host=db password=*** dbname=m"),
    ('error: missing "=" after "postgresql://kg:s3cret@db/m" in connection info string',
     'error: missing "=" after "postgresql://kg:***@db/m" in connection info string'),
    ("memory.db", "memory.db"),
    ("postgresql://db.example/memory", "postgresql://db.example/memory"),
])
def test_dsn_passwords_are_masked(text: str, shown: str) -> None:
    assert redact_dsn(text) == shown


def test_serve_prints_no_database_password(tmp_path: Path) -> None:
    secret = "s3cretPassw0rd"
    port = free_port()
    url = f"postgresql://kg:{secret}@127.0.0.1:{free_port()}/memory?connect_timeout=1"
    process = subprocess.Popen(
        [KRONOGRAPH, "serve", "--db", url, "--offline", "--local", "--port", str(port)],
        env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    lines: list[str] = []
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "worker failed" in line:  # the store refused: the log has spoken too
                break
    finally:
        process.terminate()
        rest, _ = process.communicate(timeout=20)
        lines.append(rest or "")
    output = "".join(lines)
    assert "kronograph serving postgresql://kg:***@127.0.0.1" in output, output
    assert secret not in output


def test_a_failed_forget_logs_no_name(tmp_path: Path) -> None:
    secret = "Zebediah Quarrington"
    with live_server(tmp_path / "m.db", local=True) as live, live.client() as c:

        async def broken(*args: Any, **kwargs: Any) -> None:
            raise RuntimeError(f"could not erase {kwargs.get('entity')!r}")

        live.memory.forget = broken  # type: ignore[method-assign]
        with _counting("", "uvicorn", "uvicorn.error", "kronograph") as counter:
            _shape(c.post("/v1/groups/g/forget", json={"entity": secret}), 500, "internal")
        lines = [logging.Formatter().format(r) for r in {id(r): r for r in counter.records}.values()]
        assert len(lines) == 1 and "RuntimeError" in lines[0] and "broken" in lines[0]  # the type and the stack
        assert "Zebediah" not in lines[0]
