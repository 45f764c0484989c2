"""Communities: clusters of a group's entity graph, named, summarised,
embedded and searchable.

The graph is the group's entities linked by their facts valid now and
unexpired, each pair weighted by how many such facts it shares (read in one
query). ``build`` clusters it with Louvain (networkx, fixed seed: the same
graph gives the same communities with the same uuids), keeps clusters of two
or more, and names each after its most central members. A summary is
extractive with no model (its most informative internal facts, as entity
summaries are made) or written by the model, ``batch_size`` communities per
call and at most ``max_model_calls`` calls, the largest communities first;
the rest, and any batch whose call fails, stay extractive. Each community's
name and summary are embedded together. The group's communities are replaced
in one transaction.

``update`` attaches entities that are in no community (new since the build)
to the community holding most of their weighted neighbours, with no
clustering and no model call: touched communities get an extractive summary
and a new vector. It never moves a member, merges or splits communities: a
full ``build`` is worth it once many entities came in (``rebuild_advised``:
over a fifth of the members attached since the build) or the facts between
existing members changed much.

None of this holds the group: reads, clustering (on a worker thread, off the
event loop), model calls and embedding run while the group takes other
writes. Only the commit takes the group's write lock (``hold``), and first
checks that every member entity and every fact a name or summary was made of
is still stored: one deleted meanwhile (``forget``, a removal) would live on
in the text, so the work is done again (``ATTEMPTS`` in all). A fact added or
retired meanwhile only makes the communities as old as any build's.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime

from .. import checks
from ..errors import ConcurrentWriteError, ModelError
from ..ingest.schema import CommunitySummaryAnswer
from ..llm.client import ModelClient
from ..metrics import record_redo
from ..model import CommunityAttachment, CommunityBuild, CommunityUpdate, Fact
from ..store.plan import CommunityState, Plan
from ..store.protocol import FactQuery, Lookups, Store
from ..time import Clock
from .clusters import Graph, attach, community_name, community_uuid, louvain, networkx, rank_members
from .summaries import extractive_summary, ordered_facts, said

__all__ = ["ATTEMPTS", "BATCH", "MAX_MODEL_CALLS", "SEED", "build", "expected_calls", "refresh", "update"]

_log = logging.getLogger("kronograph")

BATCH = 10  # communities per model call
MAX_MODEL_CALLS = 20  # model calls per build, at most
SEED = 42  # Louvain's
SUMMARY_CHARS = 600  # an extractive community summary's length, at most
MODEL_SUMMARY_CHARS = 800
FACTS_READ = 60  # internal facts read per community, between its most central members first
FACTS_SHOWN = 12  # facts per community in a model prompt
MEMBERS_SHOWN = 12  # member names per community in a model prompt
EMBED_BATCH = 64  # texts per embedder call
REBUILD_SHARE = 0.2  # attached members past this share of all members: a rebuild is advised
_UUID_CHUNK = 500  # fact uuids per read
ATTEMPTS = 3  # builds (updates, refreshes) tried before giving up on a group whose members keep going

Embed = Callable[[list[str]], Awaitable[list[bytes]]]

_SYSTEM = """\
You write short summaries of communities: groups of closely linked entities in a knowledge graph.
For each community, write two or three plain sentences on what ties its members together, using only its listed facts.
Lead with what matters most; no speculation, no facts not listed. Answer for every id given."""


@dataclass(slots=True)
class _Cluster:
    uuid: str
    members: list[str]  # entity uuids, most central first
    names: list[str]
    facts: list[Fact] = field(default_factory=list)
    summary: str | None = None
    method: str = "extractive"

    @property
    def name(self) -> str:
        return community_name(self.names)


def _text(cluster: _Cluster) -> str:
    """What a community's vector is made of: its name, members and summary."""
    return f"{cluster.name}. {cluster.summary or ''}".strip()


def _chosen_facts(cluster: _Cluster, graph: Graph) -> list[str]:
    """Up to FACTS_READ fact uuids between members, those between the most
    central members first, so a big community is never read whole."""
    rank = {u: i for i, u in enumerate(cluster.members)}
    pairs = sorted(graph.internal_pairs(cluster.members), key=lambda p: (rank[p[0]] + rank[p[1]], p))
    out: list[str] = []
    for pair in pairs:
        out.extend(sorted(graph.links[pair]))
        if len(out) >= FACTS_READ:
            break
    return out[:FACTS_READ]


async def _read_facts(store: Lookups, group_id: str, clusters: Sequence[_Cluster], graph: Graph, now: datetime) -> None:
    """Fill each cluster's facts: its chosen internal facts, valid now."""
    chosen = {c.uuid: _chosen_facts(c, graph) for c in clusters}
    wanted = sorted({u for found in chosen.values() for u in found})
    by_uuid: dict[str, Fact] = {}
    for start in range(0, len(wanted), _UUID_CHUNK):
        query = FactQuery(as_of=now, uuids=tuple(wanted[start : start + _UUID_CHUNK]))
        by_uuid.update((f.uuid, f) for f in await store.facts(group_id, query))
    for c in clusters:
        c.facts = [by_uuid[u] for u in chosen[c.uuid] if u in by_uuid]
        c.summary = extractive_summary(c.facts, SUMMARY_CHARS)
        c.method = "extractive"


def _prompt(batch: Sequence[_Cluster]) -> str:
    lines = []
    for n, c in enumerate(batch, 1):
        facts = [said(f) for f in ordered_facts(c.facts)[:FACTS_SHOWN]]
        row = {"id": f"C{n}", "members": c.names[:MEMBERS_SHOWN], "size": len(c.members), "facts": facts}
        lines.append(json.dumps(row, ensure_ascii=False))
    return "<communities>\n" + "\n".join(lines) + "\n</communities>"


async def _ask_model(model: ModelClient, group_id: str, batch: Sequence[_Cluster]) -> None:
    """The model's summaries of one batch, over the extractive ones (only those it gave)."""
    answer = await model.structured(
        "community_summary", system=_SYSTEM, user=_prompt(batch), schema=CommunitySummaryAnswer, small=True,
        group_id=group_id,
    )
    ids = {f"C{n}": c for n, c in enumerate(batch, 1)}
    done: set[str] = set()
    for item in answer.summaries:
        text = " ".join(item.summary.split())
        cluster = ids.get(item.id)
        if cluster is None or not text or item.id in done:
            continue
        done.add(item.id)
        cluster.summary = text if len(text) <= MODEL_SUMMARY_CHARS else text[: MODEL_SUMMARY_CHARS - 1] + "…"
        cluster.method = "model"


async def _by_model(
    model: ModelClient, group_id: str, clusters: Sequence[_Cluster], batch_size: int, max_calls: int
) -> int:
    """Summaries by the model, largest communities first: ceil(n / batch_size)
    calls, at most ``max_calls``. Returns the calls made."""
    asked = [c for c in clusters if c.facts]
    calls = 0
    for start in range(0, len(asked), batch_size):
        if calls >= max_calls:
            break
        batch = asked[start : start + batch_size]
        calls += 1
        try:
            await _ask_model(model, group_id, batch)
        except ModelError as exc:  # keep the extractive ones: a summary is never worth failing over
            _log.warning("kronograph: summarising %d communities by model failed: %s", len(batch), exc)
    return calls


async def _vectors(embed: Embed, clusters: Sequence[_Cluster]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for start in range(0, len(clusters), EMBED_BATCH):
        batch = clusters[start : start + EMBED_BATCH]
        for cluster, vector in zip(batch, await embed([_text(c) for c in batch]), strict=True):
            out[cluster.uuid] = vector
    return out


@asynccontextmanager
async def _holding(hold: asyncio.Lock | None) -> AsyncIterator[None]:
    if hold is None:
        yield
        return
    async with hold:
        yield


async def _still_stored(store: Lookups, group_id: str, clusters: Sequence[_Cluster], now: datetime) -> bool:
    """Whether every member and every fact the clusters' text was made of is
    still stored (retired or not): what a deletion would leave behind."""
    members = sorted({u for c in clusters for u in c.members})
    facts = sorted({f.uuid for c in clusters for f in c.facts})
    for start in range(0, len(members), _UUID_CHUNK):
        chunk = members[start : start + _UUID_CHUNK]
        if len(await store.entities_by_uuid(group_id, chunk)) != len(chunk):
            return False
    for start in range(0, len(facts), _UUID_CHUNK):
        query = FactQuery(as_of=now, include_retired=True, include_expired=True,
                          uuids=tuple(facts[start : start + _UUID_CHUNK]))
        if len({f.uuid for f in await store.facts(group_id, query)}) != len(query.uuids or ()):
            return False
    return True


async def _commit(
    store: Store, group_id: str, plan: Plan, clusters: Sequence[_Cluster], now: datetime,
    hold: asyncio.Lock | None, also: Callable[[], Awaitable[bool]] | None = None,
) -> bool:
    """Apply ``plan`` under the group's lock if what it was made of is still
    there (and ``also`` holds); False, having written nothing, when not."""
    async with _holding(hold):
        if await _still_stored(store, group_id, clusters, now) and (also is None or await also()):
            await store.apply(plan)
            return True
    record_redo("communities")
    return False


def _gone_meanwhile(group_id: str) -> ConcurrentWriteError:
    return ConcurrentWriteError(
        f"group {group_id!r}: entities or facts the communities were made of kept being deleted"
        f" ({ATTEMPTS} tries); try again"
    )


def _clusters(
    group_id: str, edges: list[tuple[str, str, str]], names: dict[str, str], resolution: float, seed: int
) -> tuple[Graph, list[_Cluster]]:
    """The graph and its clusters, members most central first: CPU work, run on a worker thread."""
    graph = Graph.of(edges)
    clusters = []
    for found in louvain(graph, resolution=resolution, seed=seed):
        members = rank_members(found, graph, names)
        clusters.append(_Cluster(community_uuid(group_id, members), members, [names.get(u, u) for u in members]))
    return graph, clusters


async def build(
    store: Store,
    group_id: str,
    *,
    clock: Clock,
    embed: Embed,
    model: ModelClient | None = None,
    batch_size: int = BATCH,
    max_model_calls: int = MAX_MODEL_CALLS,
    resolution: float = 1.0,
    seed: int = SEED,
    hold: asyncio.Lock | None = None,
) -> CommunityBuild:
    """Cluster the group's current graph and replace its communities with
    the result, in one transaction; see the module's docstring. ``hold``:
    the group's write lock, taken for the commit only."""
    checks.count("batch_size", batch_size)
    checks.count("max_model_calls", max_model_calls, minimum=0)
    checks.number("resolution", resolution, positive=True)
    networkx()  # before any read: a missing extra is said at once
    calls = 0
    for _ in range(ATTEMPTS):
        now = clock()
        edges = await store.current_edges(group_id, now)
        entities = await store.entities(group_id)
        names = {e.uuid: e.name for e in entities}
        graph, clusters = await asyncio.to_thread(_clusters, group_id, edges, names, resolution, seed)
        await _read_facts(store, group_id, clusters, graph, now)
        calls += await _by_model(model, group_id, clusters, batch_size, max_model_calls) if model is not None else 0
        vectors = await _vectors(embed, clusters)
        plan = Plan(group_id=group_id, now=clock(), expected_revision=None)
        plan.replace_communities = True
        plan.new_communities = [
            CommunityState(c.uuid, c.name, c.summary, c.method, now, tuple(c.members)) for c in clusters
        ]
        plan.community_embeddings = vectors
        if await _commit(store, group_id, plan, clusters, now, hold):
            built = await store.communities(group_id)
            placed = sum(c.size for c in built)
            return CommunityBuild(communities=built, unassigned=len(entities) - placed, model_calls=calls)
    raise _gone_meanwhile(group_id)


async def update(
    store: Store, group_id: str, *, clock: Clock, embed: Embed, hold: asyncio.Lock | None = None
) -> CommunityUpdate:
    """Attach entities in no community to the community most of their
    weighted neighbours are in; rebuild touched communities' names,
    summaries (extractively) and vectors; see the module's docstring."""
    for _ in range(ATTEMPTS):
        done = await _update(store, group_id, clock=clock, embed=embed, hold=hold)
        if done is not None:
            return done
    raise _gone_meanwhile(group_id)


async def _update(
    store: Store, group_id: str, *, clock: Clock, embed: Embed, hold: asyncio.Lock | None
) -> CommunityUpdate | None:
    now = clock()
    existing = await store.communities(group_id)
    entities = await store.entities(group_id)
    names = {e.uuid: e.name for e in entities}
    membership = {u: c.uuid for c in existing for u in c.member_uuids}
    left = [e.uuid for e in entities if e.uuid not in membership]
    if not existing:
        return CommunityUpdate(unassigned=left, rebuild_advised=True)
    graph = Graph.of(await store.current_edges(group_id, now))
    placed = attach(left, membership, graph, {c.uuid: c.size for c in existing})
    by_uuid = {c.uuid: c for c in existing}
    joining: dict[str, list[str]] = {}
    for entity in sorted(placed, key=lambda u: (-placed[u][1], names.get(u, "").casefold(), u)):
        joining.setdefault(placed[entity][0], []).append(entity)
    touched = []
    plan = Plan(group_id=group_id, now=now, expected_revision=None)
    for uuid in sorted(joining):
        community = by_uuid[uuid]
        members = [*community.member_uuids, *joining[uuid]]
        touched.append(_Cluster(uuid, members, [names.get(u, u) for u in members]))
        plan.community_members += [
            (uuid, entity, len(community.member_uuids) + i) for i, entity in enumerate(joining[uuid])
        ]
    await _read_facts(store, group_id, touched, graph, now)
    plan.updated_communities = [CommunityState(c.uuid, c.name, c.summary, c.method, now) for c in touched]
    plan.community_embeddings = await _vectors(embed, touched)

    async def unchanged() -> bool:  # a build or another update meanwhile would be overwritten
        return await store.communities(group_id) == existing

    if touched and not await _commit(store, group_id, plan, touched, now, hold, unchanged):
        return None
    refreshed = await store.communities(group_id, [c.uuid for c in touched]) if touched else []
    member_count = sum(c.size for c in existing) + len(placed)
    attached = sum(c.attached for c in existing) + len(placed)
    return CommunityUpdate(
        attached=[
            CommunityAttachment(
                entity_uuid=entity, entity=names.get(entity, entity), community_uuid=community,
                community=next(c.name for c in touched if c.uuid == community), weight=weight,
            )
            for entity, (community, weight) in sorted(placed.items(), key=lambda kv: (kv[1][0], kv[0]))
        ],
        unassigned=sorted(u for u in left if u not in placed),
        refreshed=refreshed,
        rebuild_advised=attached > REBUILD_SHARE * member_count,
    )


async def refresh(
    store: Store, group_id: str, uuids: Collection[str], *, clock: Clock, embed: Embed,
    hold: asyncio.Lock | None = None,
) -> tuple[list[str], list[str]]:
    """Rebuild the name, summary (extractively) and vector of these
    communities from the members they have now (``forget`` cleared them);
    one left with fewer than two members is no community and is deleted.
    Returns (rebuilt, deleted) uuids."""
    for _ in range(ATTEMPTS):
        done = await _refresh(store, group_id, uuids, clock=clock, embed=embed, hold=hold)
        if done is not None:
            return done
    raise _gone_meanwhile(group_id)


async def _refresh(
    store: Store, group_id: str, uuids: Collection[str], *, clock: Clock, embed: Embed, hold: asyncio.Lock | None
) -> tuple[list[str], list[str]] | None:
    now = clock()
    graph = Graph.of(await store.current_edges(group_id, now))
    names = {e.uuid: e.name for e in await store.entities(group_id)}
    kept: list[_Cluster] = []
    gone: list[str] = []
    for community in await store.communities(group_id, sorted(uuids)):
        members = [u for u in community.member_uuids if u in names]
        if len(members) < 2:
            gone.append(community.uuid)
            continue
        ranked = rank_members(members, graph, names)
        kept.append(_Cluster(community.uuid, ranked, [names[u] for u in ranked]))
    await _read_facts(store, group_id, kept, graph, now)
    plan = Plan(group_id=group_id, now=now, expected_revision=None)
    plan.updated_communities = [CommunityState(c.uuid, c.name, c.summary, c.method, now) for c in kept]
    plan.community_embeddings = await _vectors(embed, kept)
    plan.delete_communities = gone
    if (kept or gone) and not await _commit(store, group_id, plan, kept, now, hold):
        return None
    return [c.uuid for c in kept], gone


def expected_calls(communities: int, batch_size: int = BATCH, max_calls: int = MAX_MODEL_CALLS) -> int:
    """Model calls a build of ``communities`` (all with facts) makes: the bound the bench checks."""
    return min(math.ceil(communities / batch_size), max_calls)
