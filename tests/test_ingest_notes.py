"""Saying when nothing was understood (notes on episodes), and a fresh memory
being healthy (summaries not built yet are a state, not a defect): through the
public API on every backend, the CLI, REST and MCP."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kronograph import AsyncMemory, Memory, metrics
from kronograph.cli import app
from kronograph.ingest.notes import MAX_NOTE_CHARS, MAX_NOTES

from .ingest_helpers import ScriptedProvider
from .server_helpers import live_server
from .test_ingest import T0, client

G = "g"
MIXED = "Ann Lee works at Acme. Does Bob live in Paris? The weather is lovely today."
CHATTER = "Hmm, lovely weather. See you soon!"


def test_sentences_that_gave_no_fact_are_noted_and_kept_with_the_episode(
    memory_factory: Callable[..., Memory],
) -> None:
    memory = memory_factory(model=None)
    mixed = memory.add_episode(G, MIXED, reference_time=T0, episode_id="mixed")
    assert [f.triple for f in mixed.created] == ["Ann Lee WORKS_AT Acme"]
    assert mixed.notes == [
        "no fact in (question): Does Bob live in Paris?",
        "nothing understood in: The weather is lovely today.",
    ]
    assert not mixed.understood_nothing  # a fact was taken from it
    chatter = memory.add_episode(G, CHATTER, reference_time=T0, episode_id="chatter")
    assert chatter.understood_nothing and not chatter.created
    assert chatter.notes == ["nothing understood in: Hmm, lovely weather.", "nothing understood in: See you soon!"]
    # Stored with the episode: read back one by one and listed, on every backend.
    assert memory.episode(G, "mixed").notes == mixed.notes
    assert {e.uuid: e.notes for e in memory.episodes(G)} == {"mixed": mixed.notes, "chatter": chatter.notes}
    again = memory.add_episode(G, CHATTER, reference_time=T0, episode_id="chatter")
    assert again.duplicate and not again.understood_nothing  # nothing done again, nothing to say
    # An explained episode (its notes say why) is not an "episode without mentions" defect.
    report = memory.reconcile(G)
    assert report.unmentioned_episodes == [] and report.ok
    assert memory.episodes("other") == []  # groups apart


def test_notes_are_bounded_in_count_and_length() -> None:
    long = "Blah " * 200 + "blah."
    content = " ".join(["Nice to meet you."] * (MAX_NOTES + 5) + [long])
    with Memory(model=None) as memory:
        result = memory.add_episode(G, content, reference_time=T0)
        assert len(result.notes) == MAX_NOTES + 1 and result.notes[-1] == "and 6 more sentences"
        assert all(len(note) <= MAX_NOTE_CHARS for note in result.notes)
        long_only = memory.add_episode(G, long, reference_time=T0)
        [note] = long_only.notes
        assert len(note) <= MAX_NOTE_CHARS and note.endswith("…")


def test_a_model_that_returns_no_fact_gives_the_whole_episode_note() -> None:
    empty = {"reasoning": "small talk", "entities": [], "facts": []}
    provider = ScriptedProvider(Extraction=lambda system, user: empty)
    with Memory(model=client(provider)) as memory:
        result = memory.add_episode(G, "Ann Lee: thanks, talk soon!", reference_time=T0, episode_id="e1")
        assert result.notes == ["nothing understood in the episode"] and result.understood_nothing
        assert memory.episode(G, "e1").notes == result.notes


def test_without_raw_content_the_stored_notes_quote_nothing(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", model=None, store_raw_content=False) as memory:
        result = memory.add_episode(G, "My pin is 4711, keep it secret.", reference_time=T0, episode_id="e1")
        assert result.notes == ["nothing understood in: My pin is 4711, keep it secret."]  # the caller's own words
        stored = memory.episode(G, "e1")
        assert stored.content is None and stored.notes == ["nothing understood in"]
    import sqlite3

    with sqlite3.connect(tmp_path / "m.db") as conn:
        assert conn.execute("SELECT COUNT(*) FROM episodes WHERE result LIKE '%4711%'").fetchone() == (0,)


def test_episodes_not_understood_are_counted_in_metrics() -> None:
    metrics.reset()
    with Memory(model=None) as memory:
        memory.add_episodes(G, [{"content": MIXED}, {"content": CHATTER}, {"content": "Thanks!"}])
        memory.add_episode(G, "Ok.", episode_id="ok")
        memory.add_episode(G, "Ok.", episode_id="ok")  # a duplicate: not counted again
    assert metrics.snapshot()["kronograph_episodes_not_understood_total"][""] == 3
    assert "kronograph_episodes_not_understood_total 3" in metrics.render()
    metrics.reset()


# -- a fresh memory is healthy -------------------------------------------------------------


def test_a_memory_just_filled_is_healthy_until_a_real_defect(memory_factory: Callable[..., Memory]) -> None:
    memory = memory_factory(model=None)
    memory.add_episodes(G, [
        {"content": "Ann Lee works at Acme.", "saga": "chat"},
        {"content": "Bo Chen lives in Oslo.", "saga": "chat"},
        {"content": CHATTER, "saga": "chat"},
    ])
    report = memory.reconcile(G)
    assert report.summaries_not_built == 4 and report.counts["stale_summaries"] == 4  # reported: a state
    assert report.saga_lag and report.ok and set(report.defects.values()) == {0}
    memory.summarize_entities(G)
    memory.add_episode(G, "Ann Lee works at Globex.")  # Ann's summary is behind her facts now
    behind = memory.reconcile(G)
    assert behind.summaries_not_built == 1 and len(behind.stale_summaries) >= 2 and behind.ok  # Globex; Ann


# -- the command line ------------------------------------------------------------------------


def _cli(db: Path, *args: str, expect: int = 0, input: str | None = None) -> str:
    result = CliRunner().invoke(app, [*args, "--db", str(db)], input=input, env={"COLUMNS": "200"})
    assert result.exit_code == expect, (args, result.exit_code, result.output, result.exception)
    return result.stdout


def test_cli_add_import_and_episodes_say_what_was_not_understood(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    out = _cli(db, "add", "team", CHATTER, "--offline", "--episode", "c1")
    assert "nothing understood in this episode" in out and "? nothing understood in: See you soon!" in out
    out = _cli(db, "add", "team", MIXED, "--offline")
    assert "nothing understood in this episode" not in out and "? no fact in (question): Does Bob" in out
    lines = tmp_path / "chat.jsonl"
    lines.write_text("\n".join(json.dumps({"content": c}) for c in ("Bo Chen lives in Oslo.", "Thanks!")) + "\n")
    out = _cli(db, "import", "team", str(lines), "--offline")
    assert "2 episodes: nothing understood in 1; see `kronograph episodes team`" in out
    assert "1  nothing understood" in out
    out = _cli(db, "episodes", "team")
    assert "not understood" in out and "nothing understood in: Thanks!" in out
    listed = json.loads(_cli(db, "episodes", "team", "--json"))
    assert {"c1": ["nothing understood in: Hmm, lovely weather.", "nothing understood in: See you soon!"]}.items() <= {
        e["uuid"]: e["notes"] for e in listed
    }.items()
    # Just imported: no summary built, sagas behind; healthy all the same.
    out = _cli(db, "doctor", "team")
    assert "summaries not built yet: 4" in out and "✓ group team" in out  # Ann Lee, Acme, Bo Chen, Oslo
    report = json.loads(_cli(db, "doctor", "team", "--json"))
    assert report["ok"] is True and report["summaries_not_built"] == 4 and set(report["defects"].values()) == {0}


def test_cli_doctor_still_fails_on_a_real_defect(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "m.db"
    _cli(db, "add", "team", "Ann Lee works at Acme.", "--offline")
    with sqlite3.connect(db) as conn:  # an entity nothing refers to: a defect
        conn.execute(
            "INSERT INTO entities(uuid, group_id, name, name_key, created_at) VALUES ('e-zed', 'team', 'Zed', 'zed', 0)"
        )
    out = _cli(db, "doctor", "team", expect=1)
    assert "orphan entity: Zed" in out and "summaries not built yet: 2" in out
    _cli(db, "doctor", "team", "--repair")  # the orphan deleted, the summaries built: clean
    assert "summaries not built yet: 0" in _cli(db, "doctor", "team")


# -- the services ----------------------------------------------------------------------------


def test_rest_answers_and_episodes_carry_the_notes(tmp_path: Path) -> None:
    with live_server(tmp_path / "kg.db", keys={"a": (["a"], False)}) as live, live.client("a") as api:
        done = api.post("/v1/groups/a/episodes?wait=true", json={"content": CHATTER, "episode_id": "c1"})
        assert done.status_code == 200 and done.json()["notes"][-1] == "nothing understood in: See you soon!"
        assert api.get("/v1/groups/a/episodes/c1").json()["notes"] == done.json()["notes"]
        listed = api.get("/v1/groups/a/episodes").json()["episodes"]
        assert [e["notes"] for e in listed] == [done.json()["notes"]]


def test_mcp_add_memory_and_get_episodes_carry_the_notes() -> None:
    from mcp import Client

    from kronograph.server.mcp_server import build_mcp_server
    from kronograph.server.mcp_tools import Access

    async def run() -> None:
        async with AsyncMemory(":memory:", model=None) as memory:
            async with Client(build_mcp_server(memory, access=Access.local([G]))) as mcp:
                added = await mcp.call_tool("add_memory", {"content": CHATTER, "episode_id": "c1"})
                assert not added.is_error, added.content
                assert added.structured_content["notes"][0] == "nothing understood in: Hmm, lovely weather."  # type: ignore[index]
                assert "(nothing understood in: See you soon!)" in added.content[0].text  # type: ignore[union-attr]
                got = await mcp.call_tool("get_episodes", {"episode_ids": ["c1"]})
                [episode] = got.structured_content["episodes"]  # type: ignore[index]
                assert episode["notes"] == added.structured_content["notes"]  # type: ignore[index]

    asyncio.run(run())


@pytest.mark.parametrize("content", ["Hi there!", "Would Ann move to Rome if she could?"])
def test_questions_and_hypotheticals_are_reported_as_no_fact(content: str) -> None:
    with Memory(model=None) as memory:
        result = memory.add_episode(G, content, reference_time=T0)
        assert result.understood_nothing and not memory.facts(G)
        assert result.notes and result.notes[0].split(":")[0] in ("nothing understood in", "no fact in (question)",
                                                                   "no fact in (hedged)")
