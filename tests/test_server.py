"""The REST service through a real HTTP client against the running app:
every endpoint, the error shape, limits, local mode and admin-only routes.
Tenant isolation is in test_server_tenants.py, fuzzing in test_server_fuzz.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from kronograph.server.limits import Limits

from .server_helpers import Live, live_server, sentence, wait_complete

KEYS = {"alpha": (["alpha"], False), "beta": (["beta"], False), "root": ([], True)}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    db = tmp_path_factory.mktemp("server") / "kg.db"
    with live_server(db, keys=KEYS, limits=Limits(max_body=64 * 1024, max_content=20_000)) as server:
        yield server


@pytest.fixture
def alpha(live: Live) -> Iterator[httpx.Client]:
    with live.client("alpha") as client:
        yield client


def _error(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "field"}, body
    assert body["error"]["code"] == code
    return body["error"]


def test_health_needs_no_key_and_the_schema_is_published(live: Live) -> None:
    with live.client() as anon:
        assert anon.get("/v1/health").json()["status"] == "ok"
        schema = anon.get("/openapi.json", timeout=60).json()
        assert "/v1/groups/{group}/episodes" in schema["paths"]
        assert anon.get("/docs").status_code == 200


def test_a_missing_or_unknown_key_is_401_in_the_error_shape(live: Live) -> None:
    with live.client() as anon:
        _error(anon.get("/v1/groups/alpha/facts"), 401, "unauthorized")
        _error(anon.get("/v1/groups/alpha/facts", headers={"Authorization": "Bearer kg_nope"}), 401, "unauthorized")
        ok = anon.get("/v1/groups/alpha/facts", headers={"X-API-Key": live.secrets["alpha"]})
        assert ok.status_code == 200 and ok.json() == {"facts": []} or ok.json()["facts"] is not None


def test_episodes_are_queued_then_complete_or_ingested_at_once(alpha: httpx.Client) -> None:
    accepted = alpha.post("/v1/groups/alpha/episodes", json={"content": sentence(0), "episode_id": "q1"})
    assert accepted.status_code == 202 and accepted.json() == {"episode_id": "q1", "status": "queued"}
    done = wait_complete(alpha, "alpha", "q1")
    assert done["status"] == "complete" and done["actor"].startswith("key:")
    again = alpha.post("/v1/groups/alpha/episodes", json={"content": sentence(0), "episode_id": "q1"})
    assert again.status_code == 202 and again.json()["status"] == "complete"  # idempotent by id
    other = alpha.post("/v1/groups/alpha/episodes", json={"content": "Other words.", "episode_id": "q1"})
    assert _error(other, 400, "invalid_input")["field"] == "episode_id"
    now = alpha.post("/v1/groups/alpha/episodes?wait=true",
                     json={"content": sentence(1), "episode_id": "w1", "reference_time": "2024-02-01T00:00:00Z"})
    assert now.status_code == 200 and now.json()["status"] == "complete" and now.json()["created"]
    listed = alpha.get("/v1/groups/alpha/episodes", params={"status": "complete"}).json()["episodes"]
    assert {"q1", "w1"} <= {e["uuid"] for e in listed}
    _error(alpha.get("/v1/groups/alpha/episodes", params={"status": "nope"}), 422, "invalid_input")
    _error(alpha.get("/v1/groups/alpha/episodes/missing"), 404, "not_found")
    removed = alpha.delete("/v1/groups/alpha/episodes/w1")
    assert removed.status_code == 200 and removed.json()["episode_id"] == "w1" and removed.json()["deleted_facts"]
    forgot = alpha.delete("/v1/groups/alpha/episodes/q1", params={"forget": "true"})
    assert forgot.status_code == 200 and forgot.json()["verified"] and forgot.json()["episodes"] == ["q1"]


def test_json_episodes_and_content_limits(alpha: httpx.Client) -> None:
    record = {"content": {"name": "Ann Lee", "employer": "Acme"}, "kind": "json", "episode_id": "j1"}
    assert alpha.post("/v1/groups/alpha/episodes?wait=true", json=record).status_code == 200
    too_long = alpha.post("/v1/groups/alpha/episodes", json={"content": "word " * 5000})
    assert _error(too_long, 413, "too_large")["field"] == "content"
    bad = alpha.post("/v1/groups/alpha/episodes", json={"content": "x", "kind": "poem"})
    assert _error(bad, 422, "invalid_input")["field"] == "kind"
    extra = alpha.post("/v1/groups/alpha/episodes", json={"content": "x", "colour": "red"})
    assert _error(extra, 422, "invalid_input")["field"] == "colour"
    _error(alpha.post("/v1/groups/alpha/episodes", content=b"{not json", headers={"content-type": "application/json"}),
           422, "invalid_input")


def test_facts_end_to_end(alpha: httpx.Client) -> None:
    first = alpha.post("/v1/groups/alpha/facts", json={"subject": "Dana", "relation": "WORKS_AT", "object": "Initech",
                                                       "valid_at": "2020-01-01T00:00:00Z",
                                                       "invalid_at": "2022-01-01T00:00:00Z"})
    assert first.status_code == 201
    uuid = first.json()["fact"]["uuid"]
    alpha.post("/v1/groups/alpha/facts", json={"subject": "Dana", "relation": "WORKS_AT", "object": "Globex",
                                               "valid_at": "2022-01-01T00:00:00Z"})
    now = alpha.get("/v1/groups/alpha/facts", params={"subject": "dana"}).json()["facts"]
    assert [f["object"] for f in now] == ["Globex"]
    then = alpha.get("/v1/groups/alpha/facts", params={"subject": "Dana", "as_of": "2021-01-01T00:00:00Z"})
    assert [f["object"] for f in then.json()["facts"]] == ["Initech"]
    every = alpha.get("/v1/groups/alpha/facts", params={"entity": "Dana", "include_retired": "true", "limit": 5})
    assert len(every.json()["facts"]) == 2
    detail = alpha.get(f"/v1/groups/alpha/facts/{uuid}").json()
    assert detail["fact"]["uuid"] == uuid and detail["sources"] and detail["history"]
    slot = alpha.get(f"/v1/groups/alpha/facts/{uuid}/conflicts").json()["facts"]
    assert uuid in [f["uuid"] for f in slot]
    _error(alpha.get("/v1/groups/alpha/facts/nope/conflicts"), 404, "not_found")
    timeline = alpha.get("/v1/groups/alpha/timeline", params={"entity": "Dana"}).json()["facts"]
    assert [f["object"] for f in timeline] == ["Initech", "Globex"]
    removed = alpha.delete(f"/v1/groups/alpha/facts/{uuid}").json()
    assert removed["fact_uuid"] == uuid
    after = alpha.get(f"/v1/groups/alpha/facts/{uuid}").json()
    assert after["fact"] is None and after["history"]  # only its history is left
    _error(alpha.get("/v1/groups/alpha/facts/nope"), 404, "not_found")
    _error(alpha.get("/v1/groups/alpha/facts", params={"as_of": "not a time"}), 422, "invalid_input")
    both = alpha.get("/v1/groups/alpha/facts", params={"as_of": "2021-01-01T00:00:00Z", "include_retired": "true"})
    assert _error(both, 400, "invalid_input")["field"] == "as_of"
    _error(alpha.post("/v1/groups/alpha/facts", json={"subject": "A", "relation": "R"}), 422, "invalid_input")


def test_entities_search_and_forget(alpha: httpx.Client) -> None:
    alpha.post("/v1/groups/alpha/facts", json={"subject": "Eve Moss", "relation": "LIVES_IN", "object": "Lyon"})
    (eve,) = alpha.get("/v1/groups/alpha/entities", params={"name": "eve moss"}).json()["entities"]
    detail = alpha.get(f"/v1/groups/alpha/entities/{eve['uuid']}").json()
    assert detail["entity"]["name"] == "Eve Moss" and [f["object"] for f in detail["facts"]] == ["Lyon"]
    _error(alpha.get("/v1/groups/alpha/entities/nope"), 404, "not_found")
    found = alpha.post("/v1/groups/alpha/search", json={"query": "Eve Moss Lyon", "limit": 5}).json()
    assert found["facts"][0]["item"]["object"] == "Lyon" and found["facts"][0]["methods"]
    assert set(found) == {"facts", "entities", "episodes", "communities", "left_out", "lookahead"}
    assert found["lookahead"] is None  # only a read with ``at`` carries its report
    only = alpha.post("/v1/groups/alpha/search", json={"query": "Lyon", "scopes": ["entities"]}).json()
    assert only["facts"] == [] and only["entities"]
    _error(alpha.post("/v1/groups/alpha/search", json={"query": "x", "recipe": "nope"}), 400, "invalid_input")
    dry = alpha.post("/v1/groups/alpha/forget", json={"entity": "Eve Moss", "dry_run": True}).json()
    assert dry["dry_run"] and eve["uuid"] in dry["entities"]
    _error(alpha.post("/v1/groups/alpha/forget", json={}), 400, "invalid_input")
    gone = alpha.delete(f"/v1/groups/alpha/entities/{eve['uuid']}").json()
    assert gone["verified"] and eve["uuid"] in gone["entities"]
    assert alpha.get("/v1/groups/alpha/entities", params={"name": "Eve Moss"}).json()["entities"] == []


def test_communities_sagas_reconcile_and_audit(alpha: httpx.Client) -> None:
    for i in range(3):
        alpha.post("/v1/groups/alpha/episodes?wait=true", json={"content": sentence(10 + i), "saga": "s1"})
    built = alpha.post("/v1/groups/alpha/communities/build")
    assert built.status_code == 200 and "communities" in built.json()
    assert alpha.post("/v1/groups/alpha/communities/update").status_code == 200
    assert isinstance(alpha.get("/v1/groups/alpha/communities").json()["communities"], list)
    sagas = alpha.get("/v1/groups/alpha/sagas").json()["sagas"]
    assert [s["saga"] for s in sagas] == ["s1"]
    assert alpha.get("/v1/groups/alpha/sagas/s1").json()["version"] == 0
    summary = alpha.post("/v1/groups/alpha/sagas/s1/summarize").json()
    assert summary["version"] == 1 and summary["summary"]
    _error(alpha.get("/v1/groups/alpha/sagas/none"), 404, "not_found")
    assert alpha.get("/v1/groups/alpha/reconcile").json()["repair"] is False
    assert alpha.post("/v1/groups/alpha/reconcile", json={"repair": True}).json()["repair"] is True
    assert "possible_contradictions" in alpha.get("/v1/groups/alpha/audit").json()
    assert alpha.get("/v1/groups/alpha/audit/events").json()["events"]


def test_groups_metrics_and_admin_only_routes(live: Live) -> None:
    with live.client("alpha") as alpha, live.client("root") as root:
        alpha.post("/v1/groups/alpha/facts", json={"subject": "A", "relation": "R", "object": "B"})
        with live.client("beta") as beta:
            beta.post("/v1/groups/beta/facts", json={"subject": "C", "relation": "R", "object": "D"})
        assert alpha.get("/v1/groups").json() == {"groups": ["alpha"]}
        assert {"alpha", "beta"} <= set(root.get("/v1/groups").json()["groups"])
        _error(alpha.get("/v1/metrics"), 403, "forbidden")
        text = root.get("/v1/metrics")
        assert text.status_code == 200 and text.headers["content-type"].startswith("text/plain")
        assert "kronograph_queue_failed 0" in text.text and 'kronograph_queue_episodes{state="queued"}' in text.text
        # Time to answer, by route template (never by group) and status.
        assert ('kronograph_http_request_seconds_count{method="POST",route="/v1/groups/{group}/facts",status="201"}'
                in text.text)
        assert 'route="/v1/metrics",status="403"' in text.text and "alpha" not in text.text.split("http_request")[1]
        assert root.get("/v1/groups/beta/facts").status_code == 200  # admin: every group


def test_error_shape_for_routing_errors(alpha: httpx.Client) -> None:
    _error(alpha.get("/v1/nothing-here"), 404, "not_found")
    _error(alpha.put("/v1/groups/alpha/facts"), 405, "invalid_input")


def test_body_limit_by_length_and_by_stream(alpha: httpx.Client) -> None:
    big = json.dumps({"content": "x" * 70_000}).encode()
    _error(alpha.post("/v1/groups/alpha/episodes", content=big, headers={"content-type": "application/json"}),
           413, "too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams
        for _ in range(20):
            yield b" " * 8192

    streamed = alpha.post("/v1/groups/alpha/episodes", content=chunks(), headers={"content-type": "application/json"})
    _error(streamed, 413, "too_large")


def test_an_unexpected_error_is_500_without_a_trace(live: Live, alpha: httpx.Client,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret internals at line 42")

    monkeypatch.setattr(live.memory, "timeline", broken)
    error = _error(alpha.get("/v1/groups/alpha/timeline", params={"entity": "x"}), 500, "internal")
    assert "secret" not in error["message"] and "Traceback" not in error["message"]


def test_local_mode_needs_no_key_and_allows_every_group(tmp_path: Path) -> None:
    with live_server(tmp_path / "local.db", local=True) as server, server.client() as anon:
        fact = {"subject": "A", "relation": "R", "object": "B"}
        assert anon.post("/v1/groups/any/facts", json=fact).status_code == 201
        assert anon.get("/v1/groups").json() == {"groups": ["any"]}
        assert anon.get("/v1/metrics").status_code == 200


def test_without_keys_everything_but_health_is_401(tmp_path: Path) -> None:
    with live_server(tmp_path / "nokeys.db") as server, server.client() as anon:
        assert anon.get("/v1/health").status_code == 200
        _error(anon.get("/v1/groups"), 401, "unauthorized")
        _error(anon.get("/v1/groups/g/facts", headers={"Authorization": "Bearer anything"}), 401, "unauthorized")


def test_a_slow_request_answers_504() -> None:
    import asyncio

    from kronograph.server.limits import LimitsMiddleware

    async def slow(scope, receive, send):  # type: ignore[no-untyped-def]
        await asyncio.sleep(5)

    async def run() -> httpx.Response:
        app = LimitsMiddleware(slow, Limits(timeout=0.05))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            return await client.get("/")

    response = asyncio.run(run())
    _error(response, 504, "timeout")
