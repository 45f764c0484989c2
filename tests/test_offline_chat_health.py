"""Health in chat (ingest/offline/medical.py) and ties typed without a possessive (kin.py): a diagnosis, the
medicine taken and stopped, "husband is Emeka" / "wife = Meera"; nothing from a doubt or a negation."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kronograph.ingest.offline import OfflineExtractor

REF = datetime(2024, 5, 15, 14, 30, tzinfo=UTC)
SAM = "Sam Carter"


def facts(content: str) -> set[tuple[str, str, str]]:
    result = OfflineExtractor().extract(content, reference_time=REF, speaker=SAM, role="user")
    return {(f.subject, f.relation, f.object) for f in result.facts}


@pytest.mark.parametrize(
    ("content", "who", "condition"),
    [
        ("I was diagnosed with type 2 diabetes", SAM, "type 2 diabetes"),
        ("health update: diagnosed w/ a herniated disc", SAM, "herniated disc"),
        ("Kotaro has been diagnosed with atopic dermatitis", "Kotaro", "atopic dermatitis"),
        ("so I got diagnosed with sleep apnea last week", SAM, "sleep apnea"),
    ],
)
def test_a_diagnosis_is_a_condition(content: str, who: str, condition: str) -> None:
    assert (who, "HAS_CONDITION", condition) in facts(content)


@pytest.mark.parametrize(
    "content",
    [
        "I might be diagnosed with asthma",
        "I was not diagnosed with anything",
        "was I diagnosed with gout?",
        "they think I could be diagnosed with lupus",
    ],
)
def test_no_diagnosis_from_a_doubt(content: str) -> None:
    assert not [f for f in facts(content) if f[1] == "HAS_CONDITION"]


@pytest.mark.parametrize(
    ("content", "drug"),
    [
        ("the doctor put me on amlodipine", "amlodipine"),
        ("I'm on sertraline now", "sertraline"),
        ("GP started me on atorvastatin", "atorvastatin"),
        ("they prescribed me omeprazole", "omeprazole"),
    ],
)
def test_a_medicine_taken(content: str, drug: str) -> None:
    assert (SAM, "TAKES", drug) in facts(content)


def test_a_medicine_stopped_and_the_one_instead() -> None:
    found = facts("doc took me off the lisinopril and put me on amlodipine instead")
    assert (SAM, "NO_LONGER_TAKES", "lisinopril") in found and (SAM, "TAKES", "amlodipine") in found


def test_the_medicine_prescribed_after_a_diagnosis_is_that_ones() -> None:
    found = facts("Kotaro has been diagnosed with eczema. The vet prescribed Apoquel.")
    assert ("Kotaro", "TAKES", "Apoquel") in found


@pytest.mark.parametrize("content", ["I'm on Tinder now", "I'm on holiday", "maybe put me on metformin?"])
def test_no_medicine_from_other_things_one_is_on(content: str) -> None:
    assert not [f for f in facts(content) if f[1] == "TAKES"]


@pytest.mark.parametrize(
    ("content", "relation", "name"),
    [
        ("husband is Emeka, structural engineer", "MARRIED_TO", "Emeka"),
        ("wife = Meera. anaesthesiologist", "MARRIED_TO", "Meera"),
        ("ok so. sister: Ana, lives in Porto", "SIBLING_OF", "Ana"),
        ("we have one daughter, Adaeze", "PARENT_OF", "Adaeze"),
    ],
)
def test_a_tie_typed_without_my(content: str, relation: str, name: str) -> None:
    assert (SAM, relation, name) in facts(content)


@pytest.mark.parametrize("content", ["the husband is Emeka", "her husband is Emeka", "a friend: Tom"])
def test_no_tie_of_someone_else_typed_without_my(content: str) -> None:
    assert not [f for f in facts(content) if f[0] == SAM]


@pytest.mark.parametrize(
    ("content", "pets"),
    [
        ("i have 2 cats Mochi and Tofu", ["Mochi", "Tofu"]),
        ("I have 2 cats, Mochi and Tofu", ["Mochi", "Tofu"]),
        ("we have a dog Rex", ["Rex"]),
    ],
)
def test_pets_counted_in_digits_or_named_right_after(content: str, pets: list[str]) -> None:
    assert {(SAM, "HAS_PET", p) for p in pets} <= facts(content)


@pytest.mark.parametrize(
    ("content", "who", "partner"),
    [
        ("I've been on a few dates with Marek", SAM, "Marek"),
        ("I have been on two dates with Ana", SAM, "Ana"),
        ("I've been seeing Tom for a month", SAM, "Tom"),
        ("Ana has been seeing Joe since March", "Ana", "Joe"),
    ],
)
def test_dates_and_seeing_someone_is_dating(content: str, who: str, partner: str) -> None:
    assert (who, "DATING", partner) in facts(content)


@pytest.mark.parametrize(
    "content", ["I've been seeing a physio", "I've been seeing Dr. Patel about my knee", "I'm seeing Tom tomorrow"]
)
def test_seeing_a_doctor_or_a_friend_soon_is_no_dating(content: str) -> None:
    assert not [f for f in facts(content) if f[1] == "DATING"]


def test_a_condition_keeps_its_apostrophe() -> None:
    assert ("Ritva", "HAS_CONDITION", "Parkinson's") in facts("Ritva has been diagnosed with Parkinson's.")


@pytest.mark.parametrize(
    ("content", "tool"),
    [
        ("We draw everything in ArchiCAD, which I like, and render in Enscape.", "Enscape"),
        ("I edit in Premiere", "Premiere"),
        ("i mix in Ableton mostly", "Ableton"),
        ("we design all our screens in Figma", "Figma"),
    ],
)
def test_the_tool_the_speaker_makes_things_in(content: str, tool: str) -> None:
    assert (SAM, "USES", tool) in facts(content)


@pytest.mark.parametrize("content", ["I design in London", "she designs in Figma", "Tom edits in Avid"])
def test_no_tool_for_a_place_or_for_someone_else(content: str) -> None:
    assert not [f for f in facts(content) if f[0] == SAM and f[1] == "USES"]


@pytest.mark.parametrize(
    ("content", "tool"),
    [
        ("We changed the caisse, it is Odoo since last week.", "Odoo"),
        ("we switched our CRM - it's HubSpot now", "HubSpot"),
        ("I've replaced the booking tool, it's Calendly now", "Calendly"),
    ],
)
def test_a_thing_changed_and_what_it_is_now(content: str, tool: str) -> None:
    assert (SAM, "USES", tool) in facts(content)


@pytest.mark.parametrize(
    "content", ["Tom says we changed the caisse, it is Odoo now", "we changed the caisse, it is Tom who does it"]
)
def test_no_change_from_hearsay_or_a_person(content: str) -> None:
    assert not [f for f in facts(content) if f[1] == "USES"]


@pytest.mark.parametrize(
    ("content", "town"),
    [
        ("we share a flat in Podgorze with my cat Mruczek", "Podgorze"),
        ("i share a house in Leith with two nurses", "Leith"),
    ],
)
def test_a_shared_home_is_where_one_lives(content: str, town: str) -> None:
    assert (SAM, "LIVES_IN", town) in facts(content)


@pytest.mark.parametrize("content", ["we used to share a flat in Leith", "we might share a flat in Leith"])
def test_no_shared_home_from_the_past_or_a_plan(content: str) -> None:
    assert not [f for f in facts(content) if f[1] == "LIVES_IN"]


@pytest.mark.parametrize(
    ("content", "school"),
    [
        ("I started a specialization in veterinary dermatology at PUCPR", "PUCPR"),
        ("i started a pos-graduacao (specialization) in dermatology at PUCPR, classes on saturdays", "PUCPR"),
        ("I'm doing a postgraduate diploma at Kingston University", "Kingston University"),
    ],
)
def test_a_specialization_or_postgraduate_course_is_study(content: str, school: str) -> None:
    assert (SAM, "STUDIED_AT", school) in facts(content)


def test_chat_abbreviations_of_now_count_as_now() -> None:
    assert (SAM, "WORKS_AT", "Helix Labs") in facts("I'm at Helix Labs atm")
