"""The current facts nearest some vectors, in one round trip: what the
contradiction check of a write reads (:mod:`kronograph.ingest.contradiction_check`).

One exact nearest-neighbour scan per vector (as :func:`.search_reads.vector_search`,
over the group's rows only), of facts that carry a tier, believed and valid at
the moment and not events, joined with their endpoints so the answer is the
facts themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import numpy as np
from psycopg import AsyncConnection

from ...model import Fact
from ...time import to_micros
from .. import rows
from .columns import FACT_COLUMNS, FROM_FACTS

__all__ = ["nearest_current_facts"]


async def nearest_current_facts(
    conn: AsyncConnection, group_id: str, vectors: Sequence[np.ndarray | None], limit: int, at: datetime,
) -> list[tuple[Fact, float, int]]:
    """(fact, similarity, index of the vector) for each vector's ``limit``
    nearest current facts, best first; a fact near several, once, with its best."""
    params: dict[str, object] = {"g": group_id, "at": to_micros(at), "k": limit}
    parts = []
    for i, vector in enumerate(vectors):
        if vector is None or vector.ndim != 1 or vector.shape[0] < 1:
            continue
        n = int(vector.shape[0])
        distance = f"embedding::vector({n}) <=> %(v{i})s::vector({n})"
        parts.append(
            f"(SELECT uuid, {i} AS i, {distance} AS d FROM facts WHERE group_id = %(g)s AND embedding IS NOT NULL"
            f" AND vector_dims(embedding) = {n} AND expired_at IS NULL AND valid_at <= %(at)s"
            f" AND (invalid_at IS NULL OR invalid_at > %(at)s) AND NOT event AND tier IS NOT NULL"
            f' ORDER BY ({distance}) + 0, uuid COLLATE "C" LIMIT %(k)s)'
        )
        params[f"v{i}"] = np.asarray(vector, dtype=np.float32)
    if not parts or limit < 1:
        return []
    cur = await conn.execute(
        f"WITH near AS ({' UNION ALL '.join(parts)}) SELECT near.i, near.d, {FACT_COLUMNS}{FROM_FACTS}"
        " JOIN near ON near.uuid = f.uuid WHERE f.group_id = %(g)s",  # type: ignore[arg-type]
        params,
    )
    best: dict[str, tuple[Fact, float, int]] = {}
    for row in await cur.fetchall():
        similarity = 0.0 if row[1] is None or np.isnan(row[1]) else 1.0 - float(row[1])
        fact = rows.fact(row[2:])
        if fact.uuid not in best or similarity > best[fact.uuid][1]:
            best[fact.uuid] = (fact, similarity, int(row[0]))
    return sorted(best.values(), key=lambda found: (-found[1], found[0].uuid))
