"""Choosing a model provider: explicit settings, else the first API key found
in the environment, else a local Ollama server, else none (the caller then
uses the offline extractor)."""

from __future__ import annotations

import json
import logging
import os
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .protocol import Provider

__all__ = ["ModelSettings", "build_provider", "choose_provider"]

log = logging.getLogger("kronograph")

ProviderName = Literal["openai", "azure", "anthropic", "gemini", "ollama"]
OLLAMA_DEFAULT = "http://127.0.0.1:11434"
_EXTRA = {"openai": "openai", "azure": "openai", "ollama": "openai", "anthropic": "anthropic", "gemini": "gemini"}

_logged: set[str] = set()
_logged_lock = threading.Lock()


class ModelSettings(BaseModel):
    """Which model to use and how to reach it. ``provider=None`` means: choose
    from the environment. ``base_url`` is the Azure endpoint for ``azure`` and
    the server's address for ``ollama``."""

    model_config = ConfigDict(extra="forbid")

    provider: ProviderName | None = None
    model: str | None = None
    small_model: str | None = None
    api_key: str | None = Field(default=None, repr=False)  # never shown
    base_url: str | None = None
    timeout: float = 60.0
    api_version: str | None = None


def _log_once(level: int, message: str) -> None:
    with _logged_lock:
        if message in _logged:
            return
        _logged.add(message)
    log.log(level, message)


def build_provider(settings: ModelSettings) -> Provider:
    """The provider ``settings`` describe (``settings.provider`` must be set).
    Raises ImportError naming the extra when its SDK is missing."""
    kind, s = settings.provider, settings
    if kind in ("openai", "azure", "ollama"):
        from .openai import OpenAIProvider

        if kind == "openai":
            return OpenAIProvider(s.model or "gpt-4o-mini", small_model=s.small_model, api_key=s.api_key,
                                  base_url=s.base_url, timeout=s.timeout)
        if not s.model:
            raise ValueError(f"{kind}: set model (the deployment name for azure, e.g. 'qwen2.5:7b' for ollama)")
        if kind == "azure":
            endpoint = s.base_url or os.environ.get("AZURE_OPENAI_ENDPOINT")
            if not endpoint:
                raise ValueError("azure: set base_url to the Azure endpoint (or AZURE_OPENAI_ENDPOINT)")
            return OpenAIProvider(s.model, small_model=s.small_model, api_key=s.api_key, timeout=s.timeout,
                                  azure_endpoint=endpoint, api_version=s.api_version)
        return OpenAIProvider(s.model, small_model=s.small_model, api_key=s.api_key or "ollama",
                              base_url=_ollama_base(s.base_url) + "/v1", timeout=s.timeout, name="ollama")
    if kind == "anthropic":
        from .anthropic import AnthropicProvider

        return AnthropicProvider(s.model or "claude-3-5-haiku-latest", small_model=s.small_model, api_key=s.api_key,
                                 base_url=s.base_url, timeout=s.timeout)
    if kind == "gemini":
        from .gemini import GeminiProvider

        return GeminiProvider(s.model or "gemini-2.0-flash", small_model=s.small_model, api_key=s.api_key,
                              base_url=s.base_url, timeout=s.timeout)
    if kind is None:
        raise ValueError("settings.provider is None: choose_provider(settings) chooses from the environment")
    raise ValueError(f"unknown provider {kind!r}")


def choose_provider(
    settings: ModelSettings | None = None,
    *,
    environ: Mapping[str, str] = os.environ,
    probe_ollama: bool = True,
    ollama_timeout: float = 0.3,
) -> Provider | None:
    """The provider to use, and why (logged once per process on the
    ``kronograph`` logger; keys are never logged).

    Order: ``settings`` with a provider; ``OPENAI_API_KEY`` (with
    ``OPENAI_BASE_URL``); ``ANTHROPIC_API_KEY``; ``GEMINI_API_KEY`` or
    ``GOOGLE_API_KEY``; an Ollama server on ``OLLAMA_HOST`` or
    127.0.0.1:11434; else ``None``. ``KRONOGRAPH_MODEL`` and
    ``KRONOGRAPH_SMALL_MODEL`` name the models for the environment choices.
    A key whose SDK is not installed is skipped with a warning naming the
    extra."""
    if settings is not None and settings.provider is not None:
        provider = build_provider(settings)
        _log_once(logging.INFO, f"kronograph: using {provider.name}:{provider.model} (from the settings)")
        return provider

    base = settings or ModelSettings()
    model = base.model or environ.get("KRONOGRAPH_MODEL") or None
    small = base.small_model or environ.get("KRONOGRAPH_SMALL_MODEL") or None
    candidates: list[tuple[ProviderName, str, str | None, str | None]] = []
    if environ.get("OPENAI_API_KEY"):
        candidates.append(("openai", "OPENAI_API_KEY is set", environ["OPENAI_API_KEY"],
                           environ.get("OPENAI_BASE_URL") or None))
    if environ.get("ANTHROPIC_API_KEY"):
        candidates.append(("anthropic", "ANTHROPIC_API_KEY is set", environ["ANTHROPIC_API_KEY"],
                           environ.get("ANTHROPIC_BASE_URL") or None))
    for var in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        if environ.get(var):
            candidates.append(("gemini", f"{var} is set", environ[var], None))
            break
    for kind, reason, key, url in candidates:
        chosen = base.model_copy(update={"provider": kind, "model": model, "small_model": small,
                                         "api_key": key, "base_url": base.base_url or url})
        try:
            provider = build_provider(chosen)
        except ImportError:
            _log_once(logging.WARNING, f"kronograph: {reason} but the SDK is not installed: "
                                       f"pip install 'kronograph[{_EXTRA[kind]}]'; trying the next provider")
            continue
        _log_once(logging.INFO, f"kronograph: using {provider.name}:{provider.model} ({reason})")
        return provider

    if probe_ollama:
        local = _ollama_from_env(base, environ, model, small, ollama_timeout)
        if local is not None:
            return local
    _log_once(logging.INFO, "kronograph: no model provider configured (no API key in the environment, no Ollama "
                            "server answering); using the offline extractor")
    return None


def _ollama_base(url: str | None) -> str:
    """``OLLAMA_HOST`` forms (``host``, ``host:port``, ``0.0.0.0``, with or without
    a scheme, with or without ``/v1``) as the server's base URL."""
    url = (url or OLLAMA_DEFAULT).strip().rstrip("/").removesuffix("/v1")
    if "://" not in url:
        url = "http://" + url
    parts = urllib.parse.urlsplit(url)
    host = "127.0.0.1" if parts.hostname in (None, "", "0.0.0.0") else parts.hostname
    if ":" in host:
        host = f"[{host}]"  # IPv6
    port = parts.port or (11434 if parts.scheme == "http" else None)
    netloc = f"{host}:{port}" if port else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def ollama_models(base_url: str, timeout: float = 0.3) -> list[str] | None:
    """The models an Ollama server lists, or ``None`` when nothing answers there."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # a local server: no proxy
    try:
        with opener.open(base_url + "/api/tags", timeout=timeout) as response:
            payload = json.loads(response.read().decode("utf-8"))
    except (OSError, ValueError, urllib.error.URLError):
        return None
    models = payload.get("models") if isinstance(payload, dict) else None
    if not isinstance(models, list):
        return None
    names = (m.get("name") or m.get("model") for m in models if isinstance(m, dict))
    return [str(name) for name in names if name]


def _ollama_from_env(
    base: ModelSettings, environ: Mapping[str, str], model: str | None, small: str | None, timeout: float
) -> Provider | None:
    url = _ollama_base(environ.get("OLLAMA_HOST") or None)
    listed = ollama_models(url, timeout)
    if listed is None:
        return None
    name = model or (listed[0] if listed else None)
    if name is None:
        _log_once(logging.WARNING, f"kronograph: Ollama answers at {url} but lists no models "
                                   "(ollama pull one, or set KRONOGRAPH_MODEL)")
        return None
    chosen = base.model_copy(update={"provider": "ollama", "model": name, "small_model": small, "base_url": url})
    try:
        provider = build_provider(chosen)
    except ImportError:
        _log_once(logging.WARNING, "kronograph: an Ollama server answers but the openai SDK is not installed: "
                                   "pip install 'kronograph[openai]'")
        return None
    how = "KRONOGRAPH_MODEL" if model else "its first model"
    _log_once(logging.INFO, f"kronograph: using ollama:{name} (an Ollama server answers at {url}; {how})")
    return provider
