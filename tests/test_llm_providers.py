"""Each provider's wire protocol and error mapping, through its real SDK
against the fake server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from kronograph.errors import ModelError, TransientModelError
from kronograph.ingest.schema import Extraction
from kronograph.llm import AnthropicProvider, GeminiProvider, ModelClient, OpenAIProvider, Usage
from kronograph.llm.protocol import ModelReply, Provider

from .provider_servers import FakeServer, anthropic_text, anthropic_tool, error, fake_server, gemini_text, openai_chat

GOOD = {"reasoning": "r", "entities": [{"name": "Alice"}], "facts": []}
SCHEMA = Extraction.model_json_schema()


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with fake_server() as running:
        yield running


def complete(provider: Provider, *, small: bool = False) -> ModelReply:
    return asyncio.run(provider.complete(system="Extract.", user="Alice.", schema=SCHEMA, schema_name="Extraction",
                                         small=small))


async def _no_sleep(seconds: float) -> None:
    pass


def structured(provider: Provider, usage: Usage | None = None) -> Extraction:
    client = ModelClient(provider, sleep=_no_sleep)
    return asyncio.run(client.structured("extract", system="Extract.", user="Alice.", schema=Extraction, usage=usage))


# Anthropic


def anthropic(server: FakeServer, **kwargs: Any) -> AnthropicProvider:
    return AnthropicProvider("claude-main", small_model="claude-small", api_key="ak-test", base_url=server.url,
                             **kwargs)


def test_anthropic_forces_one_tool(server: FakeServer) -> None:
    server.push(anthropic_tool(GOOD, name="Extraction"))
    usage = Usage()
    assert structured(anthropic(server), usage).entities[0].name == "Alice"
    (request,) = server.requests
    assert request.path == "/v1/messages"
    assert "ak-test" in (request.headers.get("x-api-key", ""), request.headers.get("authorization", "").split()[-1])
    body = request.body
    assert body["model"] == "claude-main" and body["max_tokens"] == 4096 and body["system"] == "Extract."
    assert body["tools"][0]["name"] == "Extraction" and body["tools"][0]["input_schema"] == SCHEMA
    assert body["tool_choice"] == {"type": "tool", "name": "Extraction"}
    assert usage.prompt_tokens == 13 and usage.completion_tokens == 5


def test_anthropic_falls_back_to_text_blocks(server: FakeServer) -> None:
    server.push(anthropic_text("Here you go:\n```json\n" + json.dumps(GOOD) + "\n```"))
    reply = complete(anthropic(server), small=True)
    assert "Alice" in reply.text and reply.model == "claude-fake"
    assert server.requests[0].body["model"] == "claude-small"


@pytest.mark.parametrize("status", [429, 500, 529])
def test_anthropic_transient_errors(server: FakeServer, status: int) -> None:
    server.push(error(status, "overloaded", retry_after="4"))
    with pytest.raises(TransientModelError, match=str(status)) as info:
        complete(anthropic(server))
    assert info.value.retry_after == 4.0


def test_anthropic_timeout_is_transient(server: FakeServer) -> None:
    server.push(replace(anthropic_tool(GOOD, name="Extraction"), delay=1.0))
    with pytest.raises(TransientModelError, match="timed out"):
        complete(anthropic(server, timeout=0.2))


def test_anthropic_auth_error(server: FakeServer) -> None:
    server.push(error(401, "invalid x-api-key"))
    with pytest.raises(ModelError, match="401") as info:
        complete(anthropic(server))
    assert not isinstance(info.value, TransientModelError)
    assert len(server.requests) == 1  # the SDK's own retries are off


# Gemini


def gemini(server: FakeServer, **kwargs: Any) -> GeminiProvider:
    return GeminiProvider("gemini-main", api_key="gk-test", base_url=server.url, **kwargs)


def test_gemini_json_mode_with_the_schema(server: FakeServer) -> None:
    server.push(gemini_text(json.dumps(GOOD)))
    usage = Usage()
    assert structured(gemini(server), usage).entities[0].name == "Alice"
    (request,) = server.requests
    assert request.path.endswith("/models/gemini-main:generateContent")
    assert request.headers["x-goog-api-key"] == "gk-test"
    config = request.body["generationConfig"]
    assert config["responseMimeType"] == "application/json" and config["responseJsonSchema"] == SCHEMA
    assert request.body["systemInstruction"]["parts"][0]["text"] == "Extract."
    assert usage.prompt_tokens == 17 and usage.completion_tokens == 9


def test_gemini_rate_limit_reads_retry_info(server: FakeServer) -> None:
    body = {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED",
                      "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}]}}
    server.push(error(429, body=body))
    with pytest.raises(TransientModelError, match="429") as info:
        complete(gemini(server))
    assert info.value.retry_after == 7.0


@pytest.mark.parametrize("status,transient", [(500, True), (503, True), (400, False), (403, False)])
def test_gemini_status_errors(server: FakeServer, status: int, transient: bool) -> None:
    server.push(error(status, "scripted"))
    with pytest.raises(ModelError) as info:
        complete(gemini(server))
    assert isinstance(info.value, TransientModelError) is transient
    assert len(server.requests) == 1


def test_gemini_timeout_is_transient_and_retried(server: FakeServer) -> None:
    server.push(replace(gemini_text(json.dumps(GOOD)), delay=1.0), gemini_text(json.dumps(GOOD)))
    assert structured(gemini(server, timeout=0.2)).reasoning == "r"
    assert len(server.requests) == 2


# OpenAI: Azure and connection failures


def test_azure_deployment_url(server: FakeServer) -> None:
    provider = OpenAIProvider("my-deployment", api_key="az-test", azure_endpoint=server.url,
                              api_version="2024-10-21")
    assert provider.name == "azure"
    server.push(openai_chat(json.dumps(GOOD)))
    assert structured(provider).reasoning == "r"
    (request,) = server.requests
    assert request.path == "/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21"
    assert request.headers["api-key"] == "az-test"


def test_nothing_listening_is_transient() -> None:
    with fake_server() as gone:
        url = gone.url
    provider = OpenAIProvider("m", api_key="k", base_url=url + "/v1", timeout=1.0)
    with pytest.raises(TransientModelError, match="connection"):
        complete(provider)


def test_missing_credentials_are_a_model_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ModelError, match="cannot configure"):
        complete(OpenAIProvider("m"))


# Optional SDKs

_BLOCKED = """
import sys
for name in ("openai", "anthropic", "google.genai", "google"):
    sys.modules[name] = None
import kronograph.llm as llm
from kronograph.llm import ModelClient, choose_provider
for cls in ("OpenAIProvider", "AnthropicProvider", "GeminiProvider"):
    try:
        getattr(llm, cls)()
    except ImportError as exc:
        print(exc)
from kronograph.embed.openai import OpenAIEmbedder
try:
    OpenAIEmbedder()
except ImportError as exc:
    print(exc)
"""


def test_no_sdk_needed_to_import_and_a_clear_error_without_one() -> None:
    out = subprocess.run([sys.executable, "-c", _BLOCKED], capture_output=True, text=True, check=True).stdout
    for extra in ("openai", "anthropic", "gemini"):
        assert f"pip install 'kronograph[{extra}]'" in out
    assert out.count("kronograph[openai]") == 2


def test_public_names() -> None:
    import kronograph.llm as llm

    assert sorted(llm.__all__) == [
        "AnthropicProvider", "Backoff", "GeminiProvider", "ModelClient", "ModelReply", "ModelSettings",
        "NoJSONObjectError", "OpenAIProvider", "Provider", "ReplyCache", "Usage", "choose_provider",
        "extract_json_object",
    ]
    for name in llm.__all__:
        assert getattr(llm, name) is not None
    for cls in (llm.OpenAIProvider, llm.AnthropicProvider, llm.GeminiProvider):
        assert cls.native_schema is True
