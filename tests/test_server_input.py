"""Issue 13, items 3, 8 and 9, at the REST door: what the library refuses is
refused here too, as a 4xx naming the field with nothing written, and what
is accepted reads back (no 500, then or later, on any read of the group)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from kronograph import AsyncMemory
from kronograph.server.app import create_app
from kronograph.server.keys import KeyRing

from .test_input_rules import nested


class Door:
    """A service in-process, with a key for group ``bob`` and an admin key."""

    def __init__(self, client: TestClient, secrets: dict[str, str]) -> None:
        self.client, self.secrets = client, secrets

    def send(self, method: str, path: str, body: Any = None, key: str = "bob") -> Any:
        """``body`` is sent as ASCII JSON, so lone surrogates travel as ``\\ud800`` escapes."""
        headers = {"Authorization": f"Bearer {self.secrets[key]}", "Content-Type": "application/json"}
        data = None if body is None else json.dumps(body).encode()
        return self.client.request(method, path, content=data, headers=headers)

    def reads_are_fine(self, group: str = "bob") -> None:
        for path in ("episodes", "entities", "facts?include_retired=true", "sagas", "communities", "audit/events"):
            response = self.send("GET", f"/v1/groups/{group}/{path}", key="admin")
            assert response.status_code == 200, (path, response.text)
        response = self.send("POST", f"/v1/groups/{group}/search", {"query": "Ann"}, key="admin")
        assert response.status_code == 200, response.text

    def stored(self, group: str = "bob") -> tuple[object, ...]:
        episodes = self.send("GET", f"/v1/groups/{group}/episodes", key="admin").json()["episodes"]
        facts = self.send("GET", f"/v1/groups/{group}/facts?include_retired=true", key="admin").json()["facts"]
        return sorted(e["uuid"] for e in episodes), sorted(f["uuid"] for f in facts)


@pytest.fixture(scope="module")
def door(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Door]:
    ring = KeyRing()
    secrets = {"bob": ring.add("bob", ["bob"])[1], "admin": ring.add("ops", admin=True)[1]}
    memory = AsyncMemory(Path(tmp_path_factory.mktemp("door")) / "kg.db", model=None)
    app = create_app(memory, ring, poll=0.05)
    with TestClient(app, raise_server_exceptions=False) as client:
        served = Door(client, secrets)
        assert served.send("POST", "/v1/groups/bob/facts", {"subject": "Ann", "relation": "LIVES_IN",
                                                            "object": "Rome"}).status_code == 201
        yield served


def refused(response: Any, field: str | None) -> None:
    assert 400 <= response.status_code < 500 and response.status_code not in (401, 404), response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_input"
    if field is not None:
        assert error["field"] == field or (error["field"] or "").startswith(f"{field}."), error


# -- item 3 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("group", ["bob ", "bob\u00a0", " bob", "bo\u200bb", "bob\t", "bo\u0301b"])
@pytest.mark.parametrize("key", ["bob", "admin"])
def test_a_padded_or_invisible_group_never_reaches_the_group(door: Door, group: str, key: str) -> None:
    before = door.stored()
    path = f"/v1/groups/{quote(group, safe='')}"
    for method, route, body in [
        ("POST", "/facts", {"subject": "Ann", "relation": "LIVES_IN", "object": "Oslo"}),
        ("POST", "/episodes?wait=true", {"content": "Ann lives in Oslo."}),
        ("POST", "/episodes", {"content": "Ann lives in Oslo."}),
        ("GET", "/facts", None), ("GET", "/episodes", None), ("POST", "/search", {"query": "Ann"}),
    ]:
        response = door.send(method, path + route, body, key=key)
        refused(response, "group")
    assert door.stored() == before


@pytest.mark.parametrize(("body", "field"), [
    ({"content": "x", "saga": "s "}, "saga"), ({"content": "x", "episode_id": "e\u00a0"}, "episode_id"),
    ({"content": "x", "actor": "\u200bann"}, "actor"), ({"content": "x", "previous_episode_ids": ["e1 "]},
                                                       "previous_episode_ids"),
    ({"content": "x", "excluded_entity_types": ["Person\n"]}, "excluded_entity_types"),
])
def test_other_identifiers_are_refused_at_the_door(door: Door, body: dict[str, Any], field: str) -> None:
    before = door.stored()
    refused(door.send("POST", "/v1/groups/bob/episodes", body), field)
    assert door.stored() == before


@pytest.mark.parametrize(("extra", "field"), [
    ({"relation": "LIVES_IN "}, "relation"), ({"subject_labels": ["Person\u00a0"]}, "subject_labels"),
    ({"object_labels": ["e\u0301"]}, "object_labels"), ({"episode_id": " f"}, "episode_id"),
])
def test_fact_identifiers_are_refused_at_the_door(door: Door, extra: dict[str, Any], field: str) -> None:
    before = door.stored()
    body = {"subject": "Ann", "relation": "LIVES_IN", "object": "Oslo", **extra}
    refused(door.send("POST", "/v1/groups/bob/facts", body), field)
    assert door.stored() == before


# -- item 8 ----------------------------------------------------------------------------------


S = "x\ud800y"


@pytest.mark.parametrize(("route", "body", "field"), [
    ("episodes", {"content": "Ann lives in Rome.", "metadata": {"a": S}}, "metadata"),
    ("episodes", {"content": "Ann lives in Rome.", "metadata": {S: 1}}, "metadata"),
    ("episodes", {"content": "Ann lives in Rome.", "metadata": {"a": [{"b": [S]}]}}, "metadata"),
    ("episodes", {"content": "Ann lives in Rome.", "metadata": {"a": "nul\x00"}}, "metadata"),
    ("episodes?wait=true", {"content": S}, "content"),
    ("episodes", {"content": S}, "content"),
    ("episodes", {"content": {"name": "Acme", "x": S}, "kind": "json"}, "content"),
    ("episodes", {"content": {"name": "Acme", S: 1}, "kind": "json"}, "content"),
    ("episodes", {"content": '{"name": "Acme", "x": "\\ud800"}', "kind": "json"}, "content"),
    ("episodes", {"content": "Ann lives in Rome.", "name": S}, "name"),
    ("episodes", {"content": "Ann lives in Rome.", "source_description": S}, "source_description"),
    ("episodes", {"content": "Ann lives in Rome.", "saga": S}, "saga"),
    ("episodes", {"content": {"name": "Acme"}, "kind": "json", "json_mapping": {"ignore_keys": [S]}},
     "json_mapping"),
    ("facts", {"subject": "Ann", "relation": "R", "object": "B", "subject_labels": [S]}, "subject_labels"),
    ("facts", {"subject": S, "relation": "R", "object": "B"}, "subject"),
    ("facts", {"subject": "Ann", "relation": S, "object": "B"}, "relation"),
    ("facts", {"subject": "Ann", "relation": "R", "object": "B", "fact": S}, "fact"),
    ("search", {"query": S}, "query"),
    ("search", {"query": "Ann", "center_entity": [S]}, "center_entity"),
    ("forget", {"entity": S}, "entity"),
])
def test_a_lone_surrogate_is_refused_at_the_door_and_the_group_still_reads(
    door: Door, route: str, body: dict[str, Any], field: str
) -> None:
    before = door.stored()
    response = door.send("POST", f"/v1/groups/bob/{route}", body)
    assert response.status_code == 422, response.text
    refused(response, field)
    assert door.stored() == before
    door.reads_are_fine()


# -- item 9 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("when", ["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00", "-1", "0",
                                  "1700000000", 1700000000, 1.5, True, "2024", "soon"])
def test_a_time_past_the_calendar_or_not_a_time_is_refused_naming_it(door: Door, when: object) -> None:
    before = door.stored()
    fact = {"subject": "Ann", "relation": "LIVES_IN", "object": "Oslo"}
    for route, body, field in [
        ("episodes", {"content": "Ann lives in Oslo.", "reference_time": when}, "reference_time"),
        ("episodes?wait=true", {"content": "Ann lives in Oslo.", "reference_time": when}, "reference_time"),
        ("facts", {**fact, "valid_at": when}, "valid_at"), ("facts", {**fact, "invalid_at": when}, "invalid_at"),
        ("search", {"query": "Ann", "as_of": when}, "as_of"),
        ("search", {"query": "Ann", "known_at": when}, "known_at"),
    ]:
        refused(door.send("POST", f"/v1/groups/bob/{route}", body), field)
    for name in ("as_of", "known_at"):
        refused(door.send("GET", f"/v1/groups/bob/facts?{name}={quote(str(when))}"), name)
    assert door.stored() == before


def test_the_ends_of_the_calendar_in_utc_are_times(door: Door) -> None:
    body = {"subject": "Cy", "relation": "LIVES_IN", "object": "Paris", "valid_at": "0001-01-01T00:00:00Z",
            "invalid_at": "9999-12-31T18:59:59-05:00"}
    assert door.send("POST", "/v1/groups/bob/facts", body).status_code == 201
    response = door.send("GET", "/v1/groups/bob/facts?subject=Cy&as_of=9999-12-31T23:00:00Z")
    assert response.status_code == 200 and [f["object"] for f in response.json()["facts"]] == ["Paris"]
    response = door.send("POST", "/v1/groups/bob/episodes?wait=true",
                         {"content": "Tomorrow Ann moves to Oslo.", "reference_time": "9999-12-31T23:59:59Z"})
    assert response.status_code == 200 and response.json()["status"] == "complete"
    door.reads_are_fine()


@pytest.mark.parametrize(("route", "body", "field"), [
    ("search", {"query": "Ann", "limit": True}, "limit"), ("search", {"query": "Ann", "limit": 2.0}, "limit"),
    ("search", {"query": "Ann", "limit": 2.5}, "limit"), ("search", {"query": "Ann", "limit": "3"}, "limit"),
    ("search", {"query": "Ann", "include_retired": 1}, "include_retired"),
    ("search", {"query": "Ann", "include_retired": "true"}, "include_retired"),
    ("forget", {"entity": "Zed", "dry_run": 0}, "dry_run"), ("reconcile", {"repair": "yes"}, "repair"),
    ("episodes", {"content": "Ann lives in Rome.", "metadata": {"x": 1e400}}, "metadata"),
    ("episodes", {"content": nested(400), "kind": "json"}, "content"),
    ("episodes", {"content": "Ann lives in Rome.", "metadata": nested(200)}, "metadata"),
    ("episodes", {"content": [1, 2, 3], "kind": "json"}, "content"),
    ("episodes", {"content": "[1, 2, 3]", "kind": "json"}, "content"),
    ("episodes", {"content": 42, "kind": "json"}, "content"),
    ("episodes", {"content": nested(20), "kind": "json"}, "content"),  # past the mapping's max_depth (16)
    ("episodes", {"content": {"name": "Acme"}, "kind": "message"}, "content"),
    ("episodes", {"content": {"name": "Acme"}, "kind": "json", "json_mapping": {"max_depth": True}},
     "json_mapping"),
])
def test_numbers_flags_and_json_are_strict(door: Door, route: str, body: dict[str, Any], field: str) -> None:
    before = door.stored()
    refused(door.send("POST", f"/v1/groups/bob/{route}", body), field)
    if route == "episodes":
        refused(door.send("POST", "/v1/groups/bob/episodes?wait=true", body), field)
    assert door.stored() == before


def test_a_body_nested_past_any_stack_is_refused(door: Door) -> None:
    data = b'{"content": ' + b"[" * 100_000 + b"]" * 100_000 + b', "kind": "json"}'
    response = door.client.post("/v1/groups/bob/episodes", content=data, headers={
        "Authorization": f"Bearer {door.secrets['bob']}", "Content-Type": "application/json"})
    assert 400 <= response.status_code < 500, response.text
    assert response.json()["error"]["field"] == "body", response.text
    door.reads_are_fine()


@pytest.mark.parametrize(("path", "field"), [
    ("/v1/groups/bob/facts?limit=1.0", "limit"), ("/v1/groups/bob/facts?limit=true", "limit"),
    ("/v1/groups/bob/facts?limit=1e3", "limit"), ("/v1/groups/bob/facts?subject=a%00", "subject"),
    ("/v1/groups/bob/facts?as_of=1700000000", "as_of"), ("/v1/groups/bob/facts?known_at=-1", "known_at"),
    ("/v1/groups/bob/facts?as_of=2024-01-01T00:00:00%2B25:00", "as_of"),
    ("/v1/groups/bob/episodes/e%00", "episode_id"), ("/v1/groups/bob/episodes/e%20", "episode_id"),
    ("/v1/groups/bob/facts/%E2%80%8Bf", "fact_uuid"), ("/v1/groups/bob/sagas/s%C2%A0", "saga"),
    ("/v1/groups/bob/entities/x%01", "entity_uuid"), ("/v1/groups/bob/timeline?entity=a%00", "entity"),
])
def test_query_and_path_values_follow_the_same_rules(door: Door, path: str, field: str) -> None:
    refused(door.send("GET", path), field)
