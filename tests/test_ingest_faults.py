"""Fault injection end to end: episodes through each provider's real SDK and
a local server that misbehaves. Every episode ends complete or quarantined
with its reason, never lost or half-written."""

from __future__ import annotations

import json

import pytest

from kronograph import Memory
from kronograph.llm.client import ModelClient
from kronograph.model import EpisodeStatus

from .provider_servers import Answer, anthropic_text, anthropic_tool, error, fake_server, gemini_text, openai_chat

T0 = "2024-01-01T09:00:00Z"
GOOD = json.dumps({
    "reasoning": "Ann states her employer.",
    "entities": [{"name": "Ann Lee", "labels": ["Person"]}, {"name": "Acme", "labels": ["Organization"]}],
    "facts": [{"subject": "Ann Lee", "relation": "WORKS_AT", "object": "Acme", "fact": "Ann Lee works at Acme"}],
})


def _client(provider) -> ModelClient:
    return ModelClient(provider, base_delay=0.001, max_delay=0.01, max_attempts=2)


def _openai(server):
    from kronograph.llm.openai import OpenAIProvider

    return OpenAIProvider("gpt-fake", api_key="test", base_url=server.url + "/v1", timeout=0.5)


def _clean(memory: Memory) -> None:
    """Nothing of an unfinished episode is in the graph."""
    done = {e.uuid for e in memory.episodes("g", status="complete")}
    for fact in memory.facts("g", include_retired=True, include_expired=True):
        assert set(fact.episodes) <= done


def _anthropic(server):
    from kronograph.llm.anthropic import AnthropicProvider

    return AnthropicProvider("claude-fake", api_key="test", base_url=server.url, timeout=0.5)


def _gemini(server):
    from kronograph.llm.gemini import GeminiProvider

    return GeminiProvider("gemini-fake", api_key="test", base_url=server.url, timeout=0.5)


PROVIDERS = {
    "openai": (_openai, openai_chat),
    "anthropic": (_anthropic, anthropic_text),
    "gemini": (_gemini, gemini_text),
}


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_faults_end_every_episode_complete_or_quarantined(tmp_path, name):
    make, answer = PROVIDERS[name]
    with fake_server() as server:
        memory = Memory(tmp_path / "m.db", model=_client(make(server)))
        # malformed JSON, twice (the repair round fails too): quarantined with the reason
        server.push(answer("{not json"), answer("still ```not json```"))
        bad = memory.add_episode("g", "Ann Lee: one", reference_time=T0, episode_id="bad")
        assert bad.status == EpisodeStatus.QUARANTINED and "did not validate" in bad.error
        assert "it was refused because it is not valid" in server.model_requests()[-1].text().lower()
        # a 429 then a good answer (in a code fence, after a think block): complete
        server.push(error(429, retry_after="0"), answer(f"<think>hm</think>```json\n{GOOD}\n```"))
        ok = memory.add_episode("g", "Ann Lee: two", reference_time=T0, episode_id="ok")
        assert ok.ok and [f.triple for f in ok.created] == ["Ann Lee WORKS_AT Acme"]
        # timeouts until the retries run out: retryable, then resumed to complete
        server.push(Answer(body={}, delay=1.5), Answer(body={}, delay=1.5))
        slow = memory.add_episode("g", "Ann Lee: three", reference_time="2024-02-01", episode_id="slow")
        assert slow.status == EpisodeStatus.RETRYABLE
        _clean(memory)
        server.push(answer(GOOD))
        (resumed,) = memory.resume()
        assert resumed.ok and resumed.episode_id == "slow" and [f.triple for f in resumed.merged] == [
            "Ann Lee WORKS_AT Acme"
        ]
        statuses = {e.uuid: e.status for e in memory.episodes("g")}
        assert statuses == {"bad": "quarantined", "ok": "complete", "slow": "complete"}
        _clean(memory)
        memory.close()


def test_a_crash_between_calls_is_resumed_without_paying_again(tmp_path):
    """Extraction answered, then the process stops before the commit: reopening
    resumes from the checkpoint, with no new request."""
    with fake_server() as server:
        server.push(openai_chat(GOOD))
        memory = Memory(tmp_path / "m.db", model=_client(_openai(server)))
        store = memory.store
        original = store.unit

        def broken(group_id, **_):  # the commit never happens: as if the process died there
            raise KeyboardInterrupt

        store.unit = broken  # type: ignore[method-assign]
        with pytest.raises(KeyboardInterrupt):
            memory.add_episode("g", "Ann Lee: four", reference_time=T0, episode_id="e4")
        store.unit = original  # type: ignore[method-assign]
        (episode,) = memory.episodes("g")
        assert episode.status == "resolving"
        requests = len(server.model_requests())
        memory.close()
        with Memory(tmp_path / "m.db", model=_client(_openai(server))) as again:
            assert [e.status for e in again.episodes("g")] == ["complete"]
            assert [f.triple for f in again.facts("g")] == ["Ann Lee WORKS_AT Acme"]
        assert len(server.model_requests()) == requests


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_other_providers_ingest_end_to_end(provider):
    with fake_server() as server:
        if provider == "anthropic":
            from kronograph.llm.anthropic import AnthropicProvider

            client = AnthropicProvider("claude-fake", api_key="test", base_url=server.url, timeout=2.0)
            server.push(error(529), anthropic_tool(json.loads(GOOD), name="Extraction"))
        else:
            from kronograph.llm.gemini import GeminiProvider

            client = GeminiProvider("gemini-fake", api_key="test", base_url=server.url, timeout=2.0)
            server.push(error(503), gemini_text(GOOD))
        memory = Memory(model=_client(client))
        result = memory.add_episode("g", "Ann Lee: I work at Acme.", reference_time=T0)
        assert result.ok, result.error
        assert [f.triple for f in result.created] == ["Ann Lee WORKS_AT Acme"]
        assert result.usage.calls == 1 and result.usage.prompt_tokens > 0
