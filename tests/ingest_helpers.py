"""A scripted model provider for pipeline tests: it answers each schema with
a function of the prompt, counts its calls, and can fail on cue."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from kronograph.errors import TransientModelError
from kronograph.llm.protocol import ModelReply

Answerer = Callable[[str, str], Any]  # (system, user) -> JSON-able answer, or an Exception to raise


def current_episode(user: str) -> str:
    match = re.search(r"<current_episode[^>]*>\n(.*)\n</current_episode>", user, re.S)
    assert match, user
    return match.group(1)


class ScriptedProvider:
    name = "scripted"
    model = "scripted-test"
    small_model = None
    native_schema = True

    def __init__(self, **answers: Answerer) -> None:
        self.answers = answers
        self.calls: list[tuple[str, str]] = []  # (schema name, user prompt)
        self.fail: list[Exception] = []  # raised, one per call, before answering

    async def complete(
        self, *, system: str, user: str, schema: Mapping[str, Any] | None, schema_name: str, small: bool = False
    ) -> ModelReply:
        self.calls.append((schema_name, user))
        if self.fail:
            raise self.fail.pop(0)
        answer = self.answers[schema_name](system, user)
        if isinstance(answer, Exception):
            raise answer
        text = answer if isinstance(answer, str) else json.dumps(answer)
        return ModelReply(text=text, prompt_tokens=len(system + user) // 4, completion_tokens=len(text) // 4,
                          model=self.model)

    def count(self, schema_name: str) -> int:
        return sum(1 for name, _ in self.calls if name == schema_name)


def transient() -> TransientModelError:
    return TransientModelError("scripted 503", retry_after=0)
