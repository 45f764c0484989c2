"""A short answer to the assistant's yes/no question, read as the user's statement: a "yes" to "Do you use X?",
"Are you still at X?", "Is X your boss?" says it ("yep DelPro" to "Do you use their herd software?": I use
DelPro); a "no" to a "still" question ends the state. The question alone, or a "no", states nothing.

A name alone answers "what do you use (for quotes)?", "where do you work?", "where do you live?" ("just Excel
lol": I use Excel), only when the answer is that name and little else (not "Excel is too slow")."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .thread import Thread

__all__ = ["answer"]

_AFFIRM = re.compile(
    r"^\W*(?:yes+|yeah+|yep+|yup|ya|yea|sure|definitely|absolutely|correct|exactly|indeed|of\s+course|"
    r"that's\s+right|i\s+do|we\s+do|i\s+am|we\s+are|i\s+have|we\s+have)\b[\s,.!:;—-]*",
    re.IGNORECASE,
)
_DENY = re.compile(r"^\W*(?:no+|nope|nah|not\s+any\s*more|not\s+anymore)\b", re.IGNORECASE)
_TAIL = re.compile(r"(?:\s+(?:too|also|as\s+well|yet|now|currently|these\s+days|then|right))+\s*$", re.IGNORECASE)
_LEAD = r"^(?:[Ss]o\s+|[Aa]nd\s+)?"
_ASKED = (
    # "are you still at Acme?": a job; "are you still in Leeds?": a home
    (re.compile(_LEAD + r"[Aa]re\s+you\s+(?P<still>still\s+)(?P<rest>at\s+[A-Z].*?)\?$"), "I {still}work {rest}"),
    (re.compile(_LEAD + r"[Aa]re\s+you\s+(?P<still>still\s+)(?P<rest>in\s+[A-Z].*?)\?$"), "I {still}live {rest}"),
    (re.compile(_LEAD + r"do\s+you\s+(?P<still>still\s+)?(?P<rest>[a-z]+\s+.+?)\?$", re.I), "I {still}{rest}"),
    (re.compile(_LEAD + r"are\s+you\s+(?P<still>still\s+)?(?P<rest>.+?)\?$", re.I), "I'm {still}{rest}"),
    (re.compile(_LEAD + r"have\s+you\s+(?P<still>)(?P<rest>[a-z]+\s+.+?)\?$", re.I), "I have {rest}"),
    # "is Tom your boss?"
    (re.compile(_LEAD + r"[Ii]s\s+(?P<still>)(?P<name>[A-Z][\w.'’ -]*?)\s+(?P<rest>your\s+.+?)\?$"),
     "{name} is {rest}"),
)
_NAME_FIRST = re.compile(r"^(?P<name>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3})\b")


_WH = (
    (re.compile(r"\b(?:what|which)\s+(?:[a-z]+\s+){0,2}do\s+you\s+(?:currently\s+|usually\s+|mainly\s+)?use\b.*\?$",
                re.I), "I use {name}"),
    (re.compile(r"\bwhere\s+do\s+you\s+(?:currently\s+)?work\b[^?]*\?$", re.I), "I work at {name}"),
    (re.compile(r"\bwhere\s+(?:do\s+you\s+(?:currently\s+)?live|are\s+you\s+(?:based|living))\b[^?]*\?$", re.I),
     "I live in {name}"),
)
_WH_LEAD = (
    r"^\W*(?i:(?:just|mostly|only|still|currently|oh|um+|well|honestly|lol|haha|right\s+now|at\s+the\s+moment)"
    r"\b[\s,]*)*"
)
_NAME_ALONE = re.compile(
    _WH_LEAD + r"(?:at\s+|in\s+)?(?P<name>[A-Z][\w'’.&-]*(?:\s+(?:[A-Z0-9][\w'’.&-]*|de|of))*)"
    r"(?=\s*(?:$|[,.!;:)(]|[\U0001F300-\U0001FAFF\u2600-\u27BF]|\b(?:lol|haha|tbh|mostly|for\s+now|these\s+days|"
    r"right\s+now|at\s+the\s+moment|and\s+[a-z])\b))"
)
_NOT_ANSWERS = frozenset("I I'm It It's We Nothing None No Not Yes Yeah Nah Nope Well Honestly The A An My Our".split())


def _named_answer(question: str, content: str) -> str | None:
    """ "just Excel lol" to "what do you use for quotes?": I use Excel."""
    for regex, template in _WH:
        if regex.search(question) and (m := _NAME_ALONE.match(content)) is not None:
            name = m.group("name").rstrip(".")
            if name.split()[0] in _NOT_ANSWERS or name.casefold() in question.casefold():
                return None
            return template.format(name=name) + "."
    return None


def answer(thread: Thread | None, content: str) -> str | None:
    """The user's statement a short answer makes of the assistant's question right before, if any."""
    if thread is None or thread.question is None:
        return None
    question = " ".join(thread.question.split())
    if (named := _named_answer(question, content)) is not None:
        return named
    if " or " in question.casefold() or re.search(r"\b(?:ever|would|could|might|should)\b", question, re.I):
        return None
    for regex, template in _ASKED:
        m = regex.match(question)
        if m is not None:
            break
    else:
        return None
    rest = _TAIL.sub("", m.group("rest"))
    rest = re.sub(r"\byour\b", "my", re.sub(r"\byours\b", "mine", re.sub(r"\byou\b", "me", rest)))
    still = m.group("still") or ""
    yes, no = _AFFIRM.match(content), _DENY.match(content)
    if yes is not None:
        given = _NAME_FIRST.match(content[yes.end() :])
        if given is not None and not re.search(r"\b[A-Z]", rest) and template.startswith("I {"):
            words = rest.split()  # "yep DelPro" to "do you use their herd software": I use DelPro
            rest = f"{words[0]} {given.group('name')}"
        statement = template.format(still=still, rest=rest, name=m.groupdict().get("name"))
    elif no is not None and still:
        statement = template.format(still="no longer ", rest=rest, name=None)
    else:
        return None
    if not any(w[:1].isupper() for w in statement.split()[1:]) and statement.split()[0] in ("I", "I'm"):
        return None  # nothing named: nothing to link
    return statement + "."
