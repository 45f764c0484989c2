"""Workplaces named after what they are, as people type them in chat: "we're
an indie studio in kraków, Mothlight Games", "Tomás runs a surf school in
Espinho, Onda Norte", and a year of study: "3rd year mechatronics at the
university of waterloo".

The business is named after a comma, capitalised; its place before the
comma may be lower case. "we" is the speaker, who works there; a named
person who "runs" or "owns" it owns it. A year of study is the speaker's
only when the sentence is theirs ("i'm", "im", or the speaker named just
before).
"""

from __future__ import annotations

import re

from .context import Context, Subject

__all__ = ["read_ventures"]

_KIND = (
    r"(?:studio|school|cafe|café|restaurant|bistro|bar|shop|store|company|startup|agency|bakery|farm|clinic|practice|"
    r"firm|business|brewery|winery|gym|salon|garage|workshop|bookshop|bookstore|kitchen|spot|place|consultancy)"
)
_ORG = r"(?P<org>(?-i:[A-ZÀ-ÖØ-Þ])[\w'’&-]*(?:\s+(?:(?-i:[A-ZÀ-ÖØ-Þ])[\w'’&-]*|de|du|des|la|le|of|the|and|&)){0,4})"
_PLACE = r"(?P<place>[\w'’-]+(?:\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+)?)"
_VENTURE = re.compile(
    r"\b(?P<who>we're|we\s+are|(?P<name>(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+)\s+(?:runs|owns|has|opened)|i\s+(?:run|own|opened))"
    rf"\s+(?:a|an|our|my|his|her|their)\s+(?:[\w-]+\s+){{0,3}}?{_KIND}\s+in\s+{_PLACE}\s*,\s+{_ORG}"
    r"(?=\s*(?:[,.;!?]|$))",
    re.IGNORECASE,
)
_YEAR = re.compile(
    r"\b(?:(?:1st|2nd|3rd|[4-9]th|first|second|third|fourth|fifth|final|last)\s+year|fresher|freshman|sophomore|junior|"
    r"senior)\s+(?:[\w-]+\s+){0,3}?(?:student\s+)?(?:at|in)\s+(?P<org>(?:the\s+)?(?:university|college)\s+of\s+"
    r"[\w'’-]+(?:\s+[\w'’-]+)?|[\w'’-]+(?:\s+[\w'’-]+)?\s+(?:university|college|polytechnic))\b",
    re.IGNORECASE,
)
# "we are going to Crete, where I was born"
_BORN = re.compile(
    r"\b(?:in|to|from|visit|visiting|back\s+to)\s+(?P<place>(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+(?:\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+)?)"
    r"\s*,?\s+where\s+i\s+was\s+(?:born|raised)\b",
    re.IGNORECASE,
)
# "head of science at Brookhouse School, started this week": a new job with no subject, the speaker's
_STARTED = re.compile(
    rf"^(?:(?:new\s+job|update|news|big\s+news)\W+)*(?P<title>[\w-]+(?:\s+[\w-]+){{0,4}}?)\s+at\s+{_ORG}\s*,\s+"
    r"(?:i\s+)?(?:just\s+)?started\b",
    re.IGNORECASE,
)
_NOT_TITLE = frozenset("i we he she they my his her their our you it".split())
_MINE = re.compile(r"\b(?:i'm|im|i\s+am)\b", re.IGNORECASE)
_SMALL = frozenset("of the de du des la le and".split())


def read_ventures(text: str, ctx: Context) -> int:
    """The named businesses and the year of study in one sentence; how many facts were added."""
    made = 0
    for m in _VENTURE.finditer(text):
        org, place = m.group("org"), _titled(m.group("place"))
        if m.group("name"):
            subject, relation = Subject(m.group("name"), 0.8), "OWNS"
        elif ctx.speaker:
            subject = Subject(ctx.speaker, 0.8)
            relation = "WORKS_AT" if m.group("who").lower().startswith("we") else "OWNS"
        else:
            continue
        made += ctx.add_fact(subject, relation, (org, "Organization"), (None, None), text)
        made += ctx.add_fact(Subject(org, 0.8), "BASED_IN", (place, "Location"), (None, None), text)
    if ctx.speaker and (born := _BORN.search(text)) is not None:
        place = born.group("place")
        made += ctx.add_fact(Subject(ctx.speaker, 0.8), "BORN_IN", (place, "Location"), (None, None), text)
    started = _STARTED.search(text)
    if ctx.speaker and started is not None and _NOT_TITLE.isdisjoint(started.group("title").lower().split()):
        made += ctx.add_fact(
            Subject(ctx.speaker, 0.8), "WORKS_AT", (started.group("org"), "Organization"), (None, None), text
        )
    year = _YEAR.search(text)
    if year is not None and ctx.speaker and _MINE.search(text[: year.start()]):
        org = _titled(re.sub(r"^the\s+", "", year.group("org"), flags=re.IGNORECASE))
        made += ctx.add_fact(Subject(ctx.speaker, 0.8), "STUDIED_AT", (org, "Organization"), (None, None), text)
    return made


def _titled(name: str) -> str:
    """ "kraków": "Kraków"; "university of waterloo": "University of Waterloo"."""
    words = name.split()
    return " ".join(w if (k and w.lower() in _SMALL) else w[:1].upper() + w[1:] for k, w in enumerate(words))
