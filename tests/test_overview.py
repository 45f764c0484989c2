"""``overview`` and ``episode_detail``: a group at a glance and what one
episode did, on every backend, through the library and REST (the web view's
landing and episode pages read them)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kronograph import Cardinality, InvalidInputError, Memory, NotFoundError, RelationType

G = "team"
TYPES = {"LIVES_IN": RelationType(cardinality=Cardinality.MANY_TO_ONE), "MET": RelationType(event=True)}


def _seed(memory: Memory) -> tuple[str, str]:
    memory.add_fact(G, "Alice Moreno", "WORKS_AT", "Acme Robotics", valid_at="2020-03-01")
    memory.add_fact(G, "Alice Moreno", "KNOWS", "Bob Stone", valid_at="2021-01-01")
    memory.add_fact(G, "Alice Moreno", "MET", "Carol Diaz", valid_at="2021-05-01")
    paris = memory.add_fact(G, "Alice Moreno", "LIVES_IN", "Paris", valid_at="2019-01-01").episode_id
    berlin = memory.add_fact(G, "Alice Moreno", "LIVES_IN", "Berlin", valid_at="2022-06-01").episode_id
    memory.add_fact("other", "Zed", "KNOWS", "Yan")
    return paris, berlin


def test_overview_counts_and_lists_and_episode_detail(memory_factory: Callable[..., Memory]) -> None:
    memory = memory_factory(relation_types=TYPES)
    paris, berlin = _seed(memory)
    seen = memory.overview(G, episodes=3, entities=2)
    assert seen.group_id == G and seen.episodes == {"complete": 5}
    assert (seen.entities, seen.current_facts, seen.retired_facts, seen.events) == (6, 3, 1, 1)
    assert seen.open_contradictions == 0
    assert [e.uuid for e in seen.latest_episodes][0] == berlin and len(seen.latest_episodes) == 3
    assert [(c.name, c.facts) for c in seen.connected] == [("Alice Moreno", 3), ("Acme Robotics", 1)]
    assert memory.overview("nobody").entities == 0
    with pytest.raises(InvalidInputError):
        memory.overview(G, episodes=101)

    made = memory.episode_detail(G, berlin)
    assert made.episode.uuid == berlin
    assert [f.object for f in made.produced] == ["Berlin"]
    assert sorted(e.name for e in made.entities) == ["Alice Moreno", "Berlin"]
    assert [(f.object, f.invalid_at is not None) for f in made.retired] == [("Paris", True)]
    assert [f.object for f in memory.episode_detail(G, paris).produced] == ["Paris"]
    assert memory.episode_detail(G, paris).retired == []
    with pytest.raises(NotFoundError):
        memory.episode_detail("other", berlin)  # another group's episode is none of this one's


def test_rest_overview_and_episode_detail(backend: Callable[..., object]) -> None:
    from fastapi.testclient import TestClient

    from kronograph import AsyncMemory
    from kronograph.server.app import create_app
    from kronograph.server.keys import KeyRing

    memory = AsyncMemory(backend(), model=None, relation_types=TYPES)  # type: ignore[arg-type]
    with TestClient(create_app(memory, KeyRing(), local=True), base_url="http://127.0.0.1") as api:
        add = {"subject": "Sam", "relation": "LIVES_IN", "object": "Paris", "valid_at": "2019-01-01T00:00:00Z"}
        assert api.post(f"/v1/groups/{G}/facts", json=add).status_code == 201
        moved = api.post(f"/v1/groups/{G}/facts", json={**add, "object": "Rome", "valid_at": "2021-01-01T00:00:00Z"})
        episode = moved.json()["episode_id"]
        seen = api.get(f"/v1/groups/{G}/overview", params={"entities": 1}).json()
        assert seen["episodes"] == {"complete": 2} and seen["current_facts"] == 1 and seen["retired_facts"] == 1
        assert [c["name"] for c in seen["connected"]] == ["Rome"] or [c["name"] for c in seen["connected"]] == ["Sam"]
        assert seen["latest_episodes"][0]["uuid"] == episode
        detail = api.get(f"/v1/groups/{G}/episodes/{episode}/detail").json()
        assert [f["object"] for f in detail["produced"]] == ["Rome"]
        assert [f["object"] for f in detail["retired"]] == ["Paris"]
        assert api.get(f"/v1/groups/{G}/episodes/nope/detail").status_code == 404
        assert api.get(f"/v1/groups/{G}/overview", params={"episodes": 0}).status_code == 422
