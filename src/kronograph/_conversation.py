"""AsyncMemory's conversation methods: messages in (``add_messages``), the
group's settings (``settings``, ``configure``) and its user (``user``).

A base class of :class:`~kronograph.memory.AsyncMemory`, like
:mod:`kronograph._maintenance`, on :class:`~kronograph._lifecycle.Lifecycle`:
the services and plumbing it uses (``_ready``, ``_group``, ``_lock``,
``_now``, ``_ingestion``) are that base's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from . import checks
from ._lifecycle import Lifecycle
from ._retry import retry_on_conflict
from .errors import InvalidInputError
from .ingest.bulk import EpisodeItem
from .ingest.episode_input import DEFAULT_ASSISTANT, actor_text, content_hash, data_subject_text
from .ingest.group_user import find_user, group_settings, save_user_name
from .ingest.judge import refuse_writes_from_a_judge
from .ingest.speakers import speaker_text, speakers
from .message import Message, read_messages
from .model import Entity, EntitySummary, Episode, EpisodeResult, GroupSettings

if TYPE_CHECKING:
    pass

__all__ = ["Conversations"]


class Conversations(Lifecycle):
    """The conversation part of :class:`~kronograph.memory.AsyncMemory`."""

    if TYPE_CHECKING:  # a public method of the memory (see _maintenance)
        async def summarize_entities(self, group_id: str, names_or_uuids: Any = None, *,
                                     refresh_stale_only: bool = True) -> list[EntitySummary]: ...

    async def add_messages(
        self,
        group_id: str,
        messages: Iterable[Message | Mapping[str, Any]],
        *,
        thread: str | None = None,
        user_name: str | None = None,
        assistant_name: str = DEFAULT_ASSISTANT,
        actor: str | None = None,
        data_subject: str | None = None,
    ) -> list[EpisodeResult]:
        """Ingest a conversation: each message (a :class:`~kronograph.Message`
        or a dict of its fields) becomes one episode (kind ``message``), in
        order, with its speaker and role recorded; results come back in the
        same order. ``thread`` is the saga: its earlier messages are the
        extraction's context. The speaker is the message's ``name``, else
        ``user_name`` for role ``user`` (saved in the group's settings, so
        later calls may leave it out) and ``assistant_name`` for role
        ``assistant``; "I" and "my" are the speaker, "you" the other one of
        the two. Every message is checked first: a bad one raises
        InvalidInputError naming it (``messages[3].role``) and nothing is stored.
        ``data_subject``: whose data the conversation is (a customer id), on
        every message's episode (see :meth:`add_episode`)."""
        g, items, known = await self._conversation(
            group_id, messages, thread, user_name, assistant_name, actor, data_subject
        )
        if not items:
            return []
        return await self._ingestion.add_episodes(g, items, user_name=known, label="messages")

    async def enqueue_messages(
        self,
        group_id: str,
        messages: Iterable[Message | Mapping[str, Any]],
        *,
        thread: str | None = None,
        user_name: str | None = None,
        assistant_name: str = DEFAULT_ASSISTANT,
        actor: str | None = None,
        data_subject: str | None = None,
    ) -> list[Episode]:
        """Accept a conversation for later ingestion, as :meth:`add_messages`
        would ingest it: every message checked first (nothing is stored if one
        is bad), then each recorded ``queued`` in order, so the queue's worker
        ingests them in that order (see :meth:`enqueue_episode`). Returns the
        episodes as recorded; adding the same ids again is idempotent."""
        g, items, known = await self._conversation(
            group_id, messages, thread, user_name, assistant_name, actor, data_subject
        )
        episodes = [await self._ingestion.enqueue(g, item, user_name=known) for item in items]
        for worker in self._workers:
            worker.wake()
        return episodes

    async def _conversation(
        self, group_id: str, messages: Iterable[Message | Mapping[str, Any]], thread: str | None,
        user_name: str | None, assistant_name: str, actor: str | None, data_subject: str | None = None,
    ) -> tuple[str, list[EpisodeItem], str | None]:
        """The group, the messages as episodes and the user's name: every
        message checked (its id against the store too) before a new user name
        is saved, so a bad call stores nothing."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        read = read_messages(messages)
        saga = checks.identifier("thread", thread, optional=True)
        who = speaker_text("user_name", user_name)
        bot = speaker_text("assistant_name", assistant_name)
        by = actor_text("actor", actor)
        key = data_subject_text("data_subject", data_subject)
        store = await self._ready()
        known = who or group_settings(g, await store.group_settings(g)).user_name
        items = [replace(self._item(m, saga, known, bot, by), data_subject=key) for m in read]
        self._ingestion.check(g, items, user_name=known, label="messages")  # stores nothing
        for i, m in enumerate(read):  # an id used before for other content is refused before anything is stored
            if m.id is not None:
                stored = await store.episode(g, m.id)
                if stored is not None and stored.content_hash != content_hash(m.content):
                    raise InvalidInputError(f"messages[{i}].id", f"{m.id!r} was already used for other content")
        if who is not None:
            await self._save_user_name(g, who)
        return g, items, known

    @staticmethod
    def _item(
        message: Message, thread: str | None, user_name: str | None, assistant_name: str | None, actor: str | None
    ) -> EpisodeItem:
        speaker, addressee = speakers(
            message.role, message.name, user_name=user_name, assistant_name=assistant_name
        )
        return EpisodeItem(
            content=message.content, kind="message", reference_time=message.created_at, episode_id=message.id,
            saga=thread, metadata=message.metadata, actor=actor, speaker=speaker, role=message.role,
            addressee=addressee,
        )

    async def _save_user_name(self, group_id: str, user_name: str) -> GroupSettings:
        store = await self._ready()
        if (await self.settings(group_id)).user_name in (None, user_name):
            vector = None  # no user entity is renamed: nothing to embed
        else:  # the new name's vector, before the group is held: an embedder may wait on a network
            vector = await self._services.embed_one(user_name, (group_id,))
        return await retry_on_conflict(
            lambda: save_user_name(store, group_id, user_name, self._now(), vector),
            kind="settings", hold=self._lock(group_id),
        )

    async def settings(self, group_id: str) -> GroupSettings:
        """The group's settings (its user's name, ...), as kept in the store."""
        g = self._group(group_id)
        return group_settings(g, await (await self._ready()).group_settings(g))

    async def configure(self, group_id: str, *, user_name: str | None = None) -> GroupSettings:
        """Change the group's settings; returns them as they now stand.
        ``user_name`` names the person behind role ``user``: a new name
        renames the user entity, which keeps the old name as an alias."""
        refuse_writes_from_a_judge()
        g = self._group(group_id)
        who = speaker_text("user_name", user_name)
        if who is None:
            return await self.settings(g)
        return await self._save_user_name(g, who)

    async def user(self, group_id: str) -> Entity | None:
        """The group's user entity (named by its ``user_name`` setting), with
        its summary, rebuilt first if its facts changed since (as
        :meth:`summarize_entities` does; not on a read replica); None when no
        user name is set or nothing was said about them yet."""
        g = self._group(group_id)
        store = await self._ready()
        name = group_settings(g, await store.group_settings(g)).user_name
        found = None if name is None else await find_user(store, g, name)
        if found is None:
            return None
        # As stored now: a name lookup may answer from the resolver's cache, whose summary can be older.
        fresh = await store.entities_by_uuid(g, [found.uuid])
        if fresh and fresh[0].summary_stale and not store.read_only:
            await self.summarize_entities(g, [found.uuid])
            fresh = await store.entities_by_uuid(g, [found.uuid])
        return fresh[0] if fresh else None
