"""``migrate_memory``: copy a SQLite memory into PostgreSQL, then check the copy.

Steps: refuse wrong URLs; open the source read-only and check it is a
kronograph memory at the current schema version; create the target's schema
(by opening a :class:`PostgresStore`); copy every table in one transaction
(:mod:`.copy`); then count and compare answers (:mod:`.verify`). A refusal
or a failure before the commit leaves the target as it was.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import KronographError
from .errors import MigrationError
from .source import SqliteSource, source_path

if TYPE_CHECKING:  # both import psycopg, which only a migration that runs needs
    from .copy import Progress
    from .verify import Verification

__all__ = ["MigrationReport", "migrate_memory", "migrate_memory_sync"]


@dataclass(slots=True)
class MigrationReport:
    """What was copied and what the check found; ``ok`` is the verdict."""

    source: str
    target: str  # without its password
    groups: int
    rows: int
    copy_seconds: float
    verify_seconds: float
    verification: Verification

    @property
    def ok(self) -> bool:
        return self.verification.ok


def _quiet(step: str, done: int, total: int) -> None:
    """The default progress callback: says nothing."""


def _target_url(url: str) -> str:
    text = url.strip()
    if text.startswith(("postgresql://", "postgres://")):
        return text
    if text.startswith("sqlite:") or "://" not in text:
        raise MigrationError(
            f"--to: {text!r} is not a PostgreSQL URL: kronograph migrate copies into PostgreSQL "
            "(postgresql://user:password@host:5432/database)"
        )
    raise MigrationError(f"--to: a {text.split('://', 1)[0]}:// URL cannot be a target; give a postgresql:// URL")


async def _open_schema(url: str) -> None:
    """Create (or migrate) the target's schema the way the store does."""
    from ..store.postgres import PostgresStore

    store = PostgresStore(url, min_size=0, max_size=1)
    try:
        await store.open()
    except KronographError as exc:
        raise MigrationError(f"--to: {exc}") from exc
    finally:
        await store.close()


async def migrate_memory(
    source: str | Path,
    target: str,
    *,
    sample: int = 5,
    progress: Progress | None = None,
    now: datetime | None = None,
) -> MigrationReport:
    """Copy the SQLite memory ``source`` (a path or ``sqlite:///`` URL) into
    the empty PostgreSQL database ``target``, then verify the copy: equal row
    counts per table, and ``sample`` entities, facts and episodes per group
    asked about on both sides (0: counts only). ``now`` is the moment "now"
    queries ask about (default: the wall clock). Raises :class:`MigrationError`
    when it refuses or the copy fails (nothing is then written), or when the
    check cannot run (its message says the copy is committed); a copy that
    does not check out is reported, not raised (``report.ok``)."""
    url = _target_url(target)
    try:
        import psycopg
        from pgvector.psycopg import register_vector_async
    except ImportError as exc:
        raise MigrationError(
            f"PostgreSQL needs the postgres extra (pip install 'kronograph[postgres]'): {exc}"
        ) from None
    from ..store.postgres import PostgresStore
    from ..store.postgres.connection import redact
    from .copy import TABLES, copy_tables
    from .verify import Verification, count_tables, verify_queries

    tell = progress or _quiet
    path = source_path(str(source))
    snapshot = await asyncio.to_thread(SqliteSource, path)
    try:
        counts = await asyncio.to_thread(lambda: {table: snapshot.count(table) for table, _ in TABLES})
        await _open_schema(url)
        started = time.perf_counter()
        try:
            async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                await register_vector_async(conn)
                async with conn.transaction():
                    await copy_tables(conn, snapshot, counts, tell)
        except psycopg.Error as exc:
            raise MigrationError(redact(f"--to: PostgreSQL error on {url}, nothing was written: {exc}")) from exc
        copied = time.perf_counter()
        store = PostgresStore(url, min_size=0, max_size=2)
        try:
            async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                for table, _ in TABLES:  # fresh planner statistics for what was loaded
                    await conn.execute(f"ANALYZE {table}")  # type: ignore[arg-type]
                result = Verification(counts=await count_tables(conn, counts))
            await verify_queries(snapshot, store, result, sample=sample, now=now or datetime.now(UTC), progress=tell)
        except (psycopg.Error, KronographError) as exc:
            raise MigrationError(
                redact(f"the copy into {url} is committed, but checking it failed: {exc}")
            ) from exc
        finally:
            await store.close()
        return MigrationReport(
            source=str(path), target=redact(url), groups=counts["groups"], rows=sum(counts.values()),
            copy_seconds=copied - started, verify_seconds=time.perf_counter() - copied, verification=result,
        )
    finally:
        snapshot.close()


def migrate_memory_sync(source: str | Path, target: str, **options: object) -> MigrationReport:
    """:func:`migrate_memory` for callers without an event loop (the command line)."""
    return asyncio.run(migrate_memory(source, target, **options))  # type: ignore[arg-type]
