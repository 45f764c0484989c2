"""ModelClient through the real OpenAI SDK against a fake server: parsing,
repair, backoff, cache, usage and the concurrency limit."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

import pytest
from pydantic import BaseModel

from kronograph.errors import ModelError, ModelOutputError, TransientModelError
from kronograph.ingest.schema import Extraction
from kronograph.llm import ModelClient, ModelReply, OpenAIProvider, Usage
from kronograph.llm._loop_local import LoopLocal
from kronograph.llm.backoff import Backoff, retry_after_seconds
from kronograph.llm.client import cache_key

from .provider_servers import FakeServer, error, fake_server, openai_chat

GOOD = {
    "reasoning": "Alice works at Acme.",
    "entities": [{"name": "Alice", "labels": ["Person"]}, {"name": "Acme", "labels": ["Organization"]}],
    "facts": [{"subject": "Alice", "relation": "WORKS_AT", "object": "Acme", "fact": "Alice works at Acme."}],
}
GOOD_TEXT = json.dumps(GOOD)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with fake_server() as running:
        yield running


class Sleeps:
    """An injected sleep: records the waits, waits for nothing."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


class DictCache:
    """A reply cache of one group's replies (tests here ask for group "g")."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}
        self.models: dict[str, str] = {}
        self.groups: list[str] = []

    async def get(self, group_id: str, key: str) -> str | None:
        self.groups.append(group_id)
        return self.data.get(key) if group_id == "g" else None

    async def put(self, group_id: str, key: str, model: str, text: str) -> None:
        self.groups.append(group_id)
        if group_id == "g":
            self.data[key] = text
            self.models[key] = model


def make_client(server: FakeServer, *, timeout: float = 5.0, **kwargs: Any) -> tuple[ModelClient, Sleeps]:
    sleeps = Sleeps()
    provider = OpenAIProvider("gpt-main", small_model="gpt-small", api_key="sk-test", base_url=server.url + "/v1",
                              timeout=timeout)
    kwargs.setdefault("base_delay", 0.01)
    return ModelClient(provider, sleep=sleeps, **kwargs), sleeps


def extract(client: ModelClient, usage: Usage | None = None, *, user: str = "Alice works at Acme.",
            small: bool = False, group_id: str | None = "g") -> Extraction:
    return asyncio.run(client.structured("extract", system="Extract.", user=user, schema=Extraction,
                                         small=small, usage=usage, group_id=group_id))


def test_good_json_goes_through_native_structured_output(server: FakeServer) -> None:
    client, sleeps = make_client(server)
    server.push(openai_chat(GOOD_TEXT))
    result = extract(client)
    assert result.facts[0].relation == "WORKS_AT"
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    fmt = request.body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Extraction" and fmt["json_schema"]["strict"] is False
    assert fmt["json_schema"]["schema"] == Extraction.model_json_schema()
    assert request.body["messages"][0] == {"role": "system", "content": "Extract."}  # no instruction: native
    assert sleeps.waits == []


@pytest.mark.parametrize(
    "text",
    [f"```json\n{GOOD_TEXT}\n```", f"<think>Let me see {{ ... }}</think>\n{GOOD_TEXT}\nHope this helps."],
)
def test_tolerant_parsing(server: FakeServer, text: str) -> None:
    client, _ = make_client(server)
    server.push(openai_chat(text))
    assert extract(client).entities[0].name == "Alice"


def test_one_repair_round_shows_the_answer_and_the_error(server: FakeServer) -> None:
    client, _ = make_client(server)
    bad = '{"entities": [], "facts": []}'  # "reasoning" is required
    server.push(openai_chat(bad), openai_chat(GOOD_TEXT))
    usage = Usage()
    assert extract(client, usage).reasoning == GOOD["reasoning"]
    first, repair = server.requests
    repair_user = repair.body["messages"][1]["content"]
    assert repair_user.startswith("Alice works at Acme.")
    assert bad in repair_user and "reasoning" in repair_user and "Field required" in repair_user
    assert usage.calls == 2 and usage.by_purpose["extract"]["calls"] == 2


def test_unparseable_then_unparseable_is_a_model_output_error(server: FakeServer) -> None:
    client, _ = make_client(server)
    server.push(openai_chat("I cannot do that."), openai_chat('{"reasoning": '))
    with pytest.raises(ModelOutputError, match="Extraction") as info:
        extract(client)
    assert info.value.text == '{"reasoning": '
    assert len(server.requests) == 2
    assert "no complete JSON object" in server.requests[1].body["messages"][1]["content"]


def test_rate_limit_honours_retry_after(server: FakeServer) -> None:
    client, sleeps = make_client(server)
    server.push(error(429, "slow down", retry_after="2"), openai_chat(GOOD_TEXT))
    usage = Usage()
    extract(client, usage)
    assert sleeps.waits == [2.0]
    assert len(server.requests) == 2
    assert usage.calls == 1  # failed tries are not calls


def test_retry_after_is_capped_at_max_delay(server: FakeServer) -> None:
    client, sleeps = make_client(server, max_delay=1.5)
    server.push(error(429, retry_after="120"), openai_chat(GOOD_TEXT))
    extract(client)
    assert sleeps.waits == [1.5]


def test_server_error_is_retried_with_jittered_backoff(server: FakeServer) -> None:
    client, sleeps = make_client(server, base_delay=0.5, rng=lambda: 0.5)
    server.push(error(500), error(503), openai_chat(GOOD_TEXT))
    extract(client)
    assert sleeps.waits == [0.25, 0.5]  # rng * base * 2**attempt


def test_slow_answer_times_out_and_is_retried(server: FakeServer) -> None:
    client, sleeps = make_client(server, timeout=0.2)
    server.push(replace(openai_chat(GOOD_TEXT), delay=1.0), openai_chat(GOOD_TEXT))
    extract(client)
    assert len(sleeps.waits) == 1
    assert len(server.requests) == 2


def test_retries_run_out(server: FakeServer) -> None:
    client, sleeps = make_client(server, max_attempts=3)
    server.push(error(502), error(502), error(502))
    with pytest.raises(TransientModelError, match="502"):
        extract(client)
    assert len(server.requests) == 3 and len(sleeps.waits) == 2


def test_auth_error_is_not_retried(server: FakeServer) -> None:
    client, sleeps = make_client(server)
    server.push(error(401, "Incorrect API key provided"))
    with pytest.raises(ModelError, match="401.*API key") as info:
        extract(client)
    assert not isinstance(info.value, TransientModelError)
    assert len(server.requests) == 1 and sleeps.waits == []
    assert "sk-test" not in str(info.value)


def test_cache_hit_makes_no_request(server: FakeServer) -> None:
    cache = DictCache()
    client, _ = make_client(server, cache=cache)
    server.push(openai_chat(GOOD_TEXT, model="gpt-main-2024"))
    usage = Usage()
    first = extract(client, usage)
    second = extract(client, usage)
    assert first == second
    assert len(server.requests) == 1
    assert usage.calls == 1 and usage.cached == 1 and usage.by_purpose["extract"]["cached"] == 1
    assert list(cache.models.values()) == ["gpt-main-2024"]


def test_the_cache_is_asked_for_the_group_and_skipped_without_one(server: FakeServer) -> None:
    cache = DictCache()
    client, _ = make_client(server, cache=cache)
    server.push(openai_chat(GOOD_TEXT), openai_chat(GOOD_TEXT), openai_chat(GOOD_TEXT))
    usage = Usage()
    extract(client, usage)
    extract(client, usage, group_id="other")  # another group's prompt: its own cache, a miss
    extract(client, usage, group_id=None)  # asked outside any group: neither looked up nor cached
    assert usage.calls == 3 and usage.cached == 0 and len(server.requests) == 3
    assert cache.groups == ["g", "g", "other", "other"]


def test_cache_key_separates_what_shapes_the_answer(server: FakeServer) -> None:
    cache = DictCache()
    client, _ = make_client(server, cache=cache)
    server.push(openai_chat(GOOD_TEXT), openai_chat(GOOD_TEXT), openai_chat(GOOD_TEXT))
    extract(client)
    extract(client, small=True)
    extract(client, user="Bob lives in Paris.")
    assert len(server.requests) == 3 and len(cache.data) == 3
    assert server.requests[1].body["model"] == "gpt-small"
    base: dict[str, Any] = dict(provider="openai", model="m", small=False, schema_name="S", schema={"a": 1},
                                system="s", user="u")
    changes: list[tuple[str, Any]] = [("provider", "x"), ("model", "n"), ("small", True), ("schema_name", "T"),
                                      ("schema", {"a": 2}), ("system", "t"), ("user", "v")]
    keys = {cache_key(**base)} | {cache_key(**{**base, k: v}) for k, v in changes}
    assert len(keys) == 8
    # fields cannot bleed into each other
    assert cache_key(**{**base, "system": "ab", "user": "c"}) != cache_key(**{**base, "system": "a", "user": "bc"})


def test_a_cached_answer_that_no_longer_validates_is_ignored(server: FakeServer) -> None:
    cache = DictCache()
    client, _ = make_client(server, cache=cache)
    server.push(openai_chat(GOOD_TEXT))
    extract(client)
    (key,) = cache.data
    cache.data[key] = '{"old": "shape"}'
    server.push(openai_chat(GOOD_TEXT))
    usage = Usage()
    extract(client, usage)
    assert usage.calls == 1 and usage.cached == 0
    assert cache.data[key] == GOOD_TEXT


def test_usage_counts_tokens_and_prompt_chars(server: FakeServer) -> None:
    client, _ = make_client(server)
    server.push(openai_chat(GOOD_TEXT, prompt_tokens=100, completion_tokens=20),
                openai_chat(GOOD_TEXT, prompt_tokens=50, completion_tokens=5))
    usage = Usage()
    extract(client, usage)
    asyncio.run(client.structured("judge", system="Judge.", user="u", schema=Extraction, usage=usage))
    assert usage.as_dict()["prompt_tokens"] == 150 and usage.completion_tokens == 25
    assert usage.prompt_chars == len("Extract.") + len("Alice works at Acme.") + len("Judge.") + len("u")
    assert usage.by_purpose["judge"]["prompt_tokens"] == 50


def test_concurrency_limit(server: FakeServer) -> None:
    client, _ = make_client(server, max_concurrency=2)
    server.hold = 0.1
    server.push(*[openai_chat(GOOD_TEXT) for _ in range(6)])

    async def many() -> list[Extraction]:
        return await asyncio.gather(*[
            client.structured("extract", system="s", user=f"text {i}", schema=Extraction) for i in range(6)
        ])

    assert len(asyncio.run(many())) == 6
    assert server.max_in_flight == 2


def test_one_client_serves_loops_in_several_threads(server: FakeServer) -> None:
    client, _ = make_client(server, max_concurrency=1)
    server.hold = 0.05
    server.push(*[openai_chat(GOOD_TEXT) for _ in range(4)])
    results: list[Extraction] = []
    failures: list[BaseException] = []

    def work(i: int) -> None:
        async def two() -> None:
            for j in range(2):
                results.append(await client.structured("x", system="s", user=f"{i}-{j}", schema=Extraction))
        try:
            asyncio.run(two())
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == [] and len(results) == 4
    assert server.max_in_flight <= 2  # one per loop


def test_per_loop_objects_of_closed_loops_are_dropped() -> None:
    local: LoopLocal[asyncio.Semaphore] = LoopLocal(lambda: asyncio.Semaphore(1))

    async def use() -> None:
        async with local.get():
            await asyncio.sleep(0)

    for _ in range(5):
        asyncio.run(use())
    assert len(local) <= 1  # the running loop's at most (a collected loop drops by itself)


def test_a_failing_cache_write_does_not_lose_the_answer(server: FakeServer) -> None:
    class BrokenCache(DictCache):
        async def put(self, group_id: str, key: str, model: str, text: str) -> None:
            raise OSError("disk full")

    client, _ = make_client(server, cache=BrokenCache())
    server.push(openai_chat(GOOD_TEXT))
    assert extract(client).reasoning == GOOD["reasoning"]


def test_fallback_from_json_schema_to_plain_json(server: FakeServer) -> None:
    client, _ = make_client(server)
    server.push(error(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported"),
                openai_chat(GOOD_TEXT), openai_chat(GOOD_TEXT))
    extract(client)
    extract(client, user="again")
    rejected, fallback, later = server.requests
    assert rejected.body["response_format"]["type"] == "json_schema"
    for request in (fallback, later):
        assert request.body["response_format"] == {"type": "json_object"}
        system = request.body["messages"][0]["content"]
        assert system.startswith("Extract.") and system.count("JSON schema") == 1 and '"reasoning"' in system
    assert isinstance(client.provider, OpenAIProvider) and client.provider.format_mode == "json_object"


def test_fallback_to_no_response_format(server: FakeServer) -> None:
    client, _ = make_client(server)
    server.push(error(400, "response_format json_schema unsupported"),
                error(400, "response_format json_object unsupported"), openai_chat(GOOD_TEXT))
    extract(client)
    assert "response_format" not in server.requests[2].body
    assert "JSON schema" in server.requests[2].body["messages"][0]["content"]


def test_other_bad_requests_are_errors(server: FakeServer) -> None:
    client, _ = make_client(server)
    server.push(error(400, "maximum context length exceeded"))
    with pytest.raises(ModelError, match="context length"):
        extract(client)
    assert len(server.requests) == 1


def test_name_and_model_for(server: FakeServer) -> None:
    client, _ = make_client(server)
    assert client.name == "openai:gpt-main"
    assert client.model_for(False) == "gpt-main" and client.model_for(True) == "gpt-small"
    plain = ModelClient(OpenAIProvider("m", api_key="k", base_url=server.url + "/v1"))
    assert plain.model_for(True) == "m"


class Count(BaseModel):
    value: int


class PlainProvider:
    """A provider with no native structured output (a Provider, not a mock of the client)."""

    name = "plain"
    model = "plain-1"
    small_model: str | None = None

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.systems: list[str] = []

    async def complete(self, *, system: str, user: str, schema: Mapping[str, Any] | None, schema_name: str,
                       small: bool = False) -> ModelReply:
        self.systems.append(system)
        return ModelReply(self.texts.pop(0), 3, 4)


def test_the_schema_goes_into_the_prompt_when_the_provider_cannot_enforce_it() -> None:
    provider = PlainProvider('{"value": 3}')
    client = ModelClient(provider)
    assert asyncio.run(client.structured("p", system="Count.", user="u", schema=Count)).value == 3
    assert provider.systems[0].startswith("Count.\n\n") and '"value"' in provider.systems[0]


def test_backoff_delays() -> None:
    backoff = Backoff(base_delay=1.0, max_delay=5.0, rng=lambda: 1.0)
    assert [backoff.delay(n) for n in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert backoff.delay(0, retry_after=3.0) == 3.0 and backoff.delay(0, retry_after=60) == 5.0
    assert Backoff(rng=lambda: 0.0).delay(3) == 0.0


def test_retry_after_headers() -> None:
    assert retry_after_seconds({"Retry-After": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None and retry_after_seconds(None) is None
