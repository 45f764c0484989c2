"""Issue 13, item 8's property: arbitrary Unicode (lone surrogates, NUL,
control and format characters, any plane) and arbitrary times in every
string field either round-trip or are refused: InvalidInputError in the
library (never another exception), a 4xx at the REST door; and the group's
reads keep answering (200) afterwards. Example counts are modest (derandomised,
so every run checks the same cases)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from itertools import count
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kronograph import InvalidInputError, Memory
from kronograph.server.app import create_app
from kronograph.server.keys import KeyRing
from kronograph.time import parse_time

from .conftest import BACKENDS, StepClock, make_store

ANY_CHAR = st.characters(exclude_categories=())  # surrogates, controls, unassigned: everything
ANY_TEXT = st.text(ANY_CHAR, max_size=12)
TEXTISH = st.one_of(ANY_TEXT, st.sampled_from(["Ann", "Acme", "LIVES_IN", "s1", " x ", "\x00", "\ud800", "e\u0301"]))
OFFSETS = st.builds(lambda m: timezone(timedelta(minutes=m)), st.integers(-23 * 60 - 59, 23 * 60 + 59))
DATETIMES = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59),
                         timezones=st.one_of(st.none(), OFFSETS))
TIMES = st.one_of(
    st.none(), DATETIMES, DATETIMES.map(lambda d: d.isoformat()), ANY_TEXT,
    st.sampled_from(["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00", "-1", "1700000000",
                     "2024-03-01T09:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"]),
    st.integers(), st.floats(), st.booleans(),
)
JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXTISH)
JSON = st.recursive(JSON_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(TEXTISH, inner, max_size=3)), max_leaves=8)
JSON_RECORDS = st.one_of(
    st.dictionaries(TEXTISH, JSON, max_size=4),
    st.lists(st.dictionaries(TEXTISH, JSON, max_size=3), max_size=2),
    JSON,
)

EPISODE = st.fixed_dictionaries({"kind": st.sampled_from(["message", "text"]), "content": TEXTISH}, optional={
    "name": TEXTISH, "source_description": TEXTISH, "episode_id": TEXTISH, "saga": TEXTISH, "actor": TEXTISH,
    "reference_time": TIMES, "metadata": st.dictionaries(TEXTISH, JSON, max_size=3),
    "previous_episode_ids": st.lists(TEXTISH, max_size=2), "excluded_entity_types": st.lists(TEXTISH, max_size=2),
})
JSON_EPISODE = st.fixed_dictionaries({"kind": st.just("json"), "content": st.one_of(
    JSON_RECORDS, JSON_RECORDS.map(lambda v: json.dumps(v)))}, optional={"episode_id": TEXTISH, "saga": TEXTISH})
FACT = st.fixed_dictionaries({"subject": TEXTISH, "relation": TEXTISH, "object": TEXTISH}, optional={
    "fact": TEXTISH, "valid_at": TIMES, "invalid_at": TIMES, "episode_id": TEXTISH, "actor": TEXTISH,
    "subject_labels": st.lists(TEXTISH, max_size=2), "object_labels": st.lists(TEXTISH, max_size=2),
})
QUERY = st.fixed_dictionaries({"query": TEXTISH}, optional={
    "as_of": TIMES, "known_at": TIMES, "center_entity": TEXTISH, "limit": st.one_of(st.integers(), st.booleans())})

_groups = count()


def _time_of(value: Any) -> datetime:
    return parse_time(value) if value is not None else parse_time(datetime(2026, 1, 1, tzinfo=UTC))


# -- the library ------------------------------------------------------------------------------


class Library:
    """One memory per backend for all examples; each example writes its own group."""

    def __init__(self, backend: str, directory: Path) -> None:
        self.memory = Memory(make_store(backend, directory, "props"), model=None, clock=StepClock())

    def reads(self, group: str) -> None:
        m = self.memory
        for episode in m.episodes(group):
            json.dumps(episode.model_dump(mode="json"), ensure_ascii=False).encode()  # serialisable as UTF-8
        m.entities(group), m.facts(group, include_retired=True, include_expired=True), m.sagas(group)
        m.search(group, "Ann"), m.timeline(group, "Ann")
        m.export(group).model_dump_json()


@pytest.fixture(scope="module", params=BACKENDS)
def library(request: pytest.FixtureRequest) -> Iterator[Library]:
    with tempfile.TemporaryDirectory() as directory:
        lib = Library(request.param, Path(directory))
        yield lib
        lib.memory.close()


def _episode_round_trips(library: Library, fields: dict[str, Any], queued: bool) -> None:
    group = f"p{next(_groups)}"
    content = fields.pop("content")
    try:
        if queued:
            episode = library.memory.enqueue_episode(group, content, **fields)
        else:
            result = library.memory.add_episode(group, content, **fields)
            assert result.ok, result.error
            episode = library.memory.episode(group, result.episode_id)
    except InvalidInputError as exc:
        event(f"refused {exc.field}")
        library.reads(group)
        assert library.memory.episodes(group) == []
        return
    event("taken")
    if fields.get("kind", "message") != "json":
        assert episode.content == content
    assert episode.saga == fields.get("saga") and episode.actor == fields.get("actor")
    assert episode.uuid == fields.get("episode_id", episode.uuid)
    assert episode.metadata == fields.get("metadata", {})
    assert episode.reference_time == (_time_of(fields["reference_time"]) if fields.get("reference_time")
                                      else episode.created_at)
    library.reads(group)


@given(fields=EPISODE, queued=st.booleans())
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_any_episode_round_trips_or_is_refused(library: Library, fields: dict[str, Any], queued: bool) -> None:
    _episode_round_trips(library, fields, queued)


@given(fields=JSON_EPISODE)
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_any_json_episode_is_ingested_or_refused(library: Library, fields: dict[str, Any]) -> None:
    _episode_round_trips(library, fields, queued=False)


@given(fields=FACT, query=QUERY)
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_any_fact_round_trips_or_is_refused_and_any_query_answers_or_is_refused(
    library: Library, fields: dict[str, Any], query: dict[str, Any]
) -> None:
    group = f"p{next(_groups)}"
    m = library.memory
    try:
        result = m.add_fact(group, fields.pop("subject"), fields.pop("relation"), fields.pop("object"), **fields)
    except InvalidInputError:
        assert m.facts(group, include_retired=True) == []
    else:
        fact = m.fact(group, result.fact.uuid)
        assert fact is not None and fact == result.fact
        if fields.get("valid_at") is not None:
            assert fact.valid_at == _time_of(fields["valid_at"])
        if fields.get("fact", "").strip():
            assert fact.fact == fields["fact"].strip()
    try:
        m.search(group, query.pop("query"), **query)
    except InvalidInputError:
        pass
    library.reads(group)


# -- the REST door ------------------------------------------------------------------------------


class Service:
    def __init__(self, client: TestClient) -> None:
        self.client = client

    def send(self, method: str, path: str, body: Any = None) -> Any:
        # ASCII JSON: surrogates travel escaped; datetimes as ISO text; NaN as the non-JSON it is.
        data = None if body is None else json.dumps(body, default=lambda o: o.isoformat()).encode()
        return self.client.request(method, path, content=data, headers={"Content-Type": "application/json"})

    def reads(self, group: str) -> None:
        base = f"/v1/groups/{quote(group, safe='')}"
        for path in ("/episodes", "/entities", "/facts?include_retired=true", "/sagas", "/audit/events"):
            response = self.send("GET", base + path)
            assert response.status_code == 200, (path, response.text)
        response = self.send("POST", base + "/search", {"query": "Ann"})
        assert response.status_code == 200, response.text


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    from kronograph import AsyncMemory

    memory = AsyncMemory(tmp_path_factory.mktemp("props") / "kg.db", model=None)
    with TestClient(create_app(memory, KeyRing(), local=True, poll=0.05), raise_server_exceptions=False,
                    base_url="http://127.0.0.1") as client:
        yield Service(client)


def _answered(response: Any) -> bool:
    """True when taken (2xx); a refusal must be a 4xx in the error shape."""
    assert response.status_code < 500, response.text
    event(f"answered {response.status_code}")
    if response.status_code >= 400:
        assert response.json()["error"]["code"] in ("invalid_input", "not_found", "too_large"), response.text
        return False
    return True


@given(fields=st.one_of(EPISODE, JSON_EPISODE), wait=st.booleans())
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_any_episode_over_rest_round_trips_or_is_refused(service: Service, fields: dict[str, Any], wait: bool) -> None:
    group = f"r{next(_groups)}"
    response = service.send("POST", f"/v1/groups/{group}/episodes{'?wait=true' if wait else ''}", fields)
    if _answered(response):
        episode_id = response.json()["episode_id"]
        stored = service.send("GET", f"/v1/groups/{group}/episodes/{quote(episode_id, safe='')}")
        assert stored.status_code == 200, stored.text
        episode = stored.json()
        if fields["kind"] != "json":
            assert episode["content"] == fields["content"]
        assert episode["metadata"] == fields.get("metadata", {}) and episode["saga"] == fields.get("saga")
    service.reads(group)


@given(fields=FACT, query=QUERY, group=st.one_of(st.just("g"), ANY_TEXT))
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_any_fact_and_query_over_rest_answer_or_are_refused(
    service: Service, fields: dict[str, Any], query: dict[str, Any], group: str
) -> None:
    base = f"/v1/groups/{quote(group, safe='')}"
    path_ok = _answered(service.send("GET", base + "/episodes"))
    response = service.send("POST", base + "/facts", fields)
    if _answered(response):
        fact = response.json()["fact"]
        assert fact["relation"] == fields["relation"]
        got = service.send("GET", f"{base}/facts/{fact['uuid']}")
        assert got.status_code == 200 and got.json()["fact"] == fact
    _answered(service.send("POST", base + "/search", query))
    params = "&".join(f"{k}={quote(str(v), safe='')}" for k, v in query.items() if k in ("as_of", "known_at"))
    _answered(service.send("GET", f"{base}/facts?{params}"))
    if path_ok:
        service.reads(group)
