"""The data model's own rules: keys, UTC, and trusted construction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from kronograph import Fact, RelationType
from kronograph.model import fold_relation, normalise_name, trusted
from kronograph.time import from_micros, parse_time, to_micros


def fields() -> dict[str, object]:
    return dict(
        uuid="f", group_id="g", subject="A", subject_uuid="a", relation="R", object="B", object_uuid="b",
        fact="A R B", valid_at=datetime(2024, 1, 1, tzinfo=UTC), invalid_at=None,
        created_at=datetime(2024, 1, 2, tzinfo=UTC), expired_at=None, invalidated_by=None, episodes=("e1",),
        attributes={}, event=False, tier=None, conflicting=(), qualifiers={}, data_subject=None,
    )


def test_trusted_builds_the_same_model_as_validation() -> None:
    checked, fast = Fact(**fields()), trusted(Fact, **fields())
    assert fast == checked and fast.model_dump() == checked.model_dump()
    assert fast.triple == "A R B" and repr(fast) == repr(checked)
    with pytest.raises(ValidationError):
        fast.subject = "C"  # type: ignore[misc]
    built = Fact.model_construct(**fields())  # what pydantic's public way makes, slot for slot
    assert vars(fast) == vars(built) and fast.model_fields_set == built.model_fields_set
    assert fast.model_extra == built.model_extra and fast.__pydantic_private__ == built.__pydantic_private__


def test_keys() -> None:
    assert normalise_name("  Acme \t  Corp ") == normalise_name("acme corp") == "acme corp"
    assert fold_relation("MIGRATED_OFF") == fold_relation("migrated-off") == fold_relation("Migrated Off")


def test_times_are_utc_and_exact() -> None:
    naive = parse_time("2024-03-01T12:00:00")
    assert naive == datetime(2024, 3, 1, 12, tzinfo=UTC) and naive.tzinfo is UTC
    plus2 = datetime(2024, 3, 1, 14, tzinfo=timezone(timedelta(hours=2)))
    assert parse_time(plus2) == naive and parse_time("2024-03-01T12:00:00Z") == naive
    for moment in (naive, plus2, datetime(1969, 7, 20, 20, 17, 40, 123456, tzinfo=UTC)):
        assert from_micros(to_micros(moment)) == moment
    assert Fact(**{**fields(), "valid_at": datetime(2024, 1, 1)}).valid_at.tzinfo is UTC


def test_relation_type_cardinality() -> None:
    assert RelationType(cardinality="many_to_one").one_object_per_subject
    assert RelationType(cardinality="one_to_one").one_subject_per_object
    with pytest.raises(ValidationError):
        RelationType(cardinality="few")  # type: ignore[arg-type]
