"""Endings said in the speaker's own words, which end a fact read in an
earlier message: "we've stopped using X", "i gave up german", "no more
classroom for me", "my contract at X ended", "the Kinova term ended",
"finished at X", "today was my last day at X", and a past job ("I was an electrician for X for 38 years",
"retired, I worked at X"), which is no current job.

Only first-person endings are read ("i", "we", "my"); the object is the
words after the verb up to a comma or a small word, and a shortened name
("classroom") is taken as the longer one said in the same message ("google
classroom"). A past job turns a job fact the sentence gave into ``LEFT``.
"""

from __future__ import annotations

import re

from .context import Context, Subject
from .dates import TimeMention
from .vocab import LANGUAGES

__all__ = ["read_stops", "spread_switch"]

_STOP_VERB = (
    r"(?:(?:stopped|gave\s+up(?:\s+on)?|given\s+up(?:\s+on)?|dropped|ditched|abandoned|got\s+rid\s+of)"
    r"(?:\s+(?:using|learning|speaking|doing|playing))?|quit\s+(?:using|learning|speaking|doing|playing)|"
    r"decided\s+to\s+(?:stop|quit)\s+(?:using|learning|speaking))"  # a decision taken: "we decided to stop using X"
)
_OBJ = r"(?P<obj>[^\s,.;!?()]+(?:\s+(?!(?:for|and|but|because|since|so|as|after|last|this|in|on|at|now|too|"
_OBJ += r"anymore|altogether|completely|entirely|though|tbh|lol|already|a|the|it|with|to|from)\b)[^\s,.;!?()]+){0,2})"
_STOPS = (
    # "we've stopped using xero", "i gave up german", "also i dropped french"
    re.compile(
        rf"\b(?:i|we)(?:'ve|\s+have|\s+had|\s+finally|\s+just)*\s+{_STOP_VERB}\s+(?:my\s+|our\s+|the\s+)?"
        r"(?!(?:selling|supplying|shipping|delivering|working|teaching|living)\b)"  # a customer, a job: not tools
        r"(?![^,.;!?]*\b(?:club|choir|society|band|team|orchestra)\b)"  # a group left: see life_patterns.py
        rf"{_OBJ}",
        re.IGNORECASE,
    ),
    # "so no more classroom for me", "no more slack for us"
    re.compile(rf"\bno\s+more\s+{_OBJ}\s+for\s+(?:me|us)\b", re.IGNORECASE),
)
# "kinova term ended", "my contract at Acme ended", "my time at X is over", "finished at X", "done at X"
_LEFT = (
    re.compile(
        r"\b(?:(?:my|the|our)\s+)?(?P<obj>[^\s,.;!?()]+(?:\s+[^\s,.;!?()]+)?)\s+(?:term|internship|co-?op|contract|"
        r"placement|stint|job)\s+(?:has\s+|is\s+|just\s+)?(?:ended|finished|is\s+over|wrapped\s+up)\b",
        re.IGNORECASE,
    ),
    re.compile(
        r"\bmy\s+(?:term|internship|co-?op|contract|placement|stint|job|time)\s+(?:at|with)\s+"
        r"(?P<obj>[^\s,.;!?()]+(?:\s+[^\s,.;!?()]+){0,2}?)\s+(?:has\s+|is\s+|just\s+)?(?:ended|finished|is\s+"
        r"over|wrapped\s+up)\b",
        re.IGNORECASE,
    ),
    # "today was my last day at X", "friday was my last shift at X"
    re.compile(
        r"\bwas\s+my\s+(?:very\s+)?(?:last|final)\s+(?:day|shift|week)\s+(?:at|with)\s+"
        r"(?P<obj>[^\s,.;!?()]+(?:\s+[^\s,.;!?()]+){0,3}?)(?=\s*(?:[,.;!?]|$|\s+(?:after|and|for|today)\b))",
        re.IGNORECASE,
    ),
    re.compile(
        r"\bi(?:'ve|\s+have|'m|\s+am)?\s+(?:just\s+)?(?:finished|done)\s+(?:up\s+)?(?:at|with)\s+"
        r"(?P<obj>[^\s,.;!?()]+(?:\s+[^\s,.;!?()]+){0,2}?)(?=\s*(?:[,.;!?]|$|\s+(?:after|last|this|in|and|"
        r"now|for)\b))",
        re.IGNORECASE,
    ),
)
# "already handed in my notice at teixeira lobo", "i resigned from Acme"
_NOTICE = re.compile(
    r"\b(?:(?:handed|handing|put|putting|gave|giving)\s+in\s+(?:my|our)\s+notice|i(?:'ve|\s+have)?\s+resigned)\s+"
    r"(?:at|to|from)\s+(?P<obj>[^\s,.;!?()]+(?:\s+[^\s,.;!?()]+){0,2}?)(?=\s*(?:[,.;!?]|$|\s+(?:after|last|this|"
    r"in|and|now|for|today|yesterday|on)\b))",
    re.IGNORECASE,
)
# "I was an electrician for X for 38 years", "retired ... I was a nurse at X", "I worked at X for years"
_PAST_JOB = re.compile(
    r"\bi\s+(?:was\s+(?:an?\s+)?[\w-]+(?:\s+[\w-]+)?|worked)\s+(?:at|for|with)\s+(?P<obj>[^,.;!?]+?)\s+"
    r"(?:for\s+(?:[\w-]+\s+)?(?:years|decades|months)|until|till|before\s+(?:i\s+)?retir)",
    re.IGNORECASE,
)
_RETIRED = re.compile(r"\bretired\b", re.IGNORECASE)
_PAST_JOB_RETIRED = re.compile(
    r"\bi\s+(?:was\s+(?:an?\s+)?[\w-]+(?:\s+[\w-]+)?|worked)\s+(?:at|for|with)\s+"
    r"(?P<obj>[^,.;!?]+?)(?=\s*(?:[,.;!?]|$|\s+for\b))",
    re.IGNORECASE,
)
# the words that make a term a school's or a season's, no employer's: "the summer term ended"
_TERMS = frozenset(
    "my our his her their the a this last next first second third final summer winter spring fall autumn school"
    " academic uni university college semester exam".split()
)
_JOB_RELATIONS = frozenset({"WORKS_AT", "WORKS_FOR", "EMPLOYED_BY"})
# the words before a name that are no part of it ("no more classroom", "use google classroom": "google")
_NOT_QUALIFIERS = frozenset(
    "no more any the a an my our your his her their use uses using used stopped quit dropped up of on in at to for"
    " with and or but from this that new old ditched gave giving".split()
)
_GENERIC = frozenset("it that this them everything all one job work for a an to on in at with by of up".split())


def read_stops(text: str, ctx: Context, when: TimeMention | None) -> int:
    """The endings in one sentence of the speaker's; how many facts were added or changed."""
    if not ctx.speaker:
        return 0
    me = Subject(ctx.speaker, 0.8)
    made = 0
    for regex in _STOPS:
        for m in regex.finditer(text):
            name = _longer(ctx, m.group("obj").strip(), text)
            if name is None:
                continue
            relation = "NO_LONGER_LEARNING" if name.casefold() in LANGUAGES else "NO_LONGER_USES"
            made += ctx.add_fact(me, relation, (name, None), (when, None), text)
    for regex in (*_LEFT, _NOTICE):
        for m in regex.finditer(text):
            name = _longer(ctx, m.group("obj").strip(), text)
            if name is not None and _TERMS.isdisjoint(name.casefold().split()):
                name = " ".join(w[:1].upper() + w[1:] for w in name.split()) if name.islower() else name
                made += ctx.add_fact(me, "LEFT", (name, ctx.label(name) or "Organization"), (when, None), text)
    past = _PAST_JOB.search(text) or (_PAST_JOB_RETIRED.search(text) if _RETIRED.search(text) else None)
    if past is not None:
        made += _past_job(ctx, past.group("obj").strip())
    return made


def _past_job(ctx: Context, said: str) -> int:
    """A job the speaker had: the job fact read from it is no current one (and a past job with no fact read
    stays unsaid: "I worked at X for years" has no date to put on a leaving)."""
    changed = 0
    for key, fact in list(ctx.facts.items()):
        if fact.relation in _JOB_RELATIONS and fact.object.casefold() in said.casefold():
            del ctx.facts[key]
            changed += 1
            ctx.facts[(key[0], "LEFT", key[2])] = fact.model_copy(
                update={"relation": "LEFT", "fact": f"{fact.subject} used to work at {fact.object}", "valid_at": None}
            )
    return changed


def _longer(ctx: Context, said: str, text: str) -> str | None:
    """The name said in this message that ``said`` shortens ("classroom": "google classroom"), else ``said``."""
    words = said.split()
    while words and words[-1].casefold() in _GENERIC:
        words.pop()
    if not words or words[0].casefold() in _GENERIC:
        return None
    said = " ".join(words)
    folded = said.casefold()
    for entity in ctx.entities.values():
        name = entity.name.casefold()
        if name != folded and (name.endswith(" " + folded) or name.startswith(folded + " ")):
            return entity.name
    earlier = ctx.message[: max(0, ctx.message.find(text))]  # the sentences before this one
    if len(words) == 1 and (m := re.search(rf"\b([a-z][\w-]+)\s+{re.escape(said)}\b", earlier, re.IGNORECASE)):
        if m.group(1).casefold() not in _NOT_QUALIFIERS:
            return f"{m.group(1)} {said}"
    return said


def spread_switch(ctx: Context) -> int:
    """ "we've stopped using xero, rhian moved the accounts over to Sage": whoever in the message moved to a new
    tool stopped using the one the speaker's "we" stopped using."""
    if not ctx.speaker:
        return 0
    me = ctx.speaker.casefold()
    dropped = [f for f in ctx.facts.values() if f.relation == "NO_LONGER_USES" and f.subject.casefold() == me]
    movers = {f.subject for f in ctx.facts.values() if f.relation == "USES" and f.subject.casefold() != me}
    made = 0
    for mover in movers:
        if ctx.label(mover) not in (None, "Person"):
            continue
        for fact in dropped:
            key = (mover.casefold(), "NO_LONGER_USES", fact.object.casefold())
            if key not in ctx.facts:
                ctx.facts[key] = fact.model_copy(
                    update={"subject": mover, "fact": f"{mover} stopped using {fact.object}"}
                )
                made += 1
    return made
