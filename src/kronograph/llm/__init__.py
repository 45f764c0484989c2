"""Language-model providers and the client that makes their answers usable.

The SDK-backed providers are imported on first use, so ``import
kronograph.llm`` works with none of the SDKs installed; constructing one
without its SDK raises ImportError naming the extra to install.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .backoff import Backoff
from .client import ModelClient
from .config import ModelSettings, choose_provider
from .parsing import NoJSONObjectError, extract_json_object
from .protocol import ModelReply, Provider, ReplyCache, Usage

if TYPE_CHECKING:
    from .anthropic import AnthropicProvider
    from .gemini import GeminiProvider
    from .openai import OpenAIProvider

__all__ = [
    "AnthropicProvider",
    "Backoff",
    "GeminiProvider",
    "ModelClient",
    "ModelReply",
    "ModelSettings",
    "NoJSONObjectError",
    "OpenAIProvider",
    "Provider",
    "ReplyCache",
    "Usage",
    "choose_provider",
    "extract_json_object",
]

_LAZY = {
    "OpenAIProvider": ".openai",
    "AnthropicProvider": ".anthropic",
    "GeminiProvider": ".gemini",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
