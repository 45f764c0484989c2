"""Tenant isolation over HTTP: every route of a group, taken from the app's
own route table (a new route cannot be forgotten), tried with a key of
another group, answers 404 with a body that does not depend on whether the
group or the resource exists, and changes nothing there. Admin-only routes
answer 403 to other keys."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from kronograph import AsyncMemory
from kronograph.server.app import create_app
from kronograph.server.keys import KeyRing

from .server_helpers import Live, live_server, sentence, wait_complete

KEYS = {"alpha": (["alpha"], False), "beta": (["beta"], False), "root": ([], True)}


def _routes() -> list[tuple[str, str]]:
    """Every (method, path) the app serves, from its published schema (which
    FastAPI builds from the route table: every API route is in it)."""
    app = create_app(AsyncMemory(":memory:", model=None), KeyRing(), run_queue=False)
    paths = app.openapi()["paths"]
    return [(method.upper(), path) for path, ops in paths.items() for method in sorted(ops)]


ROUTES = _routes()
GROUP_ROUTES = [r for r in ROUTES if "{group}" in r[1]]
BODIES = {
    "/v1/groups/{group}/episodes": {"content": "Mallory works at Evil Corp."},
    "/v1/groups/{group}/facts": {"subject": "Mallory", "relation": "OWNS", "object": "beta"},
    "/v1/groups/{group}/search": {"query": "Bruno"},
    "/v1/groups/{group}/forget": {"entity": "Bruno Smith"},
    "/v1/groups/{group}/reconcile": {"repair": True},
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Live, dict[str, str]]]:
    with live_server(tmp_path_factory.mktemp("tenants") / "kg.db", keys=KEYS) as server:
        with server.client("beta") as beta:
            beta.post("/v1/groups/beta/episodes", json={"content": sentence(1), "episode_id": "b1", "saga": "s"})
            wait_complete(beta, "beta", "b1")
            fact = beta.get("/v1/groups/beta/facts").json()["facts"][0]
            ids = {"episode_id": "b1", "fact_uuid": fact["uuid"], "entity_uuid": fact["subject_uuid"], "saga": "s"}
            yield server, ids


def _fill(path: str, group: str, ids: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: group if m.group(1) == "group" else ids[m.group(1)], path)


def test_the_route_table_is_what_the_contract_lists() -> None:
    assert len(GROUP_ROUTES) >= 24
    assert ("GET", "/v1/health") in ROUTES and ("GET", "/v1/metrics") in ROUTES and ("GET", "/v1/groups") in ROUTES


@pytest.mark.parametrize(("method", "path"), GROUP_ROUTES, ids=[f"{m} {p}" for m, p in GROUP_ROUTES])
def test_another_tenants_group_is_not_found_and_untouched(live: tuple[Live, dict[str, str]], method: str,
                                                          path: str) -> None:
    server, ids = live
    with server.client("alpha") as alpha, server.client("beta") as beta:
        before = beta.get("/v1/groups/beta/episodes").json(), beta.get(
            "/v1/groups/beta/facts", params={"include_retired": "true"}).json()
        answers = []
        for group, real in (("beta", ids), ("gamma", {k: "missing" for k in ids})):
            response = alpha.request(method, _fill(path, group, real), json=BODIES.get(path),
                                     params={"wait": "true"} if path.endswith("/episodes") and method == "POST"
                                     else None)
            assert response.status_code == 404, (group, response.text)
            body = response.json()
            assert body == {"error": {"code": "not_found", "message": f"no group {group!r} for this key",
                                      "field": None}}
            answers.append(body["error"]["message"].replace(group, "G"))
        assert answers[0] == answers[1]  # existing or not: the same answer
        after = beta.get("/v1/groups/beta/episodes").json(), beta.get(
            "/v1/groups/beta/facts", params={"include_retired": "true"}).json()
        assert before == after
        assert "beta" not in alpha.get("/v1/groups").json()["groups"]


@pytest.mark.parametrize("path", ["/v1/metrics"])
def test_admin_only_routes_are_forbidden_to_other_keys(live: tuple[Live, dict[str, str]], path: str) -> None:
    server, _ = live
    with server.client("alpha") as alpha, server.client("root") as root:
        response = alpha.get(path)
        assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden"
        assert root.get(path).status_code == 200


def test_search_of_one_group_never_returns_another(live: tuple[Live, dict[str, str]]) -> None:
    server, _ = live
    with server.client("alpha") as alpha:
        alpha.post("/v1/groups/alpha/facts", json={"subject": "Zed", "relation": "KNOWS", "object": "Yan"})
        found = alpha.post("/v1/groups/alpha/search", json={"query": "Bruno Smith works at Globex"}).json()
        for scope in ("facts", "entities", "episodes", "communities"):
            assert all(hit["item"]["group_id"] == "alpha" for hit in found[scope])
