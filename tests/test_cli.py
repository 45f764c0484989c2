"""The ``kronograph`` command line, through typer's test runner, against temp databases."""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("typer")
pytest.importorskip("rich")

import typer.main  # noqa: E402
from typer.testing import CliRunner, Result  # noqa: E402

from kronograph import cli as kronograph_cli  # noqa: E402
from kronograph.cli import episodes as cli_episodes  # noqa: E402
from kronograph.demo_conversation import CONVERSATION  # noqa: E402
from kronograph.llm.client import ModelClient  # noqa: E402

from .ingest_helpers import ScriptedProvider, current_episode, transient  # noqa: E402

assert kronograph_cli.app is not None
app: typer.Typer = kronograph_cli.app

DOCS = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
Invoke = Callable[..., Result]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def cli(db: Path) -> Invoke:
    """Run one command against ``db``; wide columns so table cells never wrap."""
    runner = CliRunner()

    def invoke(
        *args: str, expect: int = 0, env: dict[str, str] | None = None, with_db: bool = True, input: str | None = None
    ) -> Result:
        argv = [*args, "--db", str(db)] if with_db else list(args)
        result = runner.invoke(app, argv, input=input, env={"COLUMNS": "200", **(env or {})})
        assert result.exit_code == expect, (argv, result.exit_code, result.output, result.exception)
        assert "Traceback" not in result.output
        return result

    return invoke


def _ceo_change(cli: Invoke) -> None:
    cli("add-fact", "default", "Sarah", "CEO_OF", "Acme", "--valid-at", "2024-01-15", "--episode", "e1")
    cli(
        "add-fact", "default", "Mike", "CEO_OF", "Acme", "--valid-at", "2024-03-03", "--episode", "e2",
        "--relation-type", "CEO_OF=one_to_many",
    )


def _triples(output: str) -> list[str]:
    return [f"{f['subject']} {f['relation']} {f['object']}" for f in json.loads(output)]


def test_add_fact_reports_the_fact_and_what_it_retired(cli: Invoke) -> None:
    first = cli("add-fact", "default", "Sarah", "CEO_OF", "Acme", "--valid-at", "2024-01-15", "--episode", "e1")
    assert "wrote fact Sarah CEO_OF Acme" in first.stdout
    assert "2024-01-15 → now" in first.stdout
    assert "episode e1" in first.stdout
    second = cli(
        "add-fact", "default", "Mike", "CEO_OF", "Acme", "--valid-at", "2024-03-03", "--relation-type",
        "CEO_OF=one_to_many",
    )
    assert "wrote fact Mike CEO_OF Acme" in second.stdout
    assert "retired" in second.stdout
    assert "Sarah CEO_OF Acme" in second.stdout and "2024-01-15 → 2024-03-03" in second.stdout
    again = cli("add-fact", "default", "Mike", "CEO_OF", "Acme", "--valid-at", "2024-03-03", "--episode", "e3")
    assert "merged into existing fact Mike CEO_OF Acme" in again.stdout


def test_without_a_declared_cardinality_nothing_is_retired(cli: Invoke) -> None:
    cli("add-fact", "default", "Sarah", "CEO_OF", "Acme", "--valid-at", "2024-01-15")
    result = cli("add-fact", "default", "Mike", "CEO_OF", "Acme", "--valid-at", "2024-03-03")
    assert "retired" not in result.stdout
    assert sorted(_triples(cli("facts", "default", "--json").stdout)) == ["Mike CEO_OF Acme", "Sarah CEO_OF Acme"]


def test_facts_table_shows_current_facts_only_by_default(cli: Invoke) -> None:
    _ceo_change(cli)
    out = cli("facts", "default").stdout
    assert "Mike" in out and "Sarah" not in out
    assert "2024-03-03" in out and "e2" in out
    assert "open" in out  # Mike's interval has no end
    every = cli("facts", "default", "--include-retired").stdout
    assert "Sarah" in every and "2024-01-15" in every and "Mike" in every


def test_facts_json_parses_and_carries_every_field(cli: Invoke) -> None:
    _ceo_change(cli)
    facts = json.loads(cli("facts", "default", "--include-retired", "--json").stdout)
    by_subject = {f["subject"]: f for f in facts}
    assert set(by_subject) == {"Sarah", "Mike"}
    assert by_subject["Sarah"]["valid_at"] == "2024-01-15T00:00:00Z"
    assert by_subject["Sarah"]["invalid_at"] == "2024-03-03T00:00:00Z"
    assert by_subject["Sarah"]["invalidated_by"] == by_subject["Mike"]["uuid"]
    assert by_subject["Mike"]["invalid_at"] is None
    assert by_subject["Mike"]["episodes"] == ["e2"]


def test_filters_select_by_subject_relation_object_and_entity(cli: Invoke) -> None:
    _ceo_change(cli)
    cli("add-fact", "default", "Mike", "LIVES_IN", "Paris", "--valid-at", "2020-01-01")
    assert _triples(cli("facts", "default", "--subject", "mike", "--relation", "lives-in", "--json").stdout) == [
        "Mike LIVES_IN Paris"
    ]
    assert _triples(cli("facts", "default", "--object", "Acme", "--json").stdout) == ["Mike CEO_OF Acme"]
    assert sorted(_triples(cli("facts", "default", "--entity", "Mike", "--json").stdout)) == [
        "Mike CEO_OF Acme", "Mike LIVES_IN Paris"
    ]
    assert "no facts match" in cli("facts", "default", "--subject", "Nobody").stdout


def test_as_of_answers_about_the_past(cli: Invoke) -> None:
    _ceo_change(cli)
    assert _triples(cli("facts", "default", "--as-of", "2024-02-01", "--json").stdout) == ["Sarah CEO_OF Acme"]
    later = cli("facts", "default", "--as-of", "2024-04-01T12:00:00+02:00", "--json").stdout
    assert _triples(later) == ["Mike CEO_OF Acme"]
    assert json.loads(cli("facts", "default", "--as-of", "2023-12-31", "--json").stdout) == []


def test_known_at_replays_what_was_believed(cli: Invoke) -> None:
    cli("add-fact", "default", "Sarah", "CEO_OF", "Acme", "--valid-at", "2024-01-15")
    learned = json.loads(cli("facts", "default", "--json").stdout)[0]["created_at"]
    cli("add-fact", "default", "Mike", "CEO_OF", "Acme", "--valid-at", "2024-03-03",
        "--relation-type", "CEO_OF=one_to_many")
    before = cli("facts", "default", "--as-of", "2024-04-01", "--known-at", learned, "--json").stdout
    assert _triples(before) == ["Sarah CEO_OF Acme"]
    assert _triples(cli("facts", "default", "--as-of", "2024-04-01", "--json").stdout) == ["Mike CEO_OF Acme"]
    assert json.loads(cli("facts", "default", "--known-at", "2000-01-01", "--json").stdout) == []


def test_timeline_orders_intervals_and_closes_retired_ones(cli: Invoke) -> None:
    _ceo_change(cli)
    cli("add-fact", "default", "Acme", "BASED_IN", "Berlin", "--valid-at", "2010-05-01")
    out = cli("timeline", "default", "Acme").stdout
    closed, current, berlin = (out.index(s) for s in ("2024-01-15 → 2024-03-03", "2024-03-03 → now", "Berlin"))
    assert berlin < closed < current
    assert out.index("Sarah CEO_OF Acme") < out.index("Mike CEO_OF Acme")
    assert "closed" in out and "current" in out
    only_ceo = _triples(cli("timeline", "default", "acme", "--relation", "CEO_OF", "--json").stdout)
    assert only_ceo == ["Sarah CEO_OF Acme", "Mike CEO_OF Acme"]
    assert "no facts about Nobody" in cli("timeline", "default", "Nobody").stdout


def test_remove_episode_restores_what_it_retired(cli: Invoke) -> None:
    _ceo_change(cli)
    out = cli("remove-episode", "default", "e2").stdout
    assert "removed episode e2" in out and "deleted 1 fact(s)" in out
    assert "2024-01-15 → now" in out  # Sarah's interval is open again
    assert _triples(cli("facts", "default", "--json").stdout) == ["Sarah CEO_OF Acme"]
    missing = cli("remove-episode", "default", "e2", expect=2)
    assert "error:" in missing.stderr and "e2" in missing.stderr


def test_groups_are_separate(cli: Invoke) -> None:
    cli("add-fact", "team-a", "Ann", "KNOWS", "Bob")
    cli("add-fact", "team-b", "Cy", "KNOWS", "Di")
    assert _triples(cli("facts", "team-b", "--json").stdout) == ["Cy KNOWS Di"]
    assert _triples(cli("facts", "team-a", "--json").stdout) == ["Ann KNOWS Bob"]
    assert json.loads(cli("groups", "--json").stdout) == ["team-a", "team-b"]
    assert cli("groups").stdout.split() == ["team-a", "team-b"]


@pytest.mark.parametrize(
    "args",
    [("facts", "team-x"), ("timeline", "team-x", "Ann"), ("history", "team-x", "f1"), ("search", "team-x", "Ann"),
     ("search", "team-a", "Ann", "--also", "team-x"), ("conflicts", "team-x", "f1"), ("episodes", "team-x"),
     ("remove-episode", "team-x", "e1"), ("doctor", "team-x"), ("export", "team-x"), ("sagas", "team-x"),
     ("audit", "team-x"), ("communities", "team-x"), ("forget", "team-x", "--entity", "Ann", "--yes"),
     ("merge", "team-x", "Ann", "Bob"), ("split", "team-x", "m1"), ("events", "team-x"),
     ("changes", "team-x", "--since", "2024-01-01")],
)
def test_an_unknown_group_is_reported(cli: Invoke, args: tuple[str, ...]) -> None:
    """A typo in GROUP says so, instead of reading an empty group."""
    cli("add-fact", "team-a", "Ann", "KNOWS", "Bob")
    err = cli(*args, expect=2).stderr
    assert "unknown group 'team-x'" in err and "'team-a'" in err and "kronograph groups" in err


def test_every_group_command_takes_the_group_first() -> None:
    """One way to name the group: the first argument, never an option."""
    from kronograph.cli.application import COMMANDS

    for name, command in COMMANDS.items():
        params = list(inspect.signature(command).parameters)
        if "group" in params and name not in ("mcp",):
            assert params[0] == "group", name


def test_groups_on_an_empty_memory(cli: Invoke, tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()  # a database with no group yet
    out = cli("groups", "--db", str(empty), with_db=False).stdout
    assert "no groups yet" in out


def test_db_defaults_to_the_environment_variable(cli: Invoke, tmp_path: Path) -> None:
    elsewhere = tmp_path / "from-env.db"
    cli("add-fact", "default", "Ann", "KNOWS", "Bob", env={"KRONOGRAPH_DB": str(elsewhere)}, with_db=False)
    assert elsewhere.exists()
    out = cli("facts", "default", "--json", env={"KRONOGRAPH_DB": str(elsewhere)}, with_db=False).stdout
    assert _triples(out) == ["Ann KNOWS Bob"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("facts", "default", "--as-of", "yesterday"), ["--as-of", "yesterday"]),
        (("facts", "default", "--known-at", "2024-13-45"), ["--known-at", "2024-13-45"]),
        (("add-fact", "default", "A", "R", "B", "--valid-at", "soon"), ["--valid-at", "soon"]),
        (("add-fact", "default", "A", "R", "B", "--valid-at", "2024-02-01", "--invalid-at", "2024-01-01"),
         ["--invalid-at"]),
        (("add-fact", "default", "A", "R", "B", "--relation-type", "R"), ["--relation-type", "NAME=CARDINALITY"]),
        (("add-fact", "default", "A", "R", "B", "--relation-type", "R=sometimes"), ["--relation-type", "many_to_one"]),
        (("add-fact", "default", " ", "R", "B"), ["subject", "empty"]),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_code_2(cli: Invoke, args: tuple[str, ...], words: list[str]) -> None:
    cli("add-fact", "default", "Seed", "KNOWS", "Fact")  # the database exists, so only the input is wrong
    result = cli(*args, expect=2)
    assert result.stderr.startswith("error: ")
    assert len(result.stderr.strip().splitlines()) == 1
    for word in words:
        assert word in result.stderr
    assert result.stdout == ""
    assert _triples(cli("facts", "default", "--json").stdout) == ["Seed KNOWS Fact"]  # nothing was written


def test_a_bad_time_writes_no_database(cli: Invoke, db: Path) -> None:
    cli("add-fact", "default", "A", "R", "B", "--valid-at", "not-a-time", expect=2)
    assert not db.exists()


def test_reading_a_missing_database_is_an_error_not_a_new_file(cli: Invoke, db: Path) -> None:
    for args in (("facts", "default"), ("timeline", "default", "Acme"), ("remove-episode", "default", "e1"),
                 ("search", "default", "Acme"), ("conflicts", "default", "x")):
        result = cli(*args, expect=2)
        assert "no database at" in result.stderr
    assert not db.exists()


def test_user_text_is_printed_literally_not_as_markup(cli: Invoke) -> None:
    out = cli("add-fact", "default", "Bob [the builder]", "USES", "[red]hammer[/]").stdout
    assert "Bob [the builder] USES [red]hammer[/]" in out
    assert "[red]hammer[/]" in cli("facts", "default").stdout


def test_demo_reads_the_chat_offline_and_answers_about_the_past(cli: Invoke) -> None:
    out = cli("demo", with_db=False).stdout
    for chapter in ("A conversation, read offline", "The graph it built", "came late", "What did we believe",
                    "cannot retire"):
        assert chapter in out
    size = len(CONVERSATION)
    assert "reading the chat" in out and f"{size}/{size}" in out  # the progress bar's last state
    assert "(read late, on 2024-11-04)" in out
    assert "0 model calls" in out
    assert "Person: Lena, Priya, Tom" in out
    assert "│ Tom     │ WORKS_AT │ Initech   │ 2024-02-12" in out  # a current fact, from "on February 12"
    timeline = out[out.index("timeline of Priya") : out.index("The Lyon message")]
    moved = re.search(r"2021-01-01 → (2024-02-\d\d) │ Priya LIVES_IN Lyon", timeline)  # learned late, born closed
    assert moved, timeline
    assert f"{moved[1]} → now        │ Priya LIVES_IN Paris" in timeline  # "last week", seen from 2024-03-02
    assert "2024-01-08 → 2024-06-09 │ Priya WORKS_AT Acme" in timeline and "closed" in timeline
    assert "2024-07-01 → now        │ Priya WORKS_AT Umbrella" in timeline
    # leaving is an event: a point in the timeline, said as what happened, never a current fact
    assert re.search(r"on 2024-06-09 +│ Priya LEFT Acme +│ event", timeline), timeline
    assert "Priya left Acme on 2024-06-09" in out
    current = out[out.index("current facts") : out.index("timeline of Priya")]
    assert "Priya   │ WORKS_AT │ Umbrella" in current and "LEFT" not in current.split("events")[0]
    assert not re.search(r"→ now +│ Priya LEFT", out)

    def answer(question: str) -> str:
        return out[out.index(question) :].splitlines()[0].rstrip()

    assert answer("Where did Priya work on 2024-03-15?").endswith("Acme")
    assert answer("Where did Priya live on 2023-06-01, as we believed on 2024-10-31?").endswith("nobody")
    assert answer("Where did Priya live on 2023-06-01, as we believe now?").endswith("Lyon")
    assert "refused: Initech USES Postgres" in out and "retired: nothing" in out
    assert len(out.splitlines()) <= 80


def test_demo_db_is_kept_and_readable_by_the_other_commands(cli: Invoke, tmp_path: Path) -> None:
    kept = tmp_path / "demo.db"
    cli("demo", "--db", str(kept), with_db=False)
    assert kept.exists()
    out = cli("facts", "demo", "--subject", "Priya", "--relation", "LIVES_IN", "--as-of", "2025-01-01",
              "--json", "--db", str(kept), with_db=False)
    assert _triples(out.stdout) == ["Priya LIVES_IN Paris"]
    episodes = json.loads(cli("episodes", "demo", "--json", "--db", str(kept), with_db=False).stdout)
    late = f"msg-{len(CONVERSATION):02}"
    assert [e["uuid"] for e in episodes][:2] == [late, "msg-01"]  # by reference time: the late one first
    assert {e["status"] for e in episodes} == {"complete"}
    again = cli("demo", "--db", str(kept), with_db=False, expect=2)
    assert "already exists" in again.stderr


def _commands() -> dict[str, list[str]]:
    """Each command's name and every option it accepts, from the app itself."""
    group = typer.main.get_command(app)
    out: dict[str, list[str]] = {}
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        for sub, leaf in getattr(command, "commands", {}).items():  # a command with subcommands: each on its own
            out[f"{name} {sub}"] = [o for p in leaf.params for o in p.opts if o.startswith("-") and o != "--help"]
        if not getattr(command, "commands", None):
            out[name] = [opt for p in command.params for opt in p.opts if opt.startswith("-") and opt != "--help"]
    return out


def test_every_command_and_option_is_documented() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    commands = _commands()
    assert set(commands) == {
        "add-fact", "facts", "timeline", "history", "remove-episode", "search", "conflicts", "add", "import", "resume",
        "episodes", "demo", "migrate", "doctor", "saga", "sagas", "forget", "audit", "communities", "export", "mcp",
        "serve", "keys add", "keys list", "keys revoke", "groups", "merge", "split", "events", "user",
        "settings", "changes", "context", "contradictions", "contradict", "dismiss", "tier",
        "remove-fact", "erasures",
    }
    for name, options in commands.items():
        heading = re.search(rf"^## `kronograph {re.escape(name)}[ `]", docs, re.M)
        assert heading, name
        section = docs[heading.end() :].split("\n## ", 1)[0]
        for option in options:
            assert f"`{option}" in section or f"/{option}" in section, (name, option)


def test_every_command_and_option_appears_in_help(cli: Invoke) -> None:
    top = cli("--help", with_db=False).stdout
    for name, options in _commands().items():
        assert name.split()[0] in top
        own = cli(*name.split(), "--help", with_db=False).stdout
        for option in options:
            assert option in own, (name, option)


def test_version(cli: Invoke) -> None:
    from kronograph import __version__

    assert cli("--version", with_db=False).stdout.strip() == f"kronograph {__version__}"


def test_without_the_cli_extra_main_explains_how_to_install_it() -> None:
    script = textwrap.dedent(
        """
        import sys

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("typer", "rich"):
                    raise ModuleNotFoundError(f"No module named {name!r}")
                return None

        sys.meta_path.insert(0, Block())
        from kronograph.cli import main
        main()
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert "pip install 'kronograph[cli]'" in run.stderr
    assert "Traceback" not in run.stderr


def test_history_shows_every_change_with_its_cause(cli: Invoke) -> None:
    _ceo_change(cli)
    every = json.loads(cli("facts", "default", "--json", "--include-retired").stdout)
    (sarah,) = [f for f in every if f["subject"] == "Sarah"]
    out = cli("history", "default", sarah["uuid"]).stdout
    assert "created" in out and "retired" in out and "2024-01-15 → 2024-03-03" in out
    changes = json.loads(cli("history", "default", sarah["uuid"], "--json").stdout)
    assert [c["cause"] for c in changes] == ["created", "retired"]
    assert [c["episode_id"] for c in changes] == ["e1", "e2"]
    assert "no fact" in cli("history", "default", "nope", expect=2).stderr


def test_limit_and_include_expired(cli: Invoke) -> None:
    types = ("--relation-type", "LIVES_IN=many_to_one")
    cli("add-fact", "default", "Eve", "LIVES_IN", "Oslo", "--valid-at", "2024-01-01", *types)
    cli("add-fact", "default", "Eve", "LIVES_IN", "Bergen", "--valid-at", "2024-01-01", *types)  # a correction
    assert _triples(cli("facts", "default", "--json", "--include-retired").stdout) == ["Eve LIVES_IN Bergen"]
    both = _triples(cli("facts", "default", "--json", "--include-retired", "--include-expired").stdout)
    assert sorted(both) == ["Eve LIVES_IN Bergen", "Eve LIVES_IN Oslo"]
    assert len(json.loads(cli("facts", "default", "--json", "--include-expired", "--limit", "1").stdout)) == 1
    cli("facts", "default", "--limit", "0", expect=2)


# -- ingestion ---------------------------------------------------------------------


def _scripted_model(monkeypatch: pytest.MonkeyPatch, provider: ScriptedProvider) -> None:
    """The commands' model is this scripted one: no network, and failures on cue. A new client per
    command, as in a real process: a client keeps a reply cache in the store of the memory it served."""

    def model(offline: bool) -> ModelClient:
        return ModelClient(provider, base_delay=0.001, max_delay=0.002, max_attempts=2)

    monkeypatch.setattr(cli_episodes, "_model", model)


def _works_at(system: str, user: str) -> dict[str, object]:
    """A model's extraction of "NAME works at ORG."."""
    name, org = current_episode(user).removesuffix(".").split(" works at ")
    return {
        "reasoning": "scripted",
        "entities": [{"name": name, "labels": ["Person"]}, {"name": org, "labels": ["Organization"]}],
        "facts": [{"subject": name, "relation": "WORKS_AT", "object": org, "fact": f"{name} works at {org}"}],
    }


def _episodes(cli: Invoke, group: str, *args: str) -> list[dict[str, object]]:
    return json.loads(cli("episodes", group, "--json", *args).stdout)


def test_add_ingests_an_episode_and_reports_what_changed(cli: Invoke) -> None:
    first = cli("add", "chat", "Tom: I work at Globex and I live in Berlin.", "--time", "2024-01-08",
                "--episode-id", "m1", "--offline").stdout
    assert "episode m1 complete: 2 facts created" in first
    assert "entities: Tom, Globex, Berlin" in first
    assert "+ Tom WORKS_AT Globex  2024-01-08 → now" in first
    assert "model: no calls (extractor: offline)" in first
    second = cli("add", "chat", "--time", "2024-02-14", "--offline", "--source", "slack", "--name", "news",
                 "--saga", "general", input="Tom: Big news: I joined Initech on February 12.\n").stdout
    assert "+ Tom WORKS_AT Initech  2024-02-12 → now" in second
    assert "− retired Tom WORKS_AT Globex  2024-01-08 → 2024-02-12" in second
    assert sorted(_triples(cli("facts", "chat", "--json").stdout)) == [
        "Tom LIVES_IN Berlin", "Tom WORKS_AT Initech"
    ]
    again = cli("add", "chat", "Tom: I work at Globex and I live in Berlin.", "--time", "2024-01-08",
                "--episode", "m1", "--offline").stdout
    assert "episode m1 was already ingested" in again
    (news,) = [e for e in _episodes(cli, "chat") if e["name"] == "news"]
    assert news["source_description"] == "slack" and news["saga"] == "general"


def test_add_reads_stdin_for_a_dash_and_checks_its_options(cli: Invoke, db: Path) -> None:
    out = cli("add", "g", "-", "--offline", "--kind", "text", input="Ann works at Acme.").stdout
    assert "Ann WORKS_AT Acme" in out
    bad = cli("add", "g", "x", "--kind", "tweet", "--offline", expect=2)
    assert bad.stderr.startswith("error: --kind") and "tweet" in bad.stderr
    assert "--time" in cli("add", "g", "x", "--time", "soon", "--offline", expect=2).stderr
    assert "TEXT" in cli("add", "g", "   ", "--offline", expect=2).stderr


def test_add_file_ingests_each_line_with_a_progress_bar(cli: Invoke, tmp_path: Path) -> None:
    lines = tmp_path / "chat.txt"
    lines.write_text("Priya: I started at Acme this week.\n\nPriya: I moved to Paris last week.\n", encoding="utf-8")
    result = cli("add", "chat", "--file", str(lines), "--time", "2024-03-01", "--offline")
    assert "ingesting into chat" in result.stderr and "2/2" in result.stderr
    assert "2 episodes into group chat" in result.stdout
    assert "2  complete" in result.stdout and "2  facts created" in result.stdout
    assert sorted(_triples(cli("facts", "chat", "--json").stdout)) == [
        "Priya LIVES_IN Paris", "Priya WORKS_AT Acme"
    ]
    assert "not both" in cli("add", "chat", "text", "--file", str(lines), expect=2).stderr
    assert "--episode" in cli("add", "chat", "--file", str(lines), "--episode", "e", expect=2).stderr


def test_add_exits_1_when_the_episode_is_quarantined(cli: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    _scripted_model(monkeypatch, ScriptedProvider(Extraction=lambda system, user: "not json at all"))
    result = cli("add", "g", "Ann works at Acme.", "--episode", "bad", expect=1)
    assert "episode bad quarantined" in result.stdout and "ModelOutputError" in result.stdout
    (bad,) = _episodes(cli, "g", "--status", "quarantined")
    assert bad["uuid"] == "bad" and "ModelOutputError" in bad["error"]
    table = cli("episodes", "g").stdout
    assert "bad" in table and "quarantined" in table and "ModelOutputError" in table


def test_resume_retries_what_failed_for_a_passing_reason(cli: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = ScriptedProvider(Extraction=lambda system, user: transient())
    _scripted_model(monkeypatch, provider)
    failed = cli("add", "g", "Ann works at Acme.", "--episode", "e1", "--time", "2024-01-01", expect=1)
    assert "episode e1 retryable" in failed.stdout and "503" in failed.stdout
    assert "nothing to resume" in cli("resume", "--no-retryable").stdout
    provider.answers["Extraction"] = _works_at
    out = cli("resume").stdout
    assert "✓ g / e1: complete, 1 fact created" in out
    assert "1 episode resumed" in out and "1  complete" in out
    assert _triples(cli("facts", "g", "--json").stdout) == ["Ann WORKS_AT Acme"]
    assert "nothing to resume" in cli("resume", "--offline").stdout


def test_resume_exits_1_while_an_episode_still_fails(cli: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    _scripted_model(monkeypatch, ScriptedProvider(Extraction=lambda system, user: transient()))
    cli("add", "g", "Ann works at Acme.", "--episode", "e1", expect=1)
    out = cli("resume", expect=1).stdout
    assert "✗ g / e1: retryable" in out and "did not complete" in out


def _jsonl(path: Path, *rows: object) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_import_ingests_in_batches_and_summarises(cli: Invoke, tmp_path: Path) -> None:
    rows = [
        {"content": "Lena: I live in Madrid and I work at Globex.", "reference_time": "2024-04-20T11:30",
         "episode_id": "l1", "name": "hello"},
        "",
        {"content": "Lena: I moved to Lisbon last month.", "reference_time": "2024-10-15", "episode_id": "l2"},
        {"content": "Tom: I work at Initech.", "reference_time": "2024-05-01", "episode_id": "t1", "kind": "message",
         "source_description": "slack", "saga": "general", "metadata": {"channel": "#general"}},
    ]
    file = _jsonl(tmp_path / "chat.jsonl", *rows)
    result = cli("import", "chat", str(file), "--batch-size", "2", "--offline")
    assert "ingesting into chat" in result.stderr and "3/3" in result.stderr
    out = result.stdout
    assert f"3 episodes from {file} into group chat" in out
    for line in ("3  complete", "0  duplicate", "0  retryable", "0  quarantined", "4  facts created",
                 "1  facts retired", "model: no calls (extractor: offline)"):
        assert line in out, line
    assert sorted(_triples(cli("facts", "chat", "--json").stdout)) == [
        "Lena LIVES_IN Lisbon", "Lena WORKS_AT Globex", "Tom WORKS_AT Initech"
    ]
    again = cli("import", "chat", str(file), "--offline").stdout
    assert "0  complete" in again and "3  duplicate" in again
    assert [e["uuid"] for e in _episodes(cli, "chat")] == ["l1", "t1", "l2"]


def test_import_reports_model_cost_and_lists_failures(cli: Invoke, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def extraction(system: str, user: str) -> object:
        return "not json" if "Bob" in current_episode(user) else _works_at(system, user)

    _scripted_model(monkeypatch, ScriptedProvider(Extraction=extraction))
    file = _jsonl(tmp_path / "e.jsonl", {"content": "Ann works at Acme.", "episode_id": "a"},
                  {"content": "Bob works at Initech.", "episode_id": "b"})
    out = cli("import", "g", str(file), expect=1).stdout
    assert "1  complete" in out and "1  quarantined" in out
    usage = next(line for line in out.splitlines() if line.startswith("model:"))
    assert "calls" in usage and "prompt chars" in usage and "per episode" in usage
    assert "did not complete" in out and "ModelOutputError" in out
    assert _triples(cli("facts", "g", "--json").stdout) == ["Ann WORKS_AT Acme"]


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ("{not json", ["not valid JSON"]),
        ("[1, 2]", ["expected a JSON object", "list"]),
        ({"text": "x"}, ["unknown field(s) ['text']"]),
        ({"name": "x"}, ["content: is required"]),
        ({"content": "x", "reference_time": "soon"}, ["reference_time", "soon"]),
        ({"content": "x", "kind": "tweet"}, ["kind", "tweet"]),
        ({"content": "  "}, ["content", "empty"]),
        ({"content": "other", "episode_id": "e1"}, ["episode_id 'e1' repeats line 1's with other content"]),
    ],
)
def test_import_checks_every_line_before_writing(cli: Invoke, db: Path, tmp_path: Path, bad: object,
                                                  words: list[str]) -> None:
    file = _jsonl(tmp_path / "e.jsonl", {"content": "Ann works at Acme.", "episode_id": "e1"}, "",
                  {"content": "Bob works at Initech."}, bad)
    result = cli("import", "g", str(file), "--offline", expect=2)
    assert result.stderr.startswith(f"error: {file} line 4: ")
    for word in words:
        assert word in result.stderr
    assert not db.exists()  # nothing was written, not even an empty memory


def test_import_stops_at_a_batch_the_memory_refuses(cli: Invoke, tmp_path: Path) -> None:
    cli("add", "g", "Ann works at Acme.", "--episode", "x", "--offline")
    file = _jsonl(tmp_path / "e.jsonl", {"content": "Bob works at Initech.", "episode_id": "y"},
                  {"content": "Cy works at Umbrella.", "episode_id": "x"})
    result = cli("import", "g", str(file), "--batch-size", "1", "--offline", expect=2)
    assert "error: episodes 2-2: episodes[0].episode_id: 'x' was already used" in result.stderr  # after the bar
    assert "(episodes 1-1 are ingested)" in result.stderr
    assert sorted(e["uuid"] for e in _episodes(cli, "g")) == ["x", "y"]


def test_import_from_stdin_and_of_an_empty_file(cli: Invoke, tmp_path: Path) -> None:
    out = cli("import", "g", "-", "--offline", input=json.dumps({"content": "Ann works at Acme."}) + "\n").stdout
    assert "1  complete" in out
    empty = _jsonl(tmp_path / "empty.jsonl", "")
    assert "holds no episodes" in cli("import", "g", str(empty), "--offline", expect=2).stderr
    assert "cannot read" in cli("import", "g", str(tmp_path / "missing.jsonl"), expect=2).stderr


def test_episodes_lists_and_filters(cli: Invoke) -> None:
    cli("add", "g", "Ann works at Acme.", "--episode", "e1", "--time", "2024-01-02T10:00", "--offline")
    table = cli("episodes", "g").stdout
    assert "e1" in table and "complete" in table and "2024-01-02 10:00Z" in table
    assert _episodes(cli, "g", "--status", "complete")[0]["uuid"] == "e1"
    assert "no episodes in group g with status retryable" in cli("episodes", "g", "--status", "retryable").stdout
    cli("add-fact", "other", "Zed", "KNOWS", "Yan")
    assert " e1 " not in cli("episodes", "other").stdout  # groups are separate
    bad = cli("episodes", "g", "--status", "done", expect=2)
    assert bad.stderr.startswith("error: --status") and "quarantined" in bad.stderr


def _search(cli: Invoke, *args: str) -> dict[str, list[dict[str, object]]]:
    return json.loads(cli("search", "default", *args, "--json").stdout)


def _hit_triples(hits: list[dict[str, object]]) -> list[str]:
    return [f"{h['item']['subject']} {h['item']['relation']} {h['item']['object']}" for h in hits]  # type: ignore[index]


def test_search_prints_a_table_per_scope_and_what_the_temporal_mode_left_out(cli: Invoke) -> None:
    _ceo_change(cli)
    cli("add", "chat", "Tom: I work at Globex and I live in Berlin.", "--time", "2024-01-08", "--offline",
        "--episode", "c1")
    out = cli("search", "default", "CEO of Acme").stdout
    assert re.search(r"│ …\w{8} +│ Mike +│ CEO_OF +│ Acme +│ 2024-03-03 → now +│ +[\d.]+ +│ bm25, cosine", out), out
    assert "Sarah" not in out  # retired: not current
    assert "│ Acme " in out[out.index("entities") :]
    assert "1 matching fact left out by the temporal mode (use --include-retired" in out
    episodes = cli("search", "chat", "Globex Berlin", "--scope", "episodes").stdout
    assert "│ c1 │ 2024-01-08     │ Tom: I work at Globex and I live in Berlin." in episodes
    assert "facts" not in episodes and "left out" not in episodes


def test_search_as_of_hides_a_later_fact_and_include_retired_shows_both(cli: Invoke) -> None:
    _ceo_change(cli)
    past = _search(cli, "CEO Acme", "--as-of", "2024-02-01", "--scope", "facts")
    assert _hit_triples(past["facts"]) == ["Sarah CEO_OF Acme"]
    assert past["left_out"] == 1  # Mike's fact, valid only from March
    text = cli("search", "default", "CEO Acme", "--as-of", "2024-02-01", "--scope", "facts").stdout
    assert "Sarah" in text and "Mike" not in text
    believed = _search(cli, "CEO Acme", "--known-at", "2000-01-01", "--scope", "facts")
    assert believed["facts"] == [] and believed["left_out"] == 2  # nothing was known then
    every = _search(cli, "CEO Acme", "--include-retired", "--scope", "facts", "--recipe", "bm25")
    assert sorted(_hit_triples(every["facts"])) == ["Mike CEO_OF Acme", "Sarah CEO_OF Acme"]
    assert every["left_out"] == 0


def test_search_json_has_every_scope_asked_for_with_item_score_and_methods(cli: Invoke) -> None:
    _ceo_change(cli)
    found = _search(cli, "CEO Acme", "--limit", "1")
    assert set(found) == {"facts", "entities", "episodes", "communities", "left_out"}
    (hit,) = found["facts"]
    assert set(hit) == {"item", "score", "methods"}
    assert hit["item"]["uuid"] and hit["item"]["valid_at"] == "2024-03-03T00:00:00Z"  # type: ignore[index]
    assert isinstance(hit["score"], float) and hit["methods"] == ["bm25", "cosine", "names"]  # names: Acme is named
    assert set(_search(cli, "Acme", "--scope", "entities", "--scope", "entities")) == {"entities", "left_out"}


def test_search_filters_groups_and_centre(cli: Invoke) -> None:
    _ceo_change(cli)
    cli("add-fact", "default", "Mike", "LIVES_IN", "Acme Town", "--valid-at", "2024-01-01", "--object-label", "City")
    assert _hit_triples(_search(cli, "Acme", "--relation", "lives-in", "--scope", "facts")["facts"]) == [
        "Mike LIVES_IN Acme Town"
    ]
    assert _hit_triples(_search(cli, "Acme", "--label", "city", "--scope", "facts")["facts"]) == [
        "Mike LIVES_IN Acme Town"
    ]
    cli("add-fact", "other", "Acme", "BASED_IN", "Oslo")
    mine = _search(cli, "Acme", "--scope", "facts")
    assert {h["item"]["group_id"] for h in mine["facts"]} == {"default"}  # type: ignore[index]
    both = _search(cli, "Acme", "--also", "other", "--scope", "facts")
    assert {h["item"]["group_id"] for h in both["facts"]} == {"default", "other"}  # type: ignore[index]
    assert "│ other " in cli("search", "default", "Acme", "--also", "other").stdout  # a group column
    near = _search(cli, "Oslo", "--center", "Mike", "--recipe", "bfs", "--scope", "entities")
    hops = {h["item"]["name"]: h["score"] for h in near["entities"]}  # type: ignore[index]
    # 1 / (1 + shortest-path hops) through current facts: Sarah's CEO_OF Acme is retired, so she is not reached
    assert hops == {"Mike": 1.0, "Acme": 0.5, "Acme Town": 0.5}
    assert list(hops)[0] == "Mike"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("search", "default", "Acme", "--recipe", "nope"), ["--recipe", "'nope'", "hybrid"]),
        (("search", "default", "Acme", "--scope", "communitiez"), ["--scope", "facts, entities, episodes"]),
        (("search", "default", "Acme", "--as-of", "2024-01-01", "--include-retired"), ["--as-of", "--include-retired"]),
        (("search", "default", "Acme", "--as-of", "whenever"), ["--as-of", "whenever"]),
        (("search", "default", " "), ["QUERY"]),
        (("conflicts", "default", "01a2290d-0000-7000-8000-000000000000"),
         ["no fact", "01a2290d-0000-7000-8000-000000000000"]),
    ],
)
def test_search_and_conflicts_errors_are_one_line_and_exit_2(
    cli: Invoke, args: tuple[str, ...], words: list[str]
) -> None:
    cli("add-fact", "default", "Seed", "KNOWS", "Acme")
    result = cli(*args, expect=2)
    assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 1
    for word in words:
        assert word in result.stderr
    assert result.stdout == ""


def test_conflicts_shows_the_whole_slot(cli: Invoke) -> None:
    _ceo_change(cli)
    every = json.loads(cli("facts", "default", "--include-retired", "--json").stdout)
    sarah = next(f["uuid"] for f in every if f["subject"] == "Sarah")
    out = cli("conflicts", "default", sarah).stdout
    assert re.search(r"Sarah CEO_OF Acme +│ 2024-01-15 → 2024-03-03 +│ closed +│ e1", out), out
    assert re.search(r"Mike CEO_OF Acme +│ 2024-03-03 → now +│ current +│ e2", out), out
    assert out.index("Sarah") < out.index("Mike") and "2 facts in the slot" in out
    assert _triples(cli("conflicts", "default", sarah, "--json").stdout) == ["Sarah CEO_OF Acme", "Mike CEO_OF Acme"]
    cli("add-fact", "other", "Zed", "KNOWS", "Yan")
    assert "no fact" in cli("conflicts", "other", sarah, expect=2).stderr  # groups are separate


def test_doctor_reports_defects_and_repairs_the_safe_ones(cli: Invoke, db: Path) -> None:
    import sqlite3

    cli("add-fact", "team", "Sarah", "CEO_OF", "Acme", "--valid-at", "2024-01-15")
    cli("add-fact", "team", "Mike", "CEO_OF", "Acme", "--valid-at", "2024-03-03")  # undeclared: both stay
    with sqlite3.connect(db) as conn:  # an entity nothing refers to
        conn.execute(
            "INSERT INTO entities(uuid, group_id, name, name_key, created_at) VALUES ('e-zed', 'team', 'Zed', 'zed', 0)"
        )
    out = cli("doctor", "team", "--relation-type", "CEO_OF=one_to_many", expect=1).stdout
    assert "orphan entity: Zed" in out and "overlap in CEO_OF (one_to_many, same object Acme)" in out
    assert "1 overlaps" in out and "1 orphan entities" in out and "not checked yet" not in out
    assert "summaries not built yet: 3" in out and "stale summary" not in out  # a state, listed apart
    assert "3 stale summaries" not in out  # not among the defects
    out = cli("doctor", "team", "--repair", "--relation-type", "CEO_OF=one_to_many", expect=1).stdout
    assert "1 entity deleted" in out and "3 summaries rebuilt" in out
    report = json.loads(cli("doctor", "team", "--json").stdout)  # undeclared now: no defect left
    assert report["repair"] is False and set(report["defects"].values()) == {0} and report["ok"]
    # The two CEOs of Acme stand side by side, untiered and of an undeclared relation: no candidate (by
    # meaning only tiered facts are, and by structure an undeclared relation's subject side); counted, 0.
    assert report["counts"]["open_contradictions"] == 0
    assert "no database at" in cli("doctor", "team", "--db", str(db) + ".missing", expect=2, with_db=False).stderr


def test_forget_asks_then_erases_and_says_it_checked(cli: Invoke) -> None:
    cli("add-fact", "team", "Zorblax Quentin", "WORKS_AT", "Acme", "--valid-at", "2024-01-15")
    cli("add-fact", "team", "Carol", "WORKS_AT", "Acme", "--valid-at", "2024-01-15")
    out = cli("forget", "team", "--entity", "Zorblax Quentin", "--dry-run").stdout
    assert "would erase: 0 episodes, 1 fact, 1 entity;" in out
    out = cli("forget", "team", "--entity", "Zorblax Quentin", input="n\n", expect=1).stdout
    assert "This cannot be undone" in out
    assert "Zorblax" in cli("facts", "team").stdout
    out = cli("forget", "team", "--entity", "Zorblax Quentin", input="y\n").stdout
    assert "erased: 0 episodes, 1 fact, 1 entity;" in out and "✓ checked" in out
    assert "Zorblax" not in cli("facts", "team").stdout
    report = json.loads(cli("forget", "team", "--entity", "Carol", "--json").stdout)
    assert report["verified"] is True and len(report["facts"]) == 1
    assert "exactly one of" in cli("forget", "team", expect=2).stderr
    assert "nothing named 'Nobody Here'" in cli("forget", "team", "--entity", "Nobody Here", "--yes", expect=2).stderr


def test_actor_is_kept_and_audit_sweeps_and_reads_the_log(cli: Invoke, tmp_path: Path) -> None:
    cli("add-fact", "team", "Sarah", "LIVES_IN", "Rome", "--valid-at", "2024-01-15", "--actor", "agent:planner")
    cli("add-fact", "team", "Sarah", "LIVES_IN", "Paris", "--valid-at", "2024-03-03", "--actor", "user:ann")
    cli("add", "team", "Carol works at Initech.", "--offline", env={"KRONOGRAPH_ACTOR": "key:42"})
    lines = tmp_path / "eps.jsonl"
    lines.write_text(json.dumps({"content": "Mike lives in Oslo."}) + "\n"
                     + json.dumps({"content": "Mike likes chess.", "actor": "user:bo"}) + "\n")
    cli("import", "team", str(lines), "--offline", "--actor", "user:cy")
    actors = sorted(e["actor"] or "" for e in json.loads(cli("episodes", "team", "--json").stdout))
    assert actors == ["agent:planner", "key:42", "user:ann", "user:bo", "user:cy"]

    out = cli("audit", "team").stdout  # undeclared: both homes stand, and may disagree
    assert "Sarah LIVES_IN Paris" in out and "Sarah LIVES_IN Rome" in out and "1 possible contradiction" in out
    found = json.loads(cli("audit", "team", "--json").stdout)
    assert [p["reason"] for p in found] == ["same_slot"]
    assert "0 possible contradictions" in cli("audit", "team", "--relation-type", "LIVES_IN=many_to_many").stdout
    events = json.loads(cli("audit", "team", "--log", "--json").stdout)
    flagged = [e for e in events if e["kind"] == "contradiction_flagged"]
    assert flagged and flagged[0]["actor"] == "user:ann"
    assert "contradiction_flagged" in cli("audit", "team", "--log", "--kind", "contradiction_flagged").stdout
    assert "no audit events" in cli("audit", "team", "--log", "--kind", "forgotten").stdout
    assert "--kind filters the audit log" in cli("audit", "team", "--kind", "forgotten", expect=2).stderr


def test_saga_brings_a_summary_up_to_date_and_sagas_lists_the_lag(cli: Invoke) -> None:
    for n, text in enumerate(("Tom: the Lisbon launch moved to March 3.", "Ann: Initech signed the 40,000 euro deal.")):
        cli("add", "chat", text, "--time", f"2024-01-0{n + 1}", "--saga", "general", "--offline")
    listed = cli("sagas", "chat").stdout
    assert re.search(r"general +│ 2 +│ 2 +│ 0 +│ never", listed), listed
    assert "has no summary yet" in cli("saga", "chat", "general", "--stored").stdout
    out = cli("saga", "chat", "general", "--offline").stdout
    assert "saga general (version 1, extractive)" in out and "Lisbon launch moved to March 3" in out
    assert "2 episodes in it (0 without text), 2 added now; covers 2024-01-01 to 2024-01-02" in out
    stored = json.loads(cli("saga", "chat", "general", "--stored", "--json").stdout)
    assert stored["version"] == 1 and stored["episodes"] == 2 and stored["added"] == 0
    assert json.loads(cli("sagas", "chat", "--json").stdout)[0]["lag"] == 0
    assert "no saga 'nope'" in cli("saga", "chat", "nope", "--offline", expect=2).stderr
    cli("add-fact", "other", "Zed", "KNOWS", "Yan")
    assert "no sagas in group other" in cli("sagas", "other").stdout


def test_communities_build_update_list_and_search(cli: Invoke) -> None:
    for a, b in (("Ann", "Ben"), ("Ben", "Cat"), ("Ann", "Cat")):
        cli("add-fact", "default", a, "KNOWS", b, "--fact", f"{a} grows tomatoes with {b}")
    assert "no communities" in cli("communities", "default").stdout
    built = cli("communities", "default", "--build").stdout
    assert "built 1 community (0 model calls)" in built and "Ann, Ben and Cat" in built
    cli("add-fact", "default", "Dov", "KNOWS", "Ann")
    updated = cli("communities", "default", "--update").stdout
    assert "attached Dov to Ann, Ben and 2 more" in updated and "4 (+1)" in updated
    (community,) = json.loads(cli("communities", "default", "--json").stdout)
    assert community["size"] == 4 and community["members"][-1] == "Dov"
    found = json.loads(cli("search", "default", "tomatoes", "--scope", "communities", "--json").stdout)
    assert [h["item"]["uuid"] for h in found["communities"]] == [community["uuid"]]
    assert "communities" in cli("search", "default", "tomatoes").stdout
    cli("communities", "default", "--build", "--update", expect=2)


def test_export_writes_every_record_of_a_group_as_json_lines(cli: Invoke, tmp_path: Path) -> None:
    cli("add", "team", "Carol works at Initech.", "--offline", "--saga", "general")
    cli("add-fact", "team", "Carol", "LIVES_IN", "Rome", "--valid-at", "2020-01-01")
    cli("add-fact", "team", "Carol", "LIVES_IN", "Oslo", "--valid-at", "2023-01-01",
        "--relation-type", "LIVES_IN=many_to_one")
    cli("add-fact", "elsewhere", "Zed", "KNOWS", "Yan")
    lines = [json.loads(line) for line in cli("export", "team").stdout.splitlines()]
    assert lines[0]["type"] == "export" and lines[0]["group_id"] == "team"
    kinds = [line["type"] for line in lines[1:]]
    order = ["episode", "entity", "fact", "community", "saga", "audit_event", "contradiction", "settings"]
    assert kinds == sorted(kinds, key=order.index)
    facts = {line["object"]: line for line in lines if line["type"] == "fact"}
    assert set(facts) == {"Initech", "Rome", "Oslo"} and facts["Rome"]["invalid_at"]  # retired intervals too
    assert any(line["type"] == "saga" and line["saga"] == "general" for line in lines)
    assert not [line for line in lines if "Zed" in json.dumps(line)]  # another group's never
    out = tmp_path / "team.jsonl"
    result = cli("export", "team", "--out", str(out))
    assert "wrote 3 episodes, 4 entities, 3 facts" in result.stderr
    assert [json.loads(line)["type"] for line in out.read_text().splitlines()][1:] == kinds
    assert "cannot write" in cli("export", "team", "--out", str(tmp_path / "no" / "x.jsonl"), expect=2).stderr


def test_events_lists_moments_that_facts_leaves_out(cli: Invoke) -> None:
    cli("add", "g", "Ann Lee: I joined Acme in 2020. I left Acme on March 1, 2024.", "--time", "2024-03-05",
        "--offline")
    assert _triples(cli("facts", "g", "--json").stdout) == []  # left: no longer works there, and LEFT is no state
    left = json.loads(cli("events", "g", "--json").stdout)
    assert [(f["subject"], f["relation"], f["object"], f["event"]) for f in left] == [("Ann Lee", "LEFT", "Acme", True)]
    assert "event" in cli("events", "g", "--entity", "Acme").stdout
    assert json.loads(cli("events", "g", "--since", "2024-03-02", "--json").stdout) == []
    assert "no events match" in cli("events", "g", "--until", "2024-01-01").stdout
    assert "--until" in cli("events", "g", "--since", "2024-03-02", "--until", "2024-03-01", expect=2).stderr
