"""Which short names are the same person as a speaker's or a user's full name."""

from __future__ import annotations

import pytest

from kronograph.ingest.people import NICKNAMES, anchor_for, same_person


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
