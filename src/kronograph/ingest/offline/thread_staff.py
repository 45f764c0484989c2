"""The workplace of the people the speaker works with: "my chef is Rachid", "my colleague Tom", "my boss Dr. Alves"
work where the speaker works, when the conversation knows one current workplace of the speaker's (a job, or a
business the speaker owns: "I have a small restaurant, Dar Zitoun"). Not with two workplaces known, nor one
that ended, nor for a tie said as former ("my old boss").
"""

from __future__ import annotations

from .context import Context, Subject
from .vocab import BRANDS

__all__ = ["staff_workplace"]

_TIES = frozenset({"COLLEAGUE_OF", "REPORTS_TO"})
_GONE = ("NO_LONGER", "LEFT", "QUIT", "FORMER", "SOLD", "CLOSED")


def staff_workplace(ctx: Context, text: str) -> int:
    """WORKS_AT the speaker's one workplace, for each colleague or boss this sentence named."""
    speaker, thread = ctx.speaker, ctx.thread
    if not speaker:
        return 0
    mine = speaker.casefold()
    ties = [f for f in ctx.facts.values() if f.relation in _TIES and f.subject.casefold() == mine]
    if not ties:
        return 0
    earlier = [(f.relation, f.object) for f in (thread.facts if thread else ()) if f.subject.casefold() == mine]
    now = [(f.relation, f.object) for f in ctx.facts.values() if f.subject.casefold() == mine]
    labels = dict(thread.names) if thread else {}
    places = {o.casefold(): o for r, o in earlier + now  # a business owned, not a car ("I own a Tesla")
              if r == "WORKS_AT" or r == "OWNS" and (ctx.label(o) or labels.get(o)) in (None, "Organization")
              and o.split()[0].casefold() not in BRANDS}
    for relation, obj in earlier + now:
        if relation.startswith(_GONE):
            places.pop(obj.casefold(), None)
    if len(places) != 1:
        return 0
    place = next(iter(places.values()))
    made = 0
    for tie in ties:
        if tie.object.casefold() != place.casefold():
            made += ctx.add_fact(Subject(tie.object, 0.7), "WORKS_AT", (place, "Organization"), (None, None), text,
                                 cap=0.7)
    return made

