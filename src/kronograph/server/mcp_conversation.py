"""The MCP tools' conversation part: ``add_memory`` given ``messages`` (one
episode a message, through ``add_messages``) and ``get_user`` (the group's
user, its summary and what is true of them now).

A subclass of :class:`~.mcp_tools.MemoryTools`, so :mod:`.mcp_tools` keeps
the single-episode rules and this module only the conversation's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import InvalidInputError
from ..ingest.episode_input import DEFAULT_ASSISTANT
from ..model import EpisodeResult
from .mcp_tools import Access, EntityOut, FactOut, IngestOut, MemoryTools, _candidates_text, _facts_text, _Out

__all__ = ["AddMemoryOut", "ConversationTools", "MessageOut", "UserOut"]

# add_memory's single-episode parameters, which a call with messages leaves out:
# each message carries its own (``id``, ``created_at``), and ``thread`` is the saga.
_SINGLE_ONLY = ("reference_time", "source_description", "saga", "episode_id", "name", "on_behalf_of", "tier")


class MessageOut(_Out):
    """What one message of an ``add_memory`` call with ``messages`` did."""

    episode_id: str
    status: str
    error: str | None = None
    duplicate: bool = False
    created: int = 0  # new facts
    notes: list[str] = []  # what it said that gave no fact

    @classmethod
    def of(cls, result: EpisodeResult) -> MessageOut:
        return cls(episode_id=result.episode_id, status=str(result.status), error=result.error,
                   duplicate=result.duplicate, created=len(result.created), notes=result.notes)


class AddMemoryOut(IngestOut):
    """``add_memory``'s result. Given ``messages``, the fields describe the whole
    call (``episode_id`` is the last message's; ``status`` is ``complete`` when
    every message completed, else the first other status; the facts are every
    message's) and ``messages`` says what each message did, in order."""

    messages: list[MessageOut] | None = None

    @classmethod
    def of_messages(cls, group_id: str, results: Sequence[EpisodeResult]) -> AddMemoryOut:
        each = [IngestOut.of(r) for r in results]
        failed = next((r for r in results if not r.ok), None)
        entities = list(dict.fromkeys(name for out in each for name in out.entities))
        return cls(
            group_id=group_id, episode_id=results[-1].episode_id,
            status=str(failed.status) if failed is not None else str(results[-1].status),
            error=f"{failed.episode_id}: {failed.error}" if failed is not None and failed.error else None,
            duplicate=all(r.duplicate for r in results), entities=entities,
            created=[f for out in each for f in out.created], merged=[f for out in each for f in out.merged],
            retired=[f for out in each for f in out.retired], changed=[f for out in each for f in out.changed],
            notes=[f"{out.episode_id}: {note}" for out in each for note in out.notes],
            messages=[MessageOut.of(r) for r in results],
            possible_contradictions=[c for out in each for c in out.possible_contradictions],
        )

    def text(self) -> str:
        if self.messages is None:
            return super().text()
        done = sum(m.status == "complete" for m in self.messages)
        head = f"{len(self.messages)} message(s) into group {self.group_id!r}: {done} complete"
        if self.error:
            head += f"; failed: {self.error}"
        empty = sum(m.status == "complete" and not m.created and not m.duplicate for m in self.messages)
        if empty:
            head += f"; {empty} gave no new fact"
        parts = [head]
        for title, facts in (("new facts", self.created), ("restated (merged)", self.merged),
                             ("retired by them", self.retired), ("interval moved", self.changed)):
            if facts:
                parts.append(_facts_text(title, facts, ""))
        parts += [f"  ({note})" for note in self.notes]
        parts += _candidates_text(self.possible_contradictions)
        return "\n".join(parts)


class UserOut(_Out):
    """The group's user: its name setting, its entity (with summary) and the
    facts true of it now."""

    group_id: str
    user_name: str | None = None
    user: EntityOut | None = None
    facts: list[FactOut] = []

    def text(self) -> str:
        if self.user_name is None:
            return (f"group {self.group_id!r} has no user: add_memory with messages and user_name names the "
                    "person behind role 'user'")
        if self.user is None:
            return f"the user of group {self.group_id!r} is {self.user_name!r}; nothing is known of them yet"
        summary = self.user.summary or "(no summary built yet)"
        head = f"the user of group {self.group_id!r}: {self.user.text().removeprefix('- ')}\nsummary: {summary}"
        return head + "\n" + _facts_text("true of them now", self.facts, "nothing yet")


class ConversationTools(MemoryTools):
    """:class:`~.mcp_tools.MemoryTools`, with conversations."""

    async def add_memory(  # type: ignore[override]
        self, access: Access, group_id: str | None, content: str | None = None, *,
        messages: list[dict[str, Any]] | None = None, thread: str | None = None, user_name: str | None = None,
        assistant_name: str | None = None, **single: Any,
    ) -> IngestOut:
        """One episode (``content``), or a conversation (``messages``): exactly one of the two."""
        if messages is None:
            for field, value in (("thread", thread), ("user_name", user_name), ("assistant_name", assistant_name)):
                if value is not None:
                    raise InvalidInputError(field, "goes with messages (for one episode: saga)")
            if content is None:
                raise InvalidInputError("content", "give content (one episode) or messages (a conversation)")
            return await super().add_memory(access, group_id, content, **single)
        g = access.group(group_id)
        if content is not None:
            raise InvalidInputError("messages", "give content or messages, not both")
        for field in _SINGLE_ONLY:
            if single.get(field) is not None:
                raise InvalidInputError(field, "not with messages: each message has its own id and created_at, "
                                               "and thread names the conversation")
        if single.get("kind", "message") != "message":
            raise InvalidInputError("kind", "messages are of kind 'message'")
        if isinstance(messages, list):
            for i, message in enumerate(messages):
                refused = self.limits.content_refused(message.get("content", "")) if isinstance(message, dict) \
                    else None
                if refused is not None:
                    raise InvalidInputError(f"messages[{i}].content", refused.removeprefix("content "))
        results = await self.memory.add_messages(
            g, messages, thread=thread, user_name=user_name, assistant_name=assistant_name or DEFAULT_ASSISTANT,
            actor=access.actor, data_subject=single.get("data_subject"),
        )
        return AddMemoryOut.of_messages(g, results)

    async def get_user(self, access: Access, group_id: str | None, *, limit: int = 50) -> UserOut:
        g = access.group(group_id)
        name = (await self.memory.settings(g)).user_name
        user = await self.memory.user(g)
        if user is None:
            return UserOut(group_id=g, user_name=name)
        mine = [f for f in await self.memory.facts(g, entity=user.name) if user.uuid in (f.subject_uuid, f.object_uuid)]
        return UserOut(group_id=g, user_name=name, user=EntityOut.of(user),
                       facts=await self._with_sources(g, mine[:limit]))
