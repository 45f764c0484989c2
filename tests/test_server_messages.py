"""Issue 14 at the REST door: a conversation in through ``POST
/v1/groups/{group}/messages`` (queued, or ingested at once), the group's user
and its settings; on SQLite and PostgreSQL."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kronograph.server.limits import Limits

from . import pg_server
from .server_helpers import Live, live_server

KEYS = {"sam": (["sam", "sam2", "sam3"], False), "other": (["other"], False)}

CHAT = [
    {"role": "user", "content": "Hi! I work at Northwind and I live in Lisbon.", "created_at": "2024-01-05T10:00:00Z"},
    {"role": "assistant", "content": "Nice! Do you like Lisbon?", "created_at": "2024-01-05T10:00:05Z"},
    {"role": "user", "content": "I moved to Porto.", "created_at": "2024-03-01T09:00:00Z", "id": "m3"},
]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def live(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    db: Path | str = (tmp_path_factory.mktemp("messages") / "kg.db" if request.param == "sqlite"
                      else pg_server.databases().fresh())
    with live_server(db, keys=KEYS, limits=Limits(max_body=64 * 1024, max_content=2_000)) as server:
        yield server


@pytest.fixture
def sam(live: Live) -> Iterator[httpx.Client]:
    with live.client("sam") as client:
        yield client


def _error(response: httpx.Response, status: int, field: str | None) -> None:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"code", "message", "field"} and error["field"] == field, error


def _triples(client: httpx.Client, group: str) -> set[str]:
    facts = client.get(f"/v1/groups/{group}/facts").json()["facts"]
    return {f"{f['subject']} {f['relation']} {f['object']}" for f in facts}


def _stored(client: httpx.Client, group: str) -> tuple[list[str], set[str]]:
    return [e["uuid"] for e in client.get(f"/v1/groups/{group}/episodes").json()["episodes"]], _triples(client, group)


def test_a_conversation_is_ingested_with_its_speakers_and_the_user_at_the_centre(sam: httpx.Client) -> None:
    response = sam.post("/v1/groups/sam/messages?wait=true",
                        json={"messages": CHAT, "user_name": "Sam Carter", "thread": "chat-1"})
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert [r["status"] for r in results] == ["complete"] * 3 and results[2]["episode_id"] == "m3"
    assert not results[1]["created"] and results[1]["notes"]  # the assistant's question is no fact
    assert _triples(sam, "sam") == {"Sam Carter WORKS_AT Northwind", "Sam Carter LIVES_IN Porto"}
    lisbon = [f for f in sam.get("/v1/groups/sam/facts?include_retired=true").json()["facts"]
              if f["object"] == "Lisbon"]
    assert lisbon and lisbon[0]["invalid_at"].startswith("2024-03-01")  # created_at is the valid time
    episodes = sam.get("/v1/groups/sam/episodes").json()["episodes"]
    assert [(e["speaker"], e["role"], e["saga"]) for e in episodes] == [
        ("Sam Carter", "user", "chat-1"), ("Assistant", "assistant", "chat-1"), ("Sam Carter", "user", "chat-1")]
    actors = {e["actor"] for e in episodes}  # the calling key, as for every write
    assert len(actors) == 1 and next(iter(actors)).startswith("key:")
    user = sam.get("/v1/groups/sam/user").json()
    assert user["name"] == "Sam Carter" and "Person" in user["labels"] and "summary" in user
    assert sam.get("/v1/groups/sam/settings").json()["user_name"] == "Sam Carter"
    again = sam.post("/v1/groups/sam/messages?wait=true", json={"messages": [CHAT[2]]}).json()["results"]
    assert again[0]["duplicate"]  # the same id again: nothing done twice


def test_messages_are_queued_by_default_and_ingested_in_order(sam: httpx.Client) -> None:
    messages = [{"role": "user", "content": "I work at Initech.", "id": "q1", "created_at": "2024-01-01"},
                {"role": "user", "content": "I left Initech and I work at Globex now.", "id": "q2",
                 "created_at": "2024-06-01"}]
    response = sam.post("/v1/groups/sam2/messages", json={"messages": messages, "user_name": "Ann"})
    assert response.status_code == 202, response.text
    assert response.json() == {"accepted": [{"episode_id": "q1", "status": "queued"},
                                            {"episode_id": "q2", "status": "queued"}]}
    deadline = time.monotonic() + 60
    while {sam.get(f"/v1/groups/sam2/episodes/{e}").json()["status"] for e in ("q1", "q2")} != {"complete"}:
        assert time.monotonic() < deadline, "the queue did not ingest the messages"
        time.sleep(0.1)
    episode = sam.get("/v1/groups/sam2/episodes/q2").json()
    assert (episode["speaker"], episode["role"]) == ("Ann", "user")
    assert "Ann WORKS_AT Globex" in _triples(sam, "sam2")


def test_a_bad_message_is_named_and_nothing_is_stored(sam: httpx.Client) -> None:
    # Its own group and its own taken id: tests of one module may run on different workers.
    taken = sam.post("/v1/groups/sam3/messages?wait=true",
                     json={"messages": [{"role": "user", "content": "Hello there.", "id": "taken"}]})
    assert taken.status_code == 200, taken.text
    before = _stored(sam, "sam3")
    settings = sam.get("/v1/groups/sam3/settings").json()
    good = {"role": "user", "content": "I live in Oslo."}
    for body, status, field in [
        ({"messages": [good, good, good, {"role": "", "content": "x"}]}, 400, "messages[3].role"),
        ({"messages": [good, {"content": "no role"}]}, 400, "messages[1].role"),
        ({"messages": [good, {"role": "user", "content": "  "}]}, 400, "messages[1].content"),
        ({"messages": [{"role": "user", "content": "x", "colour": "red"}]}, 400, "messages[0].colour"),
        ({"messages": [{"role": "user", "content": "x", "created_at": "yesterday"}]}, 400, "messages[0].created_at"),
        ({"messages": [good], "user_name": " Bob"}, 400, "user_name"),
        ({"messages": [good, {"role": "user", "content": "other text", "id": "taken"}]}, 400, "messages[1].id"),
        ({"messages": [good, {"role": "user", "content": "x" * 2_001}]}, 413, "messages[1].content"),
        ({"messages": [good] * 101}, 422, "messages"),
        ({"messages": []}, 422, "messages"),
        ({"messages": [good], "colour": "red"}, 422, "colour"),
    ]:
        for wait in ("true", "false"):
            _error(sam.post(f"/v1/groups/sam3/messages?wait={wait}", json={"user_name": "Zed", **body}), status, field)
    assert _stored(sam, "sam3") == before
    assert sam.get("/v1/groups/sam3/settings").json() == settings  # not even the user's name was saved


def test_episodes_take_a_speaker_and_a_role(sam: httpx.Client) -> None:
    body = {"content": "I work at Hooli.", "speaker": "Bo Chen", "role": "user", "episode_id": "s1"}
    result = sam.post("/v1/groups/sam3/episodes?wait=true", json=body).json()
    assert [f["subject"] for f in result["created"]] == ["Bo Chen"]
    episode = sam.get("/v1/groups/sam3/episodes/s1").json()
    assert (episode["speaker"], episode["role"]) == ("Bo Chen", "user")
    _error(sam.post("/v1/groups/sam3/episodes", json={"content": "x", "role": "r" * 65}), 422, "role")


def test_the_user_and_the_settings(sam: httpx.Client) -> None:
    _error(sam.get("/v1/groups/sam3/user"), 404, None)  # no user name yet
    assert sam.get("/v1/groups/sam3/settings").json() == {"group_id": "sam3", "user_name": None, "values": {}}
    changed = sam.patch("/v1/groups/sam3/settings", json={"user_name": "Bo Chen"})
    assert changed.status_code == 200 and changed.json()["user_name"] == "Bo Chen", changed.text
    # Something said of the user (the same episode as the speaker test's: this test may run alone, or first)
    body = {"content": "I work at Hooli.", "speaker": "Bo Chen", "role": "user", "episode_id": "s1"}
    assert sam.post("/v1/groups/sam3/episodes?wait=true", json=body).status_code in (200, 201)
    assert sam.get("/v1/groups/sam3/user").json()["name"] == "Bo Chen"
    renamed = sam.patch("/v1/groups/sam3/settings", json={"user_name": "Bo Chen-Li"}).json()
    assert renamed["user_name"] == "Bo Chen-Li"
    user = sam.get("/v1/groups/sam3/user").json()
    assert user["name"] == "Bo Chen-Li" and "Bo Chen" in user["aliases"]
    assert sam.patch("/v1/groups/sam3/settings", json={}).json()["user_name"] == "Bo Chen-Li"  # nothing asked
    _error(sam.patch("/v1/groups/sam3/settings", json={"user_name": ""}), 422, "user_name")
    _error(sam.patch("/v1/groups/sam3/settings", json={"user_name": 7}), 422, "user_name")


def test_another_key_learns_nothing(live: Live) -> None:
    body: dict[str, Any] = {"messages": [{"role": "user", "content": "I live in Rome."}], "user_name": "Eve"}
    with live.client("other") as other:
        for method, path, payload in [
            ("POST", "/v1/groups/sam/messages", body), ("POST", "/v1/groups/sam/messages?wait=true", body),
            ("GET", "/v1/groups/sam/user", None), ("GET", "/v1/groups/sam/settings", None),
            ("PATCH", "/v1/groups/sam/settings", {"user_name": "Eve"}),
            ("GET", "/v1/groups/nowhere/user", None),
        ]:
            response = other.request(method, path, json=payload)
            _error(response, 404, None)
            assert "Sam" not in response.text
    with live.client() as anonymous:
        _error(anonymous.post("/v1/groups/sam/messages", json=body), 401, None)


def test_the_routes_are_in_the_published_schema(live: Live) -> None:
    with live.client() as anonymous:
        paths = anonymous.get("/openapi.json", timeout=60).json()["paths"]
    assert {"post"} <= set(paths["/v1/groups/{group}/messages"])
    assert {"get", "patch"} <= set(paths["/v1/groups/{group}/settings"])
    assert "get" in paths["/v1/groups/{group}/user"]


def test_every_route_is_in_the_rest_docs(live: Live) -> None:
    """docs/rest.md's table names every route of the published schema (placeholders aside)."""
    docs = (Path(__file__).resolve().parents[1] / "docs" / "rest.md").read_text(encoding="utf-8")

    def shape(path: str) -> str:
        return re.sub(r"\{[^}]*\}", "{}", path)

    named = re.findall(r"`(GET|POST|PATCH|PUT|DELETE) (/v1/[^` ]*)`", docs)
    documented = {(method, shape(path)) for method, path in named}
    with live.client() as anonymous:
        paths = anonymous.get("/openapi.json", timeout=60).json()["paths"]
    missing = [(m.upper(), p) for p, ops in paths.items() for m in ops if (m.upper(), shape(p)) not in documented]
    assert not missing
