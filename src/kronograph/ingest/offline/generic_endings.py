"""Endings read by the generic reading (generic.py): a link said before, ended in the speaker's own words.

- "no more rosebud 😩", "goodbye Opera forever": the speaker's standing link to a name the conversation said
  before (here "rosebud" of Adamstown Rosebud, "Opera" of Opera PMS) ends (NO_LONGER_LINKED_TO);
- "tegan's leaving Hunter Family Dental, she's starting her own practice": a job the thread knows ends (LEFT),
  not with next / soon / when / until, which make it a plan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .context import Subject
from .names import Run

if TYPE_CHECKING:
    from .generic import GenericReader

__all__ = ["leaving", "no_more"]

_LATER = frozenset("next soon after end when once tomorrow until eventually".split())


def no_more(reader: GenericReader) -> int:
    """ "no more rosebud 😩", "so no more Strava": the speaker's standing link to a name said before ends."""
    words, made = reader.words, 0
    for k in range(len(words) - 1):
        if words[k] == "goodbye" or (words[k] == "bye" and words[k + 1] != "bye"):
            j = k + 1  # "goodbye Opera forever"
        elif words[k] == "no" and words[k + 1] == "more" and k + 2 < len(words):
            j = k + 2
        else:
            continue
        j += j < len(words) and words[j] == "the"
        thread = reader.ctx.thread
        run = reader.at.get(j) or (Run(j, j, words[j]) if j < len(words) and words[j].isalpha() else None)
        if run is None or thread is None or not (reader._closed(run) or run.last + 1 < len(words)
                                                 and words[run.last + 1] in ("for", "forever")):
            continue
        said = [n for n, label in thread.names.items() if label not in ("Person", "Location") and (
            n.casefold() == run.name.casefold() or n.casefold().endswith(" " + run.name.casefold())
            or n.casefold().startswith(run.name.casefold() + " "))]
        if len(said) != 1:
            continue  # only a name the conversation said before: "rosebud" of Adamstown Rosebud
        run = Run(run.first, run.last, said[0])
        made += reader.ctx.add_fact(Subject(reader.ctx.speaker or "", 0.7), "NO_LONGER_LINKED_TO",
                                    (run.name, reader._label(run.name)), (None, None), reader.text, cap=0.7)
    return made


def leaving(reader: GenericReader) -> int:
    """ "tegan's leaving Hunter Family Dental, she's starting her own practice": a job the thread knows of
    ends (not "leaving X next month", nor a plan to leave)."""
    words, made = reader.words, 0
    if not _LATER.isdisjoint(words) or reader.ctx.thread is None:
        return 0
    for k, word in enumerate(words):
        if word != "leaving" or k < 2 or words[k - 1] not in ("'s", "is", "are", "'re"):
            continue
        run = reader.at.get(k + 1 + (k + 1 < len(words) and words[k + 1] == "the"))
        who = reader._subject(k - 1)
        if run is None or len(who) != 1 or not reader._closed(run):
            continue
        held = any(f.relation == "WORKS_AT" and f.subject.casefold() == who[0].name.casefold()
                   and f.object.casefold() == run.name.casefold() for f in reader.ctx.thread.facts)
        if held:
            made += reader.ctx.add_fact(who[0], "LEFT", (run.name, "Organization"), (None, None), reader.text, cap=0.7)
    return made
