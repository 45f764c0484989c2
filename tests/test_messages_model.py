"""Messages with a model configured: the extraction prompt carries the
speaker, the role, the addressee and the group's user, and the rules for
reading them. The model is the benchmarks' scripted one (bench/scripted_model.py)
behind a real HTTP server on 127.0.0.1 speaking the OpenAI protocol."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from kronograph import Memory
from kronograph.ingest.ontology import Ontology
from kronograph.ingest.prompts import PROMPT_VERSION, ContextEpisode, extraction_prompt
from kronograph.llm.openai import OpenAIProvider

from .provider_servers import Answer, FakeServer, Recorded, fake_server, openai_chat
from .test_scripted_model import sm

MakeMemory = Callable[..., Memory]
G = "chat"
REF = datetime(2024, 3, 10, 9, 30, tzinfo=UTC)


def _scripted(request: Recorded) -> Answer:
    """The scripted model's answer to a chat completion request."""
    system, user = (m["content"] for m in request.body["messages"])
    schema = request.body.get("response_format", {}).get("json_schema", {}).get("name", "Extraction")
    assert system
    return openai_chat(json.dumps(sm._ANSWER[schema](user)))


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with fake_server() as running:
        running.respond = _scripted
        yield running


def _extractions(server: FakeServer) -> list[tuple[str, str]]:
    out = []
    for r in server.model_requests():
        if r.body.get("response_format", {}).get("json_schema", {}).get("name") == "Extraction":
            out.append((r.body["messages"][0]["content"], r.body["messages"][1]["content"]))
    return out


def test_the_prompt_carries_speaker_role_and_user_and_the_facts_follow(
    memory_factory: MakeMemory, server: FakeServer
) -> None:
    provider = OpenAIProvider("gpt-fake", api_key="test", base_url=server.url + "/v1", timeout=5)
    memory = memory_factory(model=provider)
    results = memory.add_messages(G, [
        {"role": "user", "content": "Hi! I work at Northwind.", "created_at": "2024-03-01T09:00:00Z"},
        {"role": "assistant", "content": "You work at Northwind? You could move to Porto. Maya works at Globex.",
         "created_at": "2024-03-01T09:01:00Z"},
        {"role": "user", "content": "Yes. I live in Lisbon.", "created_at": "2024-03-01T09:02:00Z"},
    ], thread="t1", user_name="Sam Carter")
    assert all(r.ok for r in results)
    prompts = _extractions(server)  # extracted concurrently: found by their current text
    assert len(prompts) == 3
    (sys1, user1), (sys2, user2), (_, user3) = (
        next(p for p in prompts if f">\n{text}" in p[1])
        for text in ("Hi! I work at Northwind.", "You work at Northwind?", "Yes. I live in Lisbon.")
    )
    assert 'speaker="Sam Carter"' in user1 and 'role="user"' in user1 and 'user="Sam Carter"' in user1
    assert 'addressee="Assistant"' in user1
    assert 'speaker="Assistant"' in user2 and 'role="assistant"' in user2 and 'addressee="Sam Carter"' in user2
    assert "First person" in sys1 and '"you" means the addressee' in sys1
    assert "suggestions, questions, advice and echoes" in sys2
    # The thread's earlier messages are the context, with who said them.
    assert "<previous_episodes>" in user3 and "Sam Carter: Hi! I work at Northwind." in user3
    assert "Assistant: You work at Northwind?" in user3
    facts = {(f.subject, f.relation, f.object) for f in memory.facts(G)}
    assert facts == {("Sam Carter", "WORKS_AT", "Northwind"), ("Sam Carter", "LIVES_IN", "Lisbon")}
    source = memory.fact_sources(G, memory.facts(G, relation="LIVES_IN")[0].uuid)[0]
    assert source.provenance["prompt_version"] == PROMPT_VERSION


def test_a_plain_episode_gets_the_plain_prompt() -> None:
    prompt = extraction_prompt(content="Ann: I work at Acme.", kind="message", reference_time=REF,
                               source_description=None, previous=[], ontology=Ontology())
    assert "speaker=" not in prompt.user and "First person" not in prompt.system


def test_names_are_quoted_safely_in_the_tag() -> None:
    prompt = extraction_prompt(
        content="I work at Acme.", kind="message", reference_time=REF, source_description=None,
        previous=[ContextEpisode(REF, "Hello", 'Dee "D" Park', "user")], ontology=Ontology(),
        speaker='Dee "D" Park', role="user", addressee="Bot", user_name='Dee "D" Park',
    )
    assert 'speaker="Dee \\"D\\" Park"' in prompt.user
    assert sm.extract(prompt.user)["facts"][0]["subject"] == 'Dee "D" Park'
    assert '] Dee "D" Park: Hello' in prompt.user


@pytest.mark.parametrize("role", ["assistant", "system", "tool"])
def test_the_scripted_model_states_nothing_for_the_assistant(role: str) -> None:
    prompt = extraction_prompt(content="You work at Acme. I live in Rome.", kind="message", reference_time=REF,
                               source_description=None, previous=[], ontology=Ontology(),
                               speaker="Bot", role=role, addressee="Sam", user_name="Sam")
    assert sm.extract(prompt.user)["facts"] == []


def test_the_scripted_model_reads_you_as_the_addressee() -> None:
    prompt = extraction_prompt(content="You work at Acme, right.", kind="message", reference_time=REF,
                               source_description=None, previous=[], ontology=Ontology(),
                               speaker="Sam", role="user", addressee="Helper", user_name="Sam")
    answer: dict[str, Any] = sm.extract(prompt.user)
    assert [(f["subject"], f["relation"], f["object"]) for f in answer["facts"]] == [("Helper", "WORKS_AT", "Acme")]
