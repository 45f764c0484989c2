"""Entity repair through its shells: ``kronograph merge``/``split``, doctor's
pointer to them, and the REST routes (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("typer")

from typer.testing import CliRunner  # noqa: E402

from kronograph import Memory  # noqa: E402
from kronograph.cli import app  # noqa: E402

from . import pg_server  # noqa: E402
from .server_helpers import Live, live_server  # noqa: E402


def _cli(*args: str, expect: int = 0) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})  # type: ignore[arg-type]
    assert result.exit_code == expect, (args, result.output, result.exception)
    assert "Traceback" not in result.output
    return result.output


def _seed(db: str) -> None:
    with Memory(db, model=None) as memory:
        memory.add_fact("team", "Acme Corp", "BASED_IN", "Oslo", valid_at="2020-01-01")
        memory.add_fact("team", "AcmeCorp", "EMPLOYS", "Dana", valid_at="2021-01-01")
        memory.add_fact("team", "AcmeCorp", "BASED_IN", "Oslo", valid_at="2020-06-01")


def test_doctor_points_at_the_merge_and_the_cli_merges_and_splits(tmp_path: Path) -> None:
    db = str(tmp_path / "kg.db")
    _seed(db)
    with Memory(db, model=None) as memory:
        before = memory.facts("team", include_retired=True, include_expired=True), memory.entities("team")
        acme = {e.name: e.uuid for e in memory.entities("team")}
    doctor = _cli("doctor", "team", "--db", db, expect=1)  # a fragment candidate is a defect
    command = f"kronograph merge team {acme['Acme Corp']} {acme['AcmeCorp']} --db {db}"
    assert command in " ".join(doctor.split())  # the exact line to paste, fuller name kept

    out = _cli("merge", "team", acme["Acme Corp"], acme["AcmeCorp"], "--db", db, "--actor", "ops")
    assert "merged 1 entity into Acme Corp" in out and "1 duplicate joined" in out
    merge_id = out.split("merge id:")[1].split()[0]
    with Memory(db, model=None) as memory:
        assert [f.subject for f in memory.facts("team", subject="AcmeCorp")] == ["Acme Corp", "Acme Corp"]
        (event,) = [e for e in memory.audit_events("team") if e.kind == "entities_merged"]
        assert event.actor == "ops"
    assert "maybe one entity" not in _cli("doctor", "team", "--db", db)

    split = json.loads(_cli("split", "team", merge_id, "--db", db, "--json"))
    assert [e["name"] for e in split["restored"]] == ["AcmeCorp"] and len(split["restored_facts"]) == 1
    with Memory(db, model=None) as memory:
        after = memory.facts("team", include_retired=True, include_expired=True), memory.entities("team")
    strip = [e.model_copy(update={"summary_stale": False}) for e in before[1]]
    assert after[0] == before[0] and [e.model_copy(update={"summary_stale": False}) for e in after[1]] == strip

    assert "already split" in _cli("split", "team", merge_id, "--db", db, expect=2)
    assert "no merge" in _cli("split", "team", "nope", "--db", db, expect=2)
    assert "itself" in _cli("merge", "team", "Acme Corp", acme["Acme Corp"], "--db", db, expect=2)
    assert "Nobody" in _cli("merge", "team", "Acme Corp", "Nobody", "--db", db, expect=2)
    assert "Usage" in _cli("merge", "team", "Acme Corp", "--db", db, expect=2)  # MERGE... is required


@pytest.fixture(params=["sqlite", "postgres"])
def live(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Live]:
    db = str(tmp_path / "kg.db") if request.param == "sqlite" else pg_server.databases().fresh()
    _seed(db)
    keys = {"team": (["team"], False), "other": (["other"], False)}
    with live_server(db, keys=keys) as server:
        yield server


def test_rest_merge_and_split(live: Live) -> None:
    with live.client("team") as team, live.client("other") as other:
        entities = team.get("/v1/groups/team/entities").json()["entities"]
        acme = {e["name"]: e["uuid"] for e in entities}
        before = team.get("/v1/groups/team/facts", params={"include_retired": "true"}).json()

        refused = other.post("/v1/groups/team/entities/merge", json={"keep": "Acme Corp", "merge": ["AcmeCorp"]})
        assert refused.status_code == 404  # a group not bound to the key is not found
        unknown = other.post("/v1/groups/other/entities/merge", json={"keep": acme["Acme Corp"], "merge": ["x"]})
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
        assert "Acme" not in unknown.text
        itself = team.post("/v1/groups/team/entities/merge", json={"keep": "Acme Corp", "merge": ["acme corp"]})
        assert itself.status_code == 400 and itself.json()["error"]["field"] == "merge"
        empty = team.post("/v1/groups/team/entities/merge", json={"keep": "Acme Corp", "merge": []})
        assert empty.status_code == 422

        merged = team.post("/v1/groups/team/entities/merge",
                           json={"keep": "Acme Corp", "merge": ["AcmeCorp"], "actor": "user-7"})
        assert merged.status_code == 200, merged.text
        body = merged.json()
        assert body["keep"]["aliases"] == ["AcmeCorp"] and body["merged"] == [acme["AcmeCorp"]]
        facts = team.get("/v1/groups/team/facts", params={"subject": "acmecorp"}).json()["facts"]
        assert {f["subject"] for f in facts} == {"Acme Corp"}
        events = team.get("/v1/groups/team/audit/events").json()["events"]
        assert any(e["kind"] == "entities_merged" and e["on_behalf_of"] == "user-7" and e["actor"] for e in events)

        assert other.post("/v1/groups/other/entities/split", json={"merge_id": body["merge_id"]}).status_code == 404
        split = team.post("/v1/groups/team/entities/split", json={"merge_id": body["merge_id"]})
        assert split.status_code == 200, split.text
        assert team.get("/v1/groups/team/facts", params={"include_retired": "true"}).json() == before
        again = team.post("/v1/groups/team/entities/split", json={"merge_id": body["merge_id"]})
        assert again.status_code == 400 and again.json()["error"]["field"] == "merge_id"


def test_openapi_lists_the_repair_routes(live: Live) -> None:
    paths = httpx.get(f"{live.url}/openapi.json", timeout=60).json()["paths"]
    assert "post" in paths["/v1/groups/{group}/entities/merge"]
    assert "post" in paths["/v1/groups/{group}/entities/split"]
