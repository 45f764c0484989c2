"""The ``kronograph`` command line, through typer's test runner, against temp databases."""

from __future__ import annotations

import json
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

    def invoke(*args: str, expect: int = 0, env: dict[str, str] | None = None, with_db: bool = True) -> Result:
        argv = [*args, "--db", str(db)] if with_db else list(args)
        result = runner.invoke(app, argv, env={"COLUMNS": "200", **(env or {})})
        assert result.exit_code == expect, (argv, result.exit_code, result.output, result.exception)
        assert "Traceback" not in result.output
        return result

    return invoke


def _ceo_change(cli: Invoke) -> None:
    cli("add-fact", "Sarah", "CEO_OF", "Acme", "--valid-at", "2024-01-15", "--episode", "e1")
    cli(
        "add-fact", "Mike", "CEO_OF", "Acme", "--valid-at", "2024-03-03", "--episode", "e2",
        "--relation-type", "CEO_OF=one_to_many",
    )


def _triples(output: str) -> list[str]:
    return [f"{f['subject']} {f['relation']} {f['object']}" for f in json.loads(output)]


def test_add_fact_reports_the_fact_and_what_it_retired(cli: Invoke) -> None:
    first = cli("add-fact", "Sarah", "CEO_OF", "Acme", "--valid-at", "2024-01-15", "--episode", "e1")
    assert "wrote fact Sarah CEO_OF Acme" in first.stdout
    assert "2024-01-15 → now" in first.stdout
    assert "episode e1" in first.stdout
    second = cli(
        "add-fact", "Mike", "CEO_OF", "Acme", "--valid-at", "2024-03-03", "--relation-type", "CEO_OF=one_to_many"
    )
    assert "wrote fact Mike CEO_OF Acme" in second.stdout
    assert "retired" in second.stdout
    assert "Sarah CEO_OF Acme" in second.stdout and "2024-01-15 → 2024-03-03" in second.stdout
    again = cli("add-fact", "Mike", "CEO_OF", "Acme", "--valid-at", "2024-03-03", "--episode", "e3")
    assert "merged into existing fact Mike CEO_OF Acme" in again.stdout


def test_without_a_declared_cardinality_nothing_is_retired(cli: Invoke) -> None:
    cli("add-fact", "Sarah", "CEO_OF", "Acme", "--valid-at", "2024-01-15")
    result = cli("add-fact", "Mike", "CEO_OF", "Acme", "--valid-at", "2024-03-03")
    assert "retired" not in result.stdout
    assert sorted(_triples(cli("facts", "--json").stdout)) == ["Mike CEO_OF Acme", "Sarah CEO_OF Acme"]


def test_facts_table_shows_current_facts_only_by_default(cli: Invoke) -> None:
    _ceo_change(cli)
    out = cli("facts").stdout
    assert "Mike" in out and "Sarah" not in out
    assert "2024-03-03" in out and "e2" in out
    assert "open" in out  # Mike's interval has no end
    every = cli("facts", "--include-retired").stdout
    assert "Sarah" in every and "2024-01-15" in every and "Mike" in every


def test_facts_json_parses_and_carries_every_field(cli: Invoke) -> None:
    _ceo_change(cli)
    facts = json.loads(cli("facts", "--include-retired", "--json").stdout)
    by_subject = {f["subject"]: f for f in facts}
    assert set(by_subject) == {"Sarah", "Mike"}
    assert by_subject["Sarah"]["valid_at"] == "2024-01-15T00:00:00Z"
    assert by_subject["Sarah"]["invalid_at"] == "2024-03-03T00:00:00Z"
    assert by_subject["Sarah"]["invalidated_by"] == by_subject["Mike"]["uuid"]
    assert by_subject["Mike"]["invalid_at"] is None
    assert by_subject["Mike"]["episodes"] == ["e2"]


def test_filters_select_by_subject_relation_object_and_entity(cli: Invoke) -> None:
    _ceo_change(cli)
    cli("add-fact", "Mike", "LIVES_IN", "Paris", "--valid-at", "2020-01-01")
    assert _triples(cli("facts", "--subject", "mike", "--relation", "lives-in", "--json").stdout) == [
        "Mike LIVES_IN Paris"
    ]
    assert _triples(cli("facts", "--object", "Acme", "--json").stdout) == ["Mike CEO_OF Acme"]
    assert sorted(_triples(cli("facts", "--entity", "Mike", "--json").stdout)) == [
        "Mike CEO_OF Acme", "Mike LIVES_IN Paris"
    ]
    assert "no facts match" in cli("facts", "--subject", "Nobody").stdout


def test_as_of_answers_about_the_past(cli: Invoke) -> None:
    _ceo_change(cli)
    assert _triples(cli("facts", "--as-of", "2024-02-01", "--json").stdout) == ["Sarah CEO_OF Acme"]
    assert _triples(cli("facts", "--as-of", "2024-04-01T12:00:00+02:00", "--json").stdout) == ["Mike CEO_OF Acme"]
    assert json.loads(cli("facts", "--as-of", "2023-12-31", "--json").stdout) == []


def test_known_at_replays_what_was_believed(cli: Invoke) -> None:
    cli("add-fact", "Sarah", "CEO_OF", "Acme", "--valid-at", "2024-01-15")
    learned = json.loads(cli("facts", "--json").stdout)[0]["created_at"]
    cli("add-fact", "Mike", "CEO_OF", "Acme", "--valid-at", "2024-03-03", "--relation-type", "CEO_OF=one_to_many")
    before = cli("facts", "--as-of", "2024-04-01", "--known-at", learned, "--json").stdout
    assert _triples(before) == ["Sarah CEO_OF Acme"]
    assert _triples(cli("facts", "--as-of", "2024-04-01", "--json").stdout) == ["Mike CEO_OF Acme"]
    assert json.loads(cli("facts", "--known-at", "2000-01-01", "--json").stdout) == []


def test_timeline_orders_intervals_and_closes_retired_ones(cli: Invoke) -> None:
    _ceo_change(cli)
    cli("add-fact", "Acme", "BASED_IN", "Berlin", "--valid-at", "2010-05-01")
    out = cli("timeline", "Acme").stdout
    closed, current, berlin = (out.index(s) for s in ("2024-01-15 → 2024-03-03", "2024-03-03 → now", "Berlin"))
    assert berlin < closed < current
    assert out.index("Sarah CEO_OF Acme") < out.index("Mike CEO_OF Acme")
    assert "closed" in out and "current" in out
    only_ceo = _triples(cli("timeline", "acme", "--relation", "CEO_OF", "--json").stdout)
    assert only_ceo == ["Sarah CEO_OF Acme", "Mike CEO_OF Acme"]
    assert "no facts about Nobody" in cli("timeline", "Nobody").stdout


def test_remove_episode_restores_what_it_retired(cli: Invoke) -> None:
    _ceo_change(cli)
    out = cli("remove-episode", "e2").stdout
    assert "removed episode e2" in out and "deleted 1 fact(s)" in out
    assert "2024-01-15 → now" in out  # Sarah's interval is open again
    assert _triples(cli("facts", "--json").stdout) == ["Sarah CEO_OF Acme"]
    missing = cli("remove-episode", "e2", expect=2)
    assert "error:" in missing.stderr and "e2" in missing.stderr


def test_groups_are_separate(cli: Invoke) -> None:
    cli("add-fact", "Ann", "KNOWS", "Bob", "-g", "team-a")
    assert json.loads(cli("facts", "--json", "--group", "team-b").stdout) == []
    assert _triples(cli("facts", "--json", "-g", "team-a").stdout) == ["Ann KNOWS Bob"]
    assert json.loads(cli("facts", "--json").stdout) == []


def test_db_defaults_to_the_environment_variable(cli: Invoke, tmp_path: Path) -> None:
    elsewhere = tmp_path / "from-env.db"
    cli("add-fact", "Ann", "KNOWS", "Bob", env={"KRONOGRAPH_DB": str(elsewhere)}, with_db=False)
    assert elsewhere.exists()
    out = cli("facts", "--json", env={"KRONOGRAPH_DB": str(elsewhere)}, with_db=False).stdout
    assert _triples(out) == ["Ann KNOWS Bob"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("facts", "--as-of", "yesterday"), ["--as-of", "yesterday"]),
        (("facts", "--known-at", "2024-13-45"), ["--known-at", "2024-13-45"]),
        (("add-fact", "A", "R", "B", "--valid-at", "soon"), ["--valid-at", "soon"]),
        (("add-fact", "A", "R", "B", "--valid-at", "2024-02-01", "--invalid-at", "2024-01-01"), ["--invalid-at"]),
        (("add-fact", "A", "R", "B", "--relation-type", "R"), ["--relation-type", "NAME=CARDINALITY"]),
        (("add-fact", "A", "R", "B", "--relation-type", "R=sometimes"), ["--relation-type", "many_to_one"]),
        (("add-fact", " ", "R", "B"), ["subject", "empty"]),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_code_2(cli: Invoke, args: tuple[str, ...], words: list[str]) -> None:
    cli("add-fact", "Seed", "KNOWS", "Fact")  # the database exists, so only the input is wrong
    result = cli(*args, expect=2)
    assert result.stderr.startswith("error: ")
    assert len(result.stderr.strip().splitlines()) == 1
    for word in words:
        assert word in result.stderr
    assert result.stdout == ""
    assert _triples(cli("facts", "--json").stdout) == ["Seed KNOWS Fact"]  # nothing was written


def test_a_bad_time_writes_no_database(cli: Invoke, db: Path) -> None:
    cli("add-fact", "A", "R", "B", "--valid-at", "not-a-time", expect=2)
    assert not db.exists()


def test_reading_a_missing_database_is_an_error_not_a_new_file(cli: Invoke, db: Path) -> None:
    for args in (("facts",), ("timeline", "Acme"), ("remove-episode", "e1")):
        result = cli(*args, expect=2)
        assert "no database at" in result.stderr
    assert not db.exists()


def test_user_text_is_printed_literally_not_as_markup(cli: Invoke) -> None:
    out = cli("add-fact", "Bob [the builder]", "USES", "[red]hammer[/]").stdout
    assert "Bob [the builder] USES [red]hammer[/]" in out
    assert "[red]hammer[/]" in cli("facts").stdout


def test_demo_tells_the_story_and_shows_the_refused_retirement(cli: Invoke) -> None:
    out = cli("demo", with_db=False).stdout
    for chapter in ("A change of CEO", "learned late", "cannot retire", "What did we believe"):
        assert chapter in out
    assert "2024-01-15 → 2024-03-03" in out  # Sarah's closed interval
    assert "2024-01-10 → 2025-09-10" in out  # Beijing, born closed
    assert "refused: Initech USES Postgres" in out
    assert "retired: nothing" in out
    assert "2022-04-01 → now │ Initech USES Postgres" in out  # still current afterwards
    believed = out[out.index("as we believed on 2024-04-15") :].splitlines()[0]
    assert believed.rstrip().endswith("Sarah")
    now = out[out.index("as we believe now") :].splitlines()[0]
    assert now.rstrip().endswith("Mike")


def test_demo_db_is_kept_and_readable_by_the_other_commands(cli: Invoke, tmp_path: Path) -> None:
    kept = tmp_path / "demo.db"
    cli("demo", "--db", str(kept), with_db=False)
    assert kept.exists()
    out = cli("facts", "-g", "demo", "--subject", "Alice", "--as-of", "2025-01-01", "--json", "--db", str(kept),
              with_db=False)
    assert _triples(out.stdout) == ["Alice LIVES_IN Beijing"]
    again = cli("demo", "--db", str(kept), with_db=False, expect=2)
    assert "already exists" in again.stderr


def _commands() -> dict[str, list[str]]:
    """Each command's name and every option it accepts, from the app itself."""
    group = typer.main.get_command(app)
    out: dict[str, list[str]] = {}
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        out[name] = [opt for p in command.params for opt in p.opts if opt.startswith("-") and opt != "--help"]
    return out


def test_every_command_and_option_is_documented() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    commands = _commands()
    assert set(commands) == {"add-fact", "facts", "timeline", "history", "remove-episode", "demo"}
    for name, options in commands.items():
        assert f"## `kronograph {name}" in docs, name
        section = docs.split(f"## `kronograph {name}", 1)[1].split("\n## ", 1)[0]
        for option in options:
            assert f"`{option}" in section or f"/{option}" in section, (name, option)


def test_every_command_and_option_appears_in_help(cli: Invoke) -> None:
    top = cli("--help", with_db=False).stdout
    for name, options in _commands().items():
        assert name in top
        own = cli(name, "--help", with_db=False).stdout
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
    (sarah,) = [f for f in json.loads(cli("facts", "--json", "--include-retired").stdout) if f["subject"] == "Sarah"]
    out = cli("history", sarah["uuid"]).stdout
    assert "created" in out and "retired" in out and "2024-01-15 → 2024-03-03" in out
    changes = json.loads(cli("history", sarah["uuid"], "--json").stdout)
    assert [c["cause"] for c in changes] == ["created", "retired"]
    assert [c["episode_id"] for c in changes] == ["e1", "e2"]
    assert "no fact" in cli("history", "nope", expect=2).stderr


def test_limit_and_include_expired(cli: Invoke) -> None:
    types = ("--relation-type", "LIVES_IN=many_to_one")
    cli("add-fact", "Eve", "LIVES_IN", "Oslo", "--valid-at", "2024-01-01", *types)
    cli("add-fact", "Eve", "LIVES_IN", "Bergen", "--valid-at", "2024-01-01", *types)  # a correction
    assert _triples(cli("facts", "--json", "--include-retired").stdout) == ["Eve LIVES_IN Bergen"]
    both = _triples(cli("facts", "--json", "--include-retired", "--include-expired").stdout)
    assert sorted(both) == ["Eve LIVES_IN Bergen", "Eve LIVES_IN Oslo"]
    assert len(json.loads(cli("facts", "--json", "--include-expired", "--limit", "1").stdout)) == 1
    cli("facts", "--limit", "0", expect=2)
