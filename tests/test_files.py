"""Files kronograph writes are private (mode 0600) and replaced atomically
through an unpredictable temporary name: a symlink planted where the old code
wrote its ``*.tmp`` is never followed."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from kronograph import Memory
from kronograph._files import create_private, write_private
from kronograph.server.keys import KeyRing

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes and symlinks as POSIX has them")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The common umask (022), under which a plain open() makes 0644 files."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def _planted(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A victim file, and a symlink to it at ``name`` (the old temporary path)."""
    victim = tmp_path / "victim.txt"
    victim.write_text("do not touch\n")
    link = tmp_path / name
    link.symlink_to(victim)
    return victim, link


def test_the_keys_file_is_private_and_never_written_through_a_planted_symlink(tmp_path: Path) -> None:
    path = tmp_path / "kronograph-keys.json"
    victim, link = _planted(tmp_path, "kronograph-keys.json.tmp")
    ring = KeyRing()
    ring.add("agent", ["team"])
    ring.save(path)
    ring.add("other", ["team"])
    ring.save(path)  # over an existing file too

    assert victim.read_text() == "do not touch\n" and link.is_symlink()
    assert _mode(path) == 0o600 and not path.is_symlink()
    assert [k.name for k in KeyRing.load(path).keys] == ["agent", "other"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kronograph-keys.json", "kronograph-keys.json.tmp",
                                                          "victim.txt"]  # no temporary file left behind


def test_a_symlink_at_the_target_is_replaced_not_written_through(tmp_path: Path) -> None:
    victim, link = _planted(tmp_path, "out.jsonl")
    write_private(link, "new\n")
    assert victim.read_text() == "do not touch\n"
    assert not link.is_symlink() and link.read_text() == "new\n" and _mode(link) == 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "keys.json"
    write_private(path, "old\n")

    def full(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="disk full"):
        write_private(path, "new\n")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["keys.json"]


def test_a_new_sqlite_database_and_its_wal_and_shm_are_private(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    with Memory(path, model=None) as memory:
        memory.add_fact("g", "Ann", "LIVES_IN", "Rome")
        files = {p.name: _mode(p) for p in tmp_path.iterdir()}
        assert {"memory.db", "memory.db-wal", "memory.db-shm"} <= set(files)
        assert files == dict.fromkeys(files, 0o600), files


def test_an_existing_database_keeps_its_mode_and_a_symlink_is_not_replaced(tmp_path: Path) -> None:
    own = tmp_path / "shared.db"
    with Memory(own, model=None) as memory:
        memory.add_fact("g", "Ann", "LIVES_IN", "Rome")
    os.chmod(own, 0o640)  # the owner's choice
    with Memory(own, model=None) as memory:
        assert memory.facts("g")
    assert _mode(own) == 0o640
    assert create_private(own) is False


def test_export_out_is_private_and_not_written_through_a_planted_symlink(tmp_path: Path) -> None:
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from kronograph import cli as kronograph_cli

    db = tmp_path / "memory.db"
    with Memory(db, model=None) as memory:
        memory.add_fact("team", "Ann", "LIVES_IN", "Rome")
    out = tmp_path / "team.jsonl"
    victim, link = _planted(tmp_path, "team.jsonl.tmp")
    result = CliRunner().invoke(kronograph_cli.app, ["export", "team", "--out", str(out), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert victim.read_text() == "do not touch\n" and link.is_symlink()
    assert _mode(out) == 0o600 and "Rome" in out.read_text()
