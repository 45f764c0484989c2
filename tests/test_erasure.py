"""Issue 20, items 1 and 2: erasing by data subject, and erasure receipts in
an append-only, hash-chained log; on SQLite and PostgreSQL, through the
library, REST, MCP and the CLI. (The Citus routing of the new reads and
writes is shown by tests/test_citus_routing.py's workload.)"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from typer.testing import CliRunner

from kronograph import AsyncMemory, ErasureReceipt, InvalidInputError, Memory, NotFoundError
from kronograph.cli import app as cli_app
from kronograph.erasure import verify_chain
from kronograph.search.engine import SCOPES
from kronograph.server.app import create_app
from kronograph.server.keys import KeyRing
from kronograph.server.mcp_server import build_mcp_server
from kronograph.server.mcp_tools import Access

from . import citus_server
from .conftest import store_url

G = "g"
KEY = "cust-1"
NAME = "Zorblax Quentin"
MakeMemory = Callable[..., Memory]


def _seed(memory: Memory | Any) -> str:
    """Two subjects share one fact; the other facts are each one subject's or nobody's.
    Returns the episode id add_fact filed the keyed fact under."""
    episodes = [("a1", "Alice Smith works at Acme.", KEY), ("a2", f"{NAME} lives in Paris.", KEY),
                ("b1", "Alice Smith works at Acme.", "cust-2"), ("b2", "Carol Okafor works at Initech.", None)]
    for eid, text, key in episodes:
        memory.add_episode(G, text, episode_id=eid, data_subject=key, reference_time="2024-01-01")
    return str(memory.add_fact(G, NAME, "KNOWS", "Carol Okafor", data_subject=KEY).episode_id)


def _dump(values: list[ErasureReceipt]) -> str:
    return json.dumps([v.model_dump(mode="json") for v in values])


def test_forget_a_data_subject_erases_what_only_it_stated(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    direct = _seed(memory)
    keyed = {f.fact: f.data_subject for f in memory.facts(G)}
    assert keyed == {"Alice Smith works at Acme": KEY, f"{NAME} lives in Paris": KEY,
                     "Carol Okafor works at Initech": None, f"{NAME} KNOWS Carol Okafor": KEY}
    assert memory.episode(G, "a1").data_subject == KEY and memory.episode(G, "b2").data_subject is None

    preview = memory.forget(G, data_subject=KEY, dry_run=True)
    assert preview.receipt is None and memory.erasures(G) == [] and len(memory.facts(G)) == 4

    report = memory.forget(G, data_subject=KEY, request_id="REQ-1", reason="GDPR article 17", actor="dpo")

    assert report.verified and report.leftovers == []
    assert sorted(report.episodes) == sorted(["a1", "a2", direct])
    assert report.needles == ["Paris", NAME]  # the entities known only from the subject's data
    # The shared fact stands on the other subject's episode, no longer filed under the key.
    left = {f.fact: f for f in memory.facts(G, include_retired=True, include_expired=True)}
    assert set(left) == {"Alice Smith works at Acme", "Carol Okafor works at Initech"}
    assert left["Alice Smith works at Acme"].episodes == ("b1",)
    assert left["Alice Smith works at Acme"].data_subject is None
    assert {e.name for e in memory.entities(G)} == {"Alice Smith", "Acme", "Carol Okafor", "Initech"}
    assert not [p for p in memory.episodes(G) if p.data_subject == KEY]
    for gone in ("a1", "a2"):
        with pytest.raises(NotFoundError):
            memory.episode(G, gone)
    for query in (NAME, "Paris"):
        found = memory.search(G, query, include_retired=True)
        hits = json.dumps([h.item.model_dump(mode="json") for scope in SCOPES for h in getattr(found, scope)])
        assert NAME not in hits and "Paris" not in hits
    with pytest.raises(NotFoundError):  # nothing is left under the key
        memory.forget(G, data_subject=KEY)


def test_receipts_are_chained_and_hold_no_erased_text(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _seed(memory)
    first = memory.forget(G, data_subject=KEY, request_id="REQ-1", reason="customer asked", actor="dpo",
                          on_behalf_of="legal")
    memory.add_episode(G, "Dana Rossi works at Globex.", episode_id="d1")
    second = memory.forget(G, episode_id="d1", request_id="REQ-2")
    third = memory.forget(G, entity="Carol Okafor")

    log = memory.erasures(G)
    assert [(r.seq, r.entry, r.by) for r in log] == [
        (1, "erasure", "data_subject"), (2, "verification", "data_subject"), (3, "erasure", "episode"),
        (4, "verification", "episode"), (5, "erasure", "entity"), (6, "verification", "entity")]
    assert [r.receipt_id for r in log[::2]] == [first.receipt.receipt_id, second.receipt.receipt_id,
                                                third.receipt.receipt_id]  # type: ignore[union-attr]
    assert log[0] == first.receipt
    receipt = log[0]
    assert (receipt.request_id, receipt.reason, receipt.actor, receipt.on_behalf_of) == (
        "REQ-1", "customer asked", "dpo", "legal")
    assert receipt.counts["episodes"] == 3 and receipt.counts["facts"] == 2 and receipt.counts["entities"] == 2
    assert receipt.verified is None and log[1].verified is True and log[1].leftovers == 0
    # A hash chain: each entry names the one before it, each digest is over the entry's own fields.
    assert log[0].previous == "" and all(b.previous == a.digest for a, b in zip(log, log[1:], strict=False))
    chain = memory.verify_erasure_log(G)
    assert chain.ok and chain.entries == 6
    tampered = [*log[:2], log[2].model_copy(update={"counts": {"episodes": 0}}), *log[3:]]
    assert not verify_chain(G, tampered).ok
    assert not verify_chain(G, [log[0], *log[2:]]).ok  # an entry removed
    assert [r.seq for r in memory.erasures(G, request_id="REQ-2")] == [3, 4]
    assert memory.erasures("another-group") == []
    assert memory.export(G).erasures == log and memory.export("another-group").erasures == []
    text = _dump(log).casefold()
    for erased in (NAME, "Paris", "Carol Okafor", "Dana Rossi", KEY):
        assert erased.casefold() not in text
    # The receipt is not a trace: a later forget never finds (nor could erase) it.
    assert all(r.verified for r in log if r.entry == "verification")


def test_a_request_naming_what_goes_is_refused_with_nothing_written(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _seed(memory)
    before = (memory.episodes(G), memory.facts(G), memory.audit_events(G))
    for fields in ({"request_id": f"erase {NAME}"}, {"reason": "the paris customer"}, {"reason": f"for {KEY}"},
                   {"request_id": "bad\x07id"}, {"reason": "x" * 1001}):
        with pytest.raises(InvalidInputError):
            memory.forget(G, data_subject=KEY, **fields)
    with pytest.raises(InvalidInputError):
        memory.forget(G, entity="Carol Okafor", request_id="Carol Okafor's request")
    with pytest.raises(InvalidInputError, match="exactly one"):
        memory.forget(G, entity=NAME, data_subject=KEY)
    for bad in ("", "x" * 201, "a\nb", "\ud800"):
        with pytest.raises(InvalidInputError, match="data_subject"):
            memory.add_episode(G, "Ed works at Hooli.", data_subject=bad)
        with pytest.raises(InvalidInputError, match="data_subject"):
            memory.add_fact(G, "Ed", "WORKS_AT", "Hooli", data_subject=bad)
    assert (memory.episodes(G), memory.facts(G), memory.audit_events(G)) == before
    assert memory.erasures(G) == []
    with pytest.raises(NotFoundError):
        memory.forget(G, data_subject="nobody")


@pytest.mark.parametrize("backend", ["sqlite-file", "postgres", "citus"])
def test_the_database_refuses_to_change_the_log(backend: str, tmp_path: Path) -> None:
    """Raw SQL cannot change the log: SQLite's triggers, PostgreSQL's trigger (on Citus, on the group's shard)."""
    where = "sqlite" if backend == "sqlite-file" else "postgres"
    if backend == "citus":
        citus_server.coordinator_url()  # skips where the cluster is unavailable
    target = str(tmp_path / "k.db") if where == "sqlite" else store_url(backend)
    with Memory(target, model=None) as memory:
        _seed(memory)
        memory.forget(G, data_subject=KEY, request_id="REQ-1")
        assert len(memory.erasures(G)) == 2
    statements = ["UPDATE erasure_log SET reason = 'rewritten'", "DELETE FROM erasure_log"]
    for statement in statements:
        if where == "sqlite":
            with sqlite3.connect(target) as conn, pytest.raises(sqlite3.DatabaseError, match="append-only"):
                conn.execute(statement)
        else:
            with psycopg.connect(target) as conn, pytest.raises(psycopg.DatabaseError, match="append-only"):
                conn.execute(statement)  # type: ignore[arg-type]
    with Memory(target, model=None) as memory:
        assert len(memory.erasures(G)) == 2 and memory.verify_erasure_log(G).ok


def test_rest_forgets_a_data_subject_and_lists_only_its_own_groups_receipts(tmp_path: Path) -> None:
    ring = KeyRing()
    secrets = {"g": ring.add("g", [G])[1], "h": ring.add("h", ["h"])[1]}
    memory = AsyncMemory(tmp_path / "kg.db", model=None)
    with TestClient(create_app(memory, ring, poll=0.05)) as client:
        def send(method: str, path: str, key: str = "g", **kw: Any) -> Any:
            return client.request(method, path, headers={"Authorization": f"Bearer {secrets[key]}"}, **kw)

        for eid, text, key in [("a1", f"{NAME} lives in Paris.", KEY), ("b1", "Carol Okafor works at Initech.", None)]:
            body = {"content": text, "episode_id": eid, "data_subject": key, "reference_time": "2024-01-01"}
            assert send("POST", f"/v1/groups/{G}/episodes?wait=true", json=body).status_code == 200
        response = send("POST", f"/v1/groups/{G}/facts", json={"subject": NAME, "relation": "KNOWS",
                                                               "object": "Carol Okafor", "data_subject": KEY})
        assert response.status_code == 201 and response.json()["fact"]["data_subject"] == KEY
        refused = send("POST", f"/v1/groups/{G}/forget", json={"data_subject": KEY, "request_id": "Paris-1"})
        assert refused.status_code == 400 and refused.json()["error"]["field"] == "request_id"
        response = send("POST", f"/v1/groups/{G}/forget",
                        json={"data_subject": KEY, "request_id": "REQ-7", "reason": "erasure request"})
        assert response.status_code == 200, response.text
        report = response.json()
        assert report["verified"] and report["receipt"]["request_id"] == "REQ-7"
        assert report["receipt"]["actor"].startswith("key:")  # the calling key, as on every write
        listed = send("GET", f"/v1/groups/{G}/erasures").json()
        assert [r["entry"] for r in listed["receipts"]] == ["erasure", "verification"] and listed["chain"]["ok"]
        assert send("GET", f"/v1/groups/{G}/erasures", params={"request_id": "REQ-8"}).json()["receipts"] == []
        assert send("GET", f"/v1/groups/{G}/erasures", key="h").status_code in (403, 404)
        assert send("GET", "/v1/groups/h/erasures", key="h").json()["receipts"] == []


def test_mcp_forget_and_get_erasures() -> None:
    async def run() -> None:
        async with AsyncMemory(":memory:", model=None) as memory:
            await memory.add_episode(G, f"{NAME} lives in Paris.", episode_id="a1", data_subject=KEY)
            async with Client(build_mcp_server(memory, access=Access.local([G]))) as client:
                filed = await client.call_tool("add_memory", {
                    "content": f"{NAME} works at Globex.", "kind": "text", "data_subject": KEY})
                assert not filed.is_error, filed.content
                said = await client.call_tool("add_memory", {
                    "messages": [{"role": "user", "name": NAME, "content": "I moved to Lyon."}], "data_subject": KEY})
                assert not said.is_error, said.content
                assert {e.data_subject for e in await memory.episodes(G)} == {KEY}
                result = await client.call_tool("forget", {"data_subject": KEY, "request_id": f"{NAME} request"})
                assert result.is_error and "request_id" in result.content[0].text  # type: ignore[union-attr]
                result = await client.call_tool("forget", {"data_subject": KEY, "request_id": "REQ-3"})
                assert not result.is_error, result.content
                out = result.structured_content
                assert out is not None and out["verified"] and out["episodes"] == 3
                assert out["receipt"]["by"] == "data_subject"
                listed = await client.call_tool("get_erasures", {"request_id": "REQ-3"})
                assert not listed.is_error and listed.structured_content is not None
                assert [r["entry"] for r in listed.structured_content["receipts"]] == ["erasure", "verification"]
                assert "hash chain intact" in listed.content[0].text  # type: ignore[union-attr]
                other = await client.call_tool("get_erasures", {"group_id": "elsewhere"})
                assert other.is_error  # a group the caller may not use reads as missing

    asyncio.run(run())


def test_cli_forget_by_data_subject_and_erasures(tmp_path: Path) -> None:
    db = str(tmp_path / "kg.db")
    with Memory(db, model=None) as memory:
        _seed(memory)
    runner = CliRunner()
    result = runner.invoke(cli_app, ["forget", G, "--data-subject", KEY, "--request-id", "REQ-5", "--reason",
                                     "customer asked", "--yes", "--db", db])
    assert result.exit_code == 0, result.output
    assert "checked" in result.output and "receipt" in result.output
    result = runner.invoke(cli_app, ["erasures", G, "--db", db])
    assert result.exit_code == 0, result.output
    assert "by data_subject" in result.output and "chain intact" in result.output and NAME not in result.output
    result = runner.invoke(cli_app, ["erasures", G, "--request-id", "REQ-5", "--json", "--db", db])
    assert [r["entry"] for r in json.loads(result.output)] == ["erasure", "verification"]
    result = runner.invoke(cli_app, ["forget", G, "--data-subject", KEY, "--episode", "x", "--yes", "--db", db])
    assert result.exit_code != 0
    result = runner.invoke(cli_app, ["add-fact", G, "Una Vale", "LIVES_IN", "Oslo", "--data-subject", "cust-3",
                                     "--db", db])
    assert result.exit_code == 0, result.output
    with Memory(db, model=None) as memory:
        assert [f.data_subject for f in memory.facts(G, subject="Una Vale")] == ["cust-3"]
    result = runner.invoke(cli_app, ["forget", G, "--data-subject", "cust-3", "--yes", "--db", db])
    assert result.exit_code == 0, result.output


def test_a_receipt_digest_is_over_its_own_fields_only() -> None:
    entry = ErasureReceipt(receipt_id="r", group_id=G, seq=1, entry="erasure", by="entity",
                           recorded_at="2024-01-01T00:00:00Z", counts={"facts": 2})  # type: ignore[arg-type]
    from kronograph.erasure import receipt_digest, sealed

    one = sealed(entry)
    assert one.digest == receipt_digest(entry) and len(one.digest) == 64
    assert sealed(entry.model_copy(update={"reason": "x"})).digest != one.digest
    assert verify_chain(G, [one]).ok
