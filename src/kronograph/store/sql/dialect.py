"""What the SQL of SQLite and PostgreSQL (and Citus, a PostgreSQL) says differently.

The queries are built once (``kronograph.store.sql``), from a dialect: how
a parameter is written, how a list is bound and joined, how uuids are
ordered byte by byte, how a boolean is tested, how JSON is read, how rows
join within their group, how an insert meets a row already there, and each
backend's column lists for the row converters of ``kronograph.store.rows``.
What the engines do differently rather than say differently (full-text
ranking, vector indexes, locking, the graph walk) stays in each backend's
own modules. Citus is PostgreSQL: it needs no dialect of its own.

A dialect is frozen and hashed by identity (each backend has one), so a
builder caches the SQL of a query shape per dialect at the cost of a
dictionary lookup.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Columns", "Dialect", "PostgresDialect", "Query", "SqliteDialect"]

# A query: its SQL and its named parameters.
Query = tuple[str, dict[str, object]]


@dataclass(frozen=True, slots=True)
class Columns:
    """A backend's column lists, each in the order its row converter reads."""

    entity: str  # rows.entity, over ``entities e``
    episode: str  # rows.episode, over ``episodes p``
    fact: str  # rows.fact, over ``facts f`` joined to its endpoints ``s`` and ``o``
    fact_list: str  # the same for a list of facts (SQLite reads their sources after, in one query)
    history_fact: str  # rows.fact, over a history snapshot ``h``
    record: str  # rows.fact_record, without the sources
    record_sources: str  # appended to ``record`` where the sources come in the same row ("" where read after)
    fact_episodes: str  # a fact ``f``'s source episodes as a JSON list, in order


@dataclass(frozen=True, slots=True, eq=False)
class Dialect(ABC):
    """The SQL spelling of one engine; the methods return SQL fragments. The
    abstract ones are what every engine must spell for itself."""

    columns: Columns
    mark: str = "?"  # a positional parameter
    lead_join: str = "JOIN"  # the join from a small driving set to a table (SQLite fixes the order)
    keyed_by_group: bool = False  # rows are keyed by (group_id, uuid): every join carries the group

    @abstractmethod
    def p(self, name: str) -> str:
        """The named parameter ``name``."""

    @abstractmethod
    def listed(self, name: str) -> str:
        """A SELECT of the values of the list parameter ``name``, one per row."""

    @abstractmethod
    def in_list(self, column: str, name: str) -> str:
        """The test that ``column`` is one of the list parameter ``name``."""

    @abstractmethod
    def bind_list(self, values: Iterable[object]) -> object:
        """The value to bind for a list parameter."""

    def bytewise(self, expr: str) -> str:
        """``expr`` compared byte by byte (uuids order as on every backend)."""
        return expr

    @abstractmethod
    def is_(self, column: str, flag: bool) -> str:
        """The test that the boolean ``column`` is ``flag``."""

    def typed(self, expr: str, sql_type: str) -> str:
        """``expr`` cast to ``sql_type`` where the engine cannot infer a
        parameter's type (in a row comparison)."""
        return expr

    def indexed(self, index: str) -> str:
        """An index hint after a table name ("" where the engine takes none)."""
        return ""

    @abstractmethod
    def limited(self, select: str) -> str:
        """``select`` (with its own ORDER BY and LIMIT) as a member of a UNION."""

    @abstractmethod
    def json_texts(self, column: str, alias: str) -> str:
        """A FROM item of the texts in the JSON array ``column``, each as ``alias.value``."""

    @abstractmethod
    def json_value(self, value: object) -> object:
        """A JSON column's value as Python (None for SQL NULL)."""

    @abstractmethod
    def json_length(self, column: str, key: str) -> str:
        """The length of the JSON array at ``key`` of the object in ``column`` (NULL if none)."""

    @abstractmethod
    def text_field(self, column: str, path: str) -> str:
        """The text at the JSON path parameter ``path`` (from :meth:`field_path`)
        of the JSON object held as text in ``column`` (NULL if none)."""

    def field_path(self, key: str) -> str:
        """The value to bind for :meth:`text_field`'s path to the top-level ``key``
        (an identifier-like key: nothing in it needs quoting)."""
        return key

    def on(self, alias: str, other: str, condition: str) -> str:
        """A join condition of ``alias`` to ``other``, kept within the group
        where rows are keyed by it (so a distributed join stays on one shard)."""
        if self.keyed_by_group:
            return f"{alias}.group_id = {other}.group_id AND {condition}"
        return condition

    def of_group(self, alias: str) -> str:
        """``alias``'s group test where rows are keyed by group ("" elsewhere)."""
        return f"{alias}.group_id = {self.p('g')} AND " if self.keyed_by_group else ""

    def insert(
        self, table: str, columns: tuple[str, ...], *, ignore: bool = False, replace: tuple[str, ...] = (),
        update: tuple[str, ...] = (), source: str | None = None,
    ) -> str:
        """An INSERT of ``columns`` (positional parameters, or ``source``)
        that, on a row already there by its key, does nothing (``ignore``),
        takes the new row's values (``update``: the key's columns), or
        replaces the row (``replace``: the same, where the engine has no
        shorter way)."""
        keys = replace or update
        sql = f"INSERT INTO {table}({', '.join(columns)}) {source or self._values(len(columns))}"
        if ignore:
            return sql + " ON CONFLICT DO NOTHING"
        if keys:
            others = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in keys)
            return sql + f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {others}"
        return sql

    def _values(self, n: int) -> str:
        return f"VALUES ({','.join([self.mark] * n)})"

    def union_ordered(self, union: str, keys: tuple[tuple[int, str], ...]) -> str:
        """``union`` ordered by its output columns ``keys`` (position, name),
        the last a uuid compared byte by byte: here by a wrapper (a union
        orders by bare output columns only, with no collation)."""
        *first, (_, last) = keys
        order = [f"u.{name}" for _, name in first] + [self.bytewise(f"u.{last}")]
        return f"SELECT * FROM ({union}) u ORDER BY {', '.join(order)}"

    def by_uuid_group(self, alias: str) -> str:
        """``alias``'s group test in a read of rows by their uuids. Where a
        uuid is unique across groups (rows not keyed by group), the test is
        kept out of the index choice (a unary plus), so the rows are found by
        uuid: statistics that average many small groups would otherwise have
        the planner read the whole of a large group's rows through its group
        index."""
        return f"{alias}.group_id = {self.p('g')}" if self.keyed_by_group else f"+{alias}.group_id = {self.p('g')}"

    def group_where(self, alias: str) -> list[str]:
        """``alias``'s group test for a WHERE clause, where the join to it does
        not already carry it (rows not keyed by group)."""
        return [] if self.keyed_by_group else [f"{alias}.group_id = {self.p('g')}"]

    def endpoints(self) -> str:
        """The joins of a fact ``f`` to its endpoint entities ``s`` and ``o``."""
        return (
            f" JOIN entities s ON {self.on('s', 'f', 's.uuid = f.source_uuid')}"
            f" JOIN entities o ON {self.on('o', 'f', 'o.uuid = f.target_uuid')}"
        )


@dataclass(frozen=True, slots=True, eq=False)
class SqliteDialect(Dialect):
    """SQLite: ``:name`` parameters, lists as JSON text read by ``json_each``,
    uuids unique store-wide, joins from a driving set fixed by CROSS JOIN."""

    lead_join: str = "CROSS JOIN"

    def p(self, name: str) -> str:
        return f":{name}"

    def union_ordered(self, union: str, keys: tuple[tuple[int, str], ...]) -> str:
        # By position: a wrapper would make the planner pick worse lookups inside the union.
        return f"{union} ORDER BY {', '.join(str(i) for i, _ in keys)}"

    def insert(
        self, table: str, columns: tuple[str, ...], *, ignore: bool = False, replace: tuple[str, ...] = (),
        update: tuple[str, ...] = (), source: str | None = None,
    ) -> str:
        if ignore or replace:
            verb = "IGNORE" if ignore else "REPLACE"
            return f"INSERT OR {verb} INTO {table}({', '.join(columns)}) {source or self._values(len(columns))}"
        return Dialect.insert(self, table, columns, update=update, source=source)

    def listed(self, name: str) -> str:
        return f"SELECT value FROM json_each(:{name})"

    def in_list(self, column: str, name: str) -> str:
        return f"{column} IN (SELECT value FROM json_each(:{name}))"

    def bind_list(self, values: Iterable[object]) -> object:
        return json.dumps(list(values))

    def is_(self, column: str, flag: bool) -> str:
        return f"{column} = {int(flag)}"

    def indexed(self, index: str) -> str:
        return f" INDEXED BY {index}"

    def limited(self, select: str) -> str:
        return f"SELECT uuid FROM ({select})"

    def json_texts(self, column: str, alias: str) -> str:
        return f"json_each({column}) {alias}"

    def json_value(self, value: object) -> object:
        return json.loads(value) if value else None  # type: ignore[arg-type]  # text

    def json_length(self, column: str, key: str) -> str:
        return f"json_array_length({column}, '$.{key}')"

    def text_field(self, column: str, path: str) -> str:
        return f"json_extract({column}, {self.p(path)})"

    def field_path(self, key: str) -> str:
        return f"$.{key}"


@dataclass(frozen=True, slots=True, eq=False)
class PostgresDialect(Dialect):
    """PostgreSQL: ``%(name)s`` parameters, lists as text arrays, rows keyed
    by (group_id, uuid), ties broken by uuids in byte order (``COLLATE "C"``)."""

    mark: str = "%s"
    keyed_by_group: bool = True

    def p(self, name: str) -> str:
        return f"%({name})s"

    def listed(self, name: str) -> str:
        return f"SELECT unnest(%({name})s::text[])"

    def in_list(self, column: str, name: str) -> str:
        return f"{column} = ANY(%({name})s::text[])"

    def bind_list(self, values: Iterable[object]) -> object:
        return list(values)

    def bytewise(self, expr: str) -> str:
        return f'{expr} COLLATE "C"'

    def is_(self, column: str, flag: bool) -> str:
        return f"{column} IS {'TRUE' if flag else 'FALSE'}"

    def limited(self, select: str) -> str:
        return f"({select})"

    def json_texts(self, column: str, alias: str) -> str:
        return f"jsonb_array_elements_text({column}) {alias}(value)"

    def json_value(self, value: object) -> object:
        return value  # jsonb arrives decoded

    def json_length(self, column: str, key: str) -> str:
        return f"jsonb_array_length({column} -> '{key}')"

    def text_field(self, column: str, path: str) -> str:
        return f"(CAST({column} AS jsonb) ->> {self.p(path)})"

    def typed(self, expr: str, sql_type: str) -> str:
        return f"{expr}::{sql_type}"
