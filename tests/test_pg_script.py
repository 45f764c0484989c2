"""Migration scripts cut into statements (run one by one, as Citus needs)."""

from __future__ import annotations

from kronograph.store.postgres.schema import MIGRATIONS
from kronograph.store.postgres.script import statements


def test_statements_end_at_semicolons_outside_quotes_and_comments() -> None:
    script = """
    -- a comment; not a statement
    CREATE TABLE t (a TEXT DEFAULT 'x;y', "b;c" INT); /* block; comment */
    INSERT INTO t(a) VALUES ('it''s; fine');
    CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
    CREATE FUNCTION g() RETURNS text LANGUAGE sql AS $body$ SELECT 'a;b' $body$
    """
    assert statements(script) == [
        "CREATE TABLE t (a TEXT DEFAULT 'x;y', \"b;c\" INT)",
        "INSERT INTO t(a) VALUES ('it''s; fine')",
        "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$",
        "CREATE FUNCTION g() RETURNS text LANGUAGE sql AS $body$ SELECT 'a;b' $body$",
    ]
    assert statements("-- nothing\n ; ;") == []


def test_every_migration_has_statements_and_no_stray_semicolons() -> None:
    for _, _, script in MIGRATIONS:
        parts = statements(script)
        assert parts
        for part in parts:
            assert not part.startswith("--") and part.split()[0] in {"CREATE", "ALTER", "UPDATE", "INSERT", "DROP"}
