"""A move planned in one message and done in a later one: the new home starts, the old ones end.

"i'm moving to tampere next month. got an apartment in pispala" then, weeks later, "moved in last weekend!!"
or "We moved last weekend.": the user lives in Tampere and Pispala, and no longer where they said they lived
before (every home an earlier message stated that the move does not name again). A home put right before the
move ("the apartment is in Seodaemun-gu, not Mapo-gu") is the one moved into.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .context import Context, Subject
from .lowercase import COMMON

if TYPE_CHECKING:
    from .thread import Thread

__all__ = ["MOVED", "called_off", "homes_planned", "move_done"]

_WORD = r"[^\W\d_][\w'’-]*"
_PLACE = rf"(?:(?-i:[A-Z]){_WORD}(?:\s+(?-i:[A-Z]){_WORD}){{0,2}}|{_WORD})"
# "moving to tampere next month", "we're moving to Seoul."
_MOVING_TO = re.compile(
    rf"\bmoving\s+(?:back\s+)?to\s+(?P<to>{_PLACE})(?=\s+(?:next|this|in|on|at|so|because|for|soon)\b|\s*[,.!]|\s*$)",
    re.IGNORECASE,
)
# "got an apartment in pispala", "we found a flat in Mapo-gu", "bought a house in Leith"
_NEW_HOME = re.compile(
    rf"\b(?:got|found|bought|rented|signed\s+for)\s+(?:a|an|the|our|my)\s+(?:new\s+|little\s+|small\s+|tiny\s+)?"
    rf"(?:apartment|flat|house|place|home|condo|cottage)\s+in\s+(?P<to>{_PLACE})(?=\s*[,.!;]|\s+(?:and|with|near|close)"
    rf"\b|\s*$)",
    re.IGNORECASE,
)
_PUT_RIGHT = re.compile(rf"\bin\s+(?P<new>{_PLACE}),?\s+not\s+(?:in\s+)?(?P<old>{_PLACE})", re.IGNORECASE)
# "moved in!!", "moved last weekend, ...", "We moved last weekend.", "finally moved in yesterday"
MOVED = re.compile(
    r"^\W*(?:(?:we|i)(?:'ve|\s+have)?\s+)?(?:finally\s+|just\s+|officially\s+|all\s+)*moved(?:\s+in)?"
    r"(?:\s+(?:last\s+\w+|yesterday|today|this\s+(?:week(?:end)?|morning)|on\s+\w+))?\s*[!.,]",
    re.IGNORECASE,
)
_HEDGED = re.compile(
    r"\b(?:thinking|considering|consider|maybe|might|may|someday|dream(?:ing)?|hope|hoping|want|wants|if|would|could|"
    r"looking\s+at|not\s+sure)\b",
    re.IGNORECASE,
)
_CALLED_OFF = re.compile(
    r"\b(?:(?:we(?:'re|\s+are)|i(?:'m|\s+am))\s+staying|not\s+moving|move\s+(?:is|'s)\s+off|fell\s+through)\b",
    re.IGNORECASE,
)
_NOT_PLACES = COMMON | frozenset("the a an my our his her their it there here back out again soon".split())


Home = tuple[str, bool]  # a place, and whether it is the town moved to (else where the new flat or house is)


def called_off(content: str) -> bool:
    """Whether a message doubts or calls off a move: "we might be moving", "the move fell through"."""
    return _HEDGED.search(content) is not None or _CALLED_OFF.search(content) is not None


def homes_planned(content: str, homes: tuple[Home, ...]) -> tuple[Home, ...]:
    """The new homes a user's message announces for a move to come, or puts right."""
    if (put := _PUT_RIGHT.search(content)) is not None and any(
        h.casefold() == put.group("old").casefold() for h, _ in homes
    ):
        new = _cased(put.group("new"))
        return tuple((new, town) if h.casefold() == put.group("old").casefold() else (h, town) for h, town in homes)
    if _CALLED_OFF.search(content):
        return ()  # "we're staying in Mölndal", "the move fell through"
    if "moving" not in content.casefold() or _HEDGED.search(content):
        return homes  # "thinking about moving to Bristol someday": no move planned yet
    found = [(m.group("to"), regex is _MOVING_TO) for regex in (_MOVING_TO, _NEW_HOME) for m in regex.finditer(content)]
    found = [(_cased(p), town) for p, town in found if p.split()[0].casefold() not in _NOT_PLACES]
    return tuple(dict.fromkeys(found)) if found else homes


def move_done(ctx: Context, content: str, thread: Thread) -> int:
    """ "moved in last weekend!!" after a planned move: the new homes start, the homes stated before end."""
    if not thread.homes or not ctx.speaker or MOVED.search(content) is None:
        return 0
    me = Subject(ctx.speaker, 0.7)
    made = 0
    new = {h.casefold() for h, _ in thread.homes}
    town = any(t for _, t in thread.homes)
    for home, is_town in thread.homes:  # one lives in one town; the flat found there is a home in its quarter
        relation = "LIVES_IN" if is_town or not town else "HAS_HOME_IN"
        made += ctx.add_fact(me, relation, (home, "Location"), (None, None), content, cap=0.7)
    for fact in thread.facts:
        if fact.relation == "LIVES_IN" and fact.subject == ctx.speaker and fact.object.casefold() not in new:
            made += ctx.add_fact(me, "NO_LONGER_LIVES_IN", (fact.object, "Location"), (None, None), content, cap=0.7)
    return made


def _cased(place: str) -> str:
    """A place typed in lower case, written as a name: "tampere" is Tampere."""
    return place if any(c.isupper() for c in place) else " ".join(w[:1].upper() + w[1:] for w in place.split())
