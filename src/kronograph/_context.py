"""AsyncMemory's ``context``: a prompt-ready memory block for a question or
the last messages.

A base class of :class:`~kronograph.memory.AsyncMemory`, like
:mod:`kronograph._conversation`, on :class:`~kronograph._lifecycle.Lifecycle`
(whose services and plumbing it uses). This module reads (one search over facts,
entities and episodes, and a bounded number of store reads besides, never
one per fact); :mod:`kronograph.context` decides what goes in and lays it
out, with no I/O and no model. See ``docs/context.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from . import checks
from ._arguments import TimeLike, _labels, _text, _time
from ._lifecycle import Lifecycle
from .context import Context, ContextParts, Material, TokenCounter, build, counter_for
from .context.excerpt import terms
from .context.period import named_month, named_period
from .context.query import QUERY_MAX, from_messages
from .errors import InvalidInputError
from .lookahead import known_sources, timeless
from .maintain.summaries import extractive_summary
from .message import Message, read_messages
from .metrics import span
from .model import Entity, Fact, normalise_name
from .search.engine import SearchRequest, run_search
from .search.recipes import recipe_named
from .search.types import DateRange, Hit, SearchFilters
from .store import FactQuery

if TYPE_CHECKING:
    from .store import Store

__all__ = ["CONTEXT_SCOPES", "Contexts", "MAX_TOKENS_RANGE"]

CONTEXT_SCOPES = ("facts", "entities", "episodes")
MAX_TOKENS_RANGE = (50, 100_000)
RECENT = 8  # episodes (and the facts they gave) in a block with no query
SOURCED = 12  # the best facts whose source episodes are read in
REPLIES = 20  # the best episodes whose reply is read in
CONTEXT_WIDENING = 4  # a block asks search for at most 4x the candidates when as_of hides most (search: 16x)
_TICK = timedelta(microseconds=1)


class Contexts(Lifecycle):
    """The ``context`` method of :class:`~kronograph.memory.AsyncMemory`."""

    if TYPE_CHECKING:  # a public method of the memory (see _conversation)
        async def user(self, group_id: str) -> Entity | None: ...

    async def context(
        self,
        group_id: str,
        query: str | None = None,
        *,
        messages: Iterable[Message | Mapping[str, Any]] | None = None,
        as_of: TimeLike | None = None,
        known_at: TimeLike | None = None,
        max_tokens: int = 1000,
        scopes: Iterable[str] = CONTEXT_SCOPES,
        template: str | Callable[[ContextParts], str] | None = None,
        token_counter: TokenCounter | Callable[[str], int] | None = None,
    ) -> Context:
        """A memory block to put in a prompt, relevant to ``query`` or to the
        last ``messages`` (as :meth:`add_messages` takes them; the latest
        weighs most): the group's user, facts as sentences with their
        validity (what holds first, and what each replaced), entity
        summaries and dated excerpts of episodes with their speaker, each
        citing its source episodes; at most ``max_tokens`` (50 to 100,000)
        as ``token_counter`` counts the final text (default: exact o200k
        counts with the ``tokens`` extra, else an estimate; ``Context.counter``
        names it). With neither query nor messages: the user and the latest
        episodes with their facts. ``as_of`` / ``known_at``: everything as of
        then, as in :meth:`search`. ``scopes``: which of facts, entities
        (the user among them) and episodes. ``template``: a format string
        over :meth:`ContextParts.fields`, or a function of the
        :class:`ContextParts`. Deterministic; no model is called. See
        ``docs/context.md``."""
        return await self._context_block(
            group_id, query, messages=messages, as_of=as_of, known_at=known_at, max_tokens=max_tokens,
            scopes=scopes, template=template, token_counter=token_counter,
        )

    async def _context_block(
        self, group_id: str, query: str | None, *, messages: Iterable[Message | Mapping[str, Any]] | None,
        as_of: TimeLike | None, known_at: TimeLike | None, max_tokens: int, scopes: Iterable[str],
        template: str | Callable[[ContextParts], str] | None,
        token_counter: TokenCounter | Callable[[str], int] | None, point_in_time: bool = False,
    ) -> Context:
        """:meth:`context`; ``point_in_time``: as a view of ``at`` reads
        (entities without what has no history: see ``lookahead.timeless``)."""
        g = self._group(group_id)
        text = _text("query", query, optional=True)
        if text is not None and len(text) > QUERY_MAX:
            raise InvalidInputError("query", f"must be at most {QUERY_MAX} characters, got {len(text)}")
        read = read_messages(messages) if messages is not None else []
        if read:
            text = from_messages(read, text)
        checks.count("max_tokens", max_tokens, minimum=MAX_TOKENS_RANGE[0])
        if max_tokens > MAX_TOKENS_RANGE[1]:
            raise InvalidInputError("max_tokens", f"must be at most {MAX_TOKENS_RANGE[1]}, got {max_tokens}")
        wanted = _scopes(scopes)
        if template is not None and not isinstance(template, str) and not callable(template):
            raise InvalidInputError(
                "template", f"expected a format string or a function, not {type(template).__name__}"
            )
        counter = counter_for(token_counter)
        when, believed = _time("as_of", as_of), _time("known_at", known_at)
        store = await self._ready()
        now = self._now()
        m = Material(query=text or "", moment=when or believed or now, as_of=when, known_at=believed,
                     point_in_time=point_in_time)
        with span("context", group_id=g):
            if "entities" in wanted:
                await self._context_user(store, g, m)
            if text:
                await self._context_search(store, g, m, wanted, now, max_tokens)
            else:
                await self._context_recent(store, g, m, wanted)
            await self._context_replaced(store, g, m)
            if m.as_of is None and m.known_at is None:  # a contradiction is open now, not as of a past moment
                await self._context_contradicted(store, g, m, now)
            _summaries(m)
        return build(m, counter=counter, max_tokens=max_tokens, template=template)

    async def _context_search(
        self, store: Store, g: str, m: Material, wanted: tuple[str, ...], now: datetime, max_tokens: int
    ) -> None:
        """One search over the scopes: facts of every interval (those that
        began by the moment, under a temporal mode) as believed then, events
        among them; entities and episodes as of then."""
        recipe = recipe_named("hybrid")
        vector = np.frombuffer(await self._services.embed_one(m.query, (g,)), dtype=np.float32)
        temporal = m.as_of is not None or m.known_at is not None
        request = SearchRequest(
            group_ids=(g,), query=m.query, vector=vector, scopes=wanted, recipe=recipe,
            limit=candidates(max_tokens), now=now, as_of=m.as_of, known_at=m.known_at,
            include_retired=True, include_events=True,
            filters=SearchFilters(valid_at=DateRange(end=m.moment)) if temporal else None,
            cross_encoder=self._cross_encoder,
            cosine_weight=self._services.fusion_weight,
            scope_limits=(("entities", ENTITY_HITS), ("facts", max(12, candidates(max_tokens) // 2))),
            widening=CONTEXT_WIDENING, point_in_time=m.point_in_time,
        )
        found = await run_search(store, request)
        m.facts, m.entities, m.episodes = found.facts, found.entities, found.episodes
        if "episodes" in wanted:
            await self._context_sources(store, g, m)
            await self._context_replies(store, g, m)
            await self._context_period(store, g, m)

    async def _context_replies(self, store: Store, g: str, m: Material) -> None:
        """The reply to each of the best episodes that asks something: the
        episode just after it in its thread (one read of neighbours, one of
        the replies search did not rank). In a conversation the answer is the
        message after the question that matches."""
        asks = [h.item for h in m.episodes[:REPLIES] if "?" in (h.item.content or "")]
        if not asks:
            return
        hood = await store.episode_neighbours(g, [e.uuid for e in asks])
        known = {h.item.uuid: h.item for h in m.episodes} | m.sources
        need = sorted({o for e in asks for o in hood.get(e.uuid, ()) if o not in known})
        if need:
            known |= {e.uuid: e for e in await store.episodes_by_uuid(g, need)}
        for ask in asks:
            for other in hood.get(ask.uuid, ()):
                reply = known.get(other)
                if (
                    reply is not None and reply.content and reply.kind != "fact" and reply.status == "complete"
                    and reply.saga == ask.saga
                    and (reply.reference_time, reply.created_at) > (ask.reference_time, ask.created_at)
                    and (m.as_of is None or reply.reference_time <= m.as_of)
                    and (m.known_at is None or reply.created_at <= m.known_at)
                ):
                    m.replies[ask.uuid] = reply

    async def _context_period(self, store: Store, g: str, m: Material) -> None:
        """Episodes of the period the question names ("in July 2023") that
        share a word with it: one read of the period's latest episodes. One
        search ranks by words, and an event's turn often shares only one
        with the question; its date is what the question gives."""
        period = named_period(m.query)
        if period is None:
            return
        start, end = period
        if m.as_of is not None:
            end = min(end, m.as_of + _TICK)
        if end <= start:
            return
        wanted = terms(m.query) - terms(" ".join(_period_words(m.query)))
        if not wanted:
            return
        top = max((h.score for h in m.episodes), default=1.0)
        ranked = {h.item.uuid: i for i, h in enumerate(m.episodes)}
        boosted: list[Hit[Any]] = list(m.episodes)
        for episode in await store.context_episodes(g, before=end, exclude="", limit=PERIOD_EPISODES):
            if (
                episode.reference_time < start or episode.status != "complete" or episode.kind == "fact"
                or not episode.content or (m.known_at is not None and episode.created_at > m.known_at)
            ):
                continue
            shared = len(terms(episode.content) & wanted) / len(wanted)
            if not shared:
                continue
            score = top * PERIOD_SHARE * shared
            at = ranked.get(episode.uuid)
            if at is None:
                boosted.append(Hit(episode, score, ("period",)))
            elif boosted[at].score < score:
                boosted[at] = Hit(episode, score, (*boosted[at].methods, "period"))
        boosted.sort(key=lambda h: -h.score)
        m.episodes = boosted

    async def _context_sources(self, store: Store, g: str, m: Material) -> None:
        """The episodes the best facts cite that search did not rank, under
        the same temporal mode as search's episodes (one read)."""
        have = {h.item.uuid for h in m.episodes}
        wanted = list(dict.fromkeys(e for h in m.facts[:SOURCED] for e in h.item.episodes[:2] if e not in have))
        if not wanted:
            return
        for episode in await store.episodes_by_uuid(g, wanted):
            if (
                episode.status == "complete" and episode.kind != "fact" and episode.content
                and (m.as_of is None or episode.reference_time <= m.as_of)
                and (m.known_at is None or episode.created_at <= m.known_at)
            ):
                m.sources[episode.uuid] = episode

    async def _context_recent(self, store: Store, g: str, m: Material, wanted: tuple[str, ...]) -> None:
        """No query: the latest episodes by the moment (received by
        ``known_at``), and the facts that began last before it, as believed
        then (those of the last 30 days, else of the last year, 10 years,
        100 years)."""
        if "episodes" in wanted:
            latest = await store.context_episodes(g, before=m.moment + _TICK, exclude="", limit=RECENT * 4)
            kept = [
                e for e in latest
                if e.status == "complete" and e.kind != "fact" and (m.known_at is None or e.created_at <= m.known_at)
            ][-RECENT:]
            m.episodes = [Hit(e, 1.0 / (1 + i), ("recent",)) for i, e in enumerate(reversed(kept))]
        if "facts" not in wanted:
            return
        facts: list[Fact] = []
        for days in (30, 365, 3650, 36500):  # a window, widened until it holds enough (its oldest if too many)
            facts = await store.facts(g, FactQuery(
                as_of=m.moment, known_at=m.known_at, include_retired=True, since=m.moment - timedelta(days=days),
                until=m.moment + _TICK, limit=RECENT * 40,
            ))
            if len(facts) >= RECENT * 3:
                break
        if m.point_in_time and m.known_at is not None:
            facts = await known_sources(store, g, facts, m.known_at)
        facts.sort(key=lambda f: (-f.valid_at.timestamp(), f.uuid))
        m.facts = [Hit(f, 1.0 / (1 + i), ("recent",)) for i, f in enumerate(facts[: RECENT * 3])]

    async def _context_user(self, store: Store, g: str, m: Material) -> None:
        """The group's user, when it was known by the moment; under a
        temporal mode its summary is made from its facts as of then."""
        user = await self.user(g)
        if user is None:
            return
        if m.as_of is None and m.known_at is None:
            m.user, m.user_summary = user, user.summary
            return
        if m.known_at is not None and user.created_at > m.known_at:
            return
        if m.as_of is not None and user.uuid not in await store.entities_known_by(g, [user.uuid], m.as_of):
            return
        facts = await store.facts(g, FactQuery(
            as_of=m.moment, known_at=m.known_at, entity_key=normalise_name(user.name), event=None,
            until=m.moment + _TICK, limit=200,
        ))
        mine = [f for f in facts if user.uuid in (f.subject_uuid, f.object_uuid) and _holds(f, m.moment)]
        m.user, m.user_summary = timeless(user) if m.point_in_time else user, extractive_summary(mine)

    async def _context_replaced(self, store: Store, g: str, m: Material) -> None:
        """For each fact, the latest fact of its slot (linked by a recorded
        contradiction) that ended by its start, as believed at ``known_at``."""
        seeds = [h.item.uuid for h in m.facts if not h.item.event]
        if not seeds:
            return
        edges = await store.conflict_links(g, seeds)
        linked = sorted({o for u in seeds for o in edges.get(u, ())})
        if not linked:
            return
        before = {f.uuid: f for f in await store.facts(g, FactQuery(
            as_of=m.moment, known_at=m.known_at, include_retired=True, uuids=tuple(linked), until=m.moment + _TICK,
        ))}
        for hit in m.facts:
            fact = hit.item
            earlier = [
                b for o in sorted(edges.get(fact.uuid, ()))
                if (b := before.get(o)) is not None and b.valid_at < fact.valid_at
                and b.invalid_at is not None and b.invalid_at <= fact.valid_at
            ]
            if earlier:
                m.replaced[fact.uuid] = max(earlier, key=lambda f: (f.valid_at, f.uuid))


    async def _context_contradicted(self, store: Store, g: str, m: Material, now: datetime) -> None:
        """For each fact of the block, the open contradictions against it that
        score above zero, with the contradicting fact's text (or the episode's id)."""
        seeds = {h.item.uuid for h in m.facts}
        if not seeds:
            return
        rows = [r for r in await store.contradictions(g, fact_uuids=tuple(sorted(seeds)), open_only=True, at=now)
                if r.target_uuid in seeds and r.score > 0]
        if not rows:
            return
        by = {f.uuid: f.fact for f in await store.facts(g, FactQuery(
            as_of=now, uuids=tuple(sorted({r.fact_uuid for r in rows})), include_retired=True))}
        for r in rows:  # best first, as the store orders them
            said = by.get(r.fact_uuid) or f"episode {r.fact_uuid}"
            m.contradicted.setdefault(r.target_uuid, []).append((said[:200], r.score))


PERIOD_EPISODES = 200  # the latest episodes of a named period read
PERIOD_SHARE = 0.9  # an episode of the named period sharing every word with the question: this share of the best


def _period_words(query: str) -> list[str]:
    """The words that name the period (a month, a day, a year), which every episode of it does not say."""
    return [w for w in query.replace(",", " ").split() if w.rstrip(".?!").isdigit() or named_month(w)]


ENTITY_HITS = 8  # entity summaries a block weighs (a few lines at most fit beside the facts)


def candidates(max_tokens: int) -> int:
    """Hits asked of each scope: about one per 16 tokens of budget, 12 to
    100 (more than fit: the block chooses among them)."""
    return min(100, max(12, max_tokens // 16))


def _holds(fact: Fact, moment: datetime) -> bool:
    return fact.event or fact.valid_at <= moment and (fact.invalid_at is None or fact.invalid_at > moment)


def _summaries(m: Material) -> None:
    """Each entity's summary as of the block's moment: the stored one when
    it is current and no temporal mode is asked for, else one made from
    the block's facts about it that hold then."""
    temporal = m.as_of is not None or m.known_at is not None
    about: dict[str, list[Fact]] = {}
    for hit in m.facts:
        if _holds(hit.item, m.moment):
            for end in {hit.item.subject_uuid, hit.item.object_uuid}:
                about.setdefault(end, []).append(hit.item)
    for entity_hit in m.entities:
        entity = entity_hit.item
        if not temporal and not entity.summary_stale and entity.summary:
            m.summaries[entity.uuid] = entity.summary
        else:
            m.summaries[entity.uuid] = extractive_summary(about.get(entity.uuid, []))


def _scopes(scopes: Any) -> tuple[str, ...]:
    wanted = tuple(dict.fromkeys(_labels("scopes", scopes, lookup=True)))
    if not wanted:
        raise InvalidInputError("scopes", f"name at least one of {list(CONTEXT_SCOPES)}")
    for scope in wanted:
        if scope not in CONTEXT_SCOPES:
            raise InvalidInputError("scopes", f"unknown scope {scope!r}; a block's scopes are {list(CONTEXT_SCOPES)}")
    return wanted
