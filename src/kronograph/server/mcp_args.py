"""The MCP tools' parameters and annotations, described once: every tool
module (:mod:`.mcp_server`, :mod:`.mcp_governance`) declares its arguments
with these, so a name means the same thing, with the same limits, in every
tool."""

from __future__ import annotations

from typing import Annotated

from mcp.types import ToolAnnotations
from pydantic import Field

from ..authority import Tier
from .limits import ID_MAX, QUERY_MAX

__all__ = [
    "READ", "WRITE", "DELETE", "At", "AsOf", "EpisodeId", "FactUuid", "GroupId", "IncludeRetired", "KnownAt",
    "Limit", "QualifiersArg", "Query", "TierArg",
]

# -- parameters --------------------------------------------------------

GroupId = Annotated[
    str | None,
    Field(max_length=ID_MAX, description="The group (tenant, e.g. a user or a project) to work in. Omit to use "
                                         "the default group (list_groups names it); nothing crosses groups."),
]
Query = Annotated[str, Field(min_length=1, max_length=QUERY_MAX,
                             description="What to look for, in words (keywords or a question).")]
AsOf = Annotated[
    str | None,
    Field(description="ISO 8601 time: answer as the world was then (facts valid at that moment). Default: now."),
]
KnownAt = Annotated[
    str | None,
    Field(description="ISO 8601 time: answer with what the memory believed then, before later corrections."),
]
At = Annotated[
    str | None,
    Field(description="ISO 8601 time: a backtest's moment, as_of and known_at both: only what held then as the "
                      "memory knew it then, nothing learned later (the answer's lookahead says so). Not with "
                      "as_of or known_at."),
]
IncludeRetired = Annotated[
    bool, Field(strict=True,
                description="Also return facts that are no longer true (every interval). Cannot be used with as_of.")
]
Limit = Annotated[int, Field(ge=1, le=100, strict=True, description="At most this many results (1-100).")]
FactUuid = Annotated[str, Field(min_length=1, max_length=ID_MAX,
                                description="A fact's uuid, as returned by another tool.")]
EpisodeId = Annotated[
    str, Field(min_length=1, max_length=ID_MAX,
               description="An episode's id, as returned by add_memory or get_episodes."),
]

QualifiersArg = Annotated[
    dict[Annotated[str, Field(min_length=1, max_length=40)], Annotated[str, Field(min_length=1, max_length=200)]]
    | None,
    Field(max_length=8, description="Qualifiers: which slot of its relation a fact fills, e.g. {\"period\": "
                                    "\"2024-Q2\"} (Q2's value beside Q3's, neither replacing the other)."),
]

TierArg = Annotated[
    Tier | None,
    Field(description="The governance tier of what it states: standing (a rule), decision, finding, goal, option, "
                      "issue, assumption, reference or transient. Default: each relation's."),
]

READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=False)
DELETE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=False)
