"""Time expressions in English text, resolved against an episode's reference time.

Resolution rules (each documented once, here):

- Relative dates count in the calendar days of the reference time's own zone
  ("yesterday" at 01:00 in UTC+05:00 is the day before that local date).
- A day resolves to UTC midnight of that day; a coarser expression to the
  first day of its period: "last month" and "in March 2024" to the 1st of the
  month, "in 2019", "last year" and "three years ago" to the 1st of January,
  "this week" and "next week" to the Monday of that week.
- Counted back from the reference day, on the day: "last week" and "a week
  ago" are 7 days before it, "N weeks ago" N*7 days, "N days ago" N days,
  "N months ago" the same day N months before (clamped to the month's end:
  "a month ago" read on 31 March is 29 February).
- A day-and-month with no year is the latest one that is not more than 31
  days after the reference time ("on 4 March" read on 20 February is in two
  weeks); a month with no year is the latest one begun by the reference day
  ("in May" read in August is this May, read in April last May), but the next
  one after a start still to come ("starting in April", "starts in June",
  "will join in May", read in November: next year's).
- A bare weekday ("on Saturday", "last Friday") is the latest such day strictly
  before the reference day; "next Monday" the first one strictly after it.
- A weekend is its Saturday: "last weekend" (also "this past weekend") the
  latest weekend that ended before the reference day (read on a Monday, two
  days before); "over/at the weekend" the latest Saturday not after the
  reference day; "this weekend" the Saturday of the reference day's week;
  "next weekend" the one after.
- A season starts on the first of its month (meteorological, northern:
  spring 1 March, summer 1 June, autumn/fall 1 September, winter 1 December):
  "last summer" is the latest summer that ended before the reference day,
  "this summer" the one of the reference day's year (for winter: the one
  running or ahead), "next summer" the first to start after it, and "in
  (the) summer" the latest one starting not more than 31 days after it.
- "a few" and "several" count as three ("a few weeks ago"); "last night" is
  the day before the reference day.
- A part of a month or year: "the end of March" and "late March" are its
  last day, "mid-March" and "the middle of March" the 15th, "early March"
  and "the start of March" the 1st; of a year, 31 December, 1 July and 1
  January.
- A bare year, and a bare month name, count only after a preposition ("in 2019",
  "since March"), so "2019 was great" or "I may join" yield nothing.

Each mention carries a role from the word before it: ``since`` (since, from,
starting, as of), ``until`` (until, till, through, and the "to" of "from X to
Y"), ``other`` (before, after, by: no usable bound) or ``at``.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

__all__ = ["Role", "TimeMention", "clause_dates", "find_times", "resolve_time", "time_words"]

Role = Literal["at", "since", "until", "other"]

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_WEEKDAYS = {d: i for i, d in enumerate(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "couple of": 2,
    "a couple": 2,
    "couple": 2,
    "a few": 3,
    "few": 3,
    "several": 3,
}
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_ROLES: dict[str, Role] = {
    "since": "since",
    "from": "since",
    "starting": "since",
    "starting from": "since",
    "starting on": "since",
    "starting in": "since",
    "as of": "since",
    "beginning": "since",
    "until": "until",
    "till": "until",
    "til": "until",
    "through": "until",
    "to": "until",
    "before": "other",
    "after": "other",
    "by": "other",
}

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_FULL_MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NUM = (
    r"(?:\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:a\s+)?couple(?:\s+of)?"
    r"|(?:a\s+)?few|several)"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d{2}"

# Matched against lower-cased text: IGNORECASE would make this regex twice as slow.
_PATTERN = re.compile(
    r"\b(?:(?P<pre>since|from|starting(?:\s+(?:from|on|in))?|as\s+of|beginning|until|till|til|through|to|"
    r"by|in|on|during|around|before|after)\s+)?"
    r"(?:(?P<part>(?:the\s+)?(?:end|start|beginning|middle)\s+of|early|late|mid)[\s-]+)?"
    r"(?:(?P<iso>(?P<iy>\d{4})-(?P<im>\d{1,2})-(?P<id>\d{1,2}))"
    rf"|(?P<mdy>(?P<m1>{_MONTH})\s+(?P<d1>{_DAY})(?:,?\s+(?P<y1>{_YEAR}))?)"
    rf"|(?P<dmy>(?P<d2>{_DAY})\s+(?:of\s+)?(?P<m2>{_MONTH})(?:,?\s+(?P<y2>{_YEAR}))?)"
    rf"|(?P<my>(?P<m3>{_MONTH})(?:\s+of)?,?\s+(?P<y3>{_YEAR}))"
    rf"|(?P<mmy>(?P<m4>0?[1-9]|1[0-2])/(?P<y4>{_YEAR}))"
    rf"|(?P<ago>(?P<n>{_NUM})\s+(?P<unit>day|week|month|year)s?\s+ago)"
    r"|(?P<rel>(?P<q>last|past|previous|this|next)\s+(?:(?P<unit2>week|month|year)"
    rf"|(?P<m5>{_FULL_MONTH})|(?P<w5>{_WEEKDAY})))"
    r"|(?P<wk>(?:(?P<wq>last|past|previous|this\s+past|this|next)|(?P<wo>over|at)\s+the)\s+weekend)"
    r"|(?P<sea>(?:(?P<sq>last|past|previous|this|next)\s+|the\s+)?(?P<sn>spring|summer|autumn|fall|winter))"
    r"|(?P<dw>the\s+day\s+before\s+yesterday|yesterday|today|tonight|tomorrow|last\s+night"
    r"|this\s+(?:morning|afternoon|evening))"
    rf"|(?P<wd>{_WEEKDAY})|(?P<mo>{_FULL_MONTH})|(?P<yr>{_YEAR}))\b",
)
_PATTERN_ANY_CASE = re.compile(_PATTERN.pattern, re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class TimeMention:
    """One time expression: where it is, what it says, and what it resolves to."""

    start: int
    end: int
    text: str
    when: datetime
    role: Role


def _day(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None


def _shift_months(ref: datetime, months: int, keep_day: bool = False) -> datetime:
    """The 1st of the month ``months`` away, or with ``keep_day`` the same day (clamped to the month's end)."""
    index = ref.year * 12 + ref.month - 1 + months
    year, month = index // 12, index % 12 + 1
    day = 1
    if keep_day:
        day = min(ref.day, calendar.monthrange(year, month)[1])
    return datetime(year, month, day, tzinfo=UTC)


def _yearless(month: int, day: int, ref: datetime) -> datetime | None:
    """The latest such date not more than 31 days after ``ref``."""
    when = _day(ref.year, month, day)
    if when is None or when > ref + timedelta(days=31):
        when = _day(ref.year - 1, month, day)
    return when


def _relative(m: re.Match[str], ref: datetime, today: datetime) -> datetime | None:
    q = m["q"].lower()
    step = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1}[q]
    if unit := m["unit2"]:
        unit = unit.lower()
        if unit == "week":
            if step < 0:
                return today - timedelta(days=7)  # "last week": a week ago, on the day
            return today - timedelta(days=today.weekday()) + timedelta(weeks=step)
        if unit == "month":
            return _shift_months(today, step)
        return datetime(today.year + step, 1, 1, tzinfo=UTC)
    if month_name := m["m5"]:
        month = _MONTHS[month_name.lower()]
        year = today.year + step
        if q in ("last", "past", "previous"):
            year = today.year if month < today.month else today.year - 1
        elif q == "next":
            year = today.year if month > today.month else today.year + 1
        return datetime(year, month, 1, tzinfo=UTC)
    weekday = _WEEKDAYS[m["w5"].lower()]
    if step > 0:
        return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)
    if step == 0:
        return today + timedelta(days=weekday - today.weekday())
    return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)


def _weekend(m: re.Match[str], today: datetime) -> datetime:
    """A weekend's Saturday (see the module's rules)."""
    this_saturday = today + timedelta(days=5 - today.weekday())
    q = " ".join((m["wq"] or "").lower().split())
    if m["wo"]:
        return this_saturday if this_saturday <= today else this_saturday - timedelta(weeks=1)
    if q == "this":
        return this_saturday
    if q == "next":
        return this_saturday + timedelta(weeks=1)
    ended = this_saturday - timedelta(weeks=1)  # the weekend before this week's; on a Sunday, this one is not over
    return ended


def _season(m: re.Match[str], pre: str, today: datetime) -> datetime | None:
    """A season's first day (see the module's rules)."""
    month = _SEASONS[m["sn"].lower()]
    q = (m["sq"] or "").lower()
    if not q and pre not in ("in", "during", "since", "from", "until", "till", "by", "starting in"):
        return None  # "I fall", "spring cleaning": no time
    start = datetime(today.year, month, 1, tzinfo=UTC)
    if q in ("last", "past", "previous"):
        while _shift_months(start, 3) > today:  # it has not ended yet
            start = _shift_months(start, -12)
        return start
    if q == "this":
        return start if month != 12 or today.month > 2 else _shift_months(start, -12)
    if q == "next":
        return start if start > today else _shift_months(start, 12)
    return start if start <= today + timedelta(days=31) else _shift_months(start, -12)


def _resolve(m: re.Match[str], ref: datetime, ahead: bool = False) -> datetime | None:
    """The UTC time a match stands for, or None when it is not a time after all (``ahead``: a start still to
    come, "starting in April", so a bare month is the next one)."""
    today = datetime(ref.year, ref.month, ref.day, tzinfo=UTC)
    pre = (m["pre"] or "").lower()
    if m["iso"]:
        return _day(int(m["iy"]), int(m["im"]), int(m["id"]))
    if m["mdy"] or m["dmy"]:
        month = _MONTHS[(m["m1"] or m["m2"]).lower().rstrip(".")]
        day = int(re.sub(r"\D", "", m["d1"] or m["d2"]))
        year = m["y1"] or m["y2"]
        return _day(int(year), month, day) if year else _yearless(month, day, ref)
    if m["my"]:
        return _part_of(m["part"], int(m["y3"]), _MONTHS[m["m3"].lower().rstrip(".")])
    if m["mmy"]:
        return datetime(int(m["y4"]), int(m["m4"]), 1, tzinfo=UTC)
    if m["ago"]:
        count = _NUMBERS.get(re.sub(r"\s+", " ", m["n"].lower())) or int(m["n"])
        unit = m["unit"].lower()
        if unit in ("day", "week"):
            return today - timedelta(days=count * (7 if unit == "week" else 1))
        if unit == "month":
            return _shift_months(today, -count, keep_day=True)
        return datetime(today.year - count, 1, 1, tzinfo=UTC)
    if m["rel"]:
        return _relative(m, ref, today)
    if m["wk"]:
        return _weekend(m, today)
    if m["sea"]:
        return _season(m, pre, today)
    if word := m["dw"]:
        word = word.lower()
        offset = {"yesterday": -1, "tomorrow": 1, "last night": -1}.get(word, -2 if word.startswith("the day") else 0)
        return today + timedelta(days=offset)
    if m["wd"]:
        if pre not in ("on", "since", "from", "until", "till", "by", "starting on"):
            return None  # "see you Monday", "happy Friday": no statement about the past
        weekday = _WEEKDAYS[m["wd"].lower()]
        return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)
    if (not pre or pre == "on") and not m["part"]:
        return None  # a bare month name or year: "I may join", "2019 was great"
    if m["mo"]:
        month = _MONTHS[m["mo"].lower()]
        year = today.year if month <= today.month else today.year - 1  # the latest such month begun by now
        if ahead and month != today.month:
            year = today.year if month > today.month else today.year + 1  # "starts in April", said in November
        return _part_of(m["part"], year, month)
    return _part_of(m["part"], int(m["yr"]), None)


def _part_of(part: str | None, year: int, month: int | None) -> datetime:
    """ "the end of March": its last day; "mid-March" the 15th; "early March", "the start of 2023" the first day
    (of a year: "mid 2023" is 1 July, "late 2023" 31 December)."""
    word = (part or "").split()[-2 if part and part.endswith("of") else -1] if part else ""
    if month is None:
        month, day = {"end": (12, 31), "late": (12, 31), "middle": (7, 1), "mid": (7, 1)}.get(word, (1, 1))
        return datetime(year, month, day, tzinfo=UTC)
    if word in ("end", "late"):
        return datetime(year, month, calendar.monthrange(year, month)[1], tzinfo=UTC)
    return datetime(year, month, 15 if word in ("middle", "mid") else 1, tzinfo=UTC)


def find_times(text: str, reference: datetime) -> list[TimeMention]:
    """Every time expression in ``text``, in order, resolved against ``reference``."""
    if _DIGIT.search(text) is None and _QUICK.search(text) is None:
        return []
    # Days are the caller's: "yesterday" counts back from the reference time's
    # own calendar date, in the zone it was given in (naive: UTC).
    ref = reference if reference.tzinfo is not None else reference.replace(tzinfo=UTC)
    found: list[TimeMention] = []
    lower = text.lower()
    pattern = _PATTERN if len(lower) == len(text) else _PATTERN_ANY_CASE  # lower() keeps offsets, nearly always
    for m in pattern.finditer(lower if pattern is _PATTERN else text):
        try:
            ahead = (m["pre"] or "").startswith("starting") or _AHEAD.search(lower[max(0, m.start() - 24) : m.start()])
            when = _resolve(m, ref, bool(ahead))
        except (OverflowError, ValueError):  # "tomorrow" on 9999-12-31: past the calendar's end, no date
            continue
        if when is None:
            continue
        pre = re.sub(r"\s+", " ", (m["pre"] or "").lower())
        role: Role = _ROLES.get(pre, "at")
        if pre == "to" and not (found and found[-1].role == "since" and m.start() - found[-1].end <= 2):
            continue  # "to" bounds a range only right after "from X": "moved to May" is no date
        found.append(TimeMention(m.start(), m.end(), text[m.start() : m.end()], when, role))
    return found


def resolve_time(text: str, reference: datetime) -> datetime | None:
    """The first time expression in ``text`` resolved, or None: handy for one-off phrases."""
    found = find_times(text, reference)
    return found[0].when if found else None


def clause_dates(times: list[TimeMention], span: tuple[int, int, int], head_from: int = 0) -> dict[str, TimeMention]:
    """The dates of a clause: those inside it, else those heading the sentence (from ``head_from``, where the
    clause the first read one belongs to starts)."""
    start, end, head = span
    inside = [t for t in times if start <= t.start < end]
    chosen = inside or [t for t in times if head_from <= t.start < head]
    picked: dict[str, TimeMention] = {}
    for t in chosen:
        if t.role != "other":
            picked.setdefault(t.role, t)
    return picked


def time_words(text: str, used: list[TimeMention]) -> str | None:
    """The words of the dates a fact used: "from 2015 to 2020", or "since May ... until June"."""
    if not used:
        return None
    if len(used) == 2 and used[1].start - used[0].end <= 2:
        return text[used[0].start : used[1].end]
    return " ... ".join(t.text for t in used)


_DIGIT = re.compile(r"\d")
# a start still to come right before a bare month: "starting in April", "starts in June", "will begin in May"
_AHEAD = re.compile(r"(?:\bstarting|\bstarts?|\bbegins?|\bbeginning|\bwill\s+\w+|'ll\s+\w+)\s+(?:in\s+|from\s+)?$")
_QUICK = re.compile(
    rf"\b(?:{_FULL_MONTH}|{_WEEKDAY}|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|yesterday|today|tonight|"
    r"tomorrow|ago|last|past|previous|this|next|weekend|spring|summer|autumn|fall|winter)\b",
    re.IGNORECASE,
)
