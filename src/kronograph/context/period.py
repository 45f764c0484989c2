"""A period the question names ("in July 2023", "on October 13, 2023",
"on 1 February, 2023"): what happened then is what it asks about.

Only a period with its year is read (a month alone could be any year's);
a day is widened by a day either side, as people and sessions disagree
about a date by one.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

__all__ = ["named_month", "named_period"]

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH = (r"(?P<m>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<y>(?:19|20)\d\d)"
_FORMS = (
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),  # October 13, 2023
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),  # 1 February, 2023
    re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),  # July 2023
)
_ISO = re.compile(r"\b(?P<y>(?:19|20)\d\d)-(?P<m>[01]\d)-(?P<d>[0-3]\d)\b")


def _month(word: str) -> int:
    return next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(word.casefold()[:3]))


def named_month(word: str) -> bool:
    """Whether ``word`` is a month's name or its short form."""
    word = word.strip(".,?!").casefold()
    return len(word) >= 3 and any(m.startswith(word) for m in _MONTHS) or word == "sept"


def named_period(text: str) -> tuple[datetime, datetime] | None:
    """The first period ``text`` names, as [start, end) in UTC; None when it names none."""
    iso = _ISO.search(text)
    found = [(m.start(), m) for m in (form.search(text) for form in _FORMS) if m is not None]
    if iso is not None:
        found.append((iso.start(), iso))
    if not found:
        return None
    _, match = min(found, key=lambda f: f[0])
    parts = match.groupdict()
    try:
        year = int(parts["y"])
        month = int(parts["m"]) if parts["m"].isdigit() else _month(parts["m"])
        if parts.get("d"):
            day = datetime(year, month, int(parts["d"]), tzinfo=UTC)
            return day - timedelta(days=1), day + timedelta(days=2)
        start = datetime(year, month, 1, tzinfo=UTC)
    except ValueError:  # "February 30, 2023"
        return None
    return start, datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
