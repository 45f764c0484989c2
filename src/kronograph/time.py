"""Time handling: everything inside is timezone-aware UTC.

A naive datetime from a caller is read as UTC (never as local time), so the
same call gives the same answer on every machine.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import lru_cache

__all__ = ["Clock", "EPOCH", "as_utc", "from_micros", "parse_time", "system_clock", "to_micros"]

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


def parse_time(value: str | datetime) -> datetime:
    """Accept a datetime or an ISO 8601 string (``Z`` allowed), return aware UTC."""
    if isinstance(value, datetime):
        return as_utc(value)
    if not isinstance(value, str):
        raise TypeError(f"expected a datetime or an ISO 8601 string, got {type(value).__name__}")
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    return as_utc(datetime.fromisoformat(text))


def to_micros(value: datetime) -> int:
    """Microseconds since the Unix epoch: how stores keep times (exact, sortable)."""
    delta = (value if value.tzinfo is UTC else as_utc(value)) - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


@lru_cache(maxsize=65_536)
def from_micros(value: int) -> datetime:
    """The datetime of a stored time; cached, since reads decode the same
    times over and over (datetimes are immutable, so sharing them is safe)."""
    return EPOCH + timedelta(microseconds=value)
