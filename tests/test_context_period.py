"""The period a question names (context/period.py): only with its year."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kronograph.context.period import named_month, named_period


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "period"),
    [
        ("What did Mel paint in July 2023?", (d(2023, 7, 1), d(2023, 8, 1))),
        ("what happened in dec 2023", (d(2023, 12, 1), d(2024, 1, 1))),  # December rolls the year
        ("Sept. 2022 was busy", (d(2022, 9, 1), d(2022, 10, 1))),
        ("the painting shown on October 13, 2023?", (d(2023, 10, 12), d(2023, 10, 15))),  # a day, +-1
        ("on 1 February, 2023?", (d(2023, 1, 31), d(2023, 2, 3))),
        ("the 3rd of May 2024", (d(2024, 5, 2), d(2024, 5, 5))),
        ("meeting on 2024-03-05", (d(2024, 3, 4), d(2024, 3, 7))),
        ("in May 2023, and then on June 2, 2024", (d(2023, 5, 1), d(2023, 6, 1))),  # the first named
    ],
)
def test_periods_with_their_year(text: str, period: tuple[datetime, datetime]) -> None:
    assert named_period(text) == period


@pytest.mark.parametrize(
    "text", ["camping in June?", "may I ask about 2023", "Feb 30, 2023", "on 2023-13-01", "no date here", ""]
)
def test_no_period_without_a_year_or_a_real_date(text: str) -> None:
    assert named_period(text) is None


def test_month_names() -> None:
    assert all(named_month(w) for w in ("July", "jul.", "Sept", "december,"))
    assert not any(named_month(w) for w in ("ju", "bake", "2023", "marching"))
