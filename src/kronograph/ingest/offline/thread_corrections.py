"""Corrections of what an earlier message said: "sorry, I meant Atkins, not Arup" the message after "he's an
engineer at Arup"; "correction from earlier, her nursery is Little Oaks, not Bright Kids".

The thread keeps the facts the user's earlier messages stated (``Thread.facts``). A sentence that owns up to a
mistake (sorry, correction, I meant, mixed up ...) and says "not X", where X is the object of such a fact, takes
that fact back: the fact that ends it is dated at the same start, so the store expires the wrong fact as a
correction (it was never true) rather than ending it now. The name right before "not X" ("Atkins, not Arup")
takes its place, for the same subject and relation, from the same start. A fact corrected within the same
message is ``corrections.py``'s. "<A> now, not <B>" without owning up is a change: B ends now and A starts now.

"Sorry, I said Tom's company is Acme. It's actually Initech" quotes an earlier claim and puts another name in
its place: the quoted fact dates from when the thread first named Acme, and ends where Initech starts; with
"now" or a date ("it's Initech now, they rebranded in January") that is a change from then, else a correction
from the quoted fact's own start.
"""

from __future__ import annotations

import re
from datetime import datetime

from .context import Context, Subject
from .dates import find_times
from .names import Run, Token
from .patterns import ENDINGS
from .thread import _RECENT, Earlier
from .thread_renames import renamed
from .thread_work import one_job

__all__ = ["correct_earlier", "quoted_then_renamed", "renamed_earlier", "renamed_short"]

_OWNED_UP = frozenset({"sorry", "correction", "oops", "mistake", "typo", "wrong", "meant", "mixed", "muddled"})
_NOW = frozenset({"now", "nowadays", "currently", "days"})  # "<A> now / these days, not <B>": a change
_GLUE = frozenset({",", "—", "–", "-", "and"})
_ENDED = ("NO_LONGER", "NOT_", "LEFT", "QUIT", "FORMER", "EX_", "PLANS_TO", "WANTS_TO", "CONSIDERING")


def correct_earlier(tokens: list[Token], runs: list[Run], ctx: Context) -> int:
    """Take back the earlier fact whose object this sentence says "not" to, and put the name it gives in its
    place; how many facts were made."""
    thread = ctx.thread
    words = [t.lower for t in tokens]
    owned = not _OWNED_UP.isdisjoint(words) or "actually" in words[:2]
    if not owned and _NOW.isdisjoint(words):
        return 0
    made = _placed_instead(" ".join(t.text for t in tokens), ctx) if owned else 0
    if thread is None or not thread.facts:
        return made
    by_last = {r.last: r for r in runs}
    for k, word in enumerate(words[:-1]):
        if word != "not" or not owned and _NOW.isdisjoint(words[max(0, k - 2) : k]):
            continue  # without owning up, only "<A> now, not <B>"
        earlier, _ = _earlier_object(tokens, k + 1 + (not owned and words[k + 1] in ("in", "at", "with")), thread.facts)
        if earlier is None or any(f.object.casefold() == earlier.object.casefold() for f in ctx.facts.values()):
            continue  # said of nothing earlier, or corrected within this message already
        j = k - 1
        while j >= 0 and (words[j] in _GLUE or words[j] in _NOW or words[j] in ("actually", "these")):  # "X now, not Y"
            j -= 1
        instead = by_last.get(j)
        now = None if owned or ctx.reference is None else ctx.reference.isoformat()  # unowned: a change, not a slip
        made += _retract(ctx, earlier, instead.name if instead is not None else None, now)
    return made


def _earlier_object(tokens: list[Token], at: int, facts: tuple[Earlier, ...]) -> tuple[Earlier | None, int]:
    """The latest standing earlier fact whose object the words from ``at`` name (the longest such name), in full
or by its last two words or more ("not Benito Juárez" of "Escuela Primaria Benito Juárez")."""
    for width in range(min(5, len(tokens) - at), 0, -1):
        said = " ".join(t.text for t in tokens[at : at + width]).casefold()
        for fact in reversed(facts):
            if fact.object.casefold() == said and not fact.relation.startswith(_ENDED):
                return fact, width
    for width in range(min(5, len(tokens) - at), 1, -1):
        if not all(t.text[:1].isupper() for t in tokens[at : at + width]):
            continue
        said = " ".join(t.text for t in tokens[at : at + width]).casefold()
        tails = [f for f in facts if f.object.casefold().endswith(" " + said) and not f.relation.startswith(_ENDED)]
        if len({f.object.casefold() for f in tails}) == 1:
            return tails[-1], width
    if at < len(tokens) and tokens[at].text[:1].isupper():  # "not Attijariwafa" of Attijariwafa Bank
        said = tokens[at].text.casefold()
        heads = [f for f in facts if f.object.casefold().startswith(said + " ") and not f.relation.startswith(_ENDED)]
        if len({f.object.casefold() for f in heads}) == 1:
            return heads[-1], 1
    return None, 0


def _ending(relation: str) -> str | None:
    """The relation that ends ``relation`` (NO_LONGER_LINKED_TO where it can)."""
    if relation in ENDINGS["NO_LONGER_LINKED_TO"]:
        return "NO_LONGER_LINKED_TO"
    return next((ending for ending, ended in ENDINGS.items() if relation in ended), None)


def _retract(ctx: Context, earlier: Earlier, instead: str | None, since: str | None = None) -> int:
    """``earlier`` ended from its own start (or from ``since``, a change), and ``instead`` in its place."""
    ending = _ending(earlier.relation)
    if ending is None:
        return 0
    who = Subject(earlier.subject, 0.8)
    start = since or earlier.valid_at
    made = _dated(ctx, who, ending, earlier.object, start)
    if instead is None or instead.casefold() in (earlier.object.casefold(), earlier.subject.casefold()):
        return made
    if not any(f.subject == earlier.subject and f.object.casefold() == instead.casefold() for f in ctx.facts.values()):
        made += _dated(ctx, who, earlier.relation, instead, start)
    return made


def _dated(ctx: Context, who: Subject, relation: str, name: str, valid_at: str | None) -> int:
    made = ctx.add_fact(who, relation, (name, ctx.label(name)), (None, None), "", cap=0.8)
    if made:
        ctx.facts[(who.name.casefold(), relation, name.casefold())].valid_at = valid_at
    return made


_NAME = r"[A-Z][\w'’&.-]*(?:\s+(?:[A-Z][\w'’&.-]*|of|de|&))*"
_QUOTED = re.compile(
    r"\bI\s+(?:said|told\s+you|mentioned|wrote)\s+(?:that\s+)?(?P<clause>[^.!?]+)[.!?]+\s*(?:but\s+|so\s+)?"
    r"(?:(?:[Ii]t's|[Ii]t\s+is|[Ii]ts|[Tt]hat's)\s+(?:actually\s+|really\s+|now\s+|called\s+)+|[Aa]ctually,?\s+"
    rf"(?:it's|it\s+is)\s+(?:called\s+|now\s+)*)(?P<new>{_NAME})(?P<rest>[^.!?]*)",
)


def quoted_then_renamed(ctx: Context, content: str) -> int:
    """ "I said X ... It's actually Y (now)": the quoted fact about X, dated when X was first said, ends where Y
    starts."""
    m = _QUOTED.search(content)
    if m is None:
        return 0
    clause, new = m.group("clause"), m.group("new")
    quoted = [f for f in ctx.facts.values() if f.object in clause and f.object.casefold() != new.casefold()]
    if not quoted:
        return 0
    fact = quoted[-1]
    thread = ctx.thread
    first = thread.first_said.get(fact.object.casefold()) if thread is not None else None
    if first is not None:
        fact.valid_at, fact.time_expression = first, None
    reference = ctx.reference
    times = [t for t in find_times(m.group("rest"), reference) if t.role in ("at", "since")] if reference else []
    if times:
        since: str | None = times[0].when.isoformat()
    elif re.search(r"\bnow\b", content[m.end("clause") : m.end()]):
        since = reference.isoformat() if reference is not None else None
    else:
        since = fact.valid_at  # a correction: never true
    if since and fact.valid_at and datetime.fromisoformat(since) < datetime.fromisoformat(fact.valid_at):
        since = fact.valid_at  # changed before it was said: it was already wrong then, a correction
    ending = _ending(fact.relation)
    if ending is None:
        return 0
    who = Subject(fact.subject, 0.8)
    return _dated(ctx, who, ending, fact.object, since) + _dated(ctx, who, fact.relation, new, since)


_PLACED = re.compile(
    rf"(?P<subject>{_NAME})\s+is\s+(?:actually\s+|really\s+)?(?:based\s+|located\s+)?in\s+(?P<new>{_NAME})\s*,?\s+"
    rf"not\s+(?:in\s+)?(?P<old>{_NAME})"
)


def _placed_instead(text: str, ctx: Context) -> int:
    """ "correction: Huerta Ferrer is in Meliana, not Alboraia": where that one is (a person lives there, anything
    else is located there), and the place said before taken back, for it and not the speaker."""
    m = _PLACED.search(text)
    if m is None or m.group("subject").split()[0] in ("I", "It", "That", "This", "He", "She", "We", "They"):
        return 0
    subject, new, old = m.group("subject"), m.group("new"), m.group("old")
    thread = ctx.thread
    label = ctx.label(subject) or (thread.names.get(subject) if thread is not None else None)
    facts = thread.facts if thread is not None else ()
    earlier = next((e for e in reversed(facts) if e.subject == subject and e.object.casefold() == old.casefold()), None)
    who = Subject(subject, 0.8)
    start = earlier.valid_at if earlier is not None else None
    made = _dated(ctx, who, "NO_LONGER_LINKED_TO", old, start)
    lives = label == "Person" and not re.search(r"\b(?:based|located)\b", m.group(0))
    return made + _dated(ctx, who, "LIVES_IN" if lives else "LOCATED_IN", new, start)


def _put_right(ctx: Context, content: str) -> tuple[str, str] | None:
    thread = ctx.thread
    if thread is None or not thread.facts:
        return None
    return renamed(content, thread.names, tuple(p for named in thread.people[::-1][:_RECENT] for p in named))


def renamed_short(ctx: Context, content: str, names: dict[str, str]) -> dict[str, str]:
    """This message's short names written in full (``thread.expand_names``), for a message that puts a name
    right: "Rizky" is the new Rizky Pratama, and "Prasetyo" (the part put right) is someone else, not expanded."""
    put_right = _put_right(ctx, content)
    if put_right is None:
        return names
    old, new = put_right
    out = {}
    for short, full in names.items():
        if full != old:
            out[short] = full
        elif set(short.casefold().split()) <= set(new.casefold().split()):
            out[short] = new
    return out


def renamed_earlier(ctx: Context, content: str) -> int:
    """ "sorry, his surname is Ochieng, Kevin Ochieng" after "my manager Kevin Otieno": each earlier fact about
    the person, under the new name from its own start, and the one under the old name taken back (never true)."""
    thread = ctx.thread
    put_right = _put_right(ctx, content)
    if thread is None or put_right is None:
        return 0
    old, new = (n.casefold() for n in put_right)
    made = 0
    for earlier in thread.facts:
        if earlier.relation.startswith(_ENDED) or old not in (earlier.subject.casefold(), earlier.object.casefold()):
            continue
        subject = put_right[1] if earlier.subject.casefold() == old else earlier.subject
        obj = put_right[1] if earlier.object.casefold() == old else earlier.object
        if (ending := _ending(earlier.relation)) is not None:
            made += _dated(ctx, Subject(earlier.subject, 0.8), ending, earlier.object, earlier.valid_at)
        if subject.casefold() != obj.casefold():
            made += _dated(ctx, Subject(subject, 0.8), earlier.relation, obj, earlier.valid_at)
        if earlier.relation == "REPORTS_TO" and (job := one_job(ctx)) is not None:  # the job thread_work.py gave
            made += _dated(ctx, Subject(earlier.object, 0.8), "NO_LONGER_LINKED_TO", job, earlier.valid_at)
    for key in [k for k in ctx.facts if old in (k[0], k[2]) and not k[1].startswith(_ENDED)]:
        del ctx.facts[key]  # "Otieno was my stats lecturer": the old name is someone else now, not this person
    ctx.mention(put_right[1], "Person")
    return made
