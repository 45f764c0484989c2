"""What every provider needs alike, around one raw ``complete`` call: the
schema in the prompt where the provider cannot enforce it, tolerant parsing,
pydantic validation with one repair round, backoff, a concurrency limit, a
reply cache and usage accounting."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import ModelOutputError
from ..metrics import record_model_call
from ..redact import exception_text
from ._loop_local import LoopLocal
from .backoff import Backoff
from .parsing import NoJSONObjectError, extract_json_object, schema_instruction
from .protocol import ModelReply, Provider, ReplyCache, Usage

__all__ = ["ModelClient", "cache_key"]

T = TypeVar("T", bound=BaseModel)
log = logging.getLogger("kronograph")


def cache_key(
    *, provider: str, model: str, small: bool, schema_name: str, schema: Mapping[str, Any], system: str, user: str
) -> str:
    """The reply cache key: sha256 over everything that shapes the answer."""
    parts = [provider, model, "small" if small else "main", schema_name,
             json.dumps(schema, sort_keys=True, separators=(",", ":")), system, user]
    digest = hashlib.sha256()
    for part in parts:
        encoded = part.encode("utf-8")
        digest.update(len(encoded).to_bytes(8, "big"))  # length-prefixed: no ambiguity between fields
        digest.update(encoded)
    return digest.hexdigest()


@functools.lru_cache(maxsize=256)
def _json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema, built once per class (callers must not mutate it)."""
    return schema.model_json_schema()


def _validate(text: str, schema: type[T]) -> T:
    """Parse tolerantly, then validate; raises NoJSONObjectError or ValidationError."""
    return schema.model_validate(extract_json_object(text))


class ModelClient:
    """Asks a :class:`~kronograph.llm.protocol.Provider` for answers that
    validate against a pydantic model.

    One client can serve many coroutines at once (at most ``max_concurrency``
    provider calls in flight per event loop) and several threads each running
    their own loop."""

    def __init__(
        self,
        provider: Provider,
        *,
        cache: ReplyCache | None = None,
        max_concurrency: int = 4,
        max_attempts: int = 5,
        base_delay: float = 0.5,
        max_delay: float = 30.0,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        rng: Callable[[], float] = random.random,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.provider = provider
        self.cache = cache
        self.max_concurrency = max_concurrency
        self.backoff = Backoff(max_attempts=max_attempts, base_delay=base_delay, max_delay=max_delay,
                               sleep=sleep, rng=rng)
        self._semaphores: LoopLocal[asyncio.Semaphore] = LoopLocal(lambda: asyncio.Semaphore(max_concurrency))

    @property
    def name(self) -> str:
        """``"<provider>:<model>"``, e.g. ``"openai:gpt-4o-mini"``."""
        return f"{self.provider.name}:{self.provider.model}"

    def model_for(self, small: bool) -> str:
        """The model a call goes to: the small one for ``small`` calls, when there is one."""
        if small and self.provider.small_model:
            return self.provider.small_model
        return self.provider.model

    @property
    def native_schema(self) -> bool:
        """Whether the provider enforces the schema itself; if not, the
        client asks for it in the system prompt."""
        return bool(getattr(self.provider, "native_schema", False))

    async def structured(
        self,
        purpose: str,
        *,
        system: str,
        user: str,
        schema: type[T],
        small: bool = False,
        usage: Usage | None = None,
        group_id: str | None = None,
    ) -> T:
        """One answer of type ``schema``.

        ``group_id`` is the group the answer is for: the reply cache is kept
        per group, so one group's answers never serve, nor reveal, another's
        prompts; without it the answer is neither looked up nor cached.
        A cached answer is returned without calling the provider. Otherwise
        the provider is called (with backoff on transient failures); an answer
        that does not parse or validate is shown back to the model once with
        the error. Raises :class:`~kronograph.errors.ModelOutputError` when
        the repaired answer fails too, :class:`~kronograph.errors.TransientModelError`
        when the retries run out, :class:`~kronograph.errors.ModelError` for
        the rest."""
        schema_name = schema.__name__
        json_schema = _json_schema(schema)
        key = cache_key(provider=self.provider.name, model=self.model_for(small), small=small,
                        schema_name=schema_name, schema=json_schema, system=system, user=user)
        cache = self.cache
        if cache is not None and group_id is not None:
            cached = await cache.get(group_id, key)
            if cached is not None:
                try:
                    result = _validate(cached, schema)
                except (NoJSONObjectError, ValidationError):
                    pass  # written under an older schema: ask again
                else:
                    if usage is not None:
                        usage.add_cached(purpose)
                    record_model_call(purpose, prompt_tokens=0, completion_tokens=0, cached=True)
                    return result

        prompt_system = system if self.native_schema else f"{system}\n\n{schema_instruction(json_schema)}"
        reply = await self._call(purpose, prompt_system, user, json_schema, schema_name, small, usage)
        try:
            result = _validate(reply.text, schema)
        except (NoJSONObjectError, ValidationError) as first_error:
            repair_user = _repair_prompt(user, reply.text, first_error)
            reply = await self._call(purpose, prompt_system, repair_user, json_schema, schema_name, small, usage)
            try:
                result = _validate(reply.text, schema)
            except (NoJSONObjectError, ValidationError) as error:
                raise ModelOutputError(
                    f"{self.provider.name}:{self.model_for(small)}: the answer for {schema_name} did not validate, "
                    f"even after a repair round: {error}",
                    text=reply.text,
                ) from error
        if cache is not None and group_id is not None:
            try:
                await cache.put(group_id, key, reply.model or self.model_for(small), reply.text)
            except Exception as exc:  # the answer is paid for and valid: do not lose it to the cache
                log.warning("kronograph: could not cache a %s answer: %s", schema_name, exception_text(exc))
        return result

    async def _call(
        self,
        purpose: str,
        system: str,
        user: str,
        schema: Mapping[str, Any],
        schema_name: str,
        small: bool,
        usage: Usage | None,
    ) -> ModelReply:
        """One provider call under the concurrency limit, retried on transient errors."""

        async def attempt() -> ModelReply:
            async with self._semaphores.get():
                return await self.provider.complete(system=system, user=user, schema=schema,
                                                    schema_name=schema_name, small=small)

        reply = await self.backoff.run(attempt, what=f"{self.name} {purpose}")
        record_model_call(purpose, prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens)
        if usage is not None:
            usage.add_call(purpose, prompt_chars=len(system) + len(user), prompt_tokens=reply.prompt_tokens,
                           completion_tokens=reply.completion_tokens)
        return reply


def _repair_prompt(user: str, answer: str, error: Exception) -> str:
    """The original request, the model's answer and why it was refused."""
    return (
        f"{user}\n\n"
        "Your previous answer to this request was:\n"
        f"{answer}\n\n"
        "It was refused because it is not valid:\n"
        f"{error}\n\n"
        "Answer again with one corrected JSON object that follows the schema."
    )
