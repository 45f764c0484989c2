"""The reads ``reconcile`` makes of PostgreSQL: one group's integrity scan
(``..sql.upkeep_queries``)."""

from __future__ import annotations

from psycopg import AsyncConnection

from ..records import HealthScan
from ..sql import upkeep_queries as q
from .columns import DIALECT as D
from .execute import fetch_all

__all__ = ["health_scan"]


async def health_scan(conn: AsyncConnection, group_id: str) -> HealthScan:
    return q.scan(*[await fetch_all(conn, query) for query in q.health_scan(D, group_id)])
