"""Natural questions ranked right (issue 15, part 3), on every backend: function
words carry no match, a named entity (exactly, by alias, by one word of its
name, by a near spelling, in lower case) is favoured, and "where / who /
which company" favour answers of that kind without beating a better match."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kronograph import Memory

GROUP = "chat"

# A small, realistic memory: a user (Sam) talking to an assistant about
# people, cities and companies, with replies that share the question words.
MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "name": "Sam", "created_at": "2024-03-01T10:00",
     "content": "Hi! I'm Sam. I live in Boston and I work at Initech as a backend engineer."},
    {"role": "assistant", "created_at": "2024-03-01T10:01",
     "content": "Nice to meet you, Sam! What would you like help with?"},
    {"role": "user", "name": "Sam", "created_at": "2024-03-01T10:02",
     "content": "Which language should I pick for our new backend services?"},
    {"role": "assistant", "created_at": "2024-03-01T10:03", "content": "Go is a solid choice for backend services."},
    {"role": "user", "name": "Sam", "created_at": "2024-03-02T09:00",
     "content": "My sister Maya lives in Chicago. She works at Globex."},
    {"role": "assistant", "created_at": "2024-03-02T09:01",
     "content": "Chicago is a great city. Is she enjoying the new job?"},
    {"role": "user", "name": "Sam", "created_at": "2024-03-03T09:00",
     "content": "My friend Priya Raman lives in Denver."},
    {"role": "assistant", "created_at": "2024-03-03T09:01",
     "content": "That is where the weather is nice. Who is going to visit whom?"},
    {"role": "user", "name": "Sam", "created_at": "2024-03-04T09:00",
     "content": "Robert Chen lives in Seattle. He works at Hooli."},
]


@pytest.fixture
def memory(memory_factory: Callable[..., Memory]) -> Memory:
    made = memory_factory(model=None)
    made.add_messages(GROUP, MESSAGES)
    return made


def _facts(memory: Memory, query: str, **kw: Any) -> list[str]:
    return [h.item.triple for h in memory.search(GROUP, query, scopes=["facts"], **kw).facts]


def _episodes(memory: Memory, query: str) -> list[str]:
    return [h.item.content or "" for h in memory.search(GROUP, query, scopes=["episodes"]).episodes]


def test_who_is_maya_finds_maya_not_the_words_who_and_is(memory: Memory) -> None:
    found = memory.search(GROUP, "who is Maya")
    assert "Maya" in (found.episodes[0].item.content or "")
    episodes = [h.item.content or "" for h in found.episodes]
    assert not any("Go is a solid choice" in e for e in episodes[:1])
    assert not any(e.startswith("Assistant: That is where") for e in episodes[:3])
    assert found.entities[0].item.name == "Maya"
    assert "Maya" in (found.facts[0].item.subject, found.facts[0].item.object)
    assert found.facts[0].methods.count("names") == 1


def test_where_does_sam_live_ranks_sams_city_above_the_others(memory: Memory) -> None:
    facts = _facts(memory, "where does Sam live")
    assert facts[0] == "Sam LIVES_IN Boston"
    assert facts.index("Sam LIVES_IN Boston") < facts.index("Maya LIVES_IN Chicago")
    assert _facts(memory, "where does Maya live")[0] == "Maya LIVES_IN Chicago"


def test_a_lowercase_name_is_a_name(memory: Memory) -> None:
    assert _facts(memory, "where does sam live")[0] == "Sam LIVES_IN Boston"
    assert memory.search(GROUP, "who is maya", scopes=["entities"]).entities[0].item.name == "Maya"


def test_one_word_of_a_name_and_a_near_spelling_name_the_entity(memory: Memory) -> None:
    assert _facts(memory, "where does Raman live")[0] == "Priya Raman LIVES_IN Denver"
    assert _facts(memory, "where does Pryia live")[0] == "Priya Raman LIVES_IN Denver"  # a transposition
    assert _facts(memory, "where does Robret Chen live")[0] == "Robert Chen LIVES_IN Seattle"


def test_an_alias_names_the_entity(memory: Memory) -> None:
    memory.add_fact(GROUP, "Bob", "KNOWS", "Sam", subject_labels=["Person"], object_labels=["Person"])
    memory.merge_entities(GROUP, "Robert Chen", "Bob")  # "Bob" becomes an alias of Robert Chen
    assert _facts(memory, "where does Bob live")[0] == "Robert Chen LIVES_IN Seattle"
    assert memory.search(GROUP, "who is bob", scopes=["entities"]).entities[0].item.name == "Robert Chen"


def test_a_query_of_function_words_only_still_searches(memory: Memory) -> None:
    found = memory.search(GROUP, "who is it?")
    assert found.episodes  # its own words are all it has: they are searched
    again = memory.search(GROUP, "who is it?")
    assert [h.item.uuid for h in found.episodes] == [h.item.uuid for h in again.episodes]
    assert memory.search(GROUP, "?!").episodes == []


def test_the_kind_asked_for_does_not_beat_a_better_match(memory: Memory) -> None:
    # "where" favours places, but the words say work: Sam's company comes first.
    assert _facts(memory, "where does Sam work")[0] == "Sam WORKS_AT Initech"


def test_which_company_favours_organisations(memory: Memory) -> None:
    assert _facts(memory, "which company does Maya work for")[0] == "Maya WORKS_AT Globex"
    facts = _facts(memory, "which company is Robert Chen with")
    assert facts[0] == "Robert Chen WORKS_AT Hooli"


def test_who_favours_people(memory: Memory) -> None:
    found = memory.search(GROUP, "who is Sam's sister", scopes=["facts"])
    assert found.facts[0].item.triple == "Sam SIBLING_OF Maya"


def test_names_of_another_group_name_nothing(memory: Memory) -> None:
    memory.add_fact("other", "Zoltan", "LIVES_IN", "Oslo")
    found = memory.search(GROUP, "where does Zoltan live")
    assert all(h.item.group_id == GROUP for scope in (found.facts, found.entities, found.episodes) for h in scope)
    assert "Zoltan" not in {h.item.name for h in found.entities}


def test_other_recipes_keep_their_order_but_lose_function_words(memory: Memory) -> None:
    episodes = [h.item.content or "" for h in memory.search(GROUP, "who is Maya", recipe="bm25").episodes]
    assert episodes and all("Maya" in e for e in episodes)
    ranked = memory.search(GROUP, "who is Maya", recipe="hybrid_mmr", scopes=["facts"]).facts
    assert all("names" not in h.methods for h in ranked)


def test_an_exact_name_is_found_however_many_names_look_like_it(memory: Memory) -> None:
    # The lookup reads a bounded number of entities, exact names first: 70 names
    # starting like Maya's ("Ma...") must not push Maya herself out.
    for i in range(70):
        memory.add_fact(GROUP, f"Mark{i:02d} Stone", "KNOWS", "Sam", subject_labels=["Person"])
    assert memory.search(GROUP, "who is Maya", scopes=["entities"]).entities[0].item.name == "Maya"
    assert _facts(memory, "where does Maya live")[0] == "Maya LIVES_IN Chicago"
