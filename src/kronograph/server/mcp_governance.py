"""The MCP tools of exact records and their governance: ``add_fact`` and
``get_facts`` (one fact, its qualifiers; facts without ranking),
``forget`` and ``get_erasures`` (erasure and its receipts), ``contradict``,
``get_contradictions`` and ``set_tier`` (contradictions with authority).
Registered on the server :func:`.mcp_server.build_mcp_server` makes, with
its ``call`` (the caller's access, errors as tool failures)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..memory import AsyncMemory
from .limits import ID_MAX, NAME_MAX
from .mcp_args import (
    DELETE,
    READ,
    WRITE,
    AsOf,
    At,
    FactUuid,
    GroupId,
    IncludeRetired,
    KnownAt,
    Limit,
    QualifiersArg,
    TierArg,
)
from .mcp_contradictions import ContradictionsOut, TierOut
from .mcp_contradictions import contradict as _contradict
from .mcp_contradictions import get_contradictions as _get_contradictions
from .mcp_contradictions import set_tier as _set_tier
from .mcp_erasure import ErasuresOut, ForgetOut
from .mcp_erasure import forget as _forget
from .mcp_erasure import get_erasures as _get_erasures
from .mcp_facts import AddFactOut
from .mcp_facts import add_fact as _add_fact
from .mcp_facts import get_facts as _get_facts
from .mcp_tools import Access, FactsOut

__all__ = ["register_governance_tools"]

Call = Callable[[Context, Callable[[Access], Awaitable[Any]]], Awaitable[CallToolResult]]


def register_governance_tools(server: MCPServer, memory: AsyncMemory, call: Call) -> None:
    """Add the tools of facts filed exactly, erasure and contradictions to ``server``."""

    @server.tool(annotations=WRITE, description=(
        "Add one fact you know exactly (subject, relation, object), rather than words to extract from: e.g. "
        "Tesla DELIVERIES 400k with qualifiers {\"period\": \"2024-Q2\"}. A relation declared with "
        "qualifiers holds one value per slot: Q2's and Q3's stand side by side, a new Q2 value replaces "
        "the old one. Answers the fact, what it retired and the possible contradictions it raised."))
    async def add_fact(
        ctx: Context,
        subject: Annotated[str, Field(min_length=1, max_length=NAME_MAX, description="Who or what it is about.")],
        relation: Annotated[str, Field(min_length=1, max_length=NAME_MAX, description="e.g. WORKS_AT.")],
        object: Annotated[str, Field(min_length=1, max_length=NAME_MAX, description="The other entity or value.")],
        group_id: GroupId = None,
        fact: Annotated[str | None, Field(max_length=10_000, description="The fact in words (default: "
                                                                             "the triple).")] = None,
        valid_at: Annotated[str | None, Field(description="ISO 8601 time it became true (default: now).")] = None,
        invalid_at: Annotated[str | None, Field(description="ISO 8601 time it stopped being true.")] = None,
        qualifiers: QualifiersArg = None,
        tier: TierArg = None,
        on_behalf_of: Annotated[str | None, Field(max_length=ID_MAX, description="Whom you act for.")] = None,
    ) -> Annotated[CallToolResult, AddFactOut]:
        return await call(ctx, lambda a: _add_fact(
            memory, a, group_id, subject, relation, object, fact=fact, valid_at=valid_at, invalid_at=invalid_at,
            qualifiers=qualifiers, tier=tier, on_behalf_of=on_behalf_of))

    @server.tool(annotations=READ, description=(
        "Facts by exact names, relation, time and qualifiers, without search ranking: e.g. subject Tesla, "
        "relation DELIVERIES, qualifiers {\"period\": \"2024-Q2\"}. The default answers what is true NOW; "
        "as_of, known_at, include_retired and at as in search_facts."))
    async def get_facts(
        ctx: Context, group_id: GroupId = None,
        subject: Annotated[str | None, Field(min_length=1, max_length=NAME_MAX)] = None,
        relation: Annotated[str | None, Field(min_length=1, max_length=NAME_MAX)] = None,
        object: Annotated[str | None, Field(min_length=1, max_length=NAME_MAX)] = None,
        entity: Annotated[str | None, Field(min_length=1, max_length=NAME_MAX,
                                            description="Either end is this entity.")] = None,
        as_of: AsOf = None, known_at: KnownAt = None, include_retired: IncludeRetired = False,
        qualifiers: QualifiersArg = None, limit: Limit = 50, at: At = None,
    ) -> Annotated[CallToolResult, FactsOut]:
        return await call(ctx, lambda a: _get_facts(
            memory, a, group_id, subject=subject, relation=relation, object=object, entity=entity, as_of=as_of,
            known_at=known_at, include_retired=include_retired, qualifiers=qualifiers, limit=limit, at=at))

    @server.tool(annotations=DELETE, description=(
        "Erase for good (a compliance erasure, not a correction): an entity by name or uuid, an episode, or "
        "everything filed under a data subject's key (a customer id), with everything only they stated; then "
        "check nothing returns it, and keep a receipt (counts, never the erased text) in the group's "
        "append-only erasure log. Give exactly one of entity, episode_id, data_subject; request_id and "
        "reason go on the receipt and must not name what is erased. dry_run says what would go."))
    async def forget(
        ctx: Context, group_id: GroupId = None,
        entity: Annotated[str | None, Field(min_length=1, max_length=NAME_MAX,
                                            description="The entity to erase, by name or uuid.")] = None,
        episode_id: Annotated[str | None, Field(min_length=1, max_length=ID_MAX,
                                                description="The episode to erase.")] = None,
        data_subject: Annotated[str | None, Field(min_length=1, max_length=ID_MAX, description=(
            "Erase everything filed under this data subject's key."))] = None,
        dry_run: Annotated[bool, Field(strict=True, description="Say what would go; change nothing.")] = False,
        request_id: Annotated[str | None, Field(min_length=1, max_length=ID_MAX, description=(
            "The erasure request's reference, kept on the receipt."))] = None,
        reason: Annotated[str | None, Field(min_length=1, max_length=1000,
                                            description="Why, kept on the receipt.")] = None,
        on_behalf_of: Annotated[str | None, Field(max_length=ID_MAX, description="Whom you act for.")] = None,
    ) -> Annotated[CallToolResult, ForgetOut]:
        return await call(ctx, lambda a: _forget(
            memory, a, group_id, entity=entity, episode_id=episode_id, data_subject=data_subject, dry_run=dry_run,
            request_id=request_id, reason=reason, on_behalf_of=on_behalf_of))

    @server.tool(annotations=READ, description=(
        "The group's erasure receipts, oldest first: each forget's erasure entry (what kinds and how many "
        "items went, who asked, the request id) and its verification entry, with the log's hash chain checked."))
    async def get_erasures(
        ctx: Context, group_id: GroupId = None,
        request_id: Annotated[str | None, Field(min_length=1, max_length=ID_MAX,
                                                description="Only this request's entries.")] = None,
    ) -> Annotated[CallToolResult, ErasuresOut]:
        return await call(ctx, lambda a: _get_erasures(memory, a, group_id, request_id=request_id))

    @server.tool(annotations=WRITE, description=(
        "Record that one fact (usually yours) disagrees with another, a standing rule say, without changing "
        "either: the disagreement is scored (the contradicted fact's tier times your weight), kept in the "
        "audit trail and listed by get_contradictions while both stand. note says why."))
    async def contradict(
        ctx: Context, fact_uuid: FactUuid,
        contradicted_uuid: Annotated[str, Field(min_length=1, max_length=ID_MAX,
                                                description="The fact it disagrees with.")],
        group_id: GroupId = None,
        note: Annotated[str | None, Field(min_length=1, max_length=1000, description="Why, in words.")] = None,
        on_behalf_of: Annotated[str | None, Field(max_length=ID_MAX, description="Whom you act for.")] = None,
    ) -> Annotated[CallToolResult, ContradictionsOut]:
        return await call(ctx, lambda a: _contradict(
            memory, a, group_id, fact_uuid, contradicted_uuid, note=note, on_behalf_of=on_behalf_of))

    @server.tool(annotations=READ, description=(
        "What stands contradicted: candidates flagged when something was filed and disagreements recorded "
        "with contradict, highest score first (the contradicted fact's tier times the filer's weight: "
        "governance risk, not severity), each with both facts. Check it before relying on a standing rule."))
    async def get_contradictions(
        ctx: Context, group_id: GroupId = None,
        fact_uuid: Annotated[str | None, Field(min_length=1, max_length=ID_MAX,
                                               description="Only those naming this fact.")] = None,
        include_settled: Annotated[bool, Field(strict=True, description=(
            "Also those dismissed or whose facts no longer stand."))] = False,
        limit: Limit = 20,
    ) -> Annotated[CallToolResult, ContradictionsOut]:
        return await call(ctx, lambda a: _get_contradictions(
            memory, a, group_id, fact_uuid=fact_uuid, include_settled=include_settled, limit=limit))

    @server.tool(annotations=WRITE, description=(
        "Set a fact's governance tier (standing, decision, finding, ...; null: none), kept as a new version "
        "of the fact. Changing the tier of another actor's standing rule or decision needs a reason."))
    async def set_tier(
        ctx: Context, fact_uuid: FactUuid, tier: TierArg, group_id: GroupId = None,
        reason: Annotated[str | None, Field(min_length=1, max_length=1000, description=(
            "Why; required for another actor's standing rule or decision."))] = None,
    ) -> Annotated[CallToolResult, TierOut]:
        return await call(ctx, lambda a: _set_tier(memory, a, group_id, fact_uuid, tier, reason=reason))
