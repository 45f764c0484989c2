"""Time handling: everything inside is timezone-aware UTC.

A naive datetime from a caller is read as UTC (never as local time), so the
same call gives the same answer on every machine.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import lru_cache

__all__ = ["Clock", "EPOCH", "as_utc", "from_micros", "read_time", "parse_time", "system_clock", "to_micros"]

Clock = Callable[[], datetime]
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def system_clock() -> datetime:
    """The default clock: the wall clock, in UTC."""
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """Read naive datetimes as UTC; convert aware ones to UTC."""
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def read_time(value: str | datetime) -> datetime:
    """A datetime or an ISO 8601 string (``Z`` allowed), as given: its own
    offset kept, naive left naive, once it is known to have a UTC equivalent
    within the calendar (years 1 to 9999). Nothing else is a time: not a
    number, not a numeric string (no Unix times), not a date alone.
    Raises TypeError or ValueError saying what is wrong."""
    if isinstance(value, datetime):
        raw = value
    elif isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        raw = datetime.fromisoformat(text)
    else:
        raise TypeError(f"expected a datetime or an ISO 8601 string, got {type(value).__name__}")
    try:
        as_utc(raw)
    except OverflowError:
        raise ValueError(f"{raw.isoformat()} is outside the years 1 to 9999 once converted to UTC") from None
    return raw


def parse_time(value: str | datetime) -> datetime:
    """Accept a datetime or an ISO 8601 string (``Z`` allowed), return aware UTC
    (see :func:`read_time` for what is refused)."""
    return as_utc(read_time(value))


def to_micros(value: datetime) -> int:
    """Microseconds since the Unix epoch: how stores keep times (exact, sortable)."""
    delta = (value if value.tzinfo is UTC else as_utc(value)) - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


@lru_cache(maxsize=65_536)
def from_micros(value: int) -> datetime:
    """The datetime of a stored time; cached, since reads decode the same
    times over and over (datetimes are immutable, so sharing them is safe)."""
    return EPOCH + timedelta(microseconds=value)
