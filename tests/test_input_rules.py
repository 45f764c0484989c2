"""Issue 13, items 3, 8 and 9, in the library (every backend) and the key file:
identifiers are refused rather than repaired, unstorable text is refused,
times, counts and flags are strict, JSON is bounded; each refusal is an
InvalidInputError naming the argument, with nothing written."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kronograph import InvalidInputError, Memory
from kronograph.checks import MAX_JSON_DEPTH, identifier_problem, json_problem, text_problem
from kronograph.cli import app
from kronograph.server.keys import KeyRing

MakeMemory = Callable[..., Memory]
G = "g1"

BAD_IDS = [
    "bob ", " bob", "bob\u00a0", "bob\t", "bob\n", "\u3000bob", "bo\u200bb", "bob\u200d", "\ufeffbob",
    "bo\x00b", "bo\x07b", "bob\u2028x", "bo\ud800b", "e\u0301", "", "bob\u00a0smith",
]


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"name": f"level {depth}"}
    for i in range(depth - 1, 0, -1):
        value = {"name": f"level {i}", "child": value}
    return value


def snapshot(memory: Memory) -> tuple[object, ...]:
    return (
        memory.groups(),
        sorted(f.uuid for f in memory.facts(G, include_retired=True, include_expired=True)),
        sorted(e.uuid for e in memory.entities(G)),
        sorted((e.uuid, e.status) for e in memory.episodes(G)),
    )


# -- the rules themselves ---------------------------------------------------------------


@pytest.mark.parametrize("value", BAD_IDS)
def test_an_identifier_with_padding_invisible_characters_or_not_nfc_is_refused(value: str) -> None:
    assert identifier_problem(value) is not None


@pytest.mark.parametrize("value", ["bob", "bob smith", "team-1/a.b", "Zoë", "\u00e9", "東京", "key:k1", "😀"])
def test_a_plain_identifier_is_taken(value: str) -> None:
    assert identifier_problem(value) is None


def test_text_refuses_only_what_no_store_can_keep() -> None:
    assert text_problem(" any\ttext\n with \u200b and \u00a0 ") is None
    assert "surrogate" in (text_problem("a\ud800b") or "") and "NUL" in (text_problem("a\x00") or "")
    assert "surrogate" in (text_problem("\udfff") or "")
    assert text_problem("\U0001f600") is None  # a real pair is one character


def test_json_is_walked_whatever_its_depth() -> None:
    assert json_problem(nested(MAX_JSON_DEPTH)) is None
    deep: Any = []
    for _ in range(100_000):  # far past the interpreter's recursion limit
        deep = [deep]
    assert "nested deeper" in (json_problem(deep) or "")
    assert "surrogate" in (json_problem({"a": [{"b": "x\ud800"}]}) or "")
    assert "key" in (json_problem({"k\ud800": 1}) or "") and "key" in (json_problem({1: 1}) or "")
    assert "nan" in (json_problem({"a": float("nan")}) or "") and "inf" in (json_problem([float("inf")]) or "")
    assert "set" in (json_problem({"a": {1, 2}}) or "")


# -- item 3: group ids (and every other identifier) are refused, not stripped -------------


@pytest.mark.parametrize("group", ["bob ", "bob\u00a0", "\u200bbob", "bo\u0301b"])
def test_a_group_id_is_refused_not_stripped_on_every_call(memory_factory: MakeMemory, group: str) -> None:
    memory = memory_factory()
    memory.add_fact("bob", "Ann", "LIVES_IN", "Rome", episode_id="f1")
    calls: list[Callable[[], object]] = [
        lambda: memory.add_fact(group, "Ann", "LIVES_IN", "Oslo"),
        lambda: memory.add_episode(group, "Ann lives in Oslo."),
        lambda: memory.enqueue_episode(group, "Ann lives in Oslo."),
        lambda: memory.add_episodes(group, [{"content": "Ann lives in Oslo."}]),
        lambda: memory.facts(group),
        lambda: memory.entities(group),
        lambda: memory.episodes(group),
        lambda: memory.episode(group, "f1"),
        lambda: memory.timeline(group, "Ann"),
        lambda: memory.search(group, "Ann"),
        lambda: memory.search(["bob", group], "Ann"),
        lambda: memory.export(group),
        lambda: memory.remove_episode(group, "f1"),
        lambda: memory.forget(group, episode_id="f1"),
        lambda: memory.sagas(group),
        lambda: memory.reconcile(group),
    ]
    for call in calls:
        with pytest.raises(InvalidInputError) as info:
            call()
        assert info.value.field == "group_id"
    assert memory.groups() == ["bob"] and len(memory.facts("bob")) == 1


@pytest.mark.parametrize("bad", ["s ", "s\u00a0", "s\u200b", "s\x01", "s\ud800", "e\u0301"])
def test_other_identifiers_are_refused_not_stripped(memory_factory: MakeMemory, bad: str) -> None:
    memory = memory_factory()
    before = snapshot(memory)
    episode_cases: list[tuple[str, dict[str, Any]]] = [
        ("saga", {"saga": bad}), ("episode_id", {"episode_id": bad}), ("actor", {"actor": bad}),
        ("previous_episode_ids", {"previous_episode_ids": [bad]}),
        ("excluded_entity_types", {"excluded_entity_types": [bad]}),
    ]
    for field, extra in episode_cases:
        with pytest.raises(InvalidInputError, match=field):
            memory.add_episode(G, "Ann lives in Rome.", **extra)
        with pytest.raises(InvalidInputError, match=field):
            memory.enqueue_episode(G, "Ann lives in Rome.", **extra)
        with pytest.raises(InvalidInputError, match=rf"episodes\[0\]\.{field}"):
            memory.add_episodes(G, [{"content": "Ann lives in Rome.", **extra}])
    fact_cases: list[tuple[str, dict[str, Any]]] = [
        ("relation", {"relation": bad}), ("subject_labels", {"subject_labels": [bad]}),
        ("object_labels", {"object_labels": [bad]}), ("episode_id", {"episode_id": bad}), ("actor", {"actor": bad}),
    ]
    for field, extra in fact_cases:
        args = {"relation": "LIVES_IN", **extra}
        with pytest.raises(InvalidInputError, match=field):
            memory.add_fact(G, "Ann", args.pop("relation"), "Rome", **args)
    for field, call in [
        ("saga", lambda: memory.saga_summary(G, bad)), ("saga", lambda: memory.summarize_saga(G, bad)),
        ("episode_id", lambda: memory.episode(G, bad)), ("episode_id", lambda: memory.remove_episode(G, bad)),
        ("fact_uuid", lambda: memory.fact(G, bad)), ("fact_uuid", lambda: memory.history(G, bad)),
        ("fact_uuid", lambda: memory.remove_fact(G, bad)), ("entity_uuid", lambda: memory.entity(G, bad)),
    ]:
        with pytest.raises(InvalidInputError, match=field):
            call()
    with pytest.raises(InvalidInputError, match="relation_types"):
        Memory(":memory:", model=None, relation_types={bad: {"cardinality": "many_to_one"}})
    assert snapshot(memory) == before


def test_the_group_a_key_names_is_the_group_the_store_uses(tmp_path: Path) -> None:
    ring = KeyRing()
    for bad in ("bob ", "bob\u00a0", "\u200bbob", "bo\u0301b", "bob\ud800"):
        with pytest.raises(InvalidInputError, match="group"):
            ring.add("k", [bad])
        raw = {"keys": [{"id": "a", "hash": "sha256:" + "0" * 64, "groups": [bad]}]}
        with pytest.raises(InvalidInputError, match="group"):
            KeyRing.parse(json.dumps(raw))
    key, _ = ring.add("k", ["bob"])
    assert key.allows("bob") and not key.allows("bob ") and not key.allows("bob\u00a0")


@pytest.mark.parametrize("group", ["bob ", "bob\u00a0", " bob", "bo\u200bb"])
def test_keys_add_refuses_a_padded_or_invisible_group(tmp_path: Path, group: str) -> None:
    keys = tmp_path / "keys.json"
    result = CliRunner().invoke(app, ["keys", "add", "k", "--group", group, "--keys", str(keys)],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "--group" in result.output and "Traceback" not in result.output
    assert not keys.exists()


# -- item 8: lone surrogates and NUL, everywhere a string is taken --------------------------


SURROGATE = "\ud800"


def test_a_lone_surrogate_is_refused_wherever_a_string_is_taken(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    memory.add_fact(G, "Ann", "LIVES_IN", "Rome", episode_id="f1")
    before = snapshot(memory)
    bad = f"x{SURROGATE}y"
    episodes: list[tuple[str, dict[str, Any]]] = [
        ("content", {"content": bad}), ("name", {"name": bad}), ("source_description", {"source_description": bad}),
        ("metadata", {"metadata": {"k": bad}}), ("metadata", {"metadata": {bad: 1}}),
        ("metadata", {"metadata": {"k": [{"deep": [bad]}]}}),
        ("content", {"content": {"name": "Acme", "note": bad}, "kind": "json"}),
        ("content", {"content": {"name": "Acme", bad: 1}, "kind": "json"}),
        ("content", {"content": json.dumps({"name": "Acme", "staff": [{"name": bad}]}), "kind": "json"}),
        ("content", {"content": '{"name": "Acme", "x": "\\ud800"}', "kind": "json"}),
        ("content", {"content": '{"name": "Acme", "x": "\\u0000"}', "kind": "json"}),
        ("json_mapping", {"content": {"name": "Acme"}, "kind": "json", "json_mapping": {"name_keys": [bad]}}),
        ("metadata", {"metadata": {"k": "a\x00b"}}),
    ]
    for field, fields in episodes:
        fields = {"content": "Ann lives in Oslo.", **fields}
        content = fields.pop("content")
        for call in (memory.add_episode, memory.enqueue_episode):
            with pytest.raises(InvalidInputError) as info:
                call(G, content, **fields)
            assert info.value.field == field
    facts: list[tuple[str, dict[str, Any]]] = [
        ("subject", {"subject": bad}), ("object", {"object": bad}), ("relation", {"relation": bad}),
        ("fact", {"fact": bad}), ("subject_labels", {"subject_labels": [bad]}),
        ("object_labels", {"object_labels": ["ok", bad]}),
    ]
    for field, fields in facts:
        args = {"subject": "Bo", "relation": "LIVES_IN", "object": "Oslo", **fields}
        with pytest.raises(InvalidInputError) as info:
            memory.add_fact(G, args.pop("subject"), args.pop("relation"), args.pop("object"), **args)
        assert info.value.field == field
    reads: list[tuple[str, Callable[[], object]]] = [
        ("query", lambda: memory.search(G, bad)), ("center_entity", lambda: memory.search(G, "Ann", center_entity=bad)),
        ("subject", lambda: memory.facts(G, subject=bad)), ("relation", lambda: memory.facts(G, relation=bad)),
        ("entity", lambda: memory.timeline(G, bad)), ("name", lambda: memory.entities(G, name=bad)),
        ("label", lambda: memory.entities(G, label=bad)), ("entity", lambda: memory.forget(G, entity=bad)),
        ("names_or_uuids[0]", lambda: memory.summarize_entities(G, [bad])),
    ]
    for field, call in reads:
        with pytest.raises(InvalidInputError) as info:
            call()
        assert info.value.field == field
    assert snapshot(memory) == before
    assert memory.export(G).episodes and memory.search(G, "Ann").facts  # the group still reads


# -- item 9: times, numbers, flags, JSON shape ---------------------------------------------------


EDGE_TIMES = ["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00",
              datetime(9999, 12, 31, 23, 0, tzinfo=timezone(-timedelta(hours=5))),
              datetime(1, 1, 1, 1, tzinfo=timezone(timedelta(hours=2)))]
NOT_TIMES: list[object] = ["-1", "0", "1700000000", "1e9", "2024", 1700000000, 1.5, True, "yesterday", ""]


@pytest.mark.parametrize("when", EDGE_TIMES + NOT_TIMES, ids=repr)
def test_a_time_past_the_calendar_or_not_a_time_is_refused_naming_it(memory_factory: MakeMemory, when: object) -> None:
    memory = memory_factory()
    memory.add_fact(G, "Ann", "LIVES_IN", "Rome", episode_id="f1")
    before = snapshot(memory)
    calls: list[tuple[str, Callable[[], object]]] = [
        ("reference_time", lambda: memory.add_episode(G, "Ann lives in Oslo.", reference_time=when)),
        ("reference_time", lambda: memory.enqueue_episode(G, "Ann lives in Oslo.", reference_time=when)),
        ("valid_at", lambda: memory.add_fact(G, "Ann", "LIVES_IN", "Oslo", valid_at=when)),
        ("invalid_at", lambda: memory.add_fact(G, "Ann", "LIVES_IN", "Oslo", invalid_at=when)),
        ("as_of", lambda: memory.facts(G, as_of=when)),
        ("known_at", lambda: memory.facts(G, known_at=when)),
        ("as_of", lambda: memory.search(G, "Ann", as_of=when)),
        ("known_at", lambda: memory.search(G, "Ann", known_at=when)),
    ]
    for field, call in calls:
        with pytest.raises(InvalidInputError) as info:
            call()
        assert info.value.field == field
    assert snapshot(memory) == before


def test_the_first_and_last_moments_of_the_calendar_are_times(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    last = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
    first = datetime(1, 1, 1, tzinfo=UTC)
    result = memory.add_episode(G, "Tomorrow Ann moves to Oslo. Yesterday Bo left Rome.", reference_time=last)
    assert result.ok, result.error
    assert memory.add_episode(G, "Ann lives in Rome.", reference_time="0001-01-01T05:00:00+05:00").ok
    memory.add_fact(G, "Cy", "LIVES_IN", "Paris", valid_at=first, invalid_at=last)
    assert memory.facts(G, as_of="9999-12-31T18:00:00-05:00", subject="Cy")
    assert memory.search(G, "Cy", known_at=last).facts is not None
    assert {e.reference_time for e in memory.episodes(G)} >= {last, first}


@pytest.mark.parametrize(("field", "value"), [
    ("limit", True), ("limit", 2.0), ("limit", 2.5), ("limit", "3"), ("limit", 0),
    ("include_retired", 1), ("include_retired", "no"), ("include_expired", None),
])
def test_counts_and_flags_are_strict(memory_factory: MakeMemory, field: str, value: object) -> None:
    memory = memory_factory()
    with pytest.raises(InvalidInputError, match=field):
        memory.facts(G, **{field: value})
    if field != "include_expired":
        with pytest.raises(InvalidInputError, match=field):
            memory.search(G, "Ann", **{field: value})


@pytest.mark.parametrize(("option", "value"), [
    ("candidate_limit", True), ("candidate_limit", 2.0), ("max_concurrency", 1.5), ("context_episodes", False),
    ("store_raw_content", "yes"), ("resume", 0),
])
def test_constructor_numbers_and_flags_are_strict(option: str, value: object) -> None:
    with pytest.raises(InvalidInputError, match=option):
        Memory(":memory:", model=None, **{option: value})


def test_other_numbers_are_strict_and_finite(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    with pytest.raises(InvalidInputError, match="max_calls"):
        memory.summarize_saga(G, "s", max_calls=True)
    with pytest.raises(InvalidInputError, match="resolution"):
        memory.build_communities(G, resolution=float("nan"))
    with pytest.raises(InvalidInputError, match="query_vector"):
        memory.search(G, "Ann", query_vector=[float("nan")] * memory._core._services.embedder.dimension)
    with pytest.raises(InvalidInputError, match="repair"):
        memory.reconcile(G, repair="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="authority"):
        Memory(":memory:", model=None, relation_types={"R": {"authority": True}})
    with pytest.raises(InvalidInputError, match="metadata"):
        memory.add_episode(G, "Ann lives in Rome.", metadata={"x": float("inf")})


@pytest.mark.parametrize("content", [
    [1, 2, 3], "[1, 2, 3]", 42, "42", "null", True, "\"text\"", [{"name": "a"}, 2], nested(MAX_JSON_DEPTH + 1),
    nested(400), json.dumps(nested(400)), nested(17), "{not json", "",
], ids=lambda c: repr(c)[:30])
def test_a_json_episode_the_mapper_cannot_map_is_refused_not_queued(memory_factory: MakeMemory, content: Any) -> None:
    memory = memory_factory()
    before = snapshot(memory)
    for call in (memory.add_episode, memory.enqueue_episode):
        with pytest.raises(InvalidInputError) as info:
            call(G, content, kind="json")
        assert info.value.field == "content"
    with pytest.raises(InvalidInputError, match=r"episodes\[0\]\.content"):
        memory.add_episodes(G, [{"content": content, "kind": "json"}])
    assert snapshot(memory) == before


def test_a_deep_json_episode_within_its_mapping_is_taken(memory_factory: MakeMemory) -> None:
    memory = memory_factory()
    assert memory.add_episode(G, nested(16), kind="json").ok
    assert memory.add_episode(G, nested(40), kind="json", json_mapping={"max_depth": 40}).ok
    with pytest.raises(InvalidInputError, match="json_mapping"):
        memory.add_episode(G, nested(3), kind="json", json_mapping={"max_depth": True})
    with pytest.raises(InvalidInputError, match="metadata"):
        memory.add_episode(G, "Ann lives in Rome.", metadata=nested(MAX_JSON_DEPTH + 1))


@pytest.mark.parametrize(
    ("kind", "content"), [("message", {"a": 1}), ("text", ["x"]), (["json"], "{}"), ("JSON", "{}")]
)
def test_content_and_kind_must_agree(memory_factory: MakeMemory, kind: Any, content: Any) -> None:
    memory = memory_factory()
    with pytest.raises(InvalidInputError, match="content|kind"):
        memory.add_episode(G, content, kind=kind)
