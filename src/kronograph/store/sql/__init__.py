"""Read queries built once for every SQL backend, from a :class:`Dialect`.

Each builder returns the SQL and its named parameters; a backend's read
modules execute them and convert the rows, and keep only what their engine
does differently (full text, vectors, where sources are read).
"""

from .dialect import Columns, Dialect, PostgresDialect, Query, SqliteDialect

__all__ = ["Columns", "Dialect", "PostgresDialect", "Query", "SqliteDialect"]
