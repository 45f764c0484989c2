"""Google's Gemini API through the ``google-genai`` SDK
(``pip install 'kronograph[gemini]'``), with JSON mode and the answer's
JSON schema (``response_json_schema``)."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Mapping
from typing import Any

from ..errors import ModelError, TransientModelError
from ._loop_local import LoopLocal
from ._sdk import require_sdk, status_error
from .protocol import ModelReply

__all__ = ["GeminiProvider", "gemini_error"]


def gemini_error(exc: BaseException, who: str) -> ModelError:
    """The kronograph error for a ``google-genai`` exception or a transport failure under it."""
    errors = require_sdk("google.genai.errors", "gemini")
    if isinstance(exc, errors.APIError):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        message = exc.message or exc.status or str(exc)
        return status_error(who, int(exc.code or 0), str(message), headers, retry_after=_retry_delay(exc.details))
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)) or "Timeout" in type(exc).__name__:
        return TransientModelError(f"{who}: request timed out")
    if isinstance(exc, OSError) or _is_transport_error(exc):
        return TransientModelError(f"{who}: connection failed: {type(exc).__name__}: {exc}")
    return ModelError(f"{who}: {type(exc).__name__}: {exc}")


def _is_transport_error(exc: BaseException) -> bool:
    """httpx2 / aiohttp transport failures, without importing either."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    module = type(exc).__module__.split(".")[0]
    return module in {"httpx2", "httpx", "httpcore2", "httpcore", "aiohttp"} and bool(
        names & {"TransportError", "ClientError", "ClientConnectionError", "ServerDisconnectedError"}
    )


def _retry_delay(details: Any) -> float | None:
    """``RetryInfo.retryDelay`` ("30s") from a Google error body, if present."""
    error = details.get("error", details) if isinstance(details, dict) else None
    for item in (error or {}).get("details", []) if isinstance(error, dict) else []:
        delay = item.get("retryDelay") if isinstance(item, dict) else None
        if isinstance(delay, str) and delay.endswith("s"):
            try:
                return float(delay[:-1])
            except ValueError:
                return None
    return None


class GeminiProvider:
    """Gemini models through ``client.aio.models.generate_content``."""

    native_schema = True

    def __init__(
        self,
        model: str = "gemini-2.0-flash",
        *,
        small_model: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        self._genai = require_sdk("google.genai", "gemini")
        self._types = require_sdk("google.genai.types", "gemini")
        self._errors = require_sdk("google.genai.errors", "gemini")
        self.name = "gemini"
        self.model = model
        self.small_model = small_model
        self._api_key = api_key
        self._http_options = self._types.HttpOptions(
            base_url=base_url,
            timeout=int(timeout * 1000),  # milliseconds
            retry_options=self._types.HttpRetryOptions(attempts=1),  # the client does the backoff
        )
        self._clients: LoopLocal[Any] = LoopLocal(self._make_client)

    def __repr__(self) -> str:
        return f"GeminiProvider(model={self.model!r}, small_model={self.small_model!r})"

    def _make_client(self) -> Any:
        try:
            return self._genai.Client(api_key=self._api_key, http_options=self._http_options)
        except ValueError as exc:
            raise ModelError(f"gemini: cannot configure the client: {exc}") from exc

    async def complete(
        self,
        *,
        system: str,
        user: str,
        schema: Mapping[str, Any] | None,
        schema_name: str,
        small: bool = False,
    ) -> ModelReply:
        """One ``generateContent`` call in JSON mode."""
        model = self.small_model if small and self.small_model else self.model
        who = f"gemini:{model}"
        config: dict[str, Any] = {"system_instruction": system}
        if schema is not None:
            config["response_mime_type"] = "application/json"
            config["response_json_schema"] = copy.deepcopy(dict(schema))
        client = self._clients.get()
        try:
            response = await client.aio.models.generate_content(
                model=model, contents=user, config=self._types.GenerateContentConfig(**config)
            )
        except Exception as exc:  # the SDK raises its own errors and its transport's unwrapped
            raise gemini_error(exc, who) from exc
        return _reply(response, model)

    async def aclose(self) -> None:
        """Close the HTTP client this event loop used, if any."""
        client = self._clients.pop_current()
        if client is not None:
            await client.aio.aclose()


def _reply(response: Any, model: str) -> ModelReply:
    try:
        text = response.text or ""
    except (ValueError, AttributeError):  # no candidates (e.g. blocked)
        text = ""
    usage = getattr(response, "usage_metadata", None)
    return ModelReply(
        text=text,
        prompt_tokens=int(getattr(usage, "prompt_token_count", 0) or 0),
        completion_tokens=int(getattr(usage, "candidates_token_count", 0) or 0),
        model=getattr(response, "model_version", None) or model,
    )
