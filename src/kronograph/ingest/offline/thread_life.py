"""Working life across messages: a job applied for, then "got it!!"; a job left that took its town with it.

- "I've applied to Harrogate District Hospital" (or "interview at X on friday"), then in a later message "GOT
  IT 🎉 starting in july" / "got the job!" / "they offered me the role": the user WORKS_AT X, from the start
  the message gives. Only the latest organisation applied to, and only the user's own words.
- "moving out of our flat in Leith this week, we found a house in Portobello": a move under way, not planned:
  the user no longer lives in Leith, and lives in Portobello. "we moved!! Omar and I are in Leith now": both
  live there.
- "I'm a nurse at St James's in Leeds" (WORKS_AT and WORKS_IN, said together), later "left St James's": the
  town went with the job (NO_LONGER_WORKS_IN Leeds), though a home there is another matter.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING

from .context import Context, Subject
from .dates import find_times
from .lowercase import COMMON

if TYPE_CHECKING:
    from .thread import Thread

__all__ = ["APPLIED", "hired", "job_town_ended", "moved_in_now", "moving_now"]

_ORG = r"(?P<{}>(?-i:[A-Z])[\w'’&.-]*(?:\s+(?:(?-i:[A-Z])[\w'’&.-]*|of|de|&))*)"
# "I've applied to X", "applied for a job at X", "I have an interview at X", "interviewing with X"
APPLIED = re.compile(
    r"\b(?:(?:i(?:'ve|\s+have)?|just|so|finally)\s+)+applied\s+(?:to|at|for\s+(?:a|the)\s+[\w\s-]{1,30}?\s+at)\s+"
    + _ORG.format("org")
    + r"|\b(?:i(?:'ve|\s+have)\s+(?:got\s+)?an?\s+interview|i'm\s+interviewing)\s+(?:at|with)\s+"
    + _ORG.format("org2"),
    re.IGNORECASE,
)
# "GOT IT 🎉", "got the job!!", "i got the role", "they offered me the position", "i'm hired"
_GOT = re.compile(
    r"^\W*(?:(?:i\s+)?got\s+(?:it|the\s+(?:job|role|post|position|offer))\b|(?:they|she|he)\s+offered\s+me\s+the\s+"
    r"(?:job|role|post|position)\b|i(?:'m|\s+am|\s+got)\s+hired\b|(?:i\s+)?accepted\s+the\s+offer\b)",
    re.IGNORECASE,
)
_CHEER = re.compile(r"!|[\U0001F300-\U0001FAFF\u2600-\u27BF]|\bstart", re.IGNORECASE)
_NOT_ORGS = frozenset("I The A An It This That My Our".split())


def applied_to(content: str) -> str | None:
    """The organisation a user's message says they applied to or interview at, if any."""
    m = APPLIED.search(content)
    if m is None:
        return None
    org = m.group("org") or m.group("org2") or ""
    return org if org and org.split()[0] not in _NOT_ORGS else None


def hired(ctx: Context, content: str) -> int:
    """ "got it!! starting in july" after "I've applied to X": the user works at X from then."""
    thread = ctx.thread
    if thread is None or thread.applied is None or not ctx.speaker or (got := _GOT.search(content)) is None:
        return 0
    if got.group(0).strip().casefold().endswith("got it") and not got.group(0).strip().isupper() and not (
        _CHEER.search(content)
    ):
        return 0  # "got it, thanks": understood, not hired
    reference = ctx.reference
    starts = [t for t in find_times(content, reference) if t.role in ("at", "since")] if reference else []
    made = ctx.add_fact(Subject(ctx.speaker, 0.7), "WORKS_AT", (thread.applied, "Organization"), (None, None),
                        content, cap=0.7)
    if made and starts:
        when = starts[0].when
        if reference is not None and when < reference and starts[0].text.lower().startswith("starting"):
            when = _next_year(when)
        key = (ctx.speaker.casefold(), "WORKS_AT", thread.applied.casefold())
        ctx.facts[key].valid_at = when.isoformat()
        ctx.facts[key].time_expression = starts[0].text
    return made


def _next_year(when: datetime) -> datetime:
    """ "starting in july", said in May of a year: that July, not last year's."""
    try:
        return when.replace(year=when.year + 1)
    except ValueError:  # 29 February
        return when.replace(year=when.year + 1, day=28)


def job_town_ended(ctx: Context) -> int:
    """A job left whose town was said with it: the user no longer works in that town."""
    thread = ctx.thread
    if thread is None:
        return 0
    made = 0
    for fact in list(ctx.facts.values()):
        if fact.relation != "LEFT":
            continue
        at_job = {e.said for e in thread.facts if (e.subject, e.relation, e.object) == (
            fact.subject, "WORKS_AT", fact.object)}
        for town in _towns(thread, fact.subject, at_job):
            made += ctx.add_fact(Subject(fact.subject, 0.7), "NO_LONGER_WORKS_IN", (town, "Location"),
                                 (None, None), "", cap=0.7)
    return made


def _towns(thread: Thread, subject: str, messages: set[int]) -> list[str]:
    return [e.object for e in thread.facts if e.said in messages and (e.subject, e.relation) == (subject, "WORKS_IN")]


_PLACE = r"(?-i:[A-Z])[\w'’-]+(?:\s+(?-i:[A-Z])[\w'’-]+){0,2}"
_HOME = r"(?:apartment|flat|house|place|home|condo|room|studio)"
# "moving out of our flat in Leith this week", "we're moving out of Leith today"
_MOVING_NOW = re.compile(
    rf"\bmoving\s+out\s+of\s+(?:(?:our|my|the)\s+(?:\w+\s+)?{_HOME}\s+in\s+)?(?P<out>{_PLACE})"
    r"(?:\s+(?:this\s+week(?:end)?|today|tomorrow|right\s+now|now))\b",
    re.IGNORECASE,
)
# "we found a house in Portobello", "just bought a flat in Leith", "rented a place in Gracia"
_NEW_HOME = re.compile(
    rf"\b(?:found|bought|got|rented|signed\s+for)\s+(?:a|an|our)\s+(?:\w+\s+)?{_HOME}\s+in\s+(?P<to>{_PLACE})",
    re.IGNORECASE,
)


def moving_now(ctx: Context, content: str) -> int:
    """ "moving out of our flat in Leith this week, found a house in Portobello": the home ends now, the new one
    starts (the home words around the old place are not a home still held)."""
    m = _MOVING_NOW.search(content)
    if m is None or not ctx.speaker:
        return 0
    me = Subject(ctx.speaker, 0.7)
    out = m.group("out")
    ctx.facts.pop((ctx.speaker.casefold(), "LIVES_IN", out.casefold()), None)
    made = ctx.add_fact(me, "NO_LONGER_LIVES_IN", (out, "Location"), (None, None), content, cap=0.7)
    new = _NEW_HOME.search(content, m.end())
    if new is not None and new.group("to").casefold() != out.casefold():
        made += ctx.add_fact(me, "LIVES_IN", (new.group("to"), "Location"), (None, None), content, cap=0.7)
    return made


# "we moved!! Omar and I are in Leith now", "finally moved, we're in Gracia now", "just moved. I'm in Ripon now"
_MOVED_NOW = re.compile(
    r"\b(?:we|i|just|finally|have|'ve)\s+moved(?:\s+(?:house|in|flat|last\s+\w+|yesterday|today|this\s+week(?:end)?|"
    r"on\s+\w+))?\s*[!.,]+\s*"
    rf"(?:(?:we(?:'re|\s+are)|(?P<with>(?-i:[A-Z])[\w'’-]+)\s+and\s+i\s+are|i(?:'m|\s+am))\s+(?:now\s+)?"
    rf"(?:in|living\s+in)\s+(?P<to>{_PLACE}|(?-i:[a-zà-ÿ])[\w'’-]{{2,}}(?=\s+now\b)))",  # "we're in valparaíso now"
    re.IGNORECASE,
)


def moved_in_now(ctx: Context, content: str) -> int:
    """ "we moved!! Omar and I are in Leith now": the speaker (and the one named with them) live there."""
    m = _MOVED_NOW.search(content)
    if m is None or not ctx.speaker:
        return 0
    place = m.group("to")
    if place.islower() and place in COMMON:
        return 0  # "we're in town now"
    to = (place if not place.islower() else place[:1].upper() + place[1:], "Location")
    made = ctx.add_fact(Subject(ctx.speaker, 0.7), "LIVES_IN", to, (None, None), content, cap=0.7)
    if m.group("with") and ctx.label(m.group("with")) in (None, "Person"):
        made += ctx.add_fact(Subject(m.group("with"), 0.7), "LIVES_IN", to, (None, None), content, cap=0.7)
    return made
