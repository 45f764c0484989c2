"""The offline extractor on work, health and homes said in passing (seventh
chat round): the town a self-introduced job is done in, a company one drives
or delivers for, a condition named by its flare-ups or its medicine, names of
organisations opened by a word such as Clinique or Grupo, a team's switch of
tools, an emoji ending a sentence; and still nothing from plans, negations,
other people's conditions or a title that is no job."""

from __future__ import annotations

import pytest

from .offline_thread_reading import SAM, facts


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        ("hi! im Sam, pharmacist in Porto, happy to be here", (SAM, "WORKS_IN", "Porto")),
        ("sam here, a nurse in Leeds.", (SAM, "WORKS_IN", "Leeds")),
        ("I'm Sam, electrician in Monterrey.", (SAM, "WORKS_IN", "Monterrey")),
        ("I'm Sam, I drive buses in Gothenburg for Transdev.", (SAM, "WORKS_AT", "Transdev")),
        ("i drive for Uber on weekends", (SAM, "WORKS_AT", "Uber")),
        ("I deliver parcels for Evri now.", (SAM, "WORKS_AT", "Evri")),
        ("had an asthma flare during the run, embarrassing.", (SAM, "HAS_CONDITION", "Asthma")),
        ("my eczema is acting up again", (SAM, "HAS_CONDITION", "Eczema")),
        ("my migraines are back this week", (SAM, "HAS_CONDITION", "Migraines")),
        ("forgot my asthma inhaler at home", (SAM, "HAS_CONDITION", "Asthma")),
        ("sam here, vet at Clinique Vétérinaire des Cantons.", (SAM, "WORKS_AT", "Clinique Vétérinaire des Cantons")),
        ("our whole team switched from Tableau to Power BI this month.", (SAM, "USES", "Power BI")),
        ("our entire team switched from Jira to Linear.", (SAM, "NO_LONGER_USES", "Jira")),
        ("I'm allergic to latex 🙃 in my job.", (SAM, "ALLERGIC_TO", "latex")),
    ],
)
def test_said_in_passing(content: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(content)


@pytest.mark.parametrize(
    "content",
    [
        "I'd drive for Uber if I had a car.",
        "I might deliver for Deliveroo this summer.",
        "I'm Sam, a believer in Jesus.",
        "my asthma is gone since we moved",
        "my son's asthma inhaler is in my bag",
        "would you have an asthma attack from that?",
        "I'm Sam, I want to drive for Uber.",
    ],
)
def test_nothing_from_plans_or_others(content: str) -> None:
    found = {f for f in facts(content) if f[0] == SAM and f[1] in ("WORKS_AT", "WORKS_IN", "HAS_CONDITION")}
    assert not found


def test_emoji_is_no_part_of_a_name() -> None:
    assert (SAM, "LEFT", "Kotak Games 😱") not in facts("I resigned from Kotak Games 😱 going full time elsewhere")


@pytest.mark.parametrize(
    ("content", "place"),
    [
        ("We moved house last weekend from Nasr City to New Cairo.", "New Cairo"),
        ("we moved from Kalamaria to a flat in Ano Poli last weekend.", "Ano Poli"),
        ("we moved into a flat in Leith last month", "Leith"),
    ],
)
def test_a_move_said_with_the_home(content: str, place: str) -> None:
    assert (SAM, "LIVES_IN", place) in facts(content)


@pytest.mark.parametrize(
    "content", ["we might have moved to a house in Leith", "we haven't moved to a flat in Leith yet"]
)
def test_no_move_from_a_hedge_or_negation(content: str) -> None:
    assert (SAM, "LIVES_IN", "Leith") not in facts(content)


def test_a_move_of_tools_is_no_home() -> None:
    found = facts("finally moved from Logic Pro to Ableton Live.")
    assert (SAM, "USES", "Ableton Live") in found
    assert not {f for f in found if f[1] == "LIVES_IN"}


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        ("I joined the veterans team at Mölndal IBK, floorball on sundays.", (SAM, "MEMBER_OF", "Mölndal IBK")),
        ("joined the sunday football team at Kilmacud Crokes", (SAM, "MEMBER_OF", "Kilmacud Crokes")),
        ("We are founding our own practice, Farouk & Saleh Design.", (SAM, "FOUNDED", "Farouk & Saleh Design")),
        ("I started my own studio, Mothlight Games, last year", (SAM, "FOUNDED", "Mothlight Games")),
        ("I invested 50k shillings in Akinyi's startup Soko Fresh.", (SAM, "INVESTED_IN", "Soko Fresh")),
        ("we put money into Soko Fresh last year", (SAM, "INVESTED_IN", "Soko Fresh")),
        ("I'm an early investor in Monzo", (SAM, "INVESTED_IN", "Monzo")),
    ],
)
def test_sides_ventures_and_stakes(content: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(content)


def test_a_work_team_is_still_a_job() -> None:
    found = facts("I joined the data team at Acme last month")
    assert (SAM, "WORKS_AT", "Acme") in found
    assert (SAM, "MEMBER_OF", "Acme") not in found


@pytest.mark.parametrize(
    "content",
    [
        "me and my cousin want to open our own company, Ruiz Electrica.",
        "I'm thinking about starting my own studio, Mothlight Games.",
        "thinking of investing in Monzo",
        "should I invest in Monzo?",
        "I'm not an investor in Monzo",
        "I want to join the veterans team at Mölndal IBK",
    ],
)
def test_no_venture_stake_or_side_from_a_wish(content: str) -> None:
    assert not {f for f in facts(content) if f[1] in ("FOUNDED", "INVESTED_IN", "MEMBER_OF")}


@pytest.mark.parametrize(
    ("content", "tool"),
    [
        ("i do the modelling bits in Python", "Python"),
        ("I still do some of the quick site plans in AutoCAD.", "AutoCAD"),
        ("i transcribe my interviews by hand and write everything in Scrivener", "Scrivener"),
        ("we draft all our contracts in notion", "Notion"),
    ],
)
def test_work_done_in_a_known_tool(content: str, tool: str) -> None:
    assert (SAM, "USES", tool) in facts(content)


@pytest.mark.parametrize(
    "content",
    [
        "I do my shopping in Tesco",
        "I'd do the plans in AutoCAD",
        "should we do the plans in Revit?",
        "I do my work in London",
    ],
)
def test_no_tool_from_a_place_or_a_wish(content: str) -> None:
    assert not {f for f in facts(content) if f[1] == "USES"}


def test_a_decision_to_stop_using_a_tool_ends_it() -> None:
    assert (SAM, "NO_LONGER_USES", "AutoCAD") in facts("Also we decided to stop using AutoCAD entirely, too expensive.")
    assert not facts("we haven't decided to stop using AutoCAD")


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        (
            "Our son Youssef is very happy at Modern English School Cairo.",
            ("Youssef", "STUDIED_AT", "Modern English School Cairo"),
        ),
        ("my daughter Ana is in year 3 at Riverside Primary School", ("Ana", "STUDIED_AT", "Riverside Primary School")),
        ("our son Leo is in second grade at Hillside Academy now", ("Leo", "STUDIED_AT", "Hillside Academy")),
    ],
)
def test_a_childs_school(content: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(content)


@pytest.mark.parametrize(
    "content",
    [
        "I'm very happy at Riverside School",
        "Leo would be happy at Hillside Academy",
        "is Leo happy at Hillside Academy?",
        "my son Leo is not happy at Hillside Academy",
    ],
)
def test_no_school_from_a_wish_a_question_or_a_teacher(content: str) -> None:
    assert not {f for f in facts(content) if f[1] == "STUDIED_AT"}


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        ("we launched Brasa Kitchen in may", (SAM, "OWNS", "Brasa Kitchen")),
        ("I opened Luna Bakery last year", (SAM, "OWNS", "Luna Bakery")),
        ("my gf Amy Roy works at Café Bloom downtown.", ("Amy Roy", "WORKS_AT", "Café Bloom")),
    ],
)
def test_a_business_opened_and_a_place_said_after_the_name(content: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(content)


@pytest.mark.parametrize(
    "content", ["we will open Café Luna in june", "I opened Photoshop and cried", "she wants to open Café Luna"]
)
def test_no_business_from_a_plan_or_a_tool(content: str) -> None:
    assert not {f for f in facts(content) if f[1] == "OWNS"}


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        ("I'm allergic to dust mites not cats", (SAM, "ALLERGIC_TO", "dust mites")),
        ("I work at Acme not Google", (SAM, "WORKS_AT", "Acme")),
        ("I live in Leeds not London", (SAM, "LIVES_IN", "Leeds")),
    ],
)
def test_the_name_before_not_is_the_one(content: str, fact: tuple[str, str, str]) -> None:
    found = facts(content)
    assert fact in found
    assert not {f for f in found if f[2] in ("cats", "Google", "London")}


def test_a_negated_allergy_is_none() -> None:
    assert not facts("I'm not allergic to cats")


@pytest.mark.parametrize(
    ("content", "place"),
    [
        ("moved out of my kilimani flat, now in Westlands, closer to the office", "Westlands"),
        ("we moved out of the dorm, and we're now living in Leith", "Leith"),
        ("moved away from Leeds, now in York", "York"),
    ],
)
def test_a_move_out_then_where_one_is_now(content: str, place: str) -> None:
    assert (SAM, "LIVES_IN", place) in facts(content)


def test_a_move_away_ends_the_old_home() -> None:
    assert (SAM, "NO_LONGER_LIVES_IN", "Leeds") in facts("moved away from Leeds, now in York")
    assert not facts("I might have moved out of my flat, now in Leith")
