"""The user's manager works where the user works: "I'm an analyst at Equity Bank" and, in another message, "my
manager Kevin Otieno was impressed" (or both in one): Kevin Otieno works at Equity Bank. And when that manager
retires or leaves ("mr otieno retired last month", "my boss resigned"), both end: the manager left the job, and
the user no longer reports to them.

Only with one workplace the user has and has not left (none while two jobs or a side job are said), and only
from the message that says the later of the two, so each pairing is made once. The manager's job is dated from
the later of the two starts: the thread knew them both from then.
"""

from __future__ import annotations

import re
from datetime import datetime

from .context import Context, Subject
from .dates import find_times

__all__ = ["manager_at_work", "manager_gone", "one_job"]

_LEFT = ("LEFT", "QUIT", "NO_LONGER_WORKS_AT", "NO_LONGER_LINKED_TO", "FORMER_EMPLOYEE_OF", "WAS_FIRED_FROM")


def manager_at_work(ctx: Context) -> int:
    """The user's manager (REPORTS_TO) at the user's one current workplace (WORKS_AT); how many facts made."""
    speaker = ctx.speaker
    if not speaker:
        return 0
    me = speaker.casefold()
    thread = ctx.thread
    earlier = [(e.subject, e.relation, e.object, e.valid_at, False) for e in (thread.facts if thread else ())]
    now = [(f.subject, f.relation, f.object, f.valid_at, True) for f in ctx.facts.values()]
    said = [s for s in (*earlier, *now) if s[0].casefold() == me]
    left = {o.casefold() for _, r, o, _, _ in said if r in _LEFT or r == "NO_LONGER_REPORTS_TO"}
    jobs = {o.casefold(): s for s in said if s[1] == "WORKS_AT" and (o := s[2]).casefold() not in left}
    managers = {o.casefold(): s for s in said if s[1] == "REPORTS_TO" and (o := s[2]).casefold() not in left}
    if len(jobs) > 1 and managers and all(m[4] for m in managers.values()):
        jobs = {o: s for o, s in jobs.items() if s[4]}  # "I started at X yesterday. My new manager is Y": that job
    if len(jobs) != 1 or not managers:
        return 0
    job = next(iter(jobs.values()))
    made = 0
    for boss in managers.values():
        if not (job[4] or boss[4]) or ctx.label(boss[2]) not in (None, "Person"):
            continue  # both said before: made then
        key = (boss[2].casefold(), "WORKS_AT", job[2].casefold())
        if ctx.add_fact(Subject(boss[2], 0.7), "WORKS_AT", (job[2], "Organization"), (None, None), "", cap=0.7):
            ctx.facts[key].valid_at = _later(job[3], boss[3])
            made += 1
    return made


def _later(a: str | None, b: str | None) -> str | None:
    if a is None or b is None:
        return a or b
    return max(a, b, key=datetime.fromisoformat)


def one_job(ctx: Context) -> str | None:
    """The user's one workplace, said earlier or now and not left; None when none or several."""
    me = (ctx.speaker or "").casefold()
    said = [(e.relation, e.object) for e in (ctx.thread.facts if ctx.thread else ()) if e.subject.casefold() == me]
    said += [(f.relation, f.object) for f in ctx.facts.values() if f.subject.casefold() == me]
    left = {o.casefold() for r, o in said if r in _LEFT}
    jobs = {o.casefold(): o for r, o in said if r == "WORKS_AT" and o.casefold() not in left}
    return next(iter(jobs.values())) if len(jobs) == 1 else None


_TITLED = r"(?:(?:mr|mrs|ms|dr|prof)\.?\s+)?"
_GONE = re.compile(
    rf"(?:\bmy\s+(?:old\s+)?(?P<role>boss|manager|supervisor|line\s+manager|team\s+lead)|(?:^|[.!?]\s+|\b(?:so|and)\s+)"
    rf"{_TITLED}(?!(?:so|and|but|then|well|oh|omg|also|i|we|he|she|they|it)\b)(?P<name>[A-Za-z][\w'’-]+(?:\s+(?-i:[A-Z])[\w'’-]+){{0,2}}))\s+(?:has\s+|just\s+|finally\s+|officially\s+)*"
    r"(?:retired|resigned|quit|left\s+the\s+(?:company|firm|practice|clinic|office|team|store|branch))\b",
    re.IGNORECASE,
)


def manager_gone(ctx: Context, content: str) -> int:
    """ "mr hoa retired last month!!" of the user's manager: the user no longer reports to them, and they left
    the user's workplace, from the day said (else the message's)."""
    speaker, thread, reference = ctx.speaker, ctx.thread, ctx.reference
    if not speaker or thread is None or (m := _GONE.search(content)) is None:
        return 0
    bosses = list(dict.fromkeys(e.object for e in thread.facts
                                if e.subject.casefold() == speaker.casefold() and e.relation == "REPORTS_TO"))
    if m.group("name"):
        word = m.group("name").casefold().split()
        bosses = [b for b in bosses if set(word) <= set(b.casefold().split())]
    if len(bosses) != 1:
        return 0
    boss = bosses[-1]
    times = [t for t in find_times(content, reference) if t.role in ("at", "since")] if reference else []
    when = times[0].when if times and reference is not None and times[0].when <= reference else reference
    made = _ended(ctx, Subject(speaker, 0.7), "NO_LONGER_REPORTS_TO", boss, "Person", when)
    if (job := one_job(ctx)) is not None:
        made += _ended(ctx, Subject(boss, 0.7), "LEFT", job, "Organization", when)
    return made


def _ended(ctx: Context, who: Subject, relation: str, name: str, label: str, when: datetime | None) -> int:
    made = ctx.add_fact(who, relation, (name, label), (None, None), "", cap=0.7)
    if made and when is not None:
        ctx.facts[(who.name.casefold(), relation, name.casefold())].valid_at = when.isoformat()
    return made
