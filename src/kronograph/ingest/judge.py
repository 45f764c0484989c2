"""Calling a contradiction judge: plain or async, never inside a transaction."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from typing import Any

from pydantic import ValidationError

from ..errors import JudgeError, KronographError
from ..model import Fact, Verdict

__all__ = ["Judge", "ask_judge", "refuse_writes_from_a_judge"]

# Set while a judge runs: in the task's context (async judges) and on the
# worker thread (plain judges). A judge may read the memory, never write to it:
# its caller waits for the verdict, and a write to the group would make the
# caller's plan stale every time it was redone.
_judging: ContextVar[bool] = ContextVar("kronograph_judging", default=False)
_judging_thread = threading.local()


def refuse_writes_from_a_judge() -> None:
    """Raise instead of deadlocking when a judge tries to write to the memory."""
    if _judging.get() or getattr(_judging_thread, "active", False):
        raise JudgeError(
            "a contradiction judge must not write to the memory it judges for (reading it is fine):"
            " the write it is judging waits for its verdict"
        )


def _run_plain(judge: Judge, new_fact: Fact, candidates: list[Fact]) -> Any:
    _judging_thread.active = True
    try:
        return judge(new_fact, candidates)
    finally:
        _judging_thread.active = False

Judge = Callable[[Fact, Sequence[Fact]], Verdict | Awaitable[Verdict]]
"""``judge(new_fact, candidates) -> Verdict``; may be ``async``."""


def _is_async(judge: Any) -> bool:
    return inspect.iscoroutinefunction(judge) or inspect.iscoroutinefunction(
        getattr(judge, "__call__", None)
    )


async def ask_judge(judge: Judge, new_fact: Fact, candidates: Sequence[Fact]) -> Verdict:
    """The judge's verdict. A plain callable runs on a worker thread, since a
    judge usually waits on a model."""
    try:
        token = _judging.set(True)
        try:
            if _is_async(judge):
                answer: Any = await judge(new_fact, list(candidates))  # type: ignore[misc]
            else:
                answer = await asyncio.to_thread(_run_plain, judge, new_fact, list(candidates))
                if inspect.isawaitable(answer):
                    answer = await answer
        finally:
            _judging.reset(token)
    except KronographError:
        raise
    except Exception as exc:
        raise JudgeError(f"the contradiction judge failed: {exc!r}") from exc
    if answer is None:
        return Verdict()
    if isinstance(answer, Verdict):
        return answer
    if isinstance(answer, dict):
        try:
            return Verdict.model_validate(answer)
        except ValidationError as exc:
            raise JudgeError(f"the contradiction judge answered an invalid verdict: {exc}") from exc
    raise JudgeError(f"the contradiction judge must return a Verdict, not {type(answer).__name__}")
