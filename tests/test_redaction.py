"""A provider's or a database's error text loses its secrets (API keys,
bearer tokens, passwords in URLs, private hosts) before it reaches
``Episode.error``, an episode result, a log record, a REST answer or an MCP
answer. The providers are real SDK clients against the local HTTP servers of
``provider_servers`` answering an error that carries secrets."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kronograph import AsyncMemory
from kronograph.errors import EmbeddingError, ModelError, StoreError, TransientModelError
from kronograph.llm import AnthropicProvider, GeminiProvider, ModelClient, OpenAIProvider
from kronograph.llm.protocol import ModelReply, Provider
from kronograph.redact import REDACTED, exception_text, redact_dsn, redact_text, traceback_text

from .provider_servers import FakeServer, error, fake_server

G = "team"
KEY = "sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNb"
GOOGLE_KEY = "AIzaSyD4f8Qw0-xYz1234567890abcdefGhIjk"
BEARER = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJlMTIzNDU2Nzg5"
PASSWORD = "hunter2-Pw"
PRIVATE_IP = "10.20.30.40"
PRIVATE_HOST = "llm-gw.corp.internal"
QUERY_TOKEN = "tq81ffee"
SECRETS = (KEY, GOOGLE_KEY, BEARER, PASSWORD, PRIVATE_IP, PRIVATE_HOST, QUERY_TOKEN, KEY[8:20], "Zx9Qw8Er7Ty6")
MESSAGE = (
    f"Incorrect API key provided: {KEY}. Upstream http://admin:{PASSWORD}@{PRIVATE_IP}:8443/v1/chat?"
    f"token={QUERY_TOKEN} refused (Authorization: Bearer {BEARER}); fallback key={GOOGLE_KEY}; "
    f"host='{PRIVATE_HOST}'"
)


def _clean(text: str | None) -> None:
    assert text, "expected an error text"
    for secret in SECRETS:
        assert secret not in text, (secret, text)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with fake_server() as running:
        yield running


async def _no_sleep(seconds: float) -> None:
    pass


PROVIDERS: dict[str, Callable[[FakeServer], Provider]] = {
    "openai": lambda s: OpenAIProvider("gpt-main", api_key="sk-test", base_url=s.url + "/v1"),
    "anthropic": lambda s: AnthropicProvider("claude-main", api_key="ak-test", base_url=s.url),
    "gemini": lambda s: GeminiProvider("gemini-main", api_key="gk-test", base_url=s.url),
}


@pytest.mark.parametrize("status", [401, 500])
@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_a_providers_error_text_is_redacted_everywhere_it_goes(
    name: str, status: int, server: FakeServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server.push(*[error(status, MESSAGE)] * 3)
    client = ModelClient(PROVIDERS[name](server), max_attempts=1, sleep=_no_sleep)
    caplog.set_level(logging.INFO)

    async def run() -> None:
        from kronograph.server.app import create_app
        from kronograph.server.keys import KeyRing
        from kronograph.server.mcp_tools import Access, MemoryTools

        memory = AsyncMemory(tmp_path / "m.db", model=client)
        try:
            result = await memory.add_episode(G, "Alice works at Acme.", episode_id="e1")
            assert result.status in ("retryable", "quarantined") and f"HTTP {status}" in (result.error or "")
            _clean(result.error)
            _clean((await memory.episode(G, "e1")).error)
            app = create_app(memory, KeyRing(), local=True, run_queue=False)
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as rest:
                answer = await rest.get(f"/v1/groups/{G}/episodes/e1")
                assert answer.status_code == 200
                _clean(answer.json()["error"])
            server.push(error(status, MESSAGE))
            out = await MemoryTools(memory).add_memory(Access.local(), G, "Bob works at Initech.", episode_id="e2")
            _clean(out.error)
        finally:
            await memory.aclose()

    asyncio.run(run())
    assert server.requests, "the provider's server was asked"
    for record in caplog.records:
        _clean(record.getMessage() + "x")  # no secret in any log line at INFO or above


def test_an_embedders_error_text_is_redacted(server: FakeServer, tmp_path: Path) -> None:
    from kronograph.embed import OpenAIEmbedder

    server.push(*[error(401, MESSAGE)] * 3)
    embedder = OpenAIEmbedder("embed-fake", api_key="sk-test", base_url=server.url + "/v1", dimension=8,
                              sleep=_no_sleep, max_attempts=1)

    async def run() -> None:
        memory = AsyncMemory(tmp_path / "m.db", model=None, embedder=embedder)
        try:
            result = await memory.add_episode(G, "Alice works at Acme.", episode_id="e1")
            assert result.status != "complete"
            _clean(result.error)
            _clean((await memory.episode(G, "e1")).error)
        finally:
            await memory.aclose()

    asyncio.run(run())


class _Leaky:
    """A custom provider whose own exception (not a kronograph one) quotes a secret."""

    name, model, small_model = "leaky", "leaky-1", None

    async def complete(self, **kwargs: Any) -> ModelReply:
        raise RuntimeError(MESSAGE)


def test_an_unexpected_exception_is_redacted_in_the_episode_and_the_logged_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)

    async def run() -> None:
        memory = AsyncMemory(tmp_path / "m.db", model=_Leaky())
        try:
            result = await memory.add_episode(G, "Alice works at Acme.", episode_id="e1")
            assert result.status == "quarantined" and result.error and result.error.startswith("RuntimeError")
            _clean(result.error)
        finally:
            await memory.aclose()

    asyncio.run(run())
    assert any("quarantined" in r.getMessage() for r in caplog.records)
    for record in caplog.records:
        _clean(record.getMessage() + "x")
        assert record.exc_info is None  # the traceback is logged redacted, as text


@pytest.mark.parametrize("kind", [ModelError, TransientModelError, EmbeddingError, StoreError])
def test_errors_that_quote_a_provider_or_a_database_are_redacted_as_made(kind: type[Exception]) -> None:
    exc = kind(f"failed: {MESSAGE}")
    _clean(str(exc))
    _clean(repr(exc))
    assert REDACTED in str(exc)


def test_a_postgres_error_on_a_url_with_a_password_is_redacted() -> None:
    pytest.importorskip("psycopg")
    from kronograph.store.postgres import PostgresStore

    from .pg_server import free_port

    store = PostgresStore(f"postgresql://kg:{PASSWORD}@{PRIVATE_IP}:{free_port()}/memory", timeout=1)
    with pytest.raises(StoreError, match="cannot open PostgreSQL") as info:
        asyncio.run(store.open())
    _clean(str(info.value))


# -- the helper itself -------------------------------------------------------------
@pytest.mark.parametrize("text", [
    f"key {KEY}", "masked sk-abc1***************wxyz", f"google {GOOGLE_KEY}", "ours kg_Ab3dEf9hIj0kLmNoPq",
    "groq gsk_abcdefgh12345678", "hf hf_AbCdEfGh12345678", "aws AKIAABCDEFGHIJKLMNOP",
    f"Authorization: Bearer {BEARER}", "authorization: bearer abcdef1234567", "Basic dXNlcjpwYXNzd29yZA==",
    '{"api_key": "plain-secret value"}', "x-api-key: plainsecret", "X-Goog-Api-Key=plainsecret",
    "libpq: host=db password=plainsecret", "secret='plain secret'",
    "https://user:plainsecret@api.example.com/v1", "https://plainsecret@api.example.com/v1",
    "https://api.example.com/v1?key=plainsecret&x=1", "https://api.example.com/v1?access_token=plainsecret",
    "http://10.1.2.3:8080/v1", "http://192.168.0.9/v1", "http://[::1]:8080/", "http://[fd00::1]/",
    "http://localhost:11434/api", "http://ollama:11434/api", "http://gw.internal/v1", "http://gw.corp/v1",
    "connection to server at \"10.9.8.7\", port 5432 failed", "server at db-primary.svc.cluster.local",
    "HTTPConnectionPool(host='gateway', port=80)", "opaque Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lm",
    '{\\"api_key\\": \\"plain secret\\"}', "api_key%3Dplainsecret&x=1", "{'authorization': 'Bearer plain secret'}",
    "Authorization=Bearer%20plainsecret",
])
def test_redact_text_removes_each_kind_of_secret(text: str) -> None:
    out = redact_text(text)
    assert REDACTED in out, (text, out)
    for secret in ("plainsecret", "plain-secret", "plain secret", "10.1.2.3", "192.168.0.9", "10.9.8.7",
                   "gw.internal", "gw.corp", "db-primary", "ollama", "gateway", "localhost", "::1", "fd00",
                   KEY, GOOGLE_KEY, BEARER, "dXNlcjpwYXNzd29yZA", "AKIAABCDEFGHIJKLMNOP", "Zx9Qw8Er7Ty6"):
        assert secret not in out, (text, out)


@pytest.mark.parametrize("text", [
    "openai:gpt-4o-mini: HTTP 404 (check the model name and base URL): model not found",
    "https://api.openai.com/v1/chat/completions returned 500",
    "episode 3f2b6c1e-8d4a-4e1b-9c2d-0a1b2c3d4e5f failed",
    "hash sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "prompt_tokens: 17, max_tokens=5", "password authentication failed for user \"kg\"",
    "claude-3-5-sonnet-20241022 and text-embedding-3-small at 8.8.8.8",
])
def test_redact_text_keeps_what_is_not_secret(text: str) -> None:
    assert redact_text(text) == text


def test_redact_dsn_hides_only_the_password() -> None:
    assert redact_dsn("postgresql://kg:p@ss@db.corp:5432/memory") == "postgresql://kg:***@db.corp:5432/memory"
    assert redact_dsn("postgresql://kg:pw@db:5432/m?sslmode=require&password=x") == (
        "postgresql://kg:***@db:5432/m?sslmode=require&password=***"
    )
    assert redact_dsn("host=db user=kg password='a b' dbname=m") == "host=db user=kg password=*** dbname=m"
    assert redact_dsn("postgresql://kg@db/m") == "postgresql://kg@db/m"


def test_exception_and_traceback_text_are_redacted() -> None:
    try:
        try:
            raise OSError(f"inner {MESSAGE}")
        except OSError as inner:
            raise RuntimeError("outer") from inner
    except RuntimeError as exc:
        _clean(traceback_text(exc))
        assert "inner" in traceback_text(exc) and exception_text(exc) == "RuntimeError: outer"
