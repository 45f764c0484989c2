"""A short answer to the assistant's yes/no question, read as the user's statement: a "yes" to "Do you use X?",
"Are you still at X?", "Is X your boss?" says it ("yep DelPro" to "Do you use their herd software?": I use
DelPro); a "no" to a "still" question ends the state. The question alone, or a "no", states nothing."""

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


def answer(thread: Thread | None, content: str) -> str | None:
    """The user's statement a short answer makes of the assistant's yes/no question right before, if any."""
    if thread is None or thread.question is None:
        return None
    question = " ".join(thread.question.split())
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
