"""A feature used without its extra says which ``pip install`` brings it.

Each missing package is simulated in-process: a ``None`` in ``sys.modules``
makes ``import name`` raise ImportError, as if it were not installed. The
installed wheel's core-only check is in ``test_wheel.py``.
"""

from __future__ import annotations

import asyncio
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import kronograph
import kronograph.cli
from kronograph.errors import KronographError

ROOT = Path(__file__).resolve().parents[1]


def _missing(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def test_every_extra_named_in_a_message_exists() -> None:
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    extras = set(optional)
    named = set()
    for path in (ROOT / "src" / "kronograph").rglob("*.py"):
        text = path.read_text()
        start = 0
        while (i := text.find("kronograph[", start)) >= 0:
            end = text.index("]", i)
            named.update(part for part in text[i + len("kronograph["):end].split(",") if "{" not in part)
            start = end
    assert named and named <= extras, named - extras
    # The server extra brings what serve and mcp import, and the command line with them.
    server = " ".join(optional["server"])
    for package in ("fastapi", "uvicorn", "mcp", "typer", "rich", "prometheus-client", "networkx"):
        assert package in server


def test_without_the_cli_extra_version_answers_and_commands_name_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(kronograph.cli, "app", None)
    monkeypatch.setattr(sys, "argv", ["kronograph", "--version"])
    kronograph.cli.main()
    assert capsys.readouterr().out == f"kronograph {kronograph.__version__}\n"
    monkeypatch.setattr(sys, "argv", ["kronograph", "demo"])
    with pytest.raises(SystemExit) as exit_:
        kronograph.cli.main()
    assert exit_.value.code == 1
    assert "pip install 'kronograph[cli]'" in capsys.readouterr().err


def test_serve_without_the_server_extra_names_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    app = kronograph.cli.build_app()
    _missing(monkeypatch, "uvicorn")
    result = CliRunner().invoke(app, ["serve", "--local", "--db", str(tmp_path / "m.db")])
    assert result.exit_code == 2
    assert "pip install 'kronograph[server]'" in result.output


def test_communities_without_networkx_name_their_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from kronograph.maintain.clusters import networkx

    _missing(monkeypatch, "networkx")
    with pytest.raises(KronographError, match=r"pip install 'kronograph\[communities\]'"):
        networkx()


def test_a_provider_without_its_sdk_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from kronograph.llm._sdk import require_sdk

    _missing(monkeypatch, "anthropic")
    with pytest.raises(ImportError, match=r"pip install 'kronograph\[anthropic\]'"):
        require_sdk("anthropic", "anthropic")


def test_postgres_without_its_driver_names_its_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from kronograph.migrate.run import migrate_memory

    _missing(monkeypatch, "psycopg")
    with pytest.raises(KronographError, match=r"pip install 'kronograph\[postgres\]'"):
        asyncio.run(migrate_memory(tmp_path / "m.db", "postgresql://localhost:1/none"))
