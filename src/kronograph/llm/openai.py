"""OpenAI and every server that speaks its chat-completions protocol
(Azure OpenAI, Ollama, vLLM, LM Studio, OpenRouter...), through the
``openai`` SDK (``pip install 'kronograph[openai]'``)."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, Literal

from ..errors import ModelError, TransientModelError
from ._loop_local import LoopLocal
from ._sdk import require_sdk, status_error
from .parsing import schema_instruction
from .protocol import ModelReply

__all__ = ["OpenAIProvider", "openai_error"]

FormatMode = Literal["json_schema", "json_object", "none"]
_NEXT_MODE: dict[FormatMode, FormatMode] = {"json_schema": "json_object", "json_object": "none", "none": "none"}
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "structured output")


def openai_error(exc: BaseException, who: str) -> ModelError:
    """The kronograph error for an ``openai`` SDK exception."""
    openai = require_sdk("openai", "openai")
    if isinstance(exc, openai.APITimeoutError):
        return TransientModelError(f"{who}: request timed out")
    if isinstance(exc, openai.APIConnectionError):
        return TransientModelError(f"{who}: connection failed: {exc}")
    if isinstance(exc, openai.APIStatusError):
        return status_error(who, exc.status_code, _message(exc), exc.response.headers)
    return ModelError(f"{who}: {type(exc).__name__}: {exc}")


def _message(exc: Any) -> str:
    return str(getattr(exc, "message", None) or exc)


def _rejects_format(exc: Any) -> bool:
    """A 400 about ``response_format``: the server does not do that mode."""
    text = f"{_message(exc)} {getattr(exc, 'body', '')}".lower()
    return any(word in text for word in _FORMAT_WORDS)


class OpenAIProvider:
    """Chat completions with ``response_format`` ``json_schema`` (not strict,
    so that any pydantic schema is accepted).

    A server that refuses ``json_schema`` with a 400 is asked again in
    ``json_object`` mode, then with no ``response_format`` at all, the schema
    then travelling as an instruction in the system prompt; the instance
    remembers the mode that worked. It therefore always reports
    ``native_schema = True``: the schema reaches the model either way."""

    native_schema = True

    def __init__(
        self,
        model: str = "gpt-4o-mini",
        *,
        small_model: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        azure_endpoint: str | None = None,
        api_version: str | None = None,
        organization: str | None = None,
        name: str | None = None,
    ) -> None:
        self._sdk = require_sdk("openai", "openai")
        self.model = model
        self.small_model = small_model
        self.name = name or ("azure" if azure_endpoint else "openai")
        self.timeout = timeout
        self.format_mode: FormatMode = "json_schema"
        self._config: dict[str, Any] = {"api_key": api_key, "timeout": timeout, "max_retries": 0,
                                        "organization": organization}
        if azure_endpoint:
            self._config.update(azure_endpoint=azure_endpoint, api_version=api_version)
        else:
            self._config["base_url"] = base_url
        self._azure = bool(azure_endpoint)
        self._clients: LoopLocal[Any] = LoopLocal(self._make_client)

    def __repr__(self) -> str:
        return f"OpenAIProvider(name={self.name!r}, model={self.model!r}, small_model={self.small_model!r})"

    def _make_client(self) -> Any:
        factory = self._sdk.AsyncAzureOpenAI if self._azure else self._sdk.AsyncOpenAI
        try:
            return factory(**self._config)
        except (self._sdk.OpenAIError, ValueError) as exc:
            raise ModelError(f"{self.name}: cannot configure the client: {exc}") from exc

    async def complete(
        self,
        *,
        system: str,
        user: str,
        schema: Mapping[str, Any] | None,
        schema_name: str,
        small: bool = False,
    ) -> ModelReply:
        """One chat completion; falls back to plainer JSON modes on a 400 about them."""
        model = self.small_model if small and self.small_model else self.model
        who = f"{self.name}:{model}"
        client = self._clients.get()
        while True:
            mode = self.format_mode if schema is not None else "none"
            try:
                response = await client.chat.completions.create(
                    model=model, messages=_messages(system, user, schema, mode), **_format(mode, schema, schema_name)
                )
            except self._sdk.BadRequestError as exc:
                if mode != "none" and _rejects_format(exc):
                    self.format_mode = _NEXT_MODE[mode]
                    continue
                raise openai_error(exc, who) from exc
            except self._sdk.OpenAIError as exc:
                raise openai_error(exc, who) from exc
            return _reply(response, model)

    async def aclose(self) -> None:
        """Close the HTTP client this event loop used, if any."""
        client = self._clients.pop_current()
        if client is not None:
            await client.close()


def _messages(system: str, user: str, schema: Mapping[str, Any] | None, mode: FormatMode) -> list[dict[str, str]]:
    if schema is not None and mode != "json_schema":
        system = f"{system}\n\n{schema_instruction(schema)}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _format(mode: FormatMode, schema: Mapping[str, Any] | None, schema_name: str) -> dict[str, Any]:
    if schema is None or mode == "none":
        return {}
    if mode == "json_object":
        return {"response_format": {"type": "json_object"}}
    name = re.sub(r"[^A-Za-z0-9_-]", "_", schema_name)[:64] or "answer"
    return {"response_format": {"type": "json_schema",
                                "json_schema": {"name": name, "schema": copy.deepcopy(dict(schema)), "strict": False}}}


def _reply(response: Any, model: str) -> ModelReply:
    choices = getattr(response, "choices", None) or []
    message = choices[0].message if choices else None
    text = (getattr(message, "content", None) or getattr(message, "refusal", None) or "") if message else ""
    usage = getattr(response, "usage", None)
    return ModelReply(
        text=text,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        model=getattr(response, "model", None) or model,
    )
