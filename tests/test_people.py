"""Which short names are the same person as a speaker's or a user's full name."""

from __future__ import annotations

import pytest

from kronograph.ingest.people import NICKNAMES, anchor_for, anchors_of, same_person


@pytest.mark.parametrize(("name", "anchor"), [
    ("Sam", "Sam Carter"), ("sam", "Sam Carter"), ("Sam", "Samuel Carter"), ("Samuel", "Sam Carter"),
    ("Sammy", "Samantha Ortiz"), ("Bob", "Robert Smith"), ("Liz", "Elizabeth Wong"), ("Mike", "Michael Ng"),
    ("Alex", "Alexandra Petrova"), ("Kate", "Katherine Hale"), ("S. Carter", "Sam Carter"),
    ("S Carter", "Samuel Carter"), ("Samuel Carter", "Sam Carter"), ("Sam Carter", "Sam Carter"),
    ("Bob", "Robert"), ("Sam Carter", "Sam"), ("Robert", "Bob Smith Jr"),
])
def test_the_same_person(name: str, anchor: str) -> None:
    assert same_person(name, anchor)


@pytest.mark.parametrize(("name", "anchor"), [
    ("Sam Lee", "Sam Carter"), ("Samuel Lee", "Sam Carter"), ("Tom", "Sam Carter"), ("Carter", "Sam Carter"),
    ("S.", "Sam Carter"), ("T. Carter", "Sam Carter"), ("Alexander", "Alexandra Petrova"),
    ("", "Sam"), ("Samsung", "Sam Carter"),
])
def test_not_the_same_person(name: str, anchor: str) -> None:
    assert not same_person(name, anchor)


def test_the_nickname_table_is_a_small_common_one() -> None:
    assert 50 <= len(NICKNAMES) <= 150
    assert all(name == name.casefold() and all(s == s.casefold() for s in shorts) for name, shorts in NICKNAMES.items())


def test_an_anchor_is_chosen_only_when_it_is_the_only_one() -> None:
    assert anchor_for("Sam", ("Person",), ["Sam Carter", "Assistant"]) == "Sam Carter"
    assert anchor_for("Sam", (), ["Sam Carter", "Sam Lee"]) is None  # which Sam: nobody guesses
    assert anchor_for("Sam", ("Organization",), ["Sam Carter"]) is None  # not a person
    assert anchor_for("Sam Carter", ("Person",), ["Sam Carter"]) is None  # already the anchor


def test_a_longer_name_never_folds_into_a_shorter_anchor() -> None:
    assert anchor_for("Sam Carter", ("Person",), ["Sam"]) is None  # "Sam Carter" and "Sam Lee" must stay two


def test_an_assistant_speaker_is_no_anchor() -> None:
    assert anchors_of("Alex", "assistant", "Sam") == ["Sam"]
    assert anchors_of("Alex", "user", "Sam") == ["Alex", "Sam"]
    assert anchors_of("Sam", None, "sam") == ["Sam"]


def test_a_full_name_is_not_a_person_known_by_another_or_a_shorter_anchor() -> None:
    from datetime import UTC, datetime

    from kronograph.ingest.people import distinct_people
    from kronograph.model import Entity

    def person(name: str, *aliases: str, labels: tuple[str, ...] = ("Person",)) -> Entity:
        return Entity(uuid=name, group_id="g", name=name, aliases=aliases, labels=labels,
                      created_at=datetime(2024, 1, 1, tzinfo=UTC))

    assert distinct_people("Sam Lee", ("Person",), person("Sam", "Sam Carter"), [])
    assert distinct_people("Sam Lee", (), person("Sam"), ["Sam"])
    assert not distinct_people("Sam Lee", (), person("Sam"), [])  # no anchor: the usual fuzzy rules decide
    assert not distinct_people("Samuel Carter", ("Person",), person("Sam", "Sam Carter"), [])
    assert not distinct_people("Acme Corp", (), person("Acme", "Acme Robotics", labels=("Organization",)), [])
