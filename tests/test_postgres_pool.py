"""The PostgreSQL pool is shared by reads and units of work, and units hold at
most half of it: reads never queue behind writers. No timing assertions."""

from __future__ import annotations

import asyncio

from kronograph.store.postgres import PostgresStore
from kronograph.store.postgres.connection import writer_share

from . import pg_server


def test_writers_hold_at_most_half_the_pool() -> None:
    assert [writer_share(n) for n in (1, 2, 3, 10, 20)] == [1, 1, 1, 5, 10]


def test_a_read_finds_a_connection_while_units_hold_the_writers_share() -> None:
    url = pg_server.databases().fresh()

    async def run() -> None:
        store = PostgresStore(url, min_size=1, max_size=2, timeout=60)  # the writers' share: one
        await store.open()
        entered, release = asyncio.Event(), asyncio.Event()

        async def hold(group: str) -> None:
            async with store.unit(group):
                entered.set()
                await release.wait()

        holder = asyncio.create_task(hold("g"))
        await entered.wait()
        second = asyncio.create_task(hold("h"))  # waits for the writers' share, not for a connection
        assert await asyncio.wait_for(store.groups(), 30) == []  # the other connection is the reads'
        assert await asyncio.wait_for(store.revision("g"), 30) == 0
        assert not second.done() and not holder.done()
        release.set()
        await asyncio.gather(holder, second)
        await store.close()

    asyncio.run(run())
