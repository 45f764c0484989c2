"""Sagas: a running summary of an ordered chain of episodes, with two watermarks.

An episode belongs to a saga when it is added with ``saga=``. A saga's
summary is built incrementally by :func:`summarize_saga`:

* The **cursor** is the ingestion-time watermark: the ``(created_at, uuid)``
  of the last episode included (uuids compared byte by byte). A run first
  fixes an upper bound, the saga's greatest key at that moment, then reads
  the episodes past the cursor and up to that bound, in key order, a page at
  a time; episodes that arrive meanwhile are past the bound and wait for the
  next run. The cursor moves only past episodes really included: a model
  failure stops the run at the last episode the summary took in.
* **Coverage** is the event-time watermark: the earliest and latest
  reference time of the included episodes that had text.
* Every episode is included whatever its status: its text is in the store
  from registration. An episode whose text was not kept
  (``store_raw_content=False``) is included without text and counted in
  ``without_text``.

The cursor is sound because keys within a saga follow commit order: the
store stamps a new episode of a saga, in the transaction that inserts it and
under the group's write lock, with a ``created_at`` past every other episode
of the saga (see ``store.plan_rows``). So an episode that commits after a
run fixed its bound has a greater key than the bound, whatever the clocks of
the processes that wrote it: no episode can appear behind the cursor.

With a model, each call gets the running summary and about ``CALL_CHARS`` of
episode text (as many whole episodes as fit); an episode longer than that is
split into parts, each a call fed the summary so far, and it counts as
included only once its last part is in. A run makes at most ``max_calls``
calls, except that an episode begun is finished (else an episode of more
parts than ``max_calls`` could never be included). Without a model the
summary is extractive (:mod:`.saga_text`).

Summary, version, cursor and coverage are written by one plan, in one
transaction, only if the stored version is still the one read when the run
began (another summariser, or a removal, moves it); otherwise the store
raises ConcurrentWriteError and nothing is written, and the caller may run
again (the memory does, a few times). ``remove_episode`` of an episode the
summary included marks it stale in the removal's own transaction; the next
run rebuilds it from the saga's first episode, so removed text is dropped.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from ..errors import ModelError, NotFoundError
from ..ingest.schema import SagaAnswer
from ..llm.client import ModelClient
from ..model import Episode, SagaInfo, SagaSummary
from ..store.plan import Plan, SagaWrite
from ..store.protocol import CallerReads, Store
from ..store.records import SagaState
from ..time import Clock, to_micros
from . import saga_text

__all__ = ["CALL_CHARS", "MAX_CALLS", "PAGE", "saga_infos", "stored_saga_summary", "summarize_saga"]

_log = logging.getLogger("kronograph")

CALL_CHARS = 4_000  # episode text per model call, about
MAX_CALLS = 20  # model calls per run, at most (an episode begun is finished)
MODEL_SUMMARY_CHARS = 2_000  # a model's summary is cut there
PAGE = 200  # episodes read per page

Key = tuple[datetime, str]

_SYSTEM = """\
You keep the running summary of a saga: an ordered chain of messages or documents.
You are given the summary so far and the next episodes, in order. Write the updated summary:
the summary so far with what the new episodes add or change folded in, in plain prose of at most 250 words.
Keep names, dates, numbers, decisions and open questions; drop what later episodes supersede.
Use only the text given; no speculation. An episode marked part="k/n" is one part of a longer episode."""


@dataclass(slots=True)
class _Run:
    """A run's progress: what is written if it stops now."""

    group_id: str  # whose saga: the model's replies are cached for this group only
    summary: str | None
    pool: list[saga_text.Item]
    cursor: Key | None
    covered_from: datetime | None
    covered_to: datetime | None
    episodes: int
    without_text: int
    added: int = 0
    calls: int = 0
    error: str | None = None
    complete: bool = True
    pending: list[Episode] = field(default_factory=list)  # read, not yet included

    @classmethod
    def start(cls, group_id: str, state: SagaState | None) -> _Run:
        if state is None:
            return cls(group_id, None, [], None, None, None, 0, 0)
        cursor = _cursor(state)
        pool = [list(i) for i in state.state] if isinstance(state.state, list) else []
        if not pool and state.summary and cursor is not None:  # going on from a model's summary
            micros = to_micros(cursor[0])
            said = saga_text.sentences(state.summary)
            pool = [[saga_text.score(s), micros, cursor[1], n, s] for n, s in enumerate(said)]
        return cls(
            group_id, state.summary, pool, cursor, state.covered_from, state.covered_to, state.episodes,
            state.without_text,
        )

    def include(self, episode: Episode) -> None:
        """The episode is in the summary: move the watermarks past it."""
        self.cursor = (episode.created_at, episode.uuid)
        self.episodes += 1
        self.added += 1
        if _text(episode) is None:
            self.without_text += 1
            return
        t = episode.reference_time
        self.covered_from = t if self.covered_from is None or t < self.covered_from else self.covered_from
        self.covered_to = t if self.covered_to is None or t > self.covered_to else self.covered_to


def _cursor(state: SagaState) -> Key | None:
    return (state.cursor_at, state.cursor_uuid) if state.cursor_at is not None and state.cursor_uuid else None


def _text(episode: Episode) -> str | None:
    text = (episode.content or "").strip()
    return text or None


# -- extractive ----------------------------------------------------------------------


def _extract(run: _Run, episodes: list[Episode]) -> None:
    new: list[saga_text.Item] = []
    for episode in episodes:
        micros = to_micros(episode.created_at)
        for n, sentence in enumerate(saga_text.sentences(_text(episode) or "")):
            new.append([saga_text.score(sentence), micros, episode.uuid, n, sentence])
        run.include(episode)
    run.pool = saga_text.fold(run.pool, new)
    run.summary = saga_text.render(run.pool)


# -- by model ------------------------------------------------------------------------


def _shown(episode: Episode, text: str, part: str = "") -> str:
    name = episode.name.replace('"', "'")
    return f'<episode time="{episode.reference_time.isoformat()}" name="{name}"{part}>\n{text}\n</episode>'


async def _ask(model: ModelClient, run: _Run, shown: list[str]) -> str:
    """One call: the summary so far and these episodes (or parts), in order."""
    user = (
        f"<summary_so_far>\n{run.summary or '(none yet)'}\n</summary_so_far>\n<episodes>\n"
        + "\n".join(shown)
        + "\n</episodes>"
    )
    run.calls += 1
    answer = await model.structured("saga", system=_SYSTEM, user=user, schema=SagaAnswer, small=True,
                                    group_id=run.group_id)
    text = " ".join(answer.summary.split())
    if not text:
        raise ModelError("the model answered an empty saga summary")
    return saga_text.cut(text, MODEL_SUMMARY_CHARS)


async def _flush(model: ModelClient, run: _Run, limit: int) -> bool:
    """Summarise the pending episodes (one call), and include them; False
    when the run must stop (out of calls, or the model failed)."""
    batch, run.pending = run.pending, []
    shown = [_shown(e, t) for e in batch if (t := _text(e)) is not None]
    if shown:
        if run.calls >= limit:
            run.complete = False
            return False
        try:
            run.summary = await _ask(model, run, shown)
        except ModelError as exc:
            run.error = str(exc)
            return False
    for episode in batch:
        run.include(episode)
    return True


async def _by_parts(model: ModelClient, run: _Run, episode: Episode, text: str, call_chars: int, limit: int) -> bool:
    """An episode too long for one call, part by part; included only once
    every part is in (a failure leaves the summary as it was before it)."""
    if run.calls >= limit:
        run.complete = False
        return False
    parts = saga_text.split_parts(text, call_chars)
    before = run.summary
    for k, part in enumerate(parts, 1):
        try:
            run.summary = await _ask(model, run, [_shown(episode, part, f' part="{k}/{len(parts)}"')])
        except ModelError as exc:
            run.summary, run.error = before, str(exc)
            return False
    run.include(episode)
    return True


async def _summarise(model: ModelClient, run: _Run, episodes: list[Episode], call_chars: int, limit: int) -> bool:
    """Fold a page of episodes into the summary, in order; False to stop."""
    size = 0  # text pending
    for episode in episodes:
        text = _text(episode) or ""
        if len(text) > call_chars:  # alone, in parts, after what is pending
            if not await _flush(model, run, limit) or not await _by_parts(model, run, episode, text, call_chars, limit):
                return False
            size = 0
            continue
        if size + len(text) > call_chars:
            if not await _flush(model, run, limit):
                return False
            size = 0
        run.pending.append(episode)
        size += len(text)
    return await _flush(model, run, limit)


# -- the run -------------------------------------------------------------------------


async def summarize_saga(
    store: Store,
    group_id: str,
    saga: str,
    *,
    clock: Clock,
    model: ModelClient | None = None,
    max_calls: int = MAX_CALLS,
    call_chars: int = CALL_CHARS,
    page: int = PAGE,
) -> SagaSummary:
    """Bring the saga's running summary up to the episodes there are now (see
    the module's docstring). Raises NotFoundError for a saga with neither
    episodes nor a summary, ConcurrentWriteError when another writer moved
    its version meanwhile (nothing is written then)."""
    state = await store.saga_state(group_id, saga)
    bound = await store.saga_bound(group_id, saga)  # fixed before reading: later arrivals wait for the next run
    if state is None and bound is None:
        raise NotFoundError(f"no saga {saga!r} in group {group_id!r}")
    rebuild = state is not None and state.stale > 0
    run = _Run.start(group_id, None if rebuild else state)
    while bound is not None:
        episodes = await store.saga_episodes(group_id, saga, after=run.cursor, upto=bound, limit=page)
        if not episodes:
            break
        if model is None:
            _extract(run, episodes)
        elif not await _summarise(model, run, episodes, call_chars, max_calls):
            break
        if len(episodes) < page:
            break
    if run.error is not None:
        _log.warning("kronograph: summarising saga %r of group %r stopped: %s", saga, group_id, run.error)
    expected = state.version if state is not None else 0
    if run.added == 0 and not rebuild:
        return _summary(group_id, state, saga, run) if state is not None else _unbuilt(group_id, saga, run)
    plan = Plan(group_id=group_id, now=clock(), expected_revision=None)
    row = SagaState(
        saga=saga, summary=run.summary, version=expected + 1,
        cursor_at=run.cursor[0] if run.cursor else None, cursor_uuid=run.cursor[1] if run.cursor else None,
        covered_from=run.covered_from, covered_to=run.covered_to, episodes=run.episodes,
        without_text=run.without_text, method="extractive" if model is None else "model",
        state=run.pool if model is None else None, built_at=plan.now, stale=0,
    )
    plan.saga_summary = SagaWrite(row, expected)
    await store.apply(plan)
    return _summary(group_id, row, saga, run)


def _summary(group_id: str, row: SagaState, saga: str, run: _Run | None = None) -> SagaSummary:
    return SagaSummary(
        group_id=group_id, saga=saga, summary=row.summary, version=row.version, cursor=_cursor(row),
        covered_from=row.covered_from, covered_to=row.covered_to, episodes=row.episodes,
        without_text=row.without_text, method=row.method, built_at=row.built_at, stale=row.stale > 0,
        added=run.added if run else 0, model_calls=run.calls if run else 0,
        complete=run.complete and run.error is None if run else True, error=run.error if run else None,
    )


def _unbuilt(group_id: str, saga: str, run: _Run) -> SagaSummary:
    """A saga never summarised whose run included nothing (its first call failed)."""
    return SagaSummary(group_id=group_id, saga=saga, model_calls=run.calls, complete=False, error=run.error)


async def stored_saga_summary(store: CallerReads, group_id: str, saga: str) -> SagaSummary:
    """The saga's summary as stored, rebuilding nothing (version 0: never built)."""
    state = await store.saga_state(group_id, saga)
    if state is not None:
        return _summary(group_id, state, saga)
    if await store.saga_bound(group_id, saga) is None:
        raise NotFoundError(f"no saga {saga!r} in group {group_id!r}")
    return SagaSummary(group_id=group_id, saga=saga)


async def saga_infos(store: CallerReads, group_id: str) -> list[SagaInfo]:
    """Every saga of the group, by name, with its lag (episodes past its cursor)."""
    return [
        SagaInfo(saga=c.saga, episodes=c.episodes, lag=c.after_cursor, version=c.version, stale=c.stale > 0,
                 built_at=c.built_at)
        for c in await store.saga_lags(group_id)
    ]
