"""Empty kronograph stores on the Citus cluster, for the tests that run on
every backend (``citus`` in :data:`tests.conftest.BACKENDS`).

Migrating a store on Citus distributes some twenty tables (about 1.5 s), and
a template database cannot be copied there (``CREATE DATABASE … TEMPLATE``
makes no shards on the workers). So each test process keeps a few stores,
each in a schema of its own in one database, migrated once; a test asking
for a fresh store gets the least recently handed out, emptied: its rows
deleted, children before parents (tens of milliseconds where ``TRUNCATE``
takes half a second on the cluster). A schema's tables are distributed like
``public``'s, and the store reads its tables from the connection's
``search_path``, so nothing of the store changes for the tests.

On the tests' own cluster the database is made on every node
(:meth:`CitusCluster.fresh_database`); on a cluster given by
``KRONOGRAPH_TEST_CITUS_URL`` the schemas are made in its database and
dropped at the end.
"""

from __future__ import annotations

import uuid
from collections import deque
from urllib.parse import quote, urlsplit, urlunsplit

from . import citus_server, pg_server

SLOTS = 4  # stores kept at once: a test holds two at most (a memory and its shadow), reopening one or both


def _with_schema(url: str, schema: str) -> str:
    """``url`` with ``schema`` first on the search path (``public`` after it, for pgvector's type)."""
    parts = urlsplit(url)
    option = quote(f"-csearch_path={schema},public")
    query = f"{parts.query}&options={option}" if parts.query else f"options={option}"
    return urlunsplit(parts._replace(query=query))


def _admin(url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)  # type: ignore[arg-type]


# The tables of a schema that hold a store's rows (every table but the
# migrations' own), children first: a child's foreign key to a parent would
# refuse the parent's rows going first.
_TABLES = """
WITH RECURSIVE t AS (
    SELECT c.oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = %(s)s AND c.relkind IN ('r', 'p') AND c.relname <> 'schema_migrations'
), depth(oid, d) AS (
    SELECT oid, 0 FROM t
    UNION ALL
    SELECT k.conrelid, depth.d + 1 FROM depth JOIN pg_constraint k ON k.confrelid = depth.oid
    WHERE k.contype = 'f' AND k.conrelid <> k.confrelid AND depth.d < 50
)
SELECT t.relname FROM t JOIN depth USING (oid) GROUP BY t.relname ORDER BY max(depth.d) DESC, t.relname
"""


class Stores:
    """A few migrated schemas in one database of the cluster, handed out in turn."""

    def __init__(self, database_url: str, *, drop_schemas: bool) -> None:
        self.url = database_url
        self._prefix = f"kg_t{uuid.uuid4().hex[:8]}"
        self._drop = drop_schemas
        self._free: deque[str] = deque()
        self._made: list[str] = []
        self._tables: dict[str, list[str]] = {}

    def fresh(self) -> str:
        """The URL of an empty, migrated store (its schema first on the search path)."""
        if len(self._made) < SLOTS:
            schema = f"{self._prefix}_{len(self._made)}"
            _admin(self.url, f'CREATE SCHEMA "{schema}"')
            self._made.append(schema)
            url = _with_schema(self.url, schema)
            pg_server.migrate(url)
        else:
            schema = self._free.popleft()
            url = _with_schema(self.url, schema)
            self._empty(schema)
        self._free.append(schema)
        return url

    def _empty(self, schema: str) -> None:
        import psycopg

        with psycopg.connect(self.url) as conn:  # one transaction: emptied whole or not at all
            tables = self._tables.get(schema)
            if tables is None:
                tables = self._tables[schema] = [str(row[0]) for row in conn.execute(_TABLES, {"s": schema})]
            for table in tables:  # the erasure log refuses DELETE (append-only): it is truncated, first
                if table == "erasure_log":
                    conn.execute(f'TRUNCATE "{schema}"."{table}"')  # type: ignore[arg-type]
            for table in tables:
                if table != "erasure_log":
                    conn.execute(f'DELETE FROM "{schema}"."{table}"')  # type: ignore[arg-type]

    def close(self) -> None:
        made, self._made = self._made, []
        self._free.clear()
        if self._drop and made:
            _admin(self.url, *(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE' for schema in made))


_stores: Stores | None = None


def fresh() -> str:
    """An empty store's URL on the cluster (starting it on first use; skips
    the test where Citus is unavailable, fails it under ``CI=true``)."""
    global _stores
    coordinator = citus_server.coordinator_url()
    if _stores is None:
        cluster = citus_server.cluster()
        if cluster is not None:
            database = cluster.fresh_database(f"kg_stores_{uuid.uuid4().hex[:8]}", keep=True)
            _stores = Stores(database, drop_schemas=False)
        else:
            _stores = Stores(coordinator, drop_schemas=True)
    return _stores.fresh()


def shutdown() -> None:
    """Drop the schemas made in a cluster given by URL (the tests' own goes with its nodes)."""
    global _stores
    stores, _stores = _stores, None
    if stores is not None:
        stores.close()
