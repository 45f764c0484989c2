"""Anthropic's Messages API through the ``anthropic`` SDK
(``pip install 'kronograph[anthropic]'``). Structured output goes through
one forced tool whose input schema is the answer's schema."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from ..errors import ModelError, TransientModelError
from ._loop_local import LoopLocal
from ._sdk import require_sdk, status_error
from .protocol import ModelReply

__all__ = ["AnthropicProvider", "anthropic_error"]


def anthropic_error(exc: BaseException, who: str) -> ModelError:
    """The kronograph error for an ``anthropic`` SDK exception."""
    anthropic = require_sdk("anthropic", "anthropic")
    if isinstance(exc, anthropic.APITimeoutError):
        return TransientModelError(f"{who}: request timed out")
    if isinstance(exc, anthropic.APIConnectionError):
        return TransientModelError(f"{who}: connection failed: {exc}")
    if isinstance(exc, anthropic.APIStatusError):
        message = getattr(exc, "api_message", None) or getattr(exc, "message", None) or str(exc)
        return status_error(who, exc.status_code, str(message), exc.response.headers)
    return ModelError(f"{who}: {type(exc).__name__}: {exc}")


class AnthropicProvider:
    """Claude models. The reply text is the JSON of the forced tool's input
    (or, should the model answer in text after all, its text blocks)."""

    native_schema = True

    def __init__(
        self,
        model: str = "claude-3-5-haiku-latest",
        *,
        small_model: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_tokens: int = 4096,
    ) -> None:
        self._sdk = require_sdk("anthropic", "anthropic")
        self.name = "anthropic"
        self.model = model
        self.small_model = small_model
        self.max_tokens = max_tokens
        self._config: dict[str, Any] = {"api_key": api_key, "base_url": base_url, "timeout": timeout,
                                        "max_retries": 0}
        self._clients: LoopLocal[Any] = LoopLocal(self._make_client)

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, small_model={self.small_model!r})"

    def _make_client(self) -> Any:
        try:
            return self._sdk.AsyncAnthropic(**self._config)
        except (self._sdk.AnthropicError, ValueError) as exc:
            raise ModelError(f"anthropic: cannot configure the client: {exc}") from exc

    async def complete(
        self,
        *,
        system: str,
        user: str,
        schema: Mapping[str, Any] | None,
        schema_name: str,
        small: bool = False,
    ) -> ModelReply:
        """One message; with a schema, the model must call the tool named ``schema_name``."""
        model = self.small_model if small and self.small_model else self.model
        who = f"anthropic:{model}"
        extra: dict[str, Any] = {}
        tool_name = "".join(c if c.isalnum() or c in "_-" else "_" for c in schema_name)[:64] or "answer"
        if schema is not None:
            extra["tools"] = [{"name": tool_name, "description": f"Record the answer as one {schema_name} object.",
                               "input_schema": copy.deepcopy(dict(schema))}]
            extra["tool_choice"] = {"type": "tool", "name": tool_name}
        client = self._clients.get()
        try:
            message = await client.messages.create(
                model=model, max_tokens=self.max_tokens, system=system,
                messages=[{"role": "user", "content": user}], **extra,
            )
        except self._sdk.AnthropicError as exc:
            raise anthropic_error(exc, who) from exc
        return _reply(message, model, tool_name if schema is not None else None)

    async def aclose(self) -> None:
        """Close the HTTP client this event loop used, if any."""
        client = self._clients.pop_current()
        if client is not None:
            await client.close()


def _reply(message: Any, model: str, tool_name: str | None) -> ModelReply:
    blocks = list(getattr(message, "content", None) or [])
    text = ""
    for block in blocks:
        if getattr(block, "type", None) == "tool_use" and (tool_name is None or block.name == tool_name):
            text = json.dumps(block.input, ensure_ascii=False)
            break
    else:
        text = "".join(getattr(block, "text", "") or "" for block in blocks if getattr(block, "type", None) == "text")
    usage = getattr(message, "usage", None)
    return ModelReply(
        text=text,
        prompt_tokens=int(getattr(usage, "input_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "output_tokens", 0) or 0),
        model=getattr(message, "model", None) or model,
    )
