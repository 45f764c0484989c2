"""A switch from one thing to another, planned or under way in one message and done in a later one.

"we are migrating from Buildkite to GitHub Actions", "the office is switching from ArchiCAD to Revit in January",
"we're moving from Xero to QuickBooks next month": while under way or dated ahead it is a plan (no fact; the
thread keeps it, ``Thread.switches``). A later message that says it is done ends the old link and starts the
new one, for the speaker: "the GitHub Actions migration is complete", "the switch is done", "we have been on
Revit since the 8th", "QuickBooks went live on Monday", "we're on QuickBooks now", "it is QuickBooks since last
week". Nothing from someone else's switch ("Rakuten is switching from X to Y"), hearsay or a doubt, nor from a
done-word with no switch pending.
"""

from __future__ import annotations

import re

from .context import Context, Subject
from .dates import find_times

__all__ = ["changed_to", "starts_later", "switch_done", "switches_planned"]

_NAME = r"[A-Z][\w'’&.+-]*(?:\s+(?:[A-Z][\w'’&.+-]*|of|&))*"
_PLANNED = re.compile(
    r"(?:^|[.!?,;:]\s*|\b(?:and|but|so)\s+)(?P<who>(?:[Ww]e|I|[Oo]ur\s+\w+|[Tt]he\s+\w+|[Mm]y\s+\w+)(?:'re\s+|'m\s+|\s+)"
    r"(?:(?:are|is|am|will\s+be|will|are\s+going\s+to|is\s+going\s+to|plan\s+to|want\s+to|have\s+to)\s+)?"
    r"(?:slowly\s+|finally\s+|currently\s+|now\s+)?)"
    r"(?:migrating|switching|moving|changing|transitioning|swapping|converting|migrate|switch|move|change)\s+"
    r"(?:(?:everything|it\s+all|all|over|the\s+\w+|our\s+\w+)\s+)?from\s+(?P<old>" + _NAME + r")\s+"
    r"(?:to|onto|over\s+to)\s+(?P<new>" + _NAME + r")"
)
_HEARSAY = re.compile(r"\b(?:says?|said|heard|rumou?rs?|apparently|supposedly|thinks?|might|maybe|if)\b", re.I)
_DONE_WORDS = r"(?:complete|completed|done|finished|over|live)"
_DONE = re.compile(
    r"\b(?:(?:[Tt]he\s+|[Oo]ur\s+)?(?:(?P<named>"
    + _NAME
    + r")\s+)?(?:migration|switch|move|changeover|transition|switchover|"
    r"cutover|rollout)\s+(?:is|was|has\s+been|'s)\s+(?:now\s+|finally\s+|officially\s+)?"
    + _DONE_WORDS
    + r"|(?:[Ww]e|I)(?:\s+have|'ve)\s+(?:now\s+)?(?:finished|completed)\s+the\s+(?:(?P<named2>"
    + _NAME
    + r")\s+)?(?:migration|switch|move|changeover|transition)"
    r"|(?:[Ww]e|I)(?:\s+have|'ve)\s+been\s+(?:on|using)\s+(?P<on>" + _NAME + r")\s+since"
    r"|(?:[Ww]e\s+are|[Ww]e're|I\s+am|I'm)\s+(?:now\s+|fully\s+|finally\s+)?on\s+(?P<now>" + _NAME + r")\s+now"
    r"|(?P<live>" + _NAME + r")\s+(?:went|is|has\s+gone)\s+live"
    r"|\b[Ii]t\s+(?:is|'s)\s+(?P<since>" + _NAME + r")\s+since)"
)


# "we changed the caisse, it is Odoo since last week", "switched our CRM - it's HubSpot now"
_CHANGED = re.compile(
    r"\b(?:[Ww]e|I)(?:\s+have|'ve)?\s+(?:just\s+|finally\s+)?(?:changed|switched|replaced|swapped)\s+(?:the|our|my)\s+"
    r"\w+(?:\s+[a-z]+)?\s*[,;:—–-]+\s*(?:and\s+|so\s+)?(?:now\s+)?(?:it\s+is|it's|its|we\s+use|we're\s+on|we\s+are\s+on)"
    r"\s+(?:now\s+)?(?P<new>" + _NAME + r")(?=\s+(?:now|since)\b|\s*[.!,;]|\s*$)"
)


def changed_to(ctx: Context, content: str) -> int:
    """ "we changed the caisse, it is Odoo since last week": the speaker USES the new one."""
    m = _CHANGED.search(content)
    if m is None or not ctx.speaker or _HEARSAY.search(content):
        return 0
    new = m.group("new")
    if ctx.label(new) in ("Person", "Location"):
        return 0
    return ctx.add_fact(Subject(ctx.speaker, 0.75), "USES", (new, ctx.label(new) or "Product"), (None, None), content,
                        cap=0.75)


# "she got a job at Initech, she starts in March": a job won whose first day is still ahead
_WON = re.compile(r"\b(?:got|accepted|landed|signed|was\s+hired|been\s+hired|was\s+offered|took)\b", re.I)
_STARTS = re.compile(r"\b(?:starts?|starting|begins?|beginning|first\s+day\s+(?:is|will\s+be))\s+(?:there\s+)?", re.I)
_JOINED = frozenset({"WORKS_AT", "STUDIED_AT", "MEMBER_OF"})


def starts_later(ctx: Context, content: str) -> int:
    """Takes back the job, school or club a sentence won when it also says the start is still ahead ("got a job
    at X, she starts in March", "accepted a place at Y, first day is 3 February"): a plan, not a link yet."""
    if ctx.reference is None or _WON.search(content) is None:
        return 0
    ahead = [t for t in find_times(content, ctx.reference) if t.when > ctx.reference
             and _STARTS.search(content[max(0, t.start - 30) : t.start + len("starting ")])]
    if not ahead:
        return 0
    taken = [k for k, f in ctx.facts.items() if f.relation in _JOINED and not f.invalid_at
             and f.object.casefold() in content.casefold()]
    for key in taken:
        del ctx.facts[key]
    return 0


def switches_planned(content: str, before: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """``before`` with the speaker's switches this message plans or starts, (old, new) each."""
    if _HEARSAY.search(content):
        return before
    found = [
        (m.group("old"), m.group("new"))
        for m in _PLANNED.finditer(content)
        if m.group("old").casefold() != m.group("new").casefold()
    ]
    return (*before, *found) if found else before


def switch_done(ctx: Context, content: str) -> int:
    """A pending switch this message says is done: the old link ends and the new one starts, for the speaker."""
    thread = ctx.thread
    if thread is None or not thread.switches or not ctx.speaker or _HEARSAY.search(content):
        return 0
    m = _DONE.search(content)
    if m is None:
        return 0
    named = next((m.group(g) for g in ("named", "named2", "on", "now", "live", "since") if m.group(g)), None)
    pending = [
        s
        for s in thread.switches
        if named is None
        or named.casefold() in (s[1].casefold(), s[0].casefold())
        or s[1].casefold().startswith(named.casefold() + " ")
    ]
    if not pending:
        return 0
    old, new = pending[-1]
    relation = next(
        (
            f.relation
            for f in reversed(thread.facts)
            if f.object.casefold() == old.casefold() and f.subject == ctx.speaker and not f.relation.startswith("NO_")
        ),
        "USES",
    )
    if relation == "USES" and "Location" in (thread.names.get(old), thread.names.get(new), ctx.label(new)):
        return 0  # "moving from Leeds to York", with no home known: not a tool
    who = Subject(ctx.speaker, 0.75)
    made = ctx.add_fact(who, "NO_LONGER_LINKED_TO", (old, ctx.label(old)), (None, None), content, cap=0.75)
    return made + ctx.add_fact(who, relation, (new, ctx.label(new)), (None, None), content, cap=0.75)
