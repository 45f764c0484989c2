"""The PostgreSQL backend (extra ``postgres``: psycopg 3 and pgvector)."""

from .store import PostgresStore

__all__ = ["PostgresStore"]
