"""Storage backends behind one protocol, chosen by :func:`open_store`."""

from __future__ import annotations

from pathlib import Path

from .protocol import FactQuery, Store
from .sqlite import SQLiteStore

__all__ = ["FactQuery", "SQLiteStore", "Store", "open_store"]


def open_store(spec: str | Path | Store, *, threaded: bool = True) -> Store:
    """A store from a path, ``":memory:"``, a ``sqlite:///`` or ``postgresql://``
    URL, or a store object."""
    if isinstance(spec, Path):
        return SQLiteStore(spec, threaded=threaded)
    if isinstance(spec, str):
        if not spec.strip():
            raise ValueError("store: an empty string is not a path or URL")
        if spec.startswith("sqlite:"):
            return SQLiteStore.from_url(spec, threaded=threaded)
        if spec.startswith(("postgresql://", "postgres://")):
            try:
                from .postgres import PostgresStore
            except ImportError as exc:
                raise ValueError(
                    f"store: PostgreSQL needs the postgres extra (pip install 'kronograph[postgres]'): {exc}"
                ) from None
            return PostgresStore(spec)
        if "://" in spec:
            scheme = spec.split("://", 1)[0]
            raise ValueError(f"store: no backend for {scheme!r} URLs (supported: a file path, ':memory:', sqlite:///, postgresql://)")
        return SQLiteStore(spec, threaded=threaded)
    if isinstance(spec, Store):
        return spec
    raise TypeError(f"store must be a path, a URL or a Store, not {type(spec).__name__}")
