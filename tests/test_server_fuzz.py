"""Property-based fuzzing of the REST service from its own OpenAPI schema
(schemathesis): whatever a client sends, no 5xx, and every answer matches
the schema (declared status codes, content types and bodies). Bounded
examples per operation, so the suite stays quick."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from kronograph import AsyncMemory
from kronograph.server.app import create_app
from kronograph.server.keys import KeyRing

from .server_helpers import Live, live_server, sentence, wait_complete


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with live_server(tmp_path_factory.mktemp("fuzz") / "kg.db", keys={"root": ([], True)}) as server:
        with server.client("root") as root:  # something to find
            root.post("/v1/groups/g/episodes", json={"content": sentence(3), "episode_id": "e1", "saga": "s"})
            wait_complete(root, "g", "e1")
        yield server


def _schema() -> dict:
    """The schema the service publishes (the same app, no server needed to read it)."""
    app = create_app(AsyncMemory(":memory:", model=None), KeyRing(), run_queue=False)
    return app.openapi()


schema = schemathesis.openapi.from_dict(_schema())


@schema.parametrize()
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_no_server_error_and_every_answer_matches_the_schema(case: schemathesis.Case, fuzz_server: Live) -> None:
    case.call_and_validate(
        base_url=fuzz_server.url,
        headers={"Authorization": f"Bearer {fuzz_server.secrets['root']}"},
        checks=[not_a_server_error, response_schema_conformance, status_code_conformance, content_type_conformance],
    )
