"""Links a later message ends or that never started (ingest/offline/thread_endings.py, thread_corrections.py,
dates.py): the linked thing switched off, cancelled or not renewed; the speaker cancelling their own; a job
that starts later; "<A> now, not <B>"; and nothing from plans, doubts, hearsay or negations."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kronograph import Memory
from kronograph.ingest.offline.dates import find_times

from .offline_thread_reading import SAM, last_facts


@pytest.mark.parametrize(
    ("earlier", "later", "who", "name"),
    [
        ("we use Jenkins for CI", "Jenkins was switched off last week", SAM, "Jenkins"),
        ("our team runs everything on Heroku", "Heroku has been shut down, finally", SAM, "Heroku"),
        ("we use Figma for design", "The Figma licences weren't renewed.", SAM, "Figma"),
        ("we use Trello for planning", "our Trello subscription was cancelled", SAM, "Trello"),
        (
            "my wife Ana works at Northwind Traders",
            "Northwind Traders was shut down in May",
            "Ana",
            "Northwind Traders",
        ),
        ("I am a member of Riverside Rowing Club", "I cancelled my Riverside membership", SAM, "Riverside Rowing Club"),
        ("we use Slack at work", "we didn't renew our Slack plan", SAM, "Slack"),
        ("we use Asana for tasks", "I have stopped the Asana subscription.", SAM, "Asana"),
    ],
)
def test_a_link_the_thread_holds_ends(earlier: str, later: str, who: str, name: str) -> None:
    assert (who, "NO_LONGER_LINKED_TO", name) in last_facts(earlier, later)


@pytest.mark.parametrize(
    "later",
    [
        "Jenkins will be switched off next month",  # a plan
        "Jenkins is being switched off",  # under way
        "Jenkins was not switched off after all",  # negated
        "was Jenkins switched off?",  # a question
        "Tom says Jenkins was switched off",  # hearsay
        "if Jenkins is cancelled we are in trouble",  # a condition
        "Bamboo was switched off",  # a name the thread never linked
        "the Jenkins jobs were renewed",  # renewed: no ending
        "Jenkins has dropped support for Java 8",  # active: Jenkins did the dropping
        "Jenkins was closed for maintenance",  # closed for a while: no ending
    ],
)
def test_no_ending_from_a_plan_a_doubt_or_another_name(later: str) -> None:
    assert not [f for f in last_facts("we use Jenkins for CI", later) if f[1] == "NO_LONGER_LINKED_TO"]


@pytest.mark.parametrize(
    "text",
    [
        "Ana accepted a job at Globex, starting in April",
        "Ana starts at Globex in April",
        "Ana will join Globex in April",
        "Ana got a place at Leeds University, starting in September",
    ],
)
def test_a_start_still_to_come_is_no_current_link(text: str) -> None:
    facts = last_facts("my sister Ana is a nurse", text)
    assert not [f for f in facts if f[0] == "Ana" and f[1] in ("WORKS_AT", "STUDIES_AT", "STUDIED_AT")]


def test_a_bare_month_after_a_start_to_come_is_the_next_one() -> None:
    ref = datetime(2024, 11, 5, tzinfo=UTC)
    assert find_times("starting in April", ref)[0].when == datetime(2025, 4, 1, tzinfo=UTC)
    assert find_times("she starts in June", ref)[0].when == datetime(2025, 6, 1, tzinfo=UTC)
    assert find_times("she started in April", ref)[0].when == datetime(2024, 4, 1, tzinfo=UTC)
    assert find_times("since April", ref)[0].when == datetime(2024, 4, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("earlier", "later", "who", "old", "new"),
    [
        ("my wife Ana works at Deloitte", "Ana is at KPMG now, not Deloitte", "Ana", "Deloitte", "KPMG"),
        ("my brother Tom lives in London", "Tom lives in Leeds now, not in London", "Tom", "London", "Leeds"),
        ("my wife Ana works at Deloitte", "Ana is at KPMG these days, not Deloitte", "Ana", "Deloitte", "KPMG"),
        ("my wife Ana works at Deloitte", "Actually Ana is at KPMG, not Deloitte", "Ana", "Deloitte", "KPMG"),
        ("my wife Ana works at Deloitte", "Ana works at KPMG nowadays, not at Deloitte", "Ana", "Deloitte", "KPMG"),
        (
            "my wife Ana works at Attica Bank",
            "sorry, wrong, Ana is at Hellenic Bank, not Attica",
            "Ana",
            "Attica Bank",
            "Hellenic Bank",
        ),
    ],
)
def test_now_not_the_old_one_ends_it(earlier: str, later: str, who: str, old: str, new: str) -> None:
    facts = last_facts(earlier, later)
    assert (who, "NO_LONGER_LINKED_TO", old) in facts
    assert any(f[0] == who and f[2] == new for f in facts)


def test_now_not_without_owning_up_is_a_change_not_a_slip() -> None:
    with Memory(":memory:", model=None) as memory:
        memory.add_messages(
            "g",
            [
                {"role": "user", "content": "my wife Ana works at Deloitte", "created_at": "2024-01-01T10:00Z"},
                {"role": "user", "content": "Ana is at KPMG now, not Deloitte", "created_at": "2024-03-01T10:00Z"},
            ],
            thread="t1",
            user_name=SAM,
        )
        then = {(f.subject, f.object) for f in memory.facts("g", as_of="2024-02-01T00:00Z", relation="WORKS_AT")}
        now = {(f.subject, f.object) for f in memory.facts("g", relation="WORKS_AT")}
    assert ("Ana", "Deloitte") in then and ("Ana", "Deloitte") not in now and ("Ana", "KPMG") in now


@pytest.mark.parametrize(
    ("plan", "done"),
    [
        ("we are migrating from Xero to QuickBooks", "The QuickBooks migration is complete."),
        ("the office is switching from Xero to QuickBooks in January", "We have been on QuickBooks since the 8th."),
        ("our team is moving from Xero to QuickBooks next month", "QuickBooks went live on Monday"),
        ("we're changing from Xero to QuickBooks", "we're on QuickBooks now, much better"),
        ("I am switching from Xero to QuickBooks", "the switch is finally done"),
    ],
)
def test_a_switch_under_way_is_a_plan_until_it_is_done(plan: str, done: str) -> None:
    planned = last_facts("we use Xero for the books", plan)
    assert (SAM, "USES", "QuickBooks") not in planned
    facts = last_facts("we use Xero for the books", plan, done)
    assert (SAM, "NO_LONGER_LINKED_TO", "Xero") in facts and (SAM, "USES", "QuickBooks") in facts


@pytest.mark.parametrize(
    ("plan", "done"),
    [
        ("Globex is switching from Xero to QuickBooks", "The QuickBooks migration is complete."),  # not ours
        ("Tom says we are migrating from Xero to QuickBooks", "the migration is complete"),  # hearsay
        ("we are migrating from Xero to QuickBooks", "the migration might be complete by May"),  # a doubt
        ("we use QuickBooks a bit", "the migration is complete"),  # no switch pending
        ("we are moving from Leeds to York", "the move is complete"),  # a move of house, no tool
    ],
)
def test_no_switch_done_without_a_pending_switch_of_ours(plan: str, done: str) -> None:
    facts = last_facts("we use Xero for the books", plan, done)
    assert (SAM, "NO_LONGER_LINKED_TO", "Xero") not in facts
    assert (SAM, "USES", "York") not in facts


@pytest.mark.parametrize(
    ("earlier", "later", "full"),
    [
        (
            "I'm going to Hospital Veterinario Clinivet in October",
            "first week at clinivet done",
            "Hospital Veterinario Clinivet",
        ),
        ("I got a job at Royal Brompton Hospital", "first week at Brompton done", "Royal Brompton Hospital"),
    ],
)
def test_a_distinct_word_of_a_long_name_said_before_is_that_name(earlier: str, later: str, full: str) -> None:
    assert any(f[2] == full for f in last_facts(earlier, later))


@pytest.mark.parametrize(
    ("earlier", "later", "who", "place"),
    [
        ("I have a small bakery in Leeds, Crumbs", "my chef is Rachid Amrani", "Rachid Amrani", "Crumbs"),
        ("I work at Globex", "my colleague Tom says hi", "Tom", "Globex"),
        ("I'm a nurse at St Mary's Hospital", "my boss Dr. Alves wants me on nights", "Alves", "St Mary's Hospital"),
    ],
)
def test_the_people_the_speaker_works_with_work_there_too(earlier: str, later: str, who: str, place: str) -> None:
    assert (who, "WORKS_AT", place) in last_facts(earlier, later)


@pytest.mark.parametrize(
    "later",
    ["my old boss Tom says hi", "I left Globex last week. my colleague Tom says hi"],
)
def test_no_shared_workplace_for_a_former_tie_or_a_job_left(later: str) -> None:
    assert not [f for f in last_facts("I work at Globex", later) if f[0] == "Tom" and f[1] == "WORKS_AT"]


def test_no_shared_workplace_with_two_workplaces_known() -> None:
    facts = last_facts("I work at Globex and I own a cafe, Beanery", "my colleague Tom says hi")
    assert not [f for f in facts if f[0] == "Tom" and f[1] == "WORKS_AT"]


@pytest.mark.parametrize(
    ("later", "who", "name"),
    [
        ("Northwind Traders went bust last month", "Ana", "Northwind Traders"),
        ("Northwind Traders shut down in March.", "Ana", "Northwind Traders"),
        ("Northwind Traders folded.", "Ana", "Northwind Traders"),
        ("my Riverside membership lapsed", SAM, "Riverside Rowing Club"),
    ],
)
def test_a_workplace_or_club_that_folded_or_lapsed_ends(later: str, who: str, name: str) -> None:
    earlier = "my wife Ana works at Northwind Traders. I am a member of Riverside Rowing Club."
    assert (who, "NO_LONGER_LINKED_TO", name) in last_facts(earlier, later)


@pytest.mark.parametrize(
    "later",
    ["Northwind Traders shut down the Leeds office", "Northwind Traders might go bust", "the Riverside season ended"],
)
def test_no_ending_from_a_transitive_a_doubt_or_another_thing_ending(later: str) -> None:
    earlier = "my wife Ana works at Northwind Traders. I am a member of Riverside Rowing Club."
    assert not [f for f in last_facts(earlier, later) if f[1] == "NO_LONGER_LINKED_TO"]


@pytest.mark.parametrize(
    "later",
    [
        "Ana got a job at Initech, she starts in March.",
        "Ana accepted a place at Leeds University, starting in September",
        "Ana was hired by Initech and her first day is next Monday",
    ],
)
def test_a_job_won_that_starts_later_is_a_plan(later: str) -> None:
    facts = last_facts("my wife Ana is a teacher", later)
    assert not [f for f in facts if f[0] == "Ana" and f[1] in ("WORKS_AT", "STUDIED_AT")]


def test_a_job_won_that_started_is_a_job() -> None:
    facts = last_facts("my wife Ana is a teacher", "Ana got a job at Initech, she started in March.")
    assert ("Ana", "WORKS_AT", "Initech") in facts


@pytest.mark.parametrize(
    "later", ["Ana is at KPMG today, not Deloitte", "Ana likes KPMG, not Deloitte", "KPMG, not Deloitte"]
)
def test_no_change_from_a_not_without_now_or_owning_up(later: str) -> None:
    assert ("Ana", "NO_LONGER_LINKED_TO", "Deloitte") not in last_facts("my wife Ana works at Deloitte", later)


@pytest.mark.parametrize(
    "later", ["I've had to quit the harriers though, it's too far.", "I quit the harriers", "we cancelled the harriers"]
)
def test_a_club_quit_by_its_last_word_in_lower_case_ends(later: str) -> None:
    facts = last_facts("I joined a running club, the Kirkstall Harriers.", later)
    assert (SAM, "NO_LONGER_LINKED_TO", "Kirkstall Harriers") in facts


@pytest.mark.parametrize("later", ["I have to quit the harriers soon", "I might quit the harriers", "I quit the gym"])
def test_no_club_quit_from_a_plan_or_another_name(later: str) -> None:
    facts = last_facts("I joined a running club, the Kirkstall Harriers.", later)
    assert (SAM, "NO_LONGER_LINKED_TO", "Kirkstall Harriers") not in facts


@pytest.mark.parametrize("earlier", ["I drive a Tesla Model 3, I own it outright", "we bought a Honda Civic"])
def test_a_car_owned_is_no_workplace(earlier: str) -> None:
    assert not [f for f in last_facts(earlier, "my colleague Tom says hi") if f[1] == "WORKS_AT"]
