"""The user's manager at the user's workplace across messages (ingest/offline/thread_work.py), and that manager
retiring or leaving: only with one workplace the user has not left, only for the user's own manager."""

from __future__ import annotations

import pytest

from .offline_thread_reading import SAM, last_facts


@pytest.mark.parametrize(
    ("job", "boss", "who"),
    [
        ("I work at Northwind Traders", "my manager Priya Shah signed off my leave", "Priya Shah"),
        ("I'm a nurse at Royal Infirmary", "my boss Dr. Helen Park was off today", "Helen Park"),
        ("I just started at Globex last week", "my supervisor Tom Reyes is nice", "Tom Reyes"),
    ],
)
def test_the_users_manager_works_where_the_user_works(job: str, boss: str, who: str) -> None:
    facts = last_facts(job, boss)
    org = next(f[2] for f in last_facts(job) if f[1] == "WORKS_AT")
    assert (who, "WORKS_AT", org) in facts


@pytest.mark.parametrize(
    "messages",
    [
        ("my manager Priya Shah signed off my leave",),  # no workplace said
        ("I work at Northwind Traders", "I also work at Globex on weekends", "my manager Priya Shah is nice"),
        ("I work at Northwind Traders", "I quit Northwind Traders", "my manager Priya Shah is nice"),  # left it
        ("I work at Northwind Traders", "my sister's boss Priya Shah is nice"),  # someone else's manager
    ],
)
def test_no_manager_workplace_without_one_current_job(messages: tuple[str, ...]) -> None:
    assert not [f for f in last_facts(*messages) if f[0] == "Priya Shah" and f[1] == "WORKS_AT"]


@pytest.mark.parametrize(
    "gone",
    [
        "mr shah retired last month!!",
        "Priya resigned yesterday, we're all in shock",
        "my boss has officially retired",
        "so Priya Shah left the company on Friday",
    ],
)
def test_the_managers_leaving_ends_both(gone: str) -> None:
    facts = last_facts("I work at Northwind Traders", "my manager Mr. Priya Shah signed off my leave", gone)
    assert (SAM, "NO_LONGER_REPORTS_TO", "Priya Shah") in facts
    assert ("Priya Shah", "LEFT", "Northwind Traders") in facts


@pytest.mark.parametrize(
    "other",
    [
        "my dad retired last month",  # not the manager
        "Tom resigned yesterday",  # someone the user does not report to
        "I retired my old laptop",  # the user, and a thing
    ],
)
def test_someone_elses_leaving_ends_nothing(other: str) -> None:
    facts = last_facts("I work at Northwind Traders", "my manager Priya Shah signed off my leave", other)
    assert not [f for f in facts if f[1] in ("NO_LONGER_REPORTS_TO", "LEFT")]
