"""Queries built once for every SQL backend, from a :class:`Dialect`.

Each read builder returns the SQL and its named parameters (the SQL of a
query shape kept per dialect); a backend's read modules execute them and
convert the rows, and keep only what their engine does differently (full
text, vectors, the graph walk, where sources are read). ``plan_sql`` gives
the statements of a plan's changes the same way.
"""

from .dialect import Columns, Dialect, PostgresDialect, Query, SqliteDialect

__all__ = ["Columns", "Dialect", "PostgresDialect", "Query", "SqliteDialect"]
