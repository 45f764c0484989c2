"""The offline date parser: every form it claims to read, resolved against a
fixed reference time, and the phrases it must leave alone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kronograph.ingest.offline import find_times, resolve_time

REF = datetime(2024, 5, 15, 14, 30, tzinfo=UTC)  # a Wednesday


def day(text: str, ref: datetime = REF) -> str | None:
    when = resolve_time(text, ref)
    return when.date().isoformat() if when else None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("on March 3, 2024", "2024-03-03"),
        ("March 3rd 2024", "2024-03-03"),
        ("on 3 March 2024", "2024-03-03"),
        ("the 3rd of March 2024", "2024-03-03"),
        ("2024-03-03", "2024-03-03"),
        ("in March 2024", "2024-03-01"),
        ("in Sept. 2021", "2021-09-01"),
        ("since 03/2021", "2021-03-01"),
        ("in 2019", "2019-01-01"),
        ("since 2019", "2019-01-01"),
        ("yesterday", "2024-05-14"),
        ("today", "2024-05-15"),
        ("tomorrow", "2024-05-16"),
        ("the day before yesterday", "2024-05-13"),
        ("this morning", "2024-05-15"),
        ("last week", "2024-05-08"),
        ("this week", "2024-05-13"),
        ("next week", "2024-05-20"),
        ("last month", "2024-04-01"),
        ("next month", "2024-06-01"),
        ("last year", "2023-01-01"),
        ("this year", "2024-01-01"),
        ("two weeks ago", "2024-05-01"),
        ("3 days ago", "2024-05-12"),
        ("a week ago", "2024-05-08"),
        ("a couple of weeks ago", "2024-05-01"),
        ("three months ago", "2024-02-15"),
        ("a month ago", "2024-04-15"),
        ("two years ago", "2022-01-01"),
        ("next Monday", "2024-05-20"),
        ("last Friday", "2024-05-10"),
        ("last Wednesday", "2024-05-08"),
        ("on Saturday", "2024-05-11"),
        ("last March", "2024-03-01"),
        ("last June", "2023-06-01"),
        ("next March", "2025-03-01"),
        ("in May", "2024-05-01"),
        ("in January", "2024-01-01"),
        ("in June", "2023-06-01"),  # a bare month: the latest begun by the reference day
        ("in December", "2023-12-01"),
        ("on 28 February", "2024-02-28"),
        ("on March 4", "2024-03-04"),
        ("on 20 November", "2023-11-20"),
    ],
)
def test_forms(text: str, expected: str) -> None:
    assert day(text) == expected


def test_last_month_crosses_the_year() -> None:
    assert day("last month", datetime(2024, 1, 10, tzinfo=UTC)) == "2023-12-01"


def test_last_week_is_seven_days_back_on_the_day() -> None:
    assert day("last week", datetime(2024, 3, 3, 9, 15, tzinfo=UTC)) == "2024-02-25"  # a Sunday: no snap to Monday
    assert resolve_time("last week", REF) == datetime(2024, 5, 8, tzinfo=UTC)  # UTC midnight
    assert day("the previous week", datetime(2024, 1, 4, tzinfo=UTC)) == "2023-12-28"


def test_weeks_ago_are_seven_days_each() -> None:
    assert day("five weeks ago", datetime(2024, 3, 1, tzinfo=UTC)) == "2024-01-26"


@pytest.mark.parametrize(
    ("ref", "text", "expected"),
    [
        (datetime(2024, 3, 31, tzinfo=UTC), "a month ago", "2024-02-29"),  # clamped to the month's end
        (datetime(2023, 3, 31, tzinfo=UTC), "one month ago", "2023-02-28"),
        (datetime(2024, 1, 20, tzinfo=UTC), "two months ago", "2023-11-20"),  # across the year
        (datetime(2024, 8, 31, tzinfo=UTC), "six months ago", "2024-02-29"),
        (datetime(2024, 7, 9, tzinfo=UTC), "a couple of months ago", "2024-05-09"),
    ],
)
def test_months_ago_keep_the_day(ref: datetime, text: str, expected: str) -> None:
    assert day(text, ref) == expected


def test_last_march_in_march_is_last_year() -> None:
    assert day("last March", datetime(2024, 3, 20, tzinfo=UTC)) == "2023-03-01"


def test_naive_reference_is_utc() -> None:
    assert resolve_time("yesterday", datetime(2024, 1, 1, 23, 0)) == datetime(2023, 12, 31, tzinfo=UTC)


def test_results_are_utc_midnight() -> None:
    when = resolve_time("on 5 May 2023", REF)
    assert when == datetime(2023, 5, 5, tzinfo=UTC) and when.tzinfo is UTC


@pytest.mark.parametrize(
    "text",
    [
        "I may join them",  # the modal, not the month
        "2019 was a great year",  # a bare year
        "see you Monday",  # a bare weekday, not a past statement
        "happy Friday",
        "I moved to Lisbon",
        "she has 12 cats",
        "on February 30, 2024",  # no such day
        "",
    ],
)
def test_not_times(text: str) -> None:
    assert find_times(text, REF) == []


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("since 2019", "since"),
        ("from May 2020", "since"),
        ("starting next Monday", "since"),
        ("as of last month", "since"),
        ("until 2022", "until"),
        ("till June 2021", "until"),
        ("in 2019", "at"),
        ("last week", "at"),
        ("before 2019", "other"),
        ("after March 2020", "other"),
    ],
)
def test_roles(text: str, role: str) -> None:
    (mention,) = find_times(text, REF)
    assert mention.role == role


def test_from_to_range() -> None:
    found = find_times("I worked there from 2015 to 2020.", REF)
    assert [(m.role, m.when.year) for m in found] == [("since", 2015), ("until", 2020)]
    assert [m.text for m in found] == ["from 2015", "to 2020"]


def test_to_alone_is_no_bound() -> None:
    assert find_times("we flew to 2020 Expo", REF) == []


def test_mentions_carry_their_words_and_place() -> None:
    text = "Tom joined Acme on 3 March 2024 and left last week."
    found = find_times(text, REF)
    assert [text[m.start : m.end] for m in found] == ["on 3 March 2024", "last week"]
