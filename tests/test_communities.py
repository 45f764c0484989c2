"""Communities on every backend: Louvain over the current entity graph on a
fixture with a known cluster structure, extractive and model summaries
(bounded calls), search by full text and vector, update without a rebuild,
atomic rebuilds and group isolation."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from typing import Any

import pytest

from kronograph import KronographError, Memory
from kronograph.errors import ModelError, StoreError
from kronograph.maintain.clusters import Graph, attach, community_name, louvain
from kronograph.store.plan import CommunityState, Plan

from .ingest_helpers import ScriptedProvider

G = "g"
MakeMemory = Callable[..., Memory]

# Three dense cliques, each with its own vocabulary, joined by single bridges.
CLIQUES = {
    "sailing": ["Ann", "Ben", "Cat", "Dov", "Eve"],
    "jazz": ["Fay", "Gus", "Hal", "Ivy", "Jon"],
    "garden": ["Kim", "Lou", "Max", "Ned", "Oda"],
}
WORDS = {"sailing": "sails boats on the lake with", "jazz": "plays jazz trumpet with", "garden": "grows tomatoes with"}


def _cliques(memory: Memory, group: str = G) -> None:
    for topic, people in CLIQUES.items():
        for i, a in enumerate(people):
            for b in people[i + 1 :]:
                memory.add_fact(group, a, "KNOWS", b, fact=f"{a} {WORDS[topic]} {b}")
    memory.add_fact(group, "Eve", "MET", "Fay", fact="Eve once met Fay")  # the bridges
    memory.add_fact(group, "Jon", "MET", "Kim", fact="Jon once met Kim")


def _partition(memory: Memory, group: str = G) -> set[frozenset[str]]:
    return {frozenset(c.members) for c in memory.communities(group)}


EXPECTED = {frozenset(people) for people in CLIQUES.values()}


def test_three_cliques_give_exactly_three_communities(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _cliques(memory)
    memory.add_fact(G, "Old", "KNOWS", "Gone", valid_at="2000-01-01", invalid_at="2001-01-01")  # not current
    built = memory.build_communities(G)
    assert {frozenset(c.members) for c in built.communities} == EXPECTED
    assert built.unassigned == 2 and built.model_calls == 0
    assert _partition(memory) == EXPECTED
    for c in built.communities:
        assert c.size == 5 and len(c.member_uuids) == 5 and c.attached == 0
        assert c.name.endswith(" and 3 more") and c.name.startswith(f"{c.members[0]}, {c.members[1]}")
    again = memory.build_communities(G)  # the same graph: the same communities, the same uuids
    assert [(c.uuid, c.members, c.summary) for c in again.communities] == [
        (c.uuid, c.members, c.summary) for c in built.communities
    ]


def test_summaries_are_extractive_without_a_model(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _cliques(memory)
    built = {c.members[0][0]: c for c in memory.build_communities(G).communities}
    by_topic = {next(t for t, p in CLIQUES.items() if c.members[0] in p): c for c in built.values()}
    for topic, c in by_topic.items():
        assert c.method == "extractive" and c.summary
        assert WORDS[topic].split()[0] in c.summary  # from its own internal facts
        assert "once met" not in c.summary  # a bridge is no community's internal fact
        assert len(c.summary) <= 600


def _triangles(memory: Memory, n: int) -> None:
    for i in range(n):
        a, b, c = (f"P{i}a", f"P{i}b", f"P{i}c")
        for x, y in ((a, b), (b, c), (a, c)):
            memory.add_fact(G, x, "KNOWS", y, fact=f"{x} rows with {y}")


def _community_answer(system: str, user: str) -> dict[str, Any]:
    rows = [json.loads(line) for line in user.splitlines() if line.startswith("{")]
    return {
        "reasoning": "short",
        "summaries": [{"id": r["id"], "summary": f"{r['members'][0]} and friends (by model)."} for r in rows],
    }


def test_model_summaries_are_batched_and_bounded(memory_factory: MakeMemory) -> None:
    provider = ScriptedProvider(CommunitySummaryAnswer=_community_answer)
    memory = memory_factory(model=provider)
    _triangles(memory, 23)
    built = memory.build_communities(G, batch_size=10)
    assert len(built.communities) == 23
    assert built.model_calls == provider.count("CommunitySummaryAnswer") == math.ceil(23 / 10)
    assert all(c.method == "model" and c.summary == f"{c.members[0]} and friends (by model)."
               for c in built.communities)
    prompts = [user for name, user in provider.calls if name == "CommunitySummaryAnswer"]
    assert all(user.count('"id": "C') <= 10 for user in prompts)

    capped = memory.build_communities(G, batch_size=10, max_model_calls=1)
    assert capped.model_calls == 1  # its prompt is the first one's: the reply cache answers it
    assert provider.count("CommunitySummaryAnswer") == 3
    assert sorted(c.method for c in capped.communities).count("model") == 10  # the rest stay extractive


def test_a_failed_model_call_falls_back_to_extractive(memory_factory: MakeMemory) -> None:
    provider = ScriptedProvider(CommunitySummaryAnswer=_community_answer)
    memory = memory_factory(model=provider)
    _triangles(memory, 12)
    provider.fail.append(ModelError("scripted failure"))
    built = memory.build_communities(G, batch_size=10)
    methods = sorted(c.method for c in built.communities)
    assert methods.count("extractive") == 10 and methods.count("model") == 2
    assert all(c.summary and "rows with" in c.summary for c in built.communities if c.method == "extractive")


def test_search_finds_a_community_by_its_facts_words_and_by_vector(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _cliques(memory)
    memory.build_communities(G)
    for recipe in ("bm25", "cosine", "hybrid"):
        hits = memory.search(G, "who grows tomatoes", scopes=["communities"], recipe=recipe).communities
        assert hits, recipe
        assert set(hits[0].item.members) == set(CLIQUES["garden"]), recipe
    (hit,) = memory.search(G, "trumpet", scopes=["communities"], recipe="bm25").communities
    assert "bm25" in hit.methods and set(hit.item.members) == set(CLIQUES["jazz"])
    everything = memory.search(G, "jazz trumpet")
    assert everything.communities and everything.facts  # the default scopes include communities
    assert not memory.search(G, "trumpet", scopes=["communities"], as_of="2020-01-01").communities


def test_update_attaches_a_new_entity_without_a_rebuild(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _cliques(memory)
    before = {frozenset(c.members): c for c in memory.build_communities(G).communities}
    memory.add_fact(G, "Zed", "HELPS", "Kim", fact="Zed waters tomatoes with Kim")
    memory.add_fact(G, "Zed", "HELPS", "Lou")
    memory.add_fact(G, "Zed", "MET", "Ann")  # one tie to sailing, two to the garden
    memory.add_fact(G, "Yan", "KNOWS", "Zed")  # a chain: attached through Zed
    memory.add_fact(G, "Solo", "KNOWS", "Duo")  # linked to no member
    result = memory.update_communities(G)
    garden = before[frozenset(CLIQUES["garden"])]
    assert sorted((a.entity, a.community_uuid) for a in result.attached) == [
        ("Yan", garden.uuid), ("Zed", garden.uuid)
    ]
    zed = next(a for a in result.attached if a.entity == "Zed")
    assert zed.weight == 2
    names = {e.uuid: e.name for e in memory.entities(G)}
    assert sorted(names[u] for u in result.unassigned) == ["Duo", "Solo"]
    (refreshed,) = result.refreshed
    assert refreshed.uuid == garden.uuid and refreshed.attached == 2 and refreshed.size == 7
    assert refreshed.members[:5] == garden.members and set(refreshed.members[5:]) == {"Zed", "Yan"}
    assert refreshed.name == f"{garden.members[0]}, {garden.members[1]} and 5 more"
    assert refreshed.method == "extractive" and refreshed.summary
    after = {c.uuid: c for c in memory.communities(G)}
    assert set(after) == {c.uuid for c in before.values()}  # no rebuild: the same communities
    for c in before.values():
        if c.uuid != garden.uuid:
            assert after[c.uuid].members == c.members and after[c.uuid].summary == c.summary
    hits = memory.search(G, "waters", scopes=["communities"], recipe="bm25").communities
    assert "Zed waters tomatoes with Kim." in (refreshed.summary or "")  # its new internal fact, searchable
    assert [h.item.uuid for h in hits] == [garden.uuid]
    assert not result.rebuild_advised  # 2 of 17 members attached
    assert memory.update_communities(G).attached == []  # nothing new: nothing to do


def test_update_with_nothing_built_advises_a_build(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    memory.add_fact(G, "Ann", "KNOWS", "Ben")
    result = memory.update_communities(G)
    assert result.rebuild_advised and not result.attached and len(result.unassigned) == 2


def test_a_rebuild_after_a_graph_change_replaces_the_communities(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _cliques(memory)
    first = {frozenset(c.members): c.uuid for c in memory.build_communities(G).communities}
    people = ["Pia", "Quy", "Rex", "Sol"]
    for i, a in enumerate(people):
        for b in people[i + 1 :]:
            memory.add_fact(G, a, "KNOWS", b, fact=f"{a} climbs with {b}")
    second = {frozenset(c.members): c.uuid for c in memory.build_communities(G).communities}
    assert set(second) == EXPECTED | {frozenset(people)}
    assert all(second[m] == first[m] for m in EXPECTED)  # unchanged members: unchanged uuids
    assert len(memory.communities(G)) == 4


def test_a_failed_replacement_leaves_the_old_communities(backend: Callable[..., Any]) -> None:
    memory = Memory(backend(), model=None)
    try:
        _cliques(memory)
        built = memory.build_communities(G)
        plan = Plan(group_id=G, now=built.communities[0].built_at, expected_revision=None)
        plan.replace_communities = True
        ann = next(c for c in built.communities if "Ann" in c.members)
        twin = CommunityState("same-uuid", "x", None, "extractive", plan.now, (ann.member_uuids[0],))
        plan.new_communities = [twin, twin]  # the second insert fails: nothing of the plan may stay
        with pytest.raises(StoreError):
            memory._call(memory.store.apply(plan))  # type: ignore[attr-defined]
        assert [c.uuid for c in memory.communities(G)] == [c.uuid for c in built.communities]
    finally:
        memory.close()


def test_communities_never_cross_groups(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    _cliques(memory, "g")
    memory.add_fact("h", "Uma", "KNOWS", "Val", fact="Uma plays chess with Val")
    memory.build_communities("g")
    assert memory.communities("h") == []
    (only,) = memory.build_communities("h").communities
    assert set(only.members) == {"Uma", "Val"}
    assert _partition(memory, "g") == EXPECTED  # h's build left g's communities alone
    assert not memory.search("h", "tomatoes trumpet sails", scopes=["communities"]).communities
    hits = memory.search(["g", "h"], "chess", scopes=["communities"], recipe="bm25").communities
    assert [h.item.group_id for h in hits] == ["h"]


def test_a_deleted_entity_leaves_its_community(memory_factory: MakeMemory) -> None:
    memory = memory_factory(model=None)
    memory.add_fact(G, "Ann", "KNOWS", "Ben", episode_id="e1")
    memory.add_fact(G, "Ben", "KNOWS", "Cat", episode_id="e1")
    memory.add_fact(G, "Ann", "KNOWS", "Cat", episode_id="e1")
    for other in ("Ann", "Ben", "Cat"):
        memory.add_fact(G, "Dov", "KNOWS", other, episode_id="e2")
    (community,) = memory.build_communities(G).communities
    assert community.size == 4
    memory.remove_episode(G, "e2")  # Dov goes with its only facts
    (after,) = memory.communities(G)
    assert after.uuid == community.uuid and set(after.members) == {"Ann", "Ben", "Cat"}


def test_missing_networkx_says_how_to_install_it(memory_factory: MakeMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = memory_factory(model=None)
    memory.add_fact(G, "Ann", "KNOWS", "Ben")
    monkeypatch.setitem(sys.modules, "networkx", None)  # import networkx now raises ImportError
    with pytest.raises(KronographError, match=r"pip install 'kronograph\[communities\]'"):
        memory.build_communities(G)


# -- the pure part ----------------------------------------------------------------


def test_louvain_is_deterministic_and_drops_singletons() -> None:
    edges = [(f"f{i}", a, b) for i, (a, b) in enumerate(
        [("a", "b"), ("b", "c"), ("a", "c"), ("d", "e"), ("e", "f"), ("d", "f"), ("c", "d"), ("x", "x")]
    )]
    graph = Graph.of(edges)
    first = louvain(graph, resolution=1.0, seed=42)
    assert first == [["a", "b", "c"], ["d", "e", "f"]]
    assert all(louvain(Graph.of(list(reversed(edges))), resolution=1.0, seed=42) == first for _ in range(3))
    assert louvain(Graph.of([]), resolution=1.0, seed=42) == []


def test_attach_follows_the_heaviest_community_and_chains() -> None:
    graph = Graph.of([("1", "n", "a"), ("2", "n", "b"), ("3", "n", "c"), ("4", "m", "n"), ("5", "x", "y")])
    placed = attach(["n", "m", "x", "y"], {"a": "A", "b": "A", "c": "C"}, graph, {"A": 2, "C": 1})
    assert placed == {"n": ("A", 2), "m": ("A", 1)}


def test_community_names() -> None:
    assert community_name(["Ann", "Ben"]) == "Ann and Ben"
    assert community_name(["Ann", "Ben", "Cat"]) == "Ann, Ben and Cat"
    assert community_name(["Ann", "Ben", "Cat", "Dov", "Eve"]) == "Ann, Ben and 3 more"
