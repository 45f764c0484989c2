"""Issue 14 on the command line: ``import`` reads a conversation (JSON Lines
of messages, or a .json file), ``add --role`` adds one message, ``user`` and
``settings`` show and name the group's user."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from . import test_cli
from .test_cli import Invoke

cli, db = test_cli.cli, test_cli.db  # the command line's fixtures, shared

CHAT = [
    {"role": "user", "content": "Hi, I'm Sam. I work at Northwind.", "created_at": "2024-01-05T10:00:00Z"},
    {"role": "assistant", "content": "Nice to meet you, Sam! Do you like Northwind?",
     "created_at": "2024-01-05T10:00:05Z"},
    {"role": "user", "content": "I live in Lisbon.", "created_at": "2024-02-01T09:00:00Z", "id": "m3"},
    {"role": "user", "content": "What should I cook tonight?", "created_at": "2024-02-01T09:01:00Z"},
]


def _jsonl(path: Path, lines: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def _facts(cli: Invoke, group: str) -> set[str]:
    return {f"{f['subject']} {f['relation']} {f['object']}" for f in json.loads(cli("facts", group, "--json").stdout)}


def test_import_a_chat_then_first_person_facts_are_the_users(cli: Invoke, tmp_path: Path) -> None:
    chat = _jsonl(tmp_path / "chat.jsonl", CHAT)
    out = cli("import", "me", str(chat), "--user-name", "Sam Carter", "--thread", "t1", "--offline").stdout
    assert "4 episodes (messages)" in out and "2  facts created" in out
    assert "2  nothing understood" in out  # the assistant's question and the user's
    assert _facts(cli, "me") == {"Sam Carter WORKS_AT Northwind", "Sam Carter LIVES_IN Lisbon"}
    episodes = json.loads(cli("episodes", "me", "--json").stdout)
    assert [(e["speaker"], e["role"], e["saga"]) for e in episodes] == [
        ("Sam Carter", "user", "t1"), ("Assistant", "assistant", "t1"), ("Sam Carter", "user", "t1"),
        ("Sam Carter", "user", "t1")]
    assert episodes[2]["uuid"] == "m3" and episodes[2]["reference_time"].startswith("2024-02-01T09:00")
    table = cli("episodes", "me").stdout
    assert "said by" in table and "Sam Carter (user)" in table and "Assistant (assistant)" in table
    assert "user_name: Sam Carter" in cli("settings", "me").stdout

    user = cli("user", "me").stdout
    assert "Sam Carter (Person), also Sam" in user and "Northwind" in user and "Lisbon" in user
    built = json.loads(cli("user", "me", "--refresh", "--json").stdout)
    assert built["user"]["name"] == "Sam Carter" and "Lisbon" in built["user"]["summary"]
    assert sorted(f["object"] for f in built["facts"]) == ["Lisbon", "Northwind"]

    # The name is kept for the group: a later message of role user is Sam's.
    moved = cli("add", "me", "I moved to Porto.", "--role", "user", "--time", "2024-05-01", "--thread", "t1",
                "--offline").stdout
    assert "Sam Carter LIVES_IN Porto" in moved and "retired Sam Carter LIVES_IN Lisbon" in moved
    again = cli("import", "me", str(chat), "--offline").stdout
    assert "4  duplicate" not in again and "1  duplicate (already ingested)" in again  # m3 has an id


def test_a_json_conversation_file_names_its_user(cli: Invoke, tmp_path: Path) -> None:
    whole = tmp_path / "chat.json"
    whole.write_text(json.dumps({"messages": CHAT[:1], "user_name": "Ann Lee", "thread": "c"}), encoding="utf-8")
    cli("import", "g", str(whole), "--offline")
    assert _facts(cli, "g") == {"Ann Lee WORKS_AT Northwind"}
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{"role": "user", "content": "I live in Oslo."}]), encoding="utf-8")
    cli("import", "g", str(listed), "--offline")  # the group's user is kept
    assert "Ann Lee LIVES_IN Oslo" in _facts(cli, "g")
    assert json.loads(cli("settings", "g", "--json").stdout)["user_name"] == "Ann Lee"


@pytest.mark.parametrize(("line", "words"), [
    ({"role": "", "content": "x"}, "line 3: role: must not be empty"),
    ({"role": "user"}, "line 3: content: is required"),
    ({"role": "user", "content": "x", "colour": "red"}, "line 3: colour: unknown field"),
    ({"role": "user", "content": "x", "created_at": "soon"}, "line 3: created_at: not a datetime"),
    ({"role": "user", "content": "other", "id": "m1"}, "line 3: id 'm1' repeats line 1's with other content"),
    ("not json", "line 3: not valid JSON"),
    ([1, 2], "line 3: expected a JSON object"),
])
def test_a_bad_line_is_named_by_its_number_and_nothing_is_written(
    cli: Invoke, tmp_path: Path, db: Path, line: object, words: str,
) -> None:
    chat = tmp_path / "bad.jsonl"
    text = json.dumps({"role": "user", "content": "I work at Acme.", "id": "m1"}) + "\n\n"
    chat.write_text(text + (line if isinstance(line, str) else json.dumps(line)) + "\n", encoding="utf-8")
    result = cli("import", "me", str(chat), "--user-name", "Sam", "--offline", expect=2)
    assert words in result.output, result.output
    assert not db.exists()  # nothing written, not even an empty database


def test_add_with_a_role_and_a_speaker(cli: Invoke) -> None:
    cli("add", "g", "I work at Hooli.", "--role", "user", "--speaker", "Bo Chen", "--episode", "e1", "--offline")
    cli("add", "g", "I live in Rome.", "--speaker", "Cy Diaz", "--offline")  # an episode with a speaker
    assert _facts(cli, "g") == {"Bo Chen WORKS_AT Hooli", "Cy Diaz LIVES_IN Rome"}
    named = cli("add", "g", "I like tea.", "--role", "user", "--user-name", "Di Eno", "--offline").stdout
    assert "Di Eno LIKES tea" in named
    assert json.loads(cli("settings", "g", "--json").stdout)["user_name"] == "Di Eno"
    for args, words in [
        (["--user-name", "X"], "--user-name goes with --role"),
        (["--role", "user", "--name", "n"], "--name cannot be used with --role"),
        (["--role", "user", "--kind", "text"], "--kind cannot be used with --role"),
        (["--role", ""], "--role"),
    ]:
        assert words in cli("add", "g", "I like coffee.", *args, "--offline", expect=2).output


def test_import_refuses_conversation_options_for_episodes(cli: Invoke, tmp_path: Path) -> None:
    episodes = _jsonl(tmp_path / "episodes.jsonl", [{"content": "Ann works at Acme.", "episode_id": "e1"}])
    result = cli("import", "g", str(episodes), "--user-name", "Ann", "--offline", expect=2)
    assert "--user-name is for a conversation" in result.output


def test_user_and_settings_of_a_group(cli: Invoke) -> None:
    cli("add-fact", "g", "Ann", "LIVES_IN", "Rome")
    assert "has no user" in cli("user", "g", expect=2).output
    assert "user_name: (not set)" in cli("settings", "g").stdout
    assert "user_name: Ann" in cli("settings", "g", "--user-name", "Ann").stdout
    assert "Ann" in cli("user", "g").stdout
    assert "unknown group 'typo'" in cli("user", "typo", expect=2).output
    assert "unknown group 'typo'" in cli("settings", "typo", expect=2).output
