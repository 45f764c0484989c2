"""Attribute values with their units: "The policy rate is 5.00 percent", "our budget is now $190",
"Revenue was €3.2 million in Q2", "status: blocked", "My weight is 72 kg".

A value is one fact ``<thing> HAS_VALUE <value as written>`` whose attributes carry the parsed number and unit
(``{"value": 190, "unit": "USD"}``; a word value as ``{"value": "blocked"}``) and, when the sentence names one,
the period the value is for (``{"period": "2025"}``, see :data:`PERIOD`). HAS_VALUE is declared one value per
subject, so "our budget is now $250" later replaces $190.

The subject is the thing whose value it is, named as said: "the policy rate" is the entity ``policy rate``;
"my weight", "our budget" are the speaker's (``Sam's weight``, ``Sam's budget``; with no speaker, nothing);
"Acme's revenue" is Acme's. A status with no owner ("status: blocked", "the project's status is on hold") is
that of the one project (else the one organisation) the episode named, else the speaker's; with none of those,
nothing. "his", "her", "their" and "its" give nothing: whose it is would be a guess.

Conservative on purpose: the value must follow the verb at once (only "now", "currently", "still", "at",
"about" between) and end the clause, so "the rate is high", "the rate is 5% higher than last year", "status
quo", "my flight is at 5pm" and "the rate isn't 5%" give nothing; a bare number with no unit counts only for a
count ("the headcount is now 45"), and a word value only for a status ("blocked", "on hold", "at risk" ...).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from .context import Context, Subject
from .dates import TimeMention, find_times

__all__ = ["PERIOD", "VALUE_RELATION", "read_values"]

VALUE_RELATION = "HAS_VALUE"
PERIOD = "period"  # the period a value is for: an attribute, and the fact's qualifier (HAS_VALUE declares it)

_CURRENCY_SIGNS = {"us$": "USD", "$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
_CODES = "USD EUR GBP JPY CHF CAD AUD INR CNY SEK NOK DKK".split()
_CURRENCY_WORDS = {"dollar": "USD", "dollars": "USD", "euro": "EUR", "euros": "EUR", "pounds": "GBP", "quid": "GBP"}
_MULTIPLIERS = {
    "k": 1_000, "thousand": 1_000, "m": 1_000_000, "mn": 1_000_000, "mm": 1_000_000, "million": 1_000_000,
    "b": 1_000_000_000, "bn": 1_000_000_000, "billion": 1_000_000_000, "tn": 10**12, "trillion": 10**12,
}  # fmt: skip
# a unit as written -> as stored
_UNITS = {
    "%": "percent", "percent": "percent", "per cent": "percent", "pct": "percent",
    "percentage points": "percentage points", "percentage point": "percentage points", "pp": "percentage points",
    "bps": "basis points", "basis points": "basis points", "bp": "basis points",
    "kg": "kg", "kgs": "kg", "kilos": "kg", "kilo": "kg", "kilograms": "kg", "g": "g", "grams": "g",
    "lb": "lb", "lbs": "lb", "stone": "stone", "km": "km", "kilometres": "km", "kilometers": "km",
    "miles": "miles", "mi": "miles", "metres": "m", "meters": "m", "cm": "cm", "mm": "mm", "ft": "ft", "feet": "ft",
    "hours": "hours", "hour": "hours", "hrs": "hours", "hr": "hours", "h": "hours",
    "minutes": "minutes", "mins": "minutes", "min": "minutes", "seconds": "seconds", "secs": "seconds",
    "s": "seconds", "ms": "ms", "days": "days", "day": "days", "weeks": "weeks", "months": "months",
    "years": "years", "°c": "°C", "°f": "°F", "degrees": "degrees", "people": "people", "employees": "people",
    "staff": "people", "users": "users", "customers": "customers", "members": "members", "bpm": "bpm",
    "mmhg": "mmHg", "kcal": "kcal", "calories": "kcal", "steps": "steps", "gb": "GB", "tb": "TB", "mb": "MB",
    "points": "points", "pts": "points", "units": "units", "litres": "litres", "liters": "litres", "l": "litres",
}  # fmt: skip
_PER = "hour day week month year annum km kg night person head user seat ounce oz share unit item litre gallon kwh"
_PER_UNITS = _PER.split()

_UNIT_ALTS = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_NUMBER = (
    r"(?P<sign>US\$|\$|€|£|¥|₹|(?:" + "|".join(_CODES) + r")\s?)?"
    r"(?P<num>[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-−]?\d+(?:\.\d+)?)"
    r"(?:\s?(?P<mult>k|mn|bn|tn|thousand|million|billion|trillion|m|b)(?![\w%]))?"
    r"(?:\s?(?P<unit>" + _UNIT_ALTS + r"|" + "|".join(_CODES) + r"|dollars?|euros?|pounds|quid)(?![\w]))?"
    r"(?:\s?(?:/|per|an?)\s?(?P<per>" + "|".join(_PER_UNITS) + r"))?"
)
_NUMBER_RE = re.compile(_NUMBER, re.IGNORECASE)

# the words a status is said in; a status said otherwise ("the status is unclear") gives nothing
_STATUSES = frozenset(
    """
    blocked unblocked done complete completed finished closed open active inactive paused cancelled canceled
    delayed late shipped live launched approved rejected pending draft drafted green amber red yellow
    ongoing stalled suspended resolved unresolved deprecated archived scheduled planned started underway
    """.split()
)
_STATUS_PHRASES = (
    "on hold", "in progress", "at risk", "on track", "off track", "in review", "under review", "not started",
    "in testing", "in qa", "in production", "on schedule", "behind schedule", "ahead of schedule", "in planning",
    "waiting on review",
)  # fmt: skip
_STATUS_WORDS = frozenset("status state stage phase health".split())
# counts a bare number is read for ("the headcount is now 45"); other bare numbers ("my son is 5") give nothing
_COUNTS = frozenset(
    """
    headcount count total number population attendance score rating rank ranking level size capacity
    backlog turnout tally deliveries sales orders signups sign-ups subscribers downloads visitors users customers
    shipments bookings registrations installs applications leads attendees views visits followers tickets units
    """.split()
)
# words that make a head no attribute's name ("what I want is 5kg", "this is 5%")
_NOT_ATTRIBUTE = frozenset(
    """
    i me you he she it we they this that these those there here what which who whom whose one ones all both
    each some any none nothing everything something anything thing things answer question problem point
    reason plan idea guess bet deal difference issue catch trick he's she's it's i'm ha haha lol
    him them us
    """.split()
)
_WORTH_READING = re.compile(r"\d|\b(?:status|state|stage|phase|health)\b", re.IGNORECASE)
_BECAUSE = re.compile(r"\s+(?:on|by|until|due\s+to|because|pending|waiting|for)\b", re.IGNORECASE)
_TOPIC_NOUNS = frozenset("project company firm startup business team".split())
_BODY = frozenset("kg lb stone cm ft m years".split())
_OWNERS_UNKNOWN = frozenset("his her their its your".split())
_FILLERS = r"(?:(?:so|ok|okay|also|btw|fyi|update|quick\s+update|note|well|and|but|oh)\s*[,:\-—]?\s+)*"
_PERIOD_WORDS = r"(?:Q[1-4](?:\s+(?:19|20)\d\d)?|H[12](?:\s+(?:19|20)\d\d)?|FY\s?'?(?:\d{4}|\d\d)|(?:19|20)\d\d)"
_HEAD = (
    r"(?P<det>(?P<name>(?-i:[A-Z])[\w&.\-]*(?:\s+(?-i:[A-Z])[\w&.\-]*){0,3})['’]s|(?:the\s+)?(?P<noun>[a-z]+(?:\s+[a-z]+)?)['’]s"
    r"|the|my|our|his|her|their|its|your)?\s*"
    rf"(?:(?P<pre>{_PERIOD_WORDS})\s+)?"  # "Q3 revenue was $12.4m"
    r"(?P<attr>[a-z][a-z\-]*(?-i:(?:\s+(?:of\s+)?(?!(?:is|are|was|were|has|have|had|got|been)\b)[a-z][a-z\-]*){0,3}))"
    rf"(?:\s+(?:for|in)\s+(?P<post>{_PERIOD_WORDS}))?"  # "Revenue for 2024 was £8.1 million"
)
# a change said with its new value: "was raised to 5.5%", "my rent went up to £1,400"
_CHANGED = (
    r"(?:(?:was|were|has\s+been|have\s+been|got|is\s+being)\s+)?(?:raised|increased|cut|lowered|reduced|hiked|"
    r"set|revised|upped|bumped\s+up|adjusted)\s+to|(?:rose|fell|dropped|climbed|jumped|grew|declined|increased|"
    r"decreased|went\s+up|went\s+down|has\s+risen|has\s+fallen|has\s+dropped|has\s+grown|has\s+climbed)\s+to"
)
_VERB = (
    rf"(?:\s*:\s*|\s+(?P<verb>{_CHANGED}|is|are|was|were|has\s+been|have\s+been|stands\s+at|stood\s+at|came\s+in\s+at|"
    rf"comes\s+in\s+at|sits\s+at|sat\s+at|remains|remained)\s+(?:now\s+|currently\s+|still\s+|just\s+)?"
    r"(?:at\s+|about\s+|around\s+|roughly\s+|approximately\s+)?"
    r"|(?P<contracted>['’]s)\s+(?:now\s+|currently\s+|still\s+|just\s+)?)"  # "the rate's 5% now"
)
_VALUE_START = re.compile(
    r"(?:^|(?<=[,;])\s*|\b(?:and|but|so|then)\s+)" + _FILLERS + _HEAD + _VERB, re.IGNORECASE
)
# a period the value is for: "for 2025", "in Q2", "for Q3 2024", "in H1", "for FY2025"
_PERIOD = re.compile(
    r"^\s*,?\s*(?:for|in|during)\s+(?:the\s+)?(?:(?P<q>Q[1-4]|H[12])(?:\s+(?:of\s+)?(?P<qy>(?:19|20)\d\d))?"
    r"|(?P<fy>FY\s?'?(?:\d{4}|\d\d))|(?P<year>(?:19|20)\d\d)(?=\s*(?:$|[.,;!])))",
    re.IGNORECASE,
)
_TAIL_OK = re.compile(
    r"^\s*(?:$|[.,;!)]|(?:and|but|so|which|though|—|-)\b|(?:now|currently|today|again|too|overall|in\s+total|exactly|"
    r"at\s+the\s+moment|right\s+now|as\s+well)\s*(?:$|[.,;!)]))",
    re.IGNORECASE,
)
_LEADS = re.compile(r"[\s,]*(?:(?:in|on|at|since|from|as\s+of|during|by|until|till)\s+)?", re.IGNORECASE)
_FUTURE = re.compile(
    r"\b(?:will|'ll|going\s+to|gonna|expected|forecast|projected|should|could|might|(?-i:may))\b", re.IGNORECASE
)


def read_values(text: str, ctx: Context) -> int:
    """The attribute values one sentence states; how many facts were added."""
    if not _WORTH_READING.search(text):
        return 0  # no number and no status: the regexes below need not run
    times = find_times(text, ctx.reference) if ctx.reference else []
    made = 0
    for m in _VALUE_START.finditer(text):
        made += _one(text, m, ctx, times, 0)
    for t in times:  # "Since March our rent has been £1,250": a date heading the clause
        headed = _VALUE_START.match(text[t.end :].lstrip(" ,")) if not text[: t.start].strip(" ,") else None
        if headed is not None:
            made += _one(text, headed, ctx, times, len(text) - len(text[t.end :].lstrip(" ,")))
    return made


def _one(text: str, m: re.Match[str], ctx: Context, found: list[TimeMention], offset: int) -> int:
    """One value; ``m`` matched ``text[offset:]``."""
    said_attr = m.group("attr")
    first = said_attr.split()[0]
    acronym = first.isupper() and 2 <= len(first) <= 5  # "our ARR", "GDP growth"
    bare_name = first[0].isupper() and not acronym and len(said_attr.split()) == 1
    if first[0].isupper() and not acronym:
        if m.group("det") or m.start("attr") > 0 or ctx.label(first) == "Person":
            return 0  # "and Tom is 72 kg": a name, not an attribute
        said_attr = first.lower() + said_attr[len(first) :]  # "Revenue was ...": capitalised as the sentence's first
    attr = said_attr.lower()
    words = attr.split()
    if any(w in _NOT_ATTRIBUTE for w in words) or words[-1] == "of" or len(words) > 4:
        return 0
    if _FUTURE.search(re.split(r"[,;]", text[offset + m.start() :])[0]):
        return 0  # "the rate will be 5%", "the budget is expected to be $2m": a forecast
    start, stop = offset + m.start(), offset + m.end()
    rest = text[stop:]
    parsed = _value(rest, words[-1], colon=m.group("verb") is None)
    if parsed is None:
        return 0
    said, attributes, end = parsed
    if bare_name and str(attributes.get("unit")) in _BODY:
        return 0  # "Tom is 72 kg", "Ana is 170 cm": a person's measure, whoever they are
    after = rest[end:]
    if (period := _PERIOD.match(after)) is not None:
        attributes[PERIOD] = _period(period)
        after = after[period.end() :]
    elif said_period := m.group("pre") or m.group("post"):
        attributes[PERIOD] = _period(_PERIOD.match(f"for {said_period}") or period)  # type: ignore[arg-type]
    times = [t for t in found if _in_clause(text, t, start)]
    times = [t for t in times if not (period and t.start < stop + end + period.end())]
    value_end = len(text) - len(after)
    lead = next((t for t in times if t.start >= value_end and _LEADS.fullmatch(text[value_end : t.start])), None)
    reason = words[-1] in _STATUS_WORDS and _BECAUSE.match(after)  # "status: blocked on the API review"
    if not _TAIL_OK.match(after) and lead is None and not reason:
        return 0  # "the rate is 5% higher than last year", "my flight is at 5 tomorrow"
    owner = _owner(m, ctx, words[-1])
    if owner is False:
        return 0
    if owner and said_attr.lower().startswith(("project ", "team ")) and words[-1] in _STATUS_WORDS:
        said_attr = said_attr.split(None, 1)[1]  # "Project status: at risk" of Project Orca: its status
    subject = f"{owner}'s {said_attr}" if owner else said_attr
    valid, invalid = _dates(times)
    if valid is not None and ctx.reference is not None and valid.when > ctx.reference:
        return 0  # a value from a later date on: a plan
    past = (m.group("verb") or "").lower() in ("was", "were", "stood at", "came in at", "sat at", "remained")
    made = ctx.add_fact(Subject(subject, 0.8), VALUE_RELATION, (said, None), (valid, invalid), text)
    fact = ctx.facts.get((subject.casefold(), VALUE_RELATION, said.casefold()))
    if made and fact is not None:
        fact.attributes = attributes
        if PERIOD in attributes:  # the slot it fills: Q2's value and Q3's stand side by side (kronograph.qualifiers)
            fact.qualifiers = {PERIOD: str(attributes[PERIOD])}
        when = f" for {attributes[PERIOD]}" if PERIOD in attributes else ""
        fact.fact = f"{subject} {'was' if past else 'is'} {said}{when}"
    return made


def _in_clause(text: str, t: TimeMention, start: int) -> bool:
    """A date in the value's clause, or heading it ("As of June, the rate is 4.1%")."""
    return t.start >= start or not text[t.end : start].strip(" ,:;-—")


def _dates(times: list[TimeMention]) -> tuple[TimeMention | None, TimeMention | None]:
    valid = next((t for t in times if t.role in ("since", "at")), None)
    invalid = next((t for t in times if t.role == "until"), None)
    return valid, invalid


def _owner(m: re.Match[str], ctx: Context, last: str) -> str | None | bool:
    """Whose value it is: a name, None for a thing named on its own ("the policy rate"), False for no fact."""
    det = (m.group("det") or "").lower()
    if m.group("name"):
        name: str = m.group("name")
        ctx.mention(name, ctx.label(name))
        return name
    if det in ("my", "our"):
        return ctx.speaker or False
    if det in ("his", "her"):  # "I met Ana Ruiz. her salary is $90k": the one other person named
        people = [e.name for e in ctx.entities.values() if "Person" in e.labels and e.name != ctx.speaker]
        return people[0] if len(people) == 1 else False
    if det in _OWNERS_UNKNOWN:
        return False  # "their budget", "its revenue", "your rent": whose, a guess
    if last in _STATUS_WORDS:  # "status: blocked", "the project's status is on hold": the topic's, or the speaker's
        return _topic(ctx) or ctx.speaker or False
    noun = (m.group("noun") or "").lower()
    if noun.split()[-1:] and noun.split()[-1] in _TOPIC_NOUNS and (topic := _topic(ctx)) is not None:
        return topic  # "We kicked off Project Apollo. The project's budget is $40k"
    return noun or None  # "the central bank's policy rate": named as said, as "the policy rate" is


def _topic(ctx: Context) -> str | None:
    """The one project the episode named, else its one organisation."""
    for label in ("Project", "Organization"):
        named = [e.name for e in ctx.entities.values() if label in e.labels and e.name != ctx.speaker
                 and e.name.lower() != "project"]  # "Project status: ...": no project named
        if named:
            return named[0] if len(named) == 1 else None
    return None


def _value(rest: str, last: str, colon: bool) -> tuple[str, dict[str, Any], int] | None:
    """The value at the start of ``rest``: as written, its attributes, and where it ends."""
    lowered = rest.lower()
    if last in _STATUS_WORDS:
        for phrase in (*_STATUS_PHRASES, *_STATUSES):
            if re.match(re.escape(phrase) + r"(?![\w])", lowered):
                return rest[: len(phrase)], {"value": phrase}, len(phrase)
        return None
    if (n := _NUMBER_RE.match(rest)) is None:
        return None
    sign, mult, unit, per = n.group("sign"), (n.group("mult") or "").lower(), n.group("unit"), n.group("per")
    if mult in ("m", "b") and not sign and not (unit and unit.upper() in _CODES):
        if mult == "b":
            return None
        mult, unit = "", "m"  # "a 400 m swim": metres, without a currency
    number = _number(n.group("num"), _MULTIPLIERS.get(mult, 1))
    if number is None:
        return None
    currency = _currency(sign, unit)
    stored = currency or (_UNITS.get(unit.lower()) if unit else None)
    if unit and unit.lower() == "pounds" and last in ("weight", "mass"):
        stored = "lb"
    if stored is None and last not in _COUNTS and not mult:
        return None  # "my son is 5", "the answer is 42": a number with no unit is read only for a count or scaled
    attributes: dict[str, Any] = {"value": number}
    if stored:
        attributes["unit"] = f"{stored}/{per.lower()}" if per else stored
    return rest[: n.end()].strip(), attributes, n.end()


def _currency(sign: str | None, unit: str | None) -> str | None:
    for word in (sign, unit):
        if word:
            key = word.strip().lower()
            if key in _CURRENCY_SIGNS:
                return _CURRENCY_SIGNS[key]
            if key.upper() in _CODES:
                return key.upper()
    if unit and unit.lower() in _CURRENCY_WORDS:
        return _CURRENCY_WORDS[unit.lower()]
    return None


def _number(text: str, times: int) -> int | float | None:
    """ "5.00" -> 5.0, "3.2" million -> 3200000, "1,250" -> 1250: exact, an int where it is whole and was
    written whole or scaled."""
    try:
        exact = Decimal(text.replace(",", "").replace("−", "-")) * times
    except InvalidOperation:
        return None
    if exact == exact.to_integral_value() and ("." not in text or times > 1):
        return int(exact)
    return float(exact)


def _period(m: re.Match[str]) -> str:
    """ "Q2 2024" -> "2024-Q2", "Q2" -> "Q2", "2025" -> "2025", "FY2025" -> "FY2025"."""
    if m.group("q"):
        quarter = m.group("q").upper()
        return f"{m.group('qy')}-{quarter}" if m.group("qy") else quarter
    if m.group("fy"):
        return re.sub(r"[\s']", "", m.group("fy")).upper()
    return m.group("year")
