"""The MCP server: :mod:`.mcp_tools` bound to the official ``mcp`` SDK, over
stdio (a local agent starts ``kronograph mcp``) or streamable HTTP (API keys).

Who may touch which group is an :class:`~.mcp_tools.Access`. Over stdio it is
fixed for the process (``--group``, or every group). Over HTTP it is the
caller's API key, exactly as for the REST service: ``Authorization: Bearer
<secret>`` or ``X-API-Key: <secret>``; no key, or an unknown one, is a 401
before the MCP layer sees the request; a tool call on a group the key does not
allow fails like a call on a group that does not exist.

Mounting the HTTP endpoint inside another Starlette/FastAPI app (the REST
service mounts it at ``/mcp``)::

    mcp = mcp_http(memory, keys, host="0.0.0.0")
    app.router.routes.append(Route("/mcp", endpoint=mcp.endpoint, methods=["GET", "POST", "DELETE"]))
    # a mounted endpoint's sessions need a running task group: enter it from the app's lifespan
    async with mcp.lifespan():
        yield

:func:`mcp_http_app` is the same endpoint as a standalone Starlette app, which
``kronograph mcp --http`` serves.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent
from pydantic import Field, ValidationError
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from .. import __version__
from ..errors import KronographError
from ..memory import AsyncMemory
from ..redact import redact_text
from .errors import CODES
from .guard import LoopbackGuard, is_loopback
from .keys import KeyRing, key_actor
from .limits import ID_MAX, IDS_MAX, MESSAGES_MAX, NAME_MAX, QUERY_MAX, Limits
from .logs import root_logging_kept
from .mcp_args import (
    DELETE,
    READ,
    WRITE,
    AsOf,
    At,
    EpisodeId,
    FactUuid,
    GroupId,
    IncludeRetired,
    KnownAt,
    Limit,
    QualifiersArg,
    Query,
    TierArg,
)
from .mcp_changes import ChangesOut
from .mcp_changes import get_changes as _get_changes
from .mcp_context import ContextOut, block_for
from .mcp_conversation import AddMemoryOut, ConversationTools, UserOut
from .mcp_governance import register_governance_tools
from .mcp_tools import (
    Access,
    ConflictsOut,
    EntitiesOut,
    EpisodesOut,
    FactDetailOut,
    FactsOut,
    GroupsOut,
    RemovalOut,
    SagaOut,
)

__all__ = ["INSTRUCTIONS", "McpHttp", "build_mcp_server", "mcp_http", "mcp_http_app", "run_stdio"]

ACCESS_SCOPE_KEY = "kronograph.access"  # where the HTTP layer leaves the caller's Access in the ASGI scope

INSTRUCTIONS = """\
Before answering, call get_context with the question (or the last messages): one block of what the \
memory knows that bears on it, dated, with sources. \
kronograph is a temporal memory: a knowledge graph of facts (subject, relation, object) that each carry \
when they held in the world (valid_at → invalid_at) and the episodes they came from. Old facts are \
retired, not lost: history stays queryable. Events (event: true, e.g. LEFT, MET) are moments, not \
standing facts: current reads leave them out. Write with add_memory (one episode, or a conversation's \
messages with user_name: "I" is then that user, whom get_user describes); read current facts with \
search_facts (as_of for the past, known_at for what was believed then, at for both with nothing \
learned later, include_retired for every interval); use get_events for what happened when, timeline \
for how one entity changed, conflicts for \
facts that disagree, get_fact for one fact's sources and history, get_episodes for the original words, \
get_changes for what the memory learned and retired since a time. add_memory lists the standing rules \
and decisions a filing may contradict (candidates, scored): when yours disagrees on purpose, say so with \
contradict; get_contradictions lists what stands contradicted. \
Times are ISO 8601; without an offset they are UTC."""

_O = TypeVar("_O")



def _result(out: Any) -> CallToolResult:
    """The text an agent reads, and the same result as compact JSON."""
    return CallToolResult(content=[TextContent(type="text", text=out.text())],
                          structured_content=out.model_dump(mode="json", exclude_none=True))


def _failure(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


AccessFor = Callable[[Context], Access]


def _fixed(access: Access) -> AccessFor:
    return lambda ctx: access


def _from_request(ctx: Context) -> Access:
    """The Access the HTTP layer put on the request; none (an unauthenticated path) is no access at all."""
    request = ctx.request_context.request
    scope = getattr(request, "scope", None) or {}
    found = scope.get(ACCESS_SCOPE_KEY)
    return found if isinstance(found, Access) else Access()


def invalid_arguments(error: ValidationError) -> str:
    """A tool's refused arguments as ``param: what is wrong`` (each of them),
    without echoing the values: they are the caller's data."""
    parts = []
    for e in error.errors():
        where = ".".join(str(p) for p in e.get("loc", ()) if p != "arguments") or "arguments"
        parts.append(f"{where}: {e.get('msg', 'invalid')}")
    return "; ".join(parts)


class _Server(MCPServer):
    """The SDK's server, with refused arguments reported like every other bad
    input: ``param: what is wrong`` (the SDK's text quotes the values and
    pydantic's help links)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(invalid_arguments(exc.__cause__)) from exc.__cause__
            raise


def build_mcp_server(
    memory: AsyncMemory, *, access: Access | AccessFor | None = None, name: str = "kronograph",
    limits: Limits | None = None,
) -> MCPServer:
    """The MCP server over ``memory``. ``access`` is who may touch which group:
    an :class:`Access` for the whole process (default: every group), or a
    function of the request context (HTTP: the caller's key). ``limits``: the
    REST service's, which the tools apply too."""
    tools = ConversationTools(memory, limits)
    access_for = _fixed(Access.local()) if access is None else _fixed(access) if isinstance(access, Access) else access
    with root_logging_kept():  # the SDK would install its rich handler on the root logger
        server = _Server(name, instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")

    async def call(ctx: Context, work: Callable[[Access], Awaitable[Any]]) -> CallToolResult:
        try:
            return _result(await work(access_for(ctx)))
        except KronographError as exc:  # bad input names its parameter; NotFound leaks nothing more
            return _failure(redact_text(str(exc)))

    @server.tool(annotations=READ, description=(
        "Call this first, before answering: what the memory knows that bears on the question (or on the last "
        "messages), as one prompt-ready block within max_tokens: the user, facts as sentences with when they "
        "held (what holds now first, and what each replaced), entity summaries, and dated excerpts of what was "
        "said with the speaker, each citing its episode ids (get_episodes reads them whole). With neither "
        "query nor messages: the user and the latest. as_of / known_at: the block as of then."))
    async def get_context(
        ctx: Context, group_id: GroupId = None,
        query: Annotated[str | None, Field(min_length=1, max_length=QUERY_MAX, description=(
            "The question or topic, in words."))] = None,
        messages: Annotated[list[dict[str, Any]] | None, Field(min_length=1, max_length=MESSAGES_MAX, description=(
            "Instead of query: the last messages ({role, content, name?}); the latest weighs most."))] = None,
        as_of: AsOf = None, known_at: KnownAt = None,
        max_tokens: Annotated[int, Field(ge=50, le=100_000, strict=True, description=(
            "The block's size at most, in tokens (50-100000)."))] = 1000,
        at: At = None,
    ) -> Annotated[CallToolResult, ContextOut]:
        return await call(ctx, lambda a: block_for(
            memory, a, group_id, query, messages=messages, as_of=as_of, known_at=known_at, max_tokens=max_tokens,
            at=at))

    @server.tool(annotations=WRITE, description=(
        "Remember something: store one episode (a chat message, a note, a document or a JSON record) and "
        "extract its facts. Use it for anything worth recalling later, including corrections ('Alice left "
        "Acme in May'): the memory retires what the new episode contradicts, it does not lose it. Give "
        "reference_time when the episode was said or written in the past. Re-adding the same episode_id "
        "does nothing. Or, instead of content, give a conversation's messages (each {role, content, name?, "
        "created_at?, id?}) with thread and user_name: each message is an episode, 'I' in a user's message "
        "is user_name, and an assistant's suggestions and questions are not facts. Returns the new, merged "
        "and retired facts with their intervals (and, for messages, what each message did), and the standing "
        "rules and decisions it may contradict: candidates scored by their tier times your weight, recorded in "
        "the audit trail whatever you do next."))
    async def add_memory(
        ctx: Context,
        content: Annotated[str | None, Field(
            min_length=1, description="The text (or, for kind 'json', a JSON document); at most the service's "
                                      "content limit. Omit it when giving messages.")] = None,
        group_id: GroupId = None,
        kind: Annotated[str, Field(description="'message' (a chat turn, 'Name: text'), 'text' or 'json'.")] = "message",
        reference_time: Annotated[str | None, Field(
            description="ISO 8601: when it was said; relative times in it ('last May') are read from here. "
                        "Default: now.")] = None,
        source_description: Annotated[str | None, Field(
            max_length=NAME_MAX, description="Where it came from, e.g. 'slack #ops'.")] = None,
        saga: Annotated[str | None, Field(max_length=ID_MAX, description="The conversation or thread it belongs to "
                                                                         "(summarize_saga summarises one).")] = None,
        episode_id: Annotated[str | None, Field(
            max_length=ID_MAX, description="Your id for it; makes the call idempotent.")] = None,
        name: Annotated[str | None, Field(max_length=NAME_MAX, description="A short name for the episode.")] = None,
        on_behalf_of: Annotated[str | None, Field(
            max_length=ID_MAX, description="Whom you act for (a user, an agent), recorded beside your key; "
                                           "the episode's actor is always the caller's key.")] = None,
        messages: Annotated[list[dict[str, Any]] | None, Field(
            min_length=1, max_length=MESSAGES_MAX,
            description=f"Instead of content: a conversation, in order (at most {MESSAGES_MAX}); each message "
                        "{role: 'user' | 'assistant' | 'system' | 'tool' | ..., content, name?: who said it, "
                        "created_at?: ISO 8601 when it was sent, id?: its episode id}.")] = None,
        thread: Annotated[str | None, Field(
            max_length=ID_MAX, description="With messages: the conversation they belong to (its saga); its "
                                           "earlier messages are context.")] = None,
        user_name: Annotated[str | None, Field(
            max_length=ID_MAX, description="With messages: the person behind role 'user' (remembered for the "
                                           "group, so later calls may omit it).")] = None,
        assistant_name: Annotated[str | None, Field(
            max_length=ID_MAX, description="With messages: who speaks for role 'assistant' "
                                           "(default 'Assistant').")] = None,
        tier: TierArg = None,
        data_subject: Annotated[str | None, Field(
            max_length=ID_MAX, description="Whose data it is: a customer or patient id (not a name), so that "
                                           "forget with data_subject erases it and all derived only from it."
        )] = None,
    ) -> Annotated[CallToolResult, AddMemoryOut]:
        return await call(ctx, lambda a: tools.add_memory(
            a, group_id, content, messages=messages, thread=thread, user_name=user_name,
            assistant_name=assistant_name, kind=kind, reference_time=reference_time,
            source_description=source_description, saga=saga, episode_id=episode_id, name=name,
            on_behalf_of=on_behalf_of, tier=tier, data_subject=data_subject))

    @server.tool(annotations=READ, description=(
        "Who the user is: the person behind role 'user' in this group (named by add_memory's user_name), "
        "their entity with its aliases and summary, and the facts true of them now with their intervals and "
        "sources. Use it at the start of a conversation to recall what you know about the user."))
    async def get_user(
        ctx: Context, group_id: GroupId = None, limit: Limit = 50,
    ) -> Annotated[CallToolResult, UserOut]:
        return await call(ctx, lambda a: tools.get_user(a, group_id, limit=limit))

    @server.tool(annotations=READ, description=(
        "Find facts (who/what relates to whom) by meaning and keywords. The default answers what is true NOW. "
        "Ask about the past with as_of, about what the memory believed at some time with known_at, or for "
        "every interval, retired ones included, with include_retired. Each fact carries valid_at/invalid_at, "
        "retired, and its source episodes with what each stated. For the whole history of one entity use "
        "timeline; to look up a thing by name use search_entities."))
    async def search_facts(
        ctx: Context, query: Query, group_id: GroupId = None, as_of: AsOf = None, known_at: KnownAt = None,
        include_retired: IncludeRetired = False, limit: Limit = 10,
        center_entity: Annotated[str | None, Field(
            max_length=NAME_MAX, description="Rank facts near this entity (a name or uuid) first.")] = None,
        include_events: Annotated[bool, Field(strict=True, description=(
            "Also return events (moments such as LEFT or MET, which are not standing facts)."))] = False,
        qualifiers: QualifiersArg = None, at: At = None,
    ) -> Annotated[CallToolResult, FactsOut]:
        return await call(ctx, lambda a: tools.search_facts(
            a, group_id, query, as_of=as_of, known_at=known_at, include_retired=include_retired, limit=limit,
            center_entity=center_entity, include_events=include_events, qualifiers=qualifiers, at=at))

    @server.tool(annotations=READ, description=(
        "Find entities (people, organisations, places, things) by name or description, with their labels, "
        "aliases and summary. Use it to learn the exact name of something before timeline, or to check "
        "whether the memory knows it at all. For what is true about an entity, use search_facts."))
    async def search_entities(
        ctx: Context, query: Query, group_id: GroupId = None, limit: Limit = 10, at: At = None,
    ) -> Annotated[CallToolResult, EntitiesOut]:
        return await call(ctx, lambda a: tools.search_entities(a, group_id, query, limit=limit, at=at))

    @server.tool(annotations=READ, description=(
        "Read episodes, the original words facts came from: by id (episode_ids, e.g. a fact's sources), by "
        "search (query), or the latest ones (neither), optionally of one saga. Use it to quote or check a "
        "source; to know what is true, search_facts is better."))
    async def get_episodes(
        ctx: Context, group_id: GroupId = None,
        episode_ids: Annotated[list[Annotated[str, Field(min_length=1, max_length=ID_MAX)]] | None, Field(
            max_length=IDS_MAX, description=f"Episodes to fetch by id (at most {IDS_MAX}).")] = None,
        query: Annotated[str | None, Field(min_length=1, max_length=QUERY_MAX,
                                           description="Search episodes' text instead.")] = None,
        saga: Annotated[str | None, Field(max_length=ID_MAX, description="Only episodes of this saga.")] = None,
        limit: Limit = 10,
        max_chars: Annotated[int, Field(ge=1, le=100_000, strict=True,
                                        description="Cut each text at this many characters.")] = 2_000,
    ) -> Annotated[CallToolResult, EpisodesOut]:
        return await call(ctx, lambda a: tools.get_episodes(
            a, group_id, episode_ids=episode_ids, query=query, saga=saga, limit=limit, max_chars=max_chars))

    @server.tool(annotations=READ, description=(
        "How one entity changed over time: every fact touching it, retired ones included, ordered by when "
        "they became true, each with its interval and sources. Use it for 'where did X work before', 'since "
        "when'. The entity is matched by exact name (case-insensitive); search_entities finds the name."))
    async def timeline(
        ctx: Context,
        entity: Annotated[str, Field(min_length=1, max_length=NAME_MAX, description="The entity's name.")],
        group_id: GroupId = None,
        relation: Annotated[str | None, Field(max_length=NAME_MAX,
                                              description="Only this relation, e.g. WORKS_AT.")] = None,
        limit: Limit = 50, at: At = None,
    ) -> Annotated[CallToolResult, FactsOut]:
        return await call(ctx, lambda a: tools.timeline(a, group_id, entity, relation=relation, limit=limit,
                                                        at=at))

    @server.tool(annotations=READ, description=(
        "What happened, and when: events (moments such as LEFT, MET, VISITED, GOT_ENGAGED_TO), which are "
        "not standing facts and which search_facts leaves out, by when they happened, oldest first; of one "
        "entity (by exact name), one relation, and a time window (since, until) if given."))
    async def get_events(
        ctx: Context, group_id: GroupId = None,
        entity: Annotated[str | None, Field(min_length=1, max_length=NAME_MAX,
                                            description="Only events of this entity (its name).")] = None,
        relation: Annotated[str | None, Field(max_length=NAME_MAX,
                                              description="Only this relation, e.g. LEFT.")] = None,
        since: Annotated[str | None, Field(description="ISO 8601 time: events at or after it.")] = None,
        until: Annotated[str | None, Field(description="ISO 8601 time: events before it.")] = None,
        limit: Limit = 50,
    ) -> Annotated[CallToolResult, FactsOut]:
        return await call(ctx, lambda a: tools.events(
            a, group_id, entity=entity, relation=relation, since=since, until=until, limit=limit))

    @server.tool(annotations=READ, description=(
        "Facts that disagree. With fact_uuid: that fact's whole slot, every fact that replaced it or that it "
        "replaced, by valid time, with intervals and sources; use it to explain a change or to judge which "
        "source to trust. Without: pairs of CURRENT facts that may contradict each other and were not "
        "resolved, for you to check or correct (add_memory, delete_fact)."))
    async def conflicts(
        ctx: Context, group_id: GroupId = None,
        fact_uuid: Annotated[str | None, Field(min_length=1, max_length=ID_MAX,
                                               description="The fact whose slot to show.")] = None,
        limit: Limit = 20,
    ) -> Annotated[CallToolResult, ConflictsOut]:
        return await call(ctx, lambda a: tools.conflicts(a, group_id, fact_uuid=fact_uuid, limit=limit))

    @server.tool(annotations=READ, description=(
        "What changed in the memory since a time (when it was recorded, not when it was true), oldest first: "
        "facts learned, retired (no longer true, or corrected), restored, removed or changed, and entities "
        "merged or split, each with the fact as it stood after and the episode behind it. Use it to catch up "
        "on what happened while you were away; page with after=<next>."))
    async def get_changes(
        ctx: Context,
        since: Annotated[str, Field(min_length=1, description="ISO 8601 time: changes recorded at or after it.")],
        group_id: GroupId = None,
        until: Annotated[str | None, Field(description="ISO 8601 time: changes recorded before it.")] = None,
        limit: Limit = 50,
        after: Annotated[str | None, Field(min_length=1, max_length=NAME_MAX,
                                           description="The cursor a previous call gave as next.")] = None,
    ) -> Annotated[CallToolResult, ChangesOut]:
        return await call(ctx, lambda a: _get_changes(
            memory, a, group_id, since, until=until, limit=limit, after=after))

    @server.tool(annotations=READ, description=(
        "One fact by uuid, with every source episode's statement (the interval each gave, the time "
        "expression it was read from, what extracted it) and the fact's recorded history of changes. Use it "
        "to justify or audit an answer."))
    async def get_fact(
        ctx: Context, fact_uuid: FactUuid, group_id: GroupId = None,
    ) -> Annotated[CallToolResult, FactDetailOut]:
        return await call(ctx, lambda a: tools.get_fact(a, group_id, fact_uuid))

    @server.tool(annotations=DELETE, description=(
        "Retract an episode that was wrong or should not have been stored: its facts lose it as a source and "
        "go when no other episode states them; facts only it had retired come back. Use it to undo an "
        "add_memory. To correct a fact that merely changed, add a new memory instead."))
    async def delete_episode(
        ctx: Context, episode_id: EpisodeId, group_id: GroupId = None,
    ) -> Annotated[CallToolResult, RemovalOut]:
        return await call(ctx, lambda a: tools.delete_episode(a, group_id, episode_id))

    @server.tool(annotations=DELETE, description=(
        "Retract one wrong fact, whatever episodes stated it (a bad extraction, a fact the user says was never "
        "true); facts only it had retired come back. Not for facts that stopped being true: add_memory with "
        "the change keeps the history instead."))
    async def delete_fact(
        ctx: Context, fact_uuid: FactUuid, group_id: GroupId = None,
    ) -> Annotated[CallToolResult, RemovalOut]:
        return await call(ctx, lambda a: tools.delete_fact(a, group_id, fact_uuid))

    @server.tool(annotations=WRITE, description=(
        "Bring a saga's (a conversation's or thread's) running summary up to date and return it, with the "
        "period its episodes cover. Use it to recall the gist of a long conversation; episodes join a saga "
        "through add_memory's saga parameter."))
    async def summarize_saga(
        ctx: Context,
        saga: Annotated[str, Field(min_length=1, max_length=ID_MAX, description="The saga's name.")],
        group_id: GroupId = None,
    ) -> Annotated[CallToolResult, SagaOut]:
        return await call(ctx, lambda a: tools.summarize_saga(a, group_id, saga))

    register_governance_tools(server, memory, call)

    @server.tool(annotations=READ, description=(
        "The groups this caller may use, and the default group used when group_id is omitted."))
    async def list_groups(ctx: Context) -> Annotated[CallToolResult, GroupsOut]:
        return await call(ctx, tools.list_groups)

    return server


async def run_stdio(memory: AsyncMemory, access: Access) -> None:
    """Serve over standard input and output until the client hangs up."""
    await build_mcp_server(memory, access=access).run_stdio_async()


# -- streamable HTTP ---------------------------------------------------------------------


def _secret(scope: Scope) -> str | None:
    """``Authorization: Bearer <secret>`` or ``X-API-Key: <secret>``."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    auth = headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return headers.get("x-api-key", "").strip() or None


@dataclass(frozen=True, slots=True)
class McpHttp:
    """The streamable HTTP endpoint: ``endpoint`` (an ASGI app that checks the
    key, then hands over to the SDK) and ``lifespan()``, which must be running
    while it serves."""

    endpoint: Callable[[Scope, Receive, Send], Awaitable[None]]
    session_manager: StreamableHTTPSessionManager

    def lifespan(self) -> AbstractAsyncContextManager[None]:
        return self.session_manager.run()


def mcp_http(
    memory: AsyncMemory, keys: KeyRing, *, host: str = "127.0.0.1", anonymous: Access | None = None,
    limits: Limits | None = None,
) -> McpHttp:
    """The MCP endpoint over HTTP, authorised by ``keys``. ``host`` is where it
    is served: when it answers without a key (``anonymous``) on a loopback
    address (any of 127.0.0.0/8, ``::1``, ``localhost``) it also refuses other
    Host headers and writes from another origin (:mod:`.guard`, DNS
    rebinding); with keys, the key is the guard (a reverse proxy on the same
    machine may forward its own Host).
    ``anonymous`` is the access of a request with no key at all (``kronograph
    mcp --http --local``); by default such a request is a 401, and a wrong key
    always is. ``limits``: the REST service's (the largest request body, 413
    beyond; an episode's content). Every refusal is in the service's error shape."""
    limits = limits or Limits()
    server = build_mcp_server(memory, access=_from_request, limits=limits)
    # The SDK's own Host check is off: :class:`LoopbackGuard` does it, for every loopback address.
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    # Stateless: every request stands alone, with its own key, and any worker can answer it.
    server.streamable_http_app(stateless_http=True, json_response=True, host=host, transport_security=security,
                               max_request_body_size=limits.max_body)
    manager = server.session_manager
    endpoint: Callable[[Scope, Receive, Send], Awaitable[None]] = _KeyedEndpoint(keys, manager, anonymous)
    if anonymous is not None and is_loopback(host):
        endpoint = LoopbackGuard(endpoint)
    return McpHttp(endpoint=endpoint, session_manager=manager)


class _KeyedEndpoint:
    """Authenticate, then hand over to the SDK with the key's Access on the scope.
    (A class, not a function: Starlette routes a plain function as a request handler.)"""

    def __init__(self, keys: KeyRing, manager: StreamableHTTPSessionManager, anonymous: Access | None) -> None:
        self.keys, self.manager, self.anonymous = keys, manager, anonymous

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        secret = _secret(scope)
        if secret is None and self.anonymous is not None:
            await self.manager.handle_request({**scope, ACCESS_SCOPE_KEY: self.anonymous}, receive, _shaped(send))
            return
        key = self.keys.authenticate(secret)
        if key is None:
            body = {"error": {"code": "unauthorized", "message": "missing or unknown API key", "field": None}}
            response = JSONResponse(body, status_code=401,
                                    headers={"WWW-Authenticate": 'Bearer realm="kronograph"'})
            await response(scope, receive, send)
            return
        default = next(iter(key.groups)) if len(key.groups) == 1 and not key.admin else None
        access = Access(groups=key.groups, everything=key.admin, default=default, actor=key_actor(key))
        await self.manager.handle_request({**scope, ACCESS_SCOPE_KEY: access}, receive, _shaped(send))


def _shaped(send: Send) -> Send:
    """``send``, with the SDK's plain-text refusals (413 body too large, 421,
    403...) rewritten into the service's error shape; JSON answers (JSON-RPC
    results and errors) pass untouched."""
    held: dict[str, Any] = {}

    async def shaping_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            status = int(message["status"])
            kind = dict(message.get("headers") or []).get(b"content-type", b"")
            if status >= 400 and not kind.startswith(b"application/json"):
                held["start"], held["body"] = message, b""
                return
            await send(message)
            return
        if message["type"] == "http.response.body" and "start" in held:
            held["body"] += message.get("body", b"")
            if message.get("more_body", False):
                return
            status = int(held["start"]["status"])
            text = held["body"].decode("utf-8", "replace").strip() or "request refused"
            body = json.dumps({"error": {"code": CODES.get(status, "invalid_input"), "message": text,
                                         "field": None}}).encode()
            headers = [(k, v) for k, v in held["start"].get("headers") or []
                       if k not in (b"content-type", b"content-length")]
            headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            held.clear()
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await send(message)

    return shaping_send


def mcp_http_app(
    memory: AsyncMemory, keys: KeyRing, *, path: str = "/mcp", host: str = "127.0.0.1", anonymous: Access | None = None,
    limits: Limits | None = None,
) -> Starlette:
    """A standalone app serving the MCP endpoint at ``path`` (``kronograph mcp --http``)."""
    mcp = mcp_http(memory, keys, host=host, anonymous=anonymous, limits=limits)
    app = Starlette(routes=[Route(path, endpoint=mcp.endpoint, methods=["GET", "POST", "DELETE"])],
                    lifespan=lambda _app: mcp.lifespan())
    app.state.mcp = mcp
    return app
