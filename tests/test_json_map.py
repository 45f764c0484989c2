"""JSON episodes: the default mapping, custom mappings, times, and bad input."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from kronograph.errors import InvalidInputError
from kronograph.ingest.json_map import JsonMapping, map_json, relation_name
from kronograph.ingest.schema import ExtractedEntity, ExtractedFact, Extraction


def entity(x: Extraction, name: str) -> ExtractedEntity:
    (found,) = [e for e in x.entities if e.name == name]
    return found


def triples(x: Extraction) -> list[tuple[str, str, str]]:
    return [(f.subject, f.relation, f.object) for f in x.facts]


def fact(x: Extraction, subject: str, obj: str) -> ExtractedFact:
    (found,) = [f for f in x.facts if f.subject == subject and f.object == obj]
    return found


# -- entities and attributes -----------------------------------------------------


def test_object_becomes_an_entity_with_scalar_attributes() -> None:
    x = map_json({"name": "Acme", "founded": 2001, "public": False, "revenue": 1.5, "motto": "Go", "fax": None})
    assert [e.name for e in x.entities] == ["Acme"]
    assert entity(x, "Acme").attributes == {"founded": 2001, "public": False, "revenue": 1.5, "motto": "Go"}
    assert x.facts == []
    assert x.reasoning == "mapped from JSON by the default mapping"


@pytest.mark.parametrize(
    ("record", "name"),
    [
        ({"name": "A", "title": "B", "full_name": "C", "id": "D", "key": "E"}, "A"),
        ({"title": "B", "full_name": "C", "id": "D"}, "B"),
        ({"full_name": "C", "id": "D"}, "C"),
        ({"id": "D", "key": "E"}, "D"),
        ({"key": "E"}, "E"),
        ({"id": 42}, "42"),
        ({"name": "  ", "title": "Fallback"}, "Fallback"),  # a blank name is no name
        ({"name": True, "id": "u1"}, "u1"),  # nor is a boolean
        ({"name": {"first": "x"}, "id": "u1"}, "u1"),  # nor an object
    ],
)
def test_name_comes_from_the_first_present_name_key(record: dict[str, Any], name: str) -> None:
    assert map_json(record).entities[0].name == name


def test_only_the_key_used_as_name_leaves_the_attributes() -> None:
    x = map_json({"id": "u1", "name": "Alice", "title": "CTO"})
    assert entity(x, "Alice").attributes == {"id": "u1", "title": "CTO"}


def test_root_name_names_a_nameless_root_only() -> None:
    assert map_json({"city": "Berlin"}, root_name="office record").entities[0].name == "office record"
    assert map_json({"name": "Acme"}, root_name="office record").entities[0].name == "Acme"


def test_nameless_root_without_root_name_gets_a_stable_content_name() -> None:
    a = map_json({"city": "Berlin", "size": 3}).entities[0].name
    b = map_json({"size": 3, "city": "Berlin"}).entities[0].name
    c = map_json({"city": "Paris", "size": 3}).entities[0].name
    assert re.fullmatch(r"record [0-9a-f]{8}", a)
    assert a == b != c


def test_list_of_scalars_is_a_list_attribute() -> None:
    x = map_json({"name": "Acme", "tags": ["robots", None, "ai", [3, [True]]], "empty": []})
    assert entity(x, "Acme").attributes == {"tags": ["robots", "ai", 3, True]}


def test_python_dates_become_iso_attributes() -> None:
    x = map_json({"name": "Acme", "seen": datetime(2024, 1, 2, tzinfo=UTC)})
    assert entity(x, "Acme").attributes == {"seen": "2024-01-02T00:00:00+00:00"}


# -- labels ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "labels"),
    [
        ({"name": "Acme", "type": "Company"}, ["Company"]),
        ({"name": "Acme", "kind": "Company"}, ["Company"]),
        ({"name": "Acme", "label": ["Company", "Startup"]}, ["Company", "Startup"]),
        ({"name": "Acme", "type": "Company", "kind": "Other"}, ["Company"]),
        ({"name": "Acme"}, []),
        ({"name": "Acme", "type": 3}, []),
    ],
)
def test_labels_from_type_kind_or_label(record: dict[str, Any], labels: list[str]) -> None:
    assert map_json(record).entities[0].labels == labels


def test_a_label_key_used_leaves_the_attributes_and_an_unusable_one_stays() -> None:
    assert map_json({"name": "Acme", "type": "Company"}).entities[0].attributes == {}
    assert map_json({"name": "Acme", "type": 3}).entities[0].attributes == {"type": 3}


def test_root_label_is_added_to_the_root_only() -> None:
    x = map_json({"name": "Acme", "type": "Startup", "ceo": {"name": "Alice"}}, root_label="Company")
    assert entity(x, "Acme").labels == ["Company", "Startup"]
    assert entity(x, "Alice").labels == []
    assert map_json({"name": "Acme", "type": "company"}, root_label="Company").entities[0].labels == ["company"]


# -- nested objects and lists ----------------------------------------------------


def test_nested_object_is_a_related_entity() -> None:
    x = map_json({"name": "Acme", "ceo": {"name": "Alice", "age": 41}})
    assert triples(x) == [("Acme", "CEO", "Alice")]
    f = x.facts[0]
    assert f.fact == "Acme ceo Alice"
    assert f.confidence == 1.0
    assert (f.valid_at, f.invalid_at, f.time_expression) == (None, None, None)
    assert entity(x, "Alice").attributes == {"age": 41}
    assert "ceo" not in entity(x, "Acme").attributes


def test_list_of_objects_gives_one_fact_per_item() -> None:
    x = map_json({"name": "Acme", "employees": [{"name": "Bob"}, {"name": "Carol"}, None, "note"]})
    assert triples(x) == [("Acme", "EMPLOYEES", "Bob"), ("Acme", "EMPLOYEES", "Carol")]
    assert entity(x, "Acme").attributes == {"employees": ["note"]}  # the scalars of a mixed list stay


def test_nameless_nested_objects_are_named_by_their_path() -> None:
    x = map_json(
        {"name": "Acme", "hq": {"address": {"city": "Berlin"}}, "offices": [{"city": "Oslo"}, {"city": "Rome"}]}
    )
    assert set(triples(x)) == {
        ("Acme", "HQ", "Acme hq"),
        ("Acme hq", "ADDRESS", "Acme hq address"),
        ("Acme", "OFFICES", "Acme offices 1"),
        ("Acme", "OFFICES", "Acme offices 2"),
    }
    assert entity(x, "Acme offices 2").attributes == {"city": "Rome"}


def test_deep_records_chain_facts() -> None:
    x = map_json({"name": "Acme", "ceo": {"name": "Alice", "lives_in": {"name": "Berlin", "type": "City"}}})
    assert triples(x) == [("Acme", "CEO", "Alice"), ("Alice", "LIVES_IN", "Berlin")]
    assert x.facts[1].fact == "Alice lives in Berlin"
    assert entity(x, "Berlin").labels == ["City"]


def test_an_entity_met_twice_is_listed_once_with_everything_known() -> None:
    x = map_json(
        {
            "name": "Acme",
            "ceo": {"name": "Alice", "age": 41},
            "employees": [{"name": "alice", "type": "Person", "age": 99, "team": "core"}],
            "founders": [{"name": "Alice"}, {"name": "Alice"}],
        }
    )
    assert [e.name for e in x.entities] == ["Acme", "Alice"]
    assert entity(x, "Alice").attributes == {"age": 41, "team": "core"}  # first value wins
    assert entity(x, "Alice").labels == ["Person"]
    assert triples(x) == [("Acme", "CEO", "Alice"), ("Acme", "EMPLOYEES", "alice"), ("Acme", "FOUNDERS", "Alice")]


@pytest.mark.parametrize(
    ("key", "relation"),
    [
        ("ceo", "CEO"),
        ("lives_in", "LIVES_IN"),
        ("boardMembers", "BOARD_MEMBERS"),
        ("board-members", "BOARD_MEMBERS"),
        ("Board Members", "BOARD_MEMBERS"),
        ("parentOrgID", "PARENT_ORG_ID"),
        ("--", "RELATED_TO"),
    ],
)
def test_relation_names_are_upper_snake_case(key: str, relation: str) -> None:
    assert relation_name(key) == relation


# -- valid time ------------------------------------------------------------------


def test_valid_time_keys_on_a_nested_object_date_its_fact() -> None:
    x = map_json(
        {
            "name": "Alice",
            "employers": [
                {"name": "Acme", "since": "2019-03-01", "until": "2021-06-30T12:00:00Z"},
                {"name": "Bolt", "start_date": "2021-07"},
            ],
        }
    )
    acme, bolt = fact(x, "Alice", "Acme"), fact(x, "Alice", "Bolt")
    assert acme.valid_at == "2019-03-01T00:00:00+00:00"
    assert acme.invalid_at == "2021-06-30T12:00:00+00:00"
    assert acme.time_expression == "2019-03-01 to 2021-06-30T12:00:00Z"
    assert (bolt.valid_at, bolt.invalid_at, bolt.time_expression) == ("2021-07-01T00:00:00+00:00", None, "2021-07")
    assert entity(x, "Acme").attributes == {}  # the times belong to the fact, not the company


@pytest.mark.parametrize(
    ("value", "iso", "expression"),
    [
        ("2019", "2019-01-01T00:00:00+00:00", "2019"),
        (2019, "2019-01-01T00:00:00+00:00", "2019"),
        (1_700_000_000, "2023-11-14T22:13:20+00:00", "1700000000"),
        ("2024-05-01T10:00:00+02:00", "2024-05-01T08:00:00+00:00", "2024-05-01T10:00:00+02:00"),
        ("last spring", None, "last spring"),
        (True, None, "true"),
    ],
)
def test_time_values(value: Any, iso: str | None, expression: str) -> None:
    x = map_json({"name": "Alice", "home": {"name": "Berlin", "valid_from": value}})
    f = x.facts[0]
    assert (f.valid_at, f.time_expression) == (iso, expression)


def test_times_on_the_top_object_date_its_direct_facts_and_stay_attributes() -> None:
    x = map_json(
        {
            "name": "Acme",
            "valid_from": "2024-01-01",
            "ceo": {"name": "Alice", "lives_in": {"name": "Berlin"}},
            "cfo": {"name": "Dan", "since": "2024-06-01"},
        }
    )
    assert fact(x, "Acme", "Alice").valid_at == "2024-01-01T00:00:00+00:00"
    assert fact(x, "Acme", "Dan").valid_at == "2024-06-01T00:00:00+00:00"  # its own time wins
    assert fact(x, "Alice", "Berlin").valid_at is None  # not inherited past the top object's own facts
    assert entity(x, "Acme").attributes == {"valid_from": "2024-01-01"}


# -- custom mappings -------------------------------------------------------------


def test_relation_rename_and_direction() -> None:
    mapping = JsonMapping(relations={"ceo": "CEO_OF"}, reverse_keys=frozenset({"ceo"}))
    x = map_json({"name": "Acme", "ceo": {"name": "Alice"}, "hq": {"name": "Berlin"}}, mapping=mapping)
    assert triples(x) == [("Alice", "CEO_OF", "Acme"), ("Acme", "HQ", "Berlin")]
    assert x.facts[0].fact == "Alice ceo of Acme"
    assert x.reasoning == "mapped from JSON by a custom mapping"


def test_an_explicit_default_mapping_is_still_the_default() -> None:
    assert map_json({"name": "Acme"}, mapping=JsonMapping()).reasoning == "mapped from JSON by the default mapping"


def test_ignore_and_attribute_keys() -> None:
    mapping = JsonMapping(ignore_keys=frozenset({"internal", "ETag"}), attribute_keys=frozenset({"address"}))
    x = map_json(
        {
            "name": "Acme",
            "etag": "abc",
            "internal": {"name": "Secret"},
            "address": {"street": "Main St", "city": "Berlin"},
            "ceo": {"name": "Alice", "internal": 1},
        },
        mapping=mapping,
    )
    assert [e.name for e in x.entities] == ["Acme", "Alice"]
    assert entity(x, "Acme").attributes == {"address": {"street": "Main St", "city": "Berlin"}}
    assert entity(x, "Alice").attributes == {}


def test_custom_name_label_and_time_keys() -> None:
    mapping = JsonMapping(
        name_keys=("handle",),
        label_keys=("category",),
        valid_from_keys=("from",),
        valid_to_keys=("to",),
    )
    x = map_json(
        {
            "handle": "@acme",
            "name": "Acme",
            "category": "Org",
            "member": {"handle": "@al", "from": "2020", "to": "2022"},
        },
        mapping=mapping,
    )
    assert entity(x, "@acme").attributes == {"name": "Acme"}
    assert entity(x, "@acme").labels == ["Org"]
    f = fact(x, "@acme", "@al")
    assert (f.valid_at, f.invalid_at) == ("2020-01-01T00:00:00+00:00", "2022-01-01T00:00:00+00:00")


def test_mapping_keys_match_case_insensitively() -> None:
    mapping = JsonMapping(relations={"CEO": "CEO_OF"}, reverse_keys=frozenset({"Ceo"}))
    x = map_json({"Name": "Acme", "TYPE": "Company", "ceo": {"NAME": "Alice", "Since": "2020"}}, mapping=mapping)
    assert triples(x) == [("Alice", "CEO_OF", "Acme")]
    assert entity(x, "Acme").labels == ["Company"]
    assert x.facts[0].valid_at == "2020-01-01T00:00:00+00:00"


def test_mapping_is_frozen_and_strict() -> None:
    mapping = JsonMapping()
    with pytest.raises(ValidationError):
        mapping.max_depth = 3  # type: ignore[misc]
    with pytest.raises(ValidationError):
        JsonMapping(nme_keys=("name",))  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        JsonMapping(max_depth=0)


# -- depth, arrays, JSON text and bad input -------------------------------------


def nest(depth: int) -> dict[str, Any]:
    record: dict[str, Any] = {"name": f"n{depth}"}
    for level in range(depth - 1, 0, -1):
        record = {"name": f"n{level}", "child": record}
    return record


def test_max_depth_is_enforced() -> None:
    assert len(map_json(nest(3), mapping=JsonMapping(max_depth=3)).facts) == 2
    with pytest.raises(InvalidInputError, match="max_depth=3") as info:
        map_json(nest(4), mapping=JsonMapping(max_depth=3))
    assert info.value.field == "content"
    with pytest.raises(InvalidInputError):
        map_json(nest(17))  # the default is 16


def test_a_python_cycle_is_refused() -> None:
    record: dict[str, Any] = {"city": "Berlin"}
    record["self"] = record
    with pytest.raises(InvalidInputError):
        map_json(record)
    named: dict[str, Any] = {"name": "Acme"}
    named["self"] = named
    with pytest.raises(InvalidInputError, match="max_depth"):
        map_json(named)


def test_top_level_array_maps_each_object() -> None:
    x = map_json([{"name": "Acme", "ceo": {"name": "Alice"}}, {"city": "Berlin"}, {"city": "Oslo"}], root_name="batch")
    assert [e.name for e in x.entities] == ["Acme", "Alice", "batch 2", "batch 3"]
    assert triples(x) == [("Acme", "CEO", "Alice")]
    assert map_json([]).entities == []


def test_json_text_is_parsed() -> None:
    record = {"name": "Acme", "ceo": {"name": "Alice"}}
    assert map_json(json.dumps(record)) == map_json(record)
    assert map_json(json.dumps(record).encode()) == map_json(record)


@pytest.mark.parametrize(
    "bad",
    [None, 3, True, "not json {", '"a JSON string"', "42", [1, 2], [{"name": "A"}, "b"], b"\xff"],
)
def test_invalid_input(bad: Any) -> None:
    with pytest.raises(InvalidInputError) as info:
        map_json(bad)
    assert info.value.field == "content"


def test_a_value_json_cannot_hold_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="'tags'"):
        map_json({"name": "Acme", "tags": {"a", "b"}})


def test_deterministic_and_valid() -> None:
    record = {"name": "Acme", "ceo": {"name": "Alice"}, "offices": [{"city": "Oslo"}], "tags": ["x"]}
    a, b = map_json(record), map_json(json.loads(json.dumps(record)))
    assert a == b
    assert Extraction.model_validate(a.model_dump()) == a


# -- the documentation's examples ------------------------------------------------

DOC = Path(__file__).resolve().parent.parent / "docs" / "json-episodes.md"


def doc_examples() -> list[tuple[str, str]]:
    """Each ```json block of the doc that is followed by a ```facts block."""
    return re.findall(r"```json\n(.*?)```\s*\n\s*gives\s*\n\s*```facts\n(.*?)```", DOC.read_text(), re.S)


def test_the_doc_has_examples() -> None:
    assert len(doc_examples()) >= 4


@pytest.mark.parametrize(("record", "facts"), doc_examples())
def test_doc_examples_hold(record: str, facts: str) -> None:
    got = []
    for f in map_json(record).facts:
        row = [f.subject, f.relation, f.object, f.fact]
        if f.valid_at or f.invalid_at:
            row += [f.valid_at or "", f.invalid_at or ""]
        got.append(row)
    expected = [[cell.strip() for cell in line.split("|")] for line in facts.strip().splitlines()]
    assert got == expected
