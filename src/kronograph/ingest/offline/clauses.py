"""Reading the two ends of a matched verb phrase: who does it, and to what.

The subject is the name or pronoun right before the verb, with only known
small words between them (auxiliaries, adverbs, "no longer", "might"...).
Anything else in between means the clause is not understood, and nothing is
extracted: a wrong subject is worse than a missed fact. The words between
also carry the clause's mood: negated, hedged, closing ("no longer", "used
to") or future ("will").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .lowercase import institution, lower_name
from .names import Run, Token
from .vocab import LANGUAGE_QUALIFIERS, MAKES, TECH

__all__ = ["Found", "Gap", "Obj", "Want", "read_gap", "read_objects", "stated"]

FILLER = frozenset(
    """
    is am are was were be been being has have had 's 'm 're 've now still currently also recently just already
    officially finally both all really actually then later eventually happily once too soon even again truly
    definitely absolutely mostly mainly primarily totally only fluently very much always quietly secretly started began
    start begin got get gets who , will 'll shall going gonna do does did
    """.split()
)
NEGATION = frozenset("not n't never no neither nor hardly barely stopped quit".split())
HEDGE = frozenset(
    """
    might may could would should must can 'd want wants wanted wanna plan plans planning planned hope hopes
    hoping hoped think thinks thinking thought consider considers considering considered try tries trying
    tried wish wishes need needs supposed likely probably maybe perhaps possibly about of if unless whether
    dream dreams dreaming decide decided deciding expect expects expected intend intends intending
    """.split()
)
_TO_AFTER = frozenset({"going", "used", "got", "have", "has", "had"}) | HEDGE
PRONOUNS = frozenset("i we he she they it".split())
CLAUSE_BREAK = frozenset({"and", "then", ",", "but", "so", ";", "also"})
_DETERMINERS = frozenset("the a an my his her their our its your".split())
_FOLLOW_OK = frozenset(
    """
    . , ; : ! ? ) - and or but so then as at in on for with since until till from to by during after before about
    of now still too again ago every each this last next today yesterday tomorrow tonight recently together onto
    nowadays anymore these those there here which who where when while because full-time part-time project team
    a an the one two three four five six seven eight nine ten eleven twelve several few couple some many almost
    over nearly around just early late mid earlier later soon right last since all
    btw tbh lol haha though anyway actually honestly rn atm lmao fyi imo either went was is were done finished instead
    downtown uptown nearby abroad overseas not
    """.split()
)
_GERUND_LINKS = frozenset("at in for with on from to".split())
_CONDITION_HEADS = frozenset({"disease", "syndrome", "disorder"})
_UNITS = frozenset("team group department division unit squad".split())
_CLOSE = frozenset({",", ".", "!", ";", "and"})
Found = tuple[str, str | None, str]  # an object's name and label, and its own relation ("": the clause's)
_STOPISH = (
    _FOLLOW_OK
    | _DETERMINERS
    | PRONOUNS
    | FILLER
    | NEGATION
    | HEDGE
    | frozenset("me you him her us them it this that what something everything nothing anything one".split())
)

_AFTER_LANGUAGE = frozenset("and or so but too now fluently well natively at with".split())  # "I speak Twi and"


@dataclass(slots=True)
class Gap:
    """The small words between a subject and its verb, and what they say."""

    subject_at: int  # index of the token before the gap: the subject's last token, or -1
    negated: bool = False
    hedged: bool = False
    closing: bool = False
    future: bool = False
    perfect: bool = False
    has_comma: bool = False
    relative: bool = False  # "Anna, who lives in Leeds": the comma belongs to the relative clause
    words: list[str] = field(default_factory=list)


def read_gap(tokens: list[Token], verb_at: int) -> Gap | None:
    """Walk left from the verb over known small words; None when an unknown word is in the way."""
    j = verb_at - 1
    gap = Gap(subject_at=-1)
    while j >= 0:
        word = tokens[j].lower
        if word == "to":
            if j == 0 or tokens[j - 1].lower not in _TO_AFTER:
                return None
        elif word == "longer" and j > 0 and tokens[j - 1].lower == "no":
            gap.closing = True
            j -= 2
            continue
        elif word == "used" and gap.words and gap.words[-1] == "to":
            gap.closing = True
        elif word in ("stopped", "quit"):
            gap.closing = True  # "I stopped using Jira"
        elif word in NEGATION:
            gap.negated = True
        elif word in HEDGE:
            gap.hedged = True
        elif word not in FILLER:
            break
        gap.future |= word in ("will", "'ll", "going", "gonna", "shall")
        gap.perfect |= word in ("has", "have", "'ve")
        gap.has_comma |= word == ","
        gap.relative |= word == "who"
        gap.words.append(word)
        j -= 1
    gap.subject_at = j
    return gap


@dataclass(slots=True)
class Obj:
    name: str
    label: str | None
    last: int  # index of its last token
    loose: bool = False
    unit: bool = False  # "the Payments team (at Acme)": a team, named ("Payments team") or not ("")
    org: Obj | None = None  # the organisation after a unit's "at"


@dataclass(frozen=True, slots=True)
class Want:
    """What a pattern takes as its object besides a capitalised name."""

    loose: bool = False  # a plain noun ("I love hiking")
    lower: bool = False  # a lower-case name ("i live in berlin")
    vocabulary: frozenset[str] = frozenset()  # lower-case words that are names here ("spanish")
    strict: bool = False  # only words of the vocabulary
    joiners: frozenset[str] = frozenset()  # besides "and", "or" and commas
    named: bool = False  # with ``strict``: one capitalised word too ("I speak Twi and Ga")
    purposes: bool = False  # tools listed with what each is for ("X for drawings and Y for scheduling")
    qualifier: bool = False  # a name before a noun is the object ("a DeLaval robot", "the Menomonie clinic")


def _object_at(text: str, tokens: list[Token], runs_at: dict[int, Run], i: int, want: Want) -> Obj | None:
    n = len(tokens)
    if i >= n:
        return None
    start = i
    if want.lower and (named := institution(tokens, i, _STOPISH, _FOLLOW_OK)) is not None:
        return Obj(named[0], "Organization", named[1])
    if tokens[i].lower in _DETERMINERS:
        i += 1
        while (
            i < n
            and i - start <= 3
            and tokens[i].lower not in _STOPISH
            and tokens[i].text[0].islower()
            and tokens[i].lower not in want.vocabulary
        ):
            i += 1
        if i < n and tokens[i].lower in ("called", "named"):
            i += 1
        elif (
            not want.strict and i > start + 1 and i + 1 < n and tokens[i].lower == ","
            and (apposed := runs_at.get(i + 1))
        ):
            # "my old boss, Daniel Brooks": the name in apposition, when nothing else follows it
            if apposed.last + 1 < n and tokens[apposed.last + 1].lower not in _CLOSE:
                return None
            return Obj(apposed.name, None, apposed.last)
        if (unit := _unit(text, tokens, runs_at, i)) is not None:
            return unit
    run = runs_at.get(i)
    if want.strict:
        if i >= n:
            return None
        if i + 1 < n and tokens[i].lower in LANGUAGE_QUALIFIERS and tokens[i + 1].lower in want.vocabulary:
            return Obj(f"{_cased(tokens[i].text)} {_cased(tokens[i + 1].text)}", None, i + 1)  # "swiss german"
        if run is not None:
            maker = run.name.split()[0].lower() in MAKES and want.vocabulary >= MAKES  # "my Honda Civic"
            known = (
                run.name.lower() in want.vocabulary
                or maker
                or (
                    want.named
                    and run.first == run.last == i
                    and run.name.lower() not in TECH  # "fluent in Excel": no language
                    and (i + 1 >= n or not tokens[i + 1].text.isalpha() or tokens[i + 1].lower in _AFTER_LANGUAGE)
                )
            )
            return Obj(run.name, None, run.last) if known else None
        if tokens[i].lower in MAKES and want.vocabulary >= MAKES and (model := _model(tokens, i)):
            return model
        if tokens[i].lower not in want.vocabulary:
            return None
        if i + 1 < n and tokens[i + 1].lower in _CONDITION_HEADS:  # "celiac disease": the condition's whole name
            return Obj(f"{_cased(tokens[i].text)} {tokens[i + 1].lower}", None, i + 1)
        return Obj(_cased(tokens[i].text), None, i)
    if run is None and i < n and tokens[i].lower in MAKES and want.vocabulary >= MAKES and (model := _model(tokens, i)):
        return model
    if run is None and i < n and tokens[i].lower in want.vocabulary and tokens[i].text.isalpha():
        return Obj(_cased(tokens[i].text), None, i)  # "we use kafka", "i have a tesla", "an iPhone"
    if run is None and i == start and want.lower:
        found = lower_name(tokens, i, _STOPISH, _FOLLOW_OK)
        if found is not None:
            return Obj(found[0], None, found[1])
    if run is None:
        if not want.loose or i != start or tokens[i].lower in _STOPISH or not tokens[i].text.isalpha():
            return None
        if tokens[i].text[0].isupper() or tokens[i].lower.endswith("ly"):
            return None
        if (
            tokens[i].lower.endswith("ing")
            and tokens[i + 1 : i + 2]
            and tokens[i + 1].lower in _GERUND_LINKS
            and (i + 2 in runs_at)
        ):
            return None  # "I hate working at Acme": a clause, not a pastime
        j = i + 1 if i + 1 < n and tokens[i + 1].text.isalpha() and tokens[i + 1].lower not in _STOPISH else i
        if j + 1 < n and tokens[j + 1].lower not in _FOLLOW_OK:
            return None
        return Obj(text[tokens[i].start : tokens[j].end], None, j, loose=True)
    last, label = run.last, None
    if last + 1 < n:
        follower = tokens[last + 1].lower
        if follower == "project":
            last, label = last + 1, "Project"
        elif follower not in _FOLLOW_OK and not follower.endswith("ly") and follower.isalpha() and not want.qualifier:
            return None  # "the Berlin office": the name only qualifies the real object
    return Obj(run.name, label, last)


def _model(tokens: list[Token], i: int) -> Obj | None:
    """ "my fiat panda": a maker and the model after it, when the model ends the phrase."""
    if i + 1 >= len(tokens) or tokens[i + 1].lower in _STOPISH or not tokens[i + 1].text.isalpha():
        return None
    word = tokens[i + 1].lower
    if word.endswith(("ed", "ing")) or (i + 2 < len(tokens) and tokens[i + 2].lower not in _CLOSE | {"?"}):
        return None
    return Obj(f"{_cased(tokens[i].text)} {_cased(tokens[i + 1].text)}", None, i + 1)


def _cased(word: str) -> str:
    """A known word as a name: capitalised, unless it was typed with capitals of its own ("iPhone")."""
    return word.capitalize() if word.islower() else word


def _unit(text: str, tokens: list[Token], runs_at: dict[int, Run], i: int) -> Obj | None:
    """ "the Payments team", "the data team at Acme": a unit, named only when capitalised, and its organisation."""
    n = len(tokens)
    run = runs_at.get(i)
    at = run.last + 1 if run else i
    if at >= n or tokens[at].lower not in _UNITS:
        return None
    name = text[tokens[run.first].start : tokens[at].end] if run else ""
    org = None
    if at + 2 < n and tokens[at + 1].lower == "at" and at + 2 in runs_at:
        org = _object_at(text, tokens, runs_at, at + 2, Want())
        if org is None or org.unit:
            return None
    return Obj(name, "Team" if name else None, org.last if org else at, unit=True, org=org)


_OWNERS = frozenset("the my our his her their".split())


def _past_purpose(tokens: list[Token], runs_at: dict[int, Run], k: int) -> int:
    """ "X for drawings and Y for scheduling": the "and" after the first tool's purpose, where a second name
    with a purpose of its own follows; else ``k``."""
    if k >= len(tokens) or tokens[k].lower not in ("for", "in", "at"):
        return k
    for j in range(k + 2, min(k + 6, len(tokens) - 1)):
        if j - 1 in runs_at or not tokens[j - 1].text.isalpha() or not tokens[j - 1].text.islower():
            return k
        run = runs_at.get(j + 1)
        if tokens[j].lower == "and" and run is not None:
            after = tokens[run.last + 1].lower if run.last + 1 < len(tokens) else ""
            return j if after in ("for", "in", "to") else k
    return k


def read_objects(text: str, tokens: list[Token], runs_at: dict[int, Run], i: int, want: Want) -> list[Obj]:
    """The object after a verb, and any joined to it by "and" or commas ("Notion and Linear")."""
    first = _object_at(text, tokens, runs_at, i, want)
    if first is None:
        return []
    found = [first]
    while not first.unit:
        k = found[-1].last + 1
        if want.purposes:
            k = _past_purpose(tokens, runs_at, k)
        if k < len(tokens) and tokens[k].lower == ",":
            k += 1
        bare_comma = k > found[-1].last + 1
        if k < len(tokens) and (tokens[k].lower in ("and", "or") or tokens[k].lower in want.joiners):
            k += 1
            bare_comma = False
        if k == found[-1].last + 1:
            return found
        nxt = _object_at(
            text,
            tokens,
            runs_at,
            k,
            Want(want.loose and found[-1].loose, False, want.vocabulary, want.strict, named=want.named),
        )
        if nxt is None or nxt.unit:
            return found
        after = tokens[nxt.last + 1].lower if nxt.last + 1 < len(tokens) else "."
        if (nxt.loose or tokens[k].lower in _OWNERS) and bare_comma and after not in (",", "and", "or"):
            return found  # "allergic to kiwi, weird for a baker": a list goes on with "and", or ends the clause
            # (and "a honda fourtrax, the old yamaha finally died": a new clause)
        found.append(nxt)
    return found


def stated(objects: list[Obj], relation: str) -> list[Found]:
    """The objects a clause states facts about. A team ("the Payments team at Acme") is led or managed, when it
    has a name, and says where its lead works; one joined says where the joiner works; for the rest it is no object."""
    found: list[Found] = []
    for o in objects:
        if not o.unit:
            found.append((o.name, o.label, ""))
        elif relation in ("LEADS", "MANAGES"):
            found += [(o.name, o.label, "")] if o.name else []
            found += [(o.org.name, "Organization", "WORKS_AT")] if o.org else []
        elif relation == "WORKS_AT" and o.org:
            found.append((o.org.name, o.org.label, ""))
    return found
