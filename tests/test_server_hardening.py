"""The service against a hostile caller or page, over real HTTP: DNS
rebinding and cross-site writes in local mode, no third-party script on the
origin, one 500 logged once and cheaply, no name from a query string in the
access log."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from .server_helpers import live_server

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
        assert c.get("/openapi.json").json()["info"]["title"] == "kronograph"


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
