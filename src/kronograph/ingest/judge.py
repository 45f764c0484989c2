"""Calling a contradiction judge: plain or async, never inside a transaction."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pydantic import ValidationError

from ..errors import JudgeError, KronographError
from ..model import Fact, Verdict

__all__ = ["Judge", "ask_judge"]

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
        if _is_async(judge):
            answer: Any = await judge(new_fact, list(candidates))  # type: ignore[misc]
        else:
            answer = await asyncio.to_thread(judge, new_fact, list(candidates))
            if inspect.isawaitable(answer):
                answer = await answer
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
