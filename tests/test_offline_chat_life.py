"""The offline extractor on a life outside work said in one breath: the club,
band or team one is in or gave up, where a child studies, the home one is in
or moving out of, the tools a team keeps its work in, a pet named in the next
clause, a new employer said right after leaving the old one, jobs said with
what they are done in, and the last day at a job; and still nothing from
plans, hedges, offers and other people's groups."""

from __future__ import annotations

import pytest

from .offline_thread_reading import SAM, facts

# -- groups --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "who", "group"),
    [
        ("i play in a trio called Blue Hour and i teach piano at Riverside Music School", SAM, "Blue Hour"),
        ("Maya sings in a choir called Voices United", "Maya", "Voices United"),
        ("I joined a running club, the Fenwick Harriers. we do thursday nights", SAM, "Fenwick Harriers"),
        ("we joined a book club called Spine Benders last month", SAM, "Spine Benders"),
        ("i'm in the volunteer fire brigade OSP Lipno, big exercise today", SAM, "OSP Lipno"),
        ("weekend futsal w/ Nakano Futsal Club, we lost 5-1", SAM, "Nakano Futsal Club"),
        ("rowing with the Tyne Amateur Rowing Club this morning", SAM, "Tyne Amateur Rowing Club"),
        ("joined the Glasgow University Hillwalking Club, first trip on saturday", SAM, "Glasgow University "
         "Hillwalking Club"),
    ],
)
def test_a_group_one_is_in(content: str, who: str, group: str) -> None:
    assert (who, "MEMBER_OF", group) in facts(content)


def test_joining_a_club_is_no_job_unless_as_one() -> None:
    joined = facts("Declan and I joined Galway Bay Sailing Club, weekends only")
    assert {("Declan", "MEMBER_OF", "Galway Bay Sailing Club"), (SAM, "MEMBER_OF", "Galway Bay Sailing Club")} <= joined
    assert not any(r == "WORKS_AT" for _, r, _ in joined)
    assert ("Tom", "WORKS_AT", "Chelsea Football Club") in facts("Tom joined Chelsea Football Club as a physio")


@pytest.mark.parametrize(
    "content",
    [
        "we might join a band called Blue Fox",
        "thinking of joining a book club called Spine Benders",
        "I nearly joined the Leeds Chess Club",
        "football with Tom tonight",
        "I'm going to quit the Leeds Chess Club",
    ],
)
def test_no_group_from_a_plan_or_a_friend(content: str) -> None:
    assert not any(r in ("MEMBER_OF", "NO_LONGER_MEMBER_OF") for _, r, _ in facts(content))


@pytest.mark.parametrize(
    ("content", "who", "group"),
    [
        ("I gave up the Galway Choral Society after ten years, just couldn't make it", SAM, "Galway Choral Society"),
        ("Tom left the Leeds Chess Club last year", "Tom", "Leeds Chess Club"),
        ("i quit the Hackney Harriers, too far now", SAM, "Hackney Harriers"),
    ],
)
def test_a_group_given_up(content: str, who: str, group: str) -> None:
    got = facts(content)
    assert (who, "NO_LONGER_MEMBER_OF", group) in got
    assert not any(r == "NO_LONGER_USES" for _, r, _ in got)


def test_a_company_left_is_no_club() -> None:
    assert (SAM, "LEFT", "Acme Club Ltd") in facts("I left Acme Club Ltd")


# -- study, home, tools ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "who", "school"),
    [
        ("our son Oisin just started engineering at the University of Galway", "Oisin", "University of Galway"),
        ("Tom is doing history at Trinity College now", "Tom", "Trinity College"),
        ("Tom started law at Kings College", "Tom", "Kings College"),
        ("Tom's in Leeds for his PhD at the University of Leeds.", "Tom", "University of Leeds"),
    ],
)
def test_where_someone_studies(content: str, who: str, school: str) -> None:
    assert (who, "STUDIED_AT", school) in facts(content)


def test_starting_work_at_a_school_is_no_study() -> None:
    assert not any(r == "STUDIED_AT" for _, r, _ in facts("Tom started work at Kings College"))


@pytest.mark.parametrize(
    ("content", "place"),
    [
        ("we're in a tiny flat in Marchmont but we love it", "Marchmont"),
        ("they're in a rented house in Leith", None),
        ("he's still living at home with us in Salthill", "Salthill"),
        ("We've discussed relocating from Lekki.", "Lekki"),
        ("we're thinking about moving away from Leeds", "Leeds"),
    ],
)
def test_a_home_said_in_passing(content: str, place: str | None) -> None:
    got = facts(content)
    if place is None:
        assert not any(s == SAM for s, _, _ in got)  # someone else's home, and no one named
    else:
        assert (SAM, "LIVES_IN", place) in got


def test_a_stopgap_home_is_not_taken() -> None:
    assert not facts("we're in a tiny flat in Marchmont for now but we want somewhere bigger")


@pytest.mark.parametrize(
    ("content", "place"),
    [
        ("moving out of our apartment in Pinheiros this week", "Pinheiros"),
        ("we moved out of our flat in Leith last month", "Leith"),
    ],
)
def test_moving_out_ends_a_home(content: str, place: str) -> None:
    got = facts(content)
    assert (SAM, "NO_LONGER_LIVES_IN", place) in got
    assert (SAM, "LIVES_IN", place) not in got


@pytest.mark.parametrize(
    "content",
    ["we're thinking about moving out of our flat in Leith", "we'll be moving out of our flat in Leith"],
)
def test_a_move_out_only_thought_of_ends_nothing(content: str) -> None:
    assert not any(r == "NO_LONGER_LIVES_IN" for _, r, _ in facts(content))


def test_a_dorm_is_where_one_lives() -> None:
    assert ("Zosia", "LIVES_IN", "Ursynów") in facts("Zosia lives in the dorm at Ursynów")


@pytest.mark.parametrize(
    ("content", "tool"),
    [
        ("We track matters in Clio so I'll paste the summary there", "Clio"),
        ("We put everything on Google Classroom, so it needs chunks", "Google Classroom"),
        ("I log my runs on Strava", "Strava"),
        ("we manage our projects in Asana", "Asana"),
    ],
)
def test_the_tool_work_is_kept_in(content: str, tool: str) -> None:
    assert (SAM, "USES", tool) in facts(content)


@pytest.mark.parametrize(
    ("content", "new", "old"),
    [
        ("the school switched from Google Classroom to Microsoft Teams over the break", "Microsoft Teams",
         "Google Classroom"),
        ("our team switched from Jira to Linear last month", "Linear", "Jira"),
    ],
)
def test_the_workplace_switching_tools_is_the_speakers_switch(content: str, new: str, old: str) -> None:
    got = facts(content)
    assert {(SAM, "USES", new), (SAM, "NO_LONGER_USES", old)} <= got


def test_a_band_switching_tools_is_not_the_speakers() -> None:
    assert not facts("the band switched from Logic to Ableton")


# -- pets, jobs, customers -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "pet"),
    [
        ("also we got a cat last weekend!! she's a tabby called Biscuit", "Biscuit"),
        ("we adopted a dog. he's a rescue greyhound named Ziggy.", "Ziggy"),
        ("we got a puppy! it's a collie called Bran.", "Bran"),
    ],
)
def test_a_pet_named_in_the_next_clause(content: str, pet: str) -> None:
    assert (SAM, "HAS_PET", pet) in facts(content)


def test_a_car_with_a_nickname_is_no_pet() -> None:
    assert not any(r == "HAS_PET" for _, r, _ in facts("we got a new car. she's a beauty called Betsy and she's fast"))


@pytest.mark.parametrize(
    ("content", "org"),
    [
        ("Hi! I'm Sam, first-year PhD student in marine biology at the University of Edinburgh.",
         "University of Edinburgh"),
        ("I'm a senior associate in the banking and finance practice at Banwo & Ighodalo in Lagos.",
         "Banwo & Ighodalo"),
        ("yo. sam here, backend eng at Mercari in tokyo.", "Mercari"),
        ("Sam here, I teach chemistry and maths at Galway Community College.", "Galway Community College"),
    ],
)
def test_a_job_with_what_it_is_done_in(content: str, org: str) -> None:
    assert (SAM, "WORKS_AT", org) in facts(content)


@pytest.mark.parametrize(
    ("content", "who", "org"),
    [
        ("wife Agnieszka got promoted, she's branch manager now at PKO BP in Białystok", "Agnieszka", "PKO BP"),
        ("Tunde is currently at Aluko & Oyebode.", "Tunde", "Aluko & Oyebode"),
    ],
)
def test_a_job_said_with_now_or_currently(content: str, who: str, org: str) -> None:
    assert (who, "WORKS_AT", org) in facts(content)


def test_no_job_from_a_belief_or_a_visit() -> None:
    assert not facts("Tom is currently at Heathrow.")
    assert not any(r == "WORKS_AT" for _, r, _ in facts("Tom's a believer in the power of prayer at Easter"))


@pytest.mark.parametrize(
    ("content", "who", "old", "new"),
    [
        ("Omar left Skyscanner last week, he's at FanDuel now. Better team.", "Omar", "Skyscanner", "FanDuel"),
        ("I left Acme in may, I'm with Initech now", SAM, "Acme", "Initech"),
    ],
)
def test_a_new_employer_said_after_leaving(content: str, who: str, old: str, new: str) -> None:
    got = facts(content)
    assert {(who, "LEFT", old), (who, "WORKS_AT", new)} <= got


@pytest.mark.parametrize(
    ("content", "org"),
    [
        ("Today was my last day at Banwo & Ighodalo. Eight years.", "Banwo & Ighodalo"),
        ("yesterday was my last shift at St Mary's, so weird", "St Mary's"),
    ],
)
def test_a_last_day_is_a_leaving(content: str, org: str) -> None:
    assert (SAM, "LEFT", org) in facts(content)


def test_a_last_day_to_come_is_no_leaving_yet() -> None:
    assert not facts("tomorrow will be my last day at Acme")


def test_a_business_run_by_its_trade_name() -> None:
    assert ("Declan", "OWNS", "Corrib Plumbing & Heating") in facts(
        "My husband Declan runs Corrib Plumbing & Heating and he's out every night"
    )
    assert not facts("Tom runs Parkrun on saturdays")


@pytest.mark.parametrize(
    ("content", "relation", "buyer"),
    [
        ("all our milk goes to Mlekovita, need help reading my feed analysis", "SUPPLIES", "Mlekovita"),
        ("we stopped supplying Tesco last year", "NO_LONGER_SUPPLIES", "Tesco"),
    ],
)
def test_a_customer_had_or_dropped(content: str, relation: str, buyer: str) -> None:
    got = facts(content)
    assert (SAM, relation, buyer) in got
    assert not any(r == "NO_LONGER_USES" for _, r, _ in got)


def test_a_customer_maybe_dropped_is_no_ending() -> None:
    assert not facts("we might stop selling to Arla")


@pytest.mark.parametrize(
    ("content", "relation", "place"),
    [
        ("e aí! sam here, jazz bassist from são paulo 🎸 i play in a trio", "COMES_FROM", "São Paulo"),
        ("hi, I'm Sam, a nurse from Leeds.", "COMES_FROM", "Leeds"),
        ("I'm Sam, dairy farmer near Choroszcz, 60 cows", "LIVES_IN", "Choroszcz"),
        ("sam here, portrait photographer based in Porto", "LIVES_IN", "Porto"),
    ],
)
def test_a_self_introduction_with_a_place(content: str, relation: str, place: str) -> None:
    assert (SAM, relation, place) in facts(content)


@pytest.mark.parametrize(
    "content",
    ["Tom, a nurse from Leeds, says hi", "sam here, flying from Leeds tomorrow", "I'm Sam, a huge fan from way back"],
)
def test_no_place_from_someone_elses_introduction_or_a_trip(content: str) -> None:
    assert not any(s == SAM and r in ("COMES_FROM", "LIVES_IN") for s, r, _ in facts(content))


@pytest.mark.parametrize(
    ("content", "new", "old"),
    [
        ("finally moved from Logic Pro to Ableton Live. session view is great", "Ableton Live", "Logic Pro"),
        ("we moved from Sketchup Pro to Revit last year", "Revit", "Sketchup Pro"),
    ],
)
def test_a_move_between_known_tools_is_no_move_of_house(content: str, new: str, old: str) -> None:
    got = facts(content)
    assert {(SAM, "USES", new), (SAM, "NO_LONGER_USES", old)} <= got
    assert not any(r.endswith("LIVES_IN") for _, r, _ in got)


def test_a_move_between_streets_is_a_move_of_house() -> None:
    assert (SAM, "LIVES_IN", "Vercel Road") in facts("we moved from Unity Street to Vercel Road")


@pytest.mark.parametrize(
    ("content", "org"),
    [
        ("first week done at Harrogate District Hospital. knackered", "Harrogate District Hospital"),
        ("first weeks at Money Forward done. it's rails", "Money Forward"),
        ("my first month over at Monzo, loving it", "Monzo"),
    ],
)
def test_the_first_weeks_done_at_a_new_job(content: str, org: str) -> None:
    assert (SAM, "WORKS_AT", org) in facts(content)


@pytest.mark.parametrize("content", ["my first week at Shopify is next week", "Tom's first week at Shopify done"])
def test_no_job_from_a_first_week_to_come_or_someone_elses(content: str) -> None:
    assert (SAM, "WORKS_AT", "Shopify") not in facts(content)


def test_helping_someone_move_says_nothing_of_ones_home() -> None:
    assert not facts("we helped Tom with moving from Leeds")
