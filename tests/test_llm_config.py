"""choose_provider: explicit settings, the environment, a local Ollama, nothing."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import sys
from collections.abc import Iterator

import pytest

from kronograph.ingest.schema import Extraction
from kronograph.llm import (
    AnthropicProvider,
    GeminiProvider,
    ModelClient,
    ModelSettings,
    OpenAIProvider,
    choose_provider,
)
from kronograph.llm import config as config_module
from kronograph.llm.config import build_provider
from kronograph.llm.protocol import Provider

from .provider_servers import FakeServer, fake_server, openai_chat

GOOD = json.dumps({"reasoning": "r", "entities": [], "facts": []})


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with fake_server() as running:
        yield running


@pytest.fixture(autouse=True)
def fresh_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sees the once-per-process messages afresh."""
    monkeypatch.setattr(config_module, "_logged", set())


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"127.0.0.1:{port}"


def nothing_local(**env: str) -> dict[str, str]:
    """An environment whose Ollama address answers nothing."""
    return {"OLLAMA_HOST": closed_port_url(), **env}


def ask(provider: Provider) -> Extraction:
    return asyncio.run(ModelClient(provider).structured("x", system="s", user="u", schema=Extraction))


def test_explicit_settings_win(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="kronograph")
    settings = ModelSettings(provider="anthropic", model="claude-x", small_model="claude-s", api_key="sk-secret")
    provider = choose_provider(settings, environ={"OPENAI_API_KEY": "sk-other"})
    assert isinstance(provider, AnthropicProvider)
    assert (provider.model, provider.small_model) == ("claude-x", "claude-s")
    assert "using anthropic:claude-x (from the settings)" in caplog.text
    assert "sk-secret" not in caplog.text and "sk-secret" not in repr(settings)


@pytest.mark.parametrize(
    "settings,kind,name,model",
    [
        (ModelSettings(provider="openai", api_key="k"), OpenAIProvider, "openai", "gpt-4o-mini"),
        (ModelSettings(provider="azure", model="dep", api_key="k", base_url="https://x.openai.azure.com",
                       api_version="2024-10-21"), OpenAIProvider, "azure", "dep"),
        (ModelSettings(provider="ollama", model="qwen2.5:7b"), OpenAIProvider, "ollama", "qwen2.5:7b"),
        (ModelSettings(provider="anthropic", api_key="k"), AnthropicProvider, "anthropic", "claude-3-5-haiku-latest"),
        (ModelSettings(provider="gemini", api_key="k"), GeminiProvider, "gemini", "gemini-2.0-flash"),
    ],
)
def test_each_provider_from_settings(settings: ModelSettings, kind: type, name: str, model: str) -> None:
    provider = choose_provider(settings, environ={})
    assert isinstance(provider, kind)
    assert provider is not None and (provider.name, provider.model) == (name, model)


def test_settings_that_cannot_work_say_why(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="deployment"):
        choose_provider(ModelSettings(provider="azure"), environ={})
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    with pytest.raises(ValueError, match="Azure endpoint"):
        choose_provider(ModelSettings(provider="azure", model="dep"), environ={})
    with pytest.raises(ValueError):
        ModelSettings(provider="mystery")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="choose_provider"):
        build_provider(ModelSettings(model="x"))


def test_openai_key_with_base_url_and_model_names(server: FakeServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="kronograph")
    env = nothing_local(OPENAI_API_KEY="sk-secret", OPENAI_BASE_URL=server.url + "/v1", KRONOGRAPH_MODEL="big",
                        KRONOGRAPH_SMALL_MODEL="small", ANTHROPIC_API_KEY="ak")
    provider = choose_provider(environ=env)
    assert isinstance(provider, OpenAIProvider)
    assert (provider.model, provider.small_model) == ("big", "small")
    server.push(openai_chat(GOOD))
    ask(provider)
    assert server.requests[0].headers["authorization"] == "Bearer sk-secret"
    assert "kronograph: using openai:big (OPENAI_API_KEY is set)" in caplog.text
    assert "sk-secret" not in caplog.text


def test_the_choice_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="kronograph")
    for _ in range(3):
        choose_provider(environ={"ANTHROPIC_API_KEY": "ak"})
    assert caplog.text.count("using anthropic") == 1


@pytest.mark.parametrize("var", ["GEMINI_API_KEY", "GOOGLE_API_KEY"])
def test_key_order(var: str) -> None:
    assert isinstance(choose_provider(environ=nothing_local(ANTHROPIC_API_KEY="a", **{var: "g"})),
                      AnthropicProvider)
    provider = choose_provider(environ=nothing_local(**{var: "g"}))
    assert isinstance(provider, GeminiProvider)


def test_a_key_without_its_sdk_moves_on(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    import anthropic  # noqa: F401 - imported first: pydantic cannot build its models with a None in sys.modules

    monkeypatch.setitem(sys.modules, "openai", None)  # as if not installed
    caplog.set_level(logging.INFO, logger="kronograph")
    provider = choose_provider(environ=nothing_local(OPENAI_API_KEY="sk", ANTHROPIC_API_KEY="ak"))
    assert isinstance(provider, AnthropicProvider)
    assert "OPENAI_API_KEY is set but the SDK is not installed: pip install 'kronograph[openai]'" in caplog.text


def test_ollama_answering_locally(server: FakeServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="kronograph")
    server.ollama_models = ["qwen2.5:7b", "llama3.2:3b"]
    provider = choose_provider(environ={"OLLAMA_HOST": f"0.0.0.0:{server.port}"})
    assert isinstance(provider, OpenAIProvider)
    assert (provider.name, provider.model) == ("ollama", "qwen2.5:7b")
    assert "an Ollama server answers at" in caplog.text
    server.push(openai_chat(GOOD))
    ask(provider)
    assert [r.path for r in server.requests] == ["/api/tags", "/v1/chat/completions"]


def test_ollama_with_a_named_model(server: FakeServer) -> None:
    server.ollama_models = ["qwen2.5:7b"]
    provider = choose_provider(environ={"OLLAMA_HOST": server.url, "KRONOGRAPH_MODEL": "llama3.2:3b"})
    assert provider is not None and provider.model == "llama3.2:3b"


def test_ollama_without_models_is_not_used(server: FakeServer, caplog: pytest.LogCaptureFixture) -> None:
    server.ollama_models = []
    assert choose_provider(environ={"OLLAMA_HOST": server.url}) is None
    assert "lists no models" in caplog.text


def test_a_server_that_is_not_ollama_is_not_used(server: FakeServer) -> None:
    assert choose_provider(environ={"OLLAMA_HOST": server.url}) is None  # /api/tags is 404


def test_nothing_configured(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="kronograph")
    assert choose_provider(environ=nothing_local()) is None
    assert "offline extractor" in caplog.text


def test_no_probe_when_told_not_to(server: FakeServer) -> None:
    server.ollama_models = ["qwen2.5:7b"]
    assert choose_provider(environ={"OLLAMA_HOST": server.url}, probe_ollama=False) is None
    assert server.requests == []
