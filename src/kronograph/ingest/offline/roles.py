"""Roles with their organisation: "I work as a data analyst at Acme", "She started as head of data at Beta
Systems", "He was promoted to senior engineer", "Maria has taken over as project lead", "I joined Globex as a
product manager in 2023", "Tom was appointed CFO of Initech", "I'm the CTO at Hooli", "Sam stepped down as chair".

A role is one fact ``<person> HAS_ROLE <title>`` whose attributes carry the organisation when it is known
(``{"organisation": "Acme"}``, see :data:`ORGANISATION`), beside the ``WORKS_AT`` the organisation gives. HAS_ROLE
is declared one role per person, so a promotion replaces the role before it; "stepped down as chair" gives
``NO_LONGER_HAS_ROLE`` (it ends the role). A promotion that names no organisation takes the person's one
workplace the episode (or, for the speaker, the conversation) named.

The title must end in a word that names a job ("analyst", "engineer", "CFO", "head of data", "project lead"):
"I work as hard as I can", "he started as a joke", "I was named after my grandfather" give nothing. A copula
("I'm the CTO at Hooli") needs the organisation, so "I'm the lead on this" gives nothing either. The subject is
"I" (the speaker), a name right before the verb, or "he"/"she" when the episode named one other person.
"""

from __future__ import annotations

import re

from .context import Context, Subject
from .dates import TimeMention, find_times
from .names import _STOP, Run, Token, name_label
from .thread_work import one_job
from .vocab import JOBS, is_job

__all__ = ["ORGANISATION", "ROLE_ENDED", "ROLE_RELATION", "read_roles"]

ROLE_RELATION = "HAS_ROLE"
ROLE_ENDED = "NO_LONGER_HAS_ROLE"
ORGANISATION = "organisation"  # the attribute key of a role's organisation; the lead wires it into Fact.qualifiers

# the words a title ends in, beside the jobs the vocabulary knows ("analyst", "engineer", "...ologist")
_TITLE_ENDS = frozenset(
    """
    ceo cto cfo coo cio cmo cpo cso ciso cro cdo vp svp evp avp md gm president chair chairman chairwoman
    chairperson treasurer secretary head lead leader owner partner principal dean provost chief founder
    co-founder cofounder officer editor producer counsel attorney economist strategist advisor adviser
    governor director manager captain coach superintendent controller comptroller auditor steward
    ambassador minister commissioner registrar curator organiser organizer planner marketer buyer
    representative rep executive administrator admin analyst engineer designer developer architect scientist
    researcher consultant associate specialist coordinator supervisor intern nurse teacher professor lecturer
    accountant lawyer chef practitioner agent broker fellow resident postdoc apprentice technologist operator
    inspector investigator detective sergeant lieutenant pastor counsellor counselor hygienist sommelier attendant
    cashier courier dispatcher surveyor underwriter actuary teller trustee spokesperson deputy vice-president
    treasurer ceo""".split()
) | frozenset(w for w in JOBS if w not in "startup company firm agency business bank charity nonprofit school "
              "university college hospital clinic practice restaurant shop store brewery bakery cafe studio lab "
              "student guide".split())  # fmt: skip
# after one of these, "of <Department>" is part of the title ("head of data", "VP of Engineering")
_DEPARTMENT_HEADS = frozenset("head vp svp evp director chief manager lead president".split())
_DEPARTMENTS = frozenset(
    """
    data sales engineering product marketing operations ops people design finance hr research growth
    security technology tech strategy partnerships communications comms content analytics infrastructure
    platform talent legal compliance risk revenue customer customers support success brand policy science
    development business innovation procurement logistics quality digital it staff
    """.split()
)
_NOT_TITLE_WORDS = frozenset(
    """
    i you he she it we they this that a an the my our your his her their its me him them us and or but if as
    soon much well long far hard fast usual always part joke favour favor result way next level step
    """.split()
)
_ARTICLE = r"(?:(?:the|a|an|our|their|its|his|her|my)\s+)?"
_ADVERBS = r"(?:(?:just|recently|finally|officially|formally|now|also|then|today|since|already)\s+)*"
_TITLE = r"(?P<title>[A-Za-z][\w\-&/]*(?:\s+[A-Za-z][\w\-&/]*){0,5}?)"
_ORG = r"(?P<org>(?:the\s+)?[A-Z0-9][\w&.'’\-]*(?:\s+(?:of|&|and|de|for)?\s*[A-Z0-9][\w&.'’\-]*)*)"
_ORG_TAIL = rf"(?:\s+(?P<prep>at|for|with|of|by)\s+{_ORG})?"
_END = r"(?=\s*(?:$|[.,;!?)]|\b(?:and|but|so|since|from|in|on|for|last|this|after|before|two|three|a|an|\d)\b))"
_PERSON = r"(?P<person>(?-i:[A-Z])[\w'’\-]*(?:\s+(?-i:[A-Z])[\w'’\-]*){0,2})"

# (regex, kind): "start" a role taken (past tense, dated), "state" a role held, "end" a role given up
_FORMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"\b(?:joined|rejoined|moved\s+to|returned\s+to|went\s+to|(?:hired|recruited|taken\s+on|brought\s+in|"
                rf"brought\s+on)\s+by|signed\s+with|went\s+to\s+work\s+for)\s+{_ORG}\s+as\s+{_ARTICLE}{_TITLE}{_END}"),
     "start"),
    (re.compile(rf"\b(?:took\s+on|taken\s+on|stepped\s+into|moved\s+into|started\s+in|accepted)\s+(?:the|a|her|his|my|"
                rf"their|a\s+new)\s+(?:role|position|post|job)\s+(?:of|as)\s+{_ARTICLE}{_TITLE}{_ORG_TAIL}{_END}"),
     "start"),
    (re.compile(rf"\b(?:started|began|start(?:ed)?\s+working|signed\s+on|came\s+on\s*(?:board)?|was\s+hired|"
                rf"got\s+hired|been\s+hired|were\s+hired|was\s+brought\s+in|was\s+taken\s+on|stepped\s+in|"
                rf"stepped\s+up|took\s+over|taken\s+over|has\s+taken\s+over|have\s+taken\s+over)\s+as\s+{_ARTICLE}"
                rf"{_TITLE}{_ORG_TAIL}{_END}"), "start"),
    (re.compile(rf"\b(?:promoted|bumped\s+up|moved\s+up)\s+to\s+(?:the\s+(?:role|position|post)\s+of\s+)?"
                rf"{_ARTICLE}{_TITLE}{_ORG_TAIL}{_END}"), "start"),
    (re.compile(rf"\b(?:was|were|been|got|is|'s)\s+{_ADVERBS}(?:appointed|named|elected|made|confirmed|"
                rf"installed)\s+(?:as\s+)?{_ARTICLE}{_TITLE}{_ORG_TAIL}{_END}"), "start"),
    (re.compile(rf"\b(?:became|become)\s+{_ARTICLE}{_TITLE}{_ORG_TAIL}{_END}"), "start"),
    (re.compile(rf"\b(?:work|works|working|serve|serves|serving|act|acts|acting)\s+{_ADVERBS}as\s+{_ARTICLE}"
                rf"{_TITLE}{_ORG_TAIL}{_END}"), "state"),
    (re.compile(rf"(?:\b(?:am|is|are|been)|'m|'s|'re)\s+(?:now\s+|currently\s+|still\s+)?(?:(?P<art>the|a|an|our|their)\s+)?"
                rf"{_TITLE}\s+(?P<prep>at|of|for|with)\s+{_ORG}{_END}"), "state"),
    (re.compile(rf"\b(?:stepped\s+down|stood\s+down|resigned|retired|quit)\s+as\s+{_ARTICLE}{_TITLE}{_ORG_TAIL}"
                rf"{_END}"), "end"),
    (re.compile(rf"(?:\b(?:am|is|are)|'m|'s|'re)\s+no\s+longer\s+{_ARTICLE}{_TITLE}{_ORG_TAIL}{_END}"), "end"),
    # the organisation's title: "Jane Doe is Acme's new CFO", "Omar became Initech's head of sales"
    (re.compile(rf"(?:\b(?:is|was\s+named|became|has\s+become|was\s+appointed)|'s)\s+(?:now\s+)?(?P<org>(?-i:[A-Z])"
                rf"[\w&.\-]*(?:\s+(?-i:[A-Z])[\w&.\-]*){{0,3}})['’]s\s+{_TITLE}{_END}"), "state"),
    # the person after the verb: "Initech appointed Sara Kim as CFO", "we promoted Ana to team lead"
    (re.compile(rf"\b(?:appointed|named|hired|promoted|elected|tapped|picked)\s+{_PERSON}\s+(?:as|to)\s+{_ARTICLE}"
                rf"{_TITLE}{_ORG_TAIL}{_END}"), "start"),
    # the title first: "Our new CFO is Maria Chen", "The chair is now Ana Ruiz"
    (re.compile(rf"(?:^|(?<=[,;:]\s)|\b(?:and|so)\s+)(?P<det>our|the)\s+{_TITLE}\s+(?:is|has\s+been\s+named)\s+"
                rf"(?:now\s+)?{_PERSON}(?=\s*(?:$|[.,;!]))", re.IGNORECASE), "state"),
]
_SUBJECT_BEFORE = re.compile(
    r"(?:^|(?<=[\s,;:]))"
    r"(?P<who>i|he|she|(?-i:[A-Z])[\w'’\-]*(?:\s+(?-i:[A-Z])[\w'’\-]*){0,2})"
    r"\s*(?:'ve|'d|has|have|had|was|were|just|recently|finally|officially|formally|now|also|then|got|"
    r"is|am|'s|'m|been|\s)*$",
    re.IGNORECASE,
)
_CLUBS = frozenset("club society association choir league committee board council union guild".split())
_LINKING = frozenset("with to for by under about from of at than like congratulated met told".split())
_NOT_SUBJECTS = frozenset("the a an this that it they we you there here so and but then today yesterday".split())
_FUTURE = re.compile(
    r"\b(?:will|'ll|going\s+to|gonna|might|(?-i:may)|could|would|should|hope|hoping|want|plan)\b", re.IGNORECASE
)
_NEGATED = re.compile(r"\b(?:not|never|n't|didn't|wasn't|isn't|hasn't|haven't)\b", re.I)


def read_roles(text: str, tokens: list[Token], runs: list[Run], ctx: Context, before: set[tuple[str, str, str]]) -> int:
    """The roles one sentence states; how many facts were added. ``before``: the facts the episode had before
    this sentence, so the wrong readings the other rules made of it ("moved to Globex as ..." as a home) go."""
    words = {w.strip("&/").lower() for w in re.findall(r"[\w&/\-]+", text)}
    if not any(w in _TITLE_ENDS or is_job(w, JOBS) for w in words) and not words & _DEPARTMENTS:
        return _roles_left(ctx, before)  # no word a title ends in: the regexes below need not run
    names = {tokens[r.last].end: r.name for r in runs if r.last < len(tokens)}  # where each name ends
    made = 0
    for pattern, kind in _FORMS:
        for m in pattern.finditer(text):
            made += _one(text, m, kind, ctx, before, names)
    return made + _roles_left(ctx, before)


def _roles_left(ctx: Context, before: set[tuple[str, str, str]]) -> int:
    """ "I left Acme": the role held at Acme ends too (said in this message, or earlier in the conversation while
    Acme was the person's one workplace)."""
    made = 0
    for key in [k for k in ctx.facts if k not in before and k[1] == "LEFT"]:
        left = ctx.facts[key]
        who, org = left.subject, left.object
        titles = [f.object for f in ctx.facts.values() if f.subject == who and f.relation == ROLE_RELATION
                  and str(f.attributes.get(ORGANISATION, "")).casefold() == org.casefold()]
        if not titles and ctx.thread is not None:
            titles = _role_there(ctx, who, org)
        for title in titles:
            key_ended = (who.casefold(), ROLE_ENDED, title.casefold())
            if ctx.add_fact(Subject(who, 0.7), ROLE_ENDED, (title, None), (None, None), "", cap=0.7):
                ended = ctx.facts[key_ended]
                ended.valid_at, ended.time_expression = left.valid_at, left.time_expression
                ended.fact, ended.attributes = f"{who} is no longer {title}", {ORGANISATION: org}
                made += 1
    return made


def _role_there(ctx: Context, who: str, org: str) -> list[str]:
    """The role the conversation last gave ``who`` while ``org`` was their one workplace."""
    said = [e for e in (ctx.thread.facts if ctx.thread else ()) if e.subject.casefold() == who.casefold()]
    gone = {e.object.casefold() for e in said if e.relation in ("LEFT", "NO_LONGER_LINKED_TO")}
    jobs = {e.object.casefold() for e in said if e.relation == "WORKS_AT" and e.object.casefold() not in gone}
    ended = {e.object.casefold() for e in said if e.relation == ROLE_ENDED}
    roles = [e.object for e in said if e.relation == ROLE_RELATION and e.object.casefold() not in ended]
    return roles[-1:] if jobs == {org.casefold()} else []


def _one(
    text: str, m: re.Match[str], kind: str, ctx: Context, before: set[tuple[str, str, str]], names: dict[int, str]
) -> int:
    head = text[: m.start()]
    if _FUTURE.search(head[-40:]) or _NEGATED.search(head[-25:] + m.group(0)[:12]):
        return 0  # "I'll start as ...", "he wasn't promoted to ..."
    title = _title(m.group("title"))
    if title is None:
        return 0
    org = _org(m)
    prep = m.group("prep") if "prep" in m.re.groupindex else None
    if org is not None and prep == "of" and title.split()[-1].lower() in _DEPARTMENT_HEADS:
        if org.lower() in _DEPARTMENTS:  # "head of Engineering": the title's own words
            title, org = f"{title} of {org}", None
    if org is not None and (name_label(org) in ("Person", "Location") or ctx.label(org) == "Person"):
        return 0  # "the manager of Alice": a tie to a person, not a role at an organisation
    person = m.group("person") if "person" in m.re.groupindex else None
    who = _subject(head, ctx, names) if person is None else _named(person, ctx)
    if who is None:
        return 0
    if person is not None and org is None:
        org = _appointing(head, m, ctx)
    elif org is None and kind != "end":
        org = _their_job(ctx, who.name)
    times = [t for t in find_times(text, ctx.reference) if t.start >= m.start() - 40] if ctx.reference else []
    valid = next((t for t in times if t.role in ("since", "at")), None)
    if valid is not None and ctx.reference is not None and valid.when > ctx.reference and kind == "state":
        return 0  # "from next month I work as ...": a plan
    made = 0
    if kind == "end":
        made += _fact(ctx, who, ROLE_ENDED, title, org, valid, text, f"{who.name} is no longer {title}")
        return made
    _drop_misreadings(ctx, who.name, org, title, before)
    titled = any(k[0] == who.name.casefold() and k[1].endswith("_OF") and k[2] == (org or "").casefold()
                 for k in ctx.facts)  # "Kim is the CFO of Stark Ventures": CFO_OF says it already
    if org is not None and not titled and name_label(org) != "Location" and ctx.label(org) != "Location":
        ctx.mention(org, ctx.label(org) or "Organization")
        tie = "MEMBER_OF" if org.split()[-1].lower() in _CLUBS else "WORKS_AT"  # the chair of a club works elsewhere
        made += ctx.add_fact(who, tie, (org, "Organization"), (valid, None), text)
    at = f" at {org}" if org else ""
    made += _fact(ctx, who, ROLE_RELATION, title, org, valid, text, f"{who.name} is {_article(title)}{title}{at}")
    return made


def _fact(
    ctx: Context, who: Subject, relation: str, title: str, org: str | None, valid: TimeMention | None, text: str,
    sentence: str,
) -> int:
    made = ctx.add_fact(who, relation, (title, None), (valid, None), text)
    fact = ctx.facts.get((who.name.casefold(), relation, title.casefold()))
    if made and fact is not None:
        fact.fact = sentence
        if org:
            fact.attributes = {ORGANISATION: org}
    return made


def _article(title: str) -> str:
    return "" if title.split()[0].isupper() or title.split()[0].lower() in _DEPARTMENT_HEADS else "a "


def _title(words: str) -> str | None:
    """The title as said, when its last word names a job: "senior engineer", "head of data", "CFO"."""
    parts = words.split()
    while len(parts) > 1 and parts[0].lower() in ("new", "current"):
        parts.pop(0)  # "our new CTO": the title is CTO
    words = " ".join(parts)
    if not parts or any(p.lower() in _NOT_TITLE_WORDS for p in parts):
        return None
    last = parts[-1].lower().strip("&/")
    if len(parts) >= 3 and parts[-2].lower() == "of" and parts[-3].lower() in _DEPARTMENT_HEADS:
        return words if last in _DEPARTMENTS or parts[-1][0].isupper() else None
    if last in _TITLE_ENDS or last.upper() == parts[-1] and 2 <= len(last) <= 4 and last in _TITLE_ENDS:
        return words
    if is_job(last, JOBS) and last not in ("student", "guide"):
        return words
    return None


def _org(m: re.Match[str]) -> str | None:
    org = m.group("org") if "org" in m.re.groupindex else None
    if not org:
        return None
    org = re.sub(r"^the\s+", "", org.strip())  # "the Riverside Rowing Club", but "The Guardian"
    return org.rstrip(".'’") or None


def _subject(head: str, ctx: Context, names: dict[int, str]) -> Subject | None:
    """Who: "I" (the speaker), a name right before the verb, or "he"/"she" when one other person was named."""
    found = _SUBJECT_BEFORE.search(head)
    if found is None:
        return None
    whole = names.get(found.end("who"))
    if whole is not None and whole.endswith(found.group("who")) and whole.casefold() not in _STOP:
        return Subject(whole, 0.9)  # "Pieter van Dijk": the whole name the sentence's names hold
    said_before = head[: found.start("who")].split()
    if said_before and said_before[-1].lower() in _LINKING:
        return None  # "lunch with Maria was ...": not the clause's subject
    words = found.group("who").split()
    while len(words) > 1 and (words[0].lower() in _STOP or words[-1].lower() == "i"):
        words.pop(0)  # "Since March I ...", "Today Maria ...": the date is no part of the name
    who = " ".join(words)
    word = who.lower()
    if word == "i":
        return Subject(ctx.speaker, 0.9) if ctx.speaker else None
    if word in ("he", "she"):
        people = [e.name for e in ctx.entities.values() if "Person" in e.labels and e.name != ctx.speaker]
        return Subject(people[0], 0.7) if len(people) == 1 else None
    if word in _NOT_SUBJECTS or word in _STOP or not who[0].isupper():
        return None
    label = name_label(who) or ctx.label(who)
    if label not in (None, "Person"):
        return None
    ctx.mention(who, "Person")
    return Subject(who, 0.9)


def _named(person: str, ctx: Context) -> Subject | None:
    """The person a role is given to ("appointed Sara Kim as ..."): a name that is no organisation or place."""
    words = person.split()
    known = name_label(person) or ctx.label(person)
    if words[0].lower() in _STOP or known not in (None, "Person"):
        return None
    ctx.mention(person, "Person")
    return Subject(person, 0.8)


def _appointing(head: str, m: re.Match[str], ctx: Context) -> str | None:
    """Where a role given to someone is: "Initech appointed ...": Initech; "we hired ...", "our new CFO is ...": the
    speaker's one workplace."""
    if "det" in m.re.groupindex:
        return one_job(ctx) if (m.group("det") or "").lower() == "our" else None
    before = head.rstrip().split()
    if before and before[-1].lower() in ("we", "i"):
        return one_job(ctx)
    found = _APPOINTER.search(head)
    if found is None or found.group(1).lower() in _STOP:
        return None
    org = found.group(1)  # "Globex named ...": people are appointed by organisations
    return org if (name_label(org) or ctx.label(org)) in (None, "Organization") else None


_APPOINTER = re.compile(r"((?-i:[A-Z])[\w&.'’\-]*(?:\s+(?-i:[A-Z])[\w&.'’\-]*){0,3})\s*(?:has\s+|just\s+|have\s+)?$")


def _their_job(ctx: Context, who: str) -> str | None:
    """The one workplace the episode gave ``who`` (for the speaker, also the conversation)."""
    if ctx.speaker and who == ctx.speaker:
        return one_job(ctx)
    jobs = {f.object for f in ctx.facts.values() if f.subject == who and f.relation == "WORKS_AT"}
    return jobs.pop() if len(jobs) == 1 else None


def _drop_misreadings(ctx: Context, who: str, org: str | None, title: str, before: set[tuple[str, str, str]]) -> None:
    """ "moved to Globex as a designer" is no move of home; "was appointed CFO of Initech" no APPOINTED_CFO_OF;
    "became VP of Engineering at Stripe" no VP_OF Engineering: what the other rules made of this sentence."""
    in_title = {w.casefold() for w in title.split()}
    for key in [k for k in ctx.facts if k not in before and k[0] == who.casefold()]:
        relation, obj = key[1], key[2]
        if relation == "LIVES_IN" and org is not None and obj == org.casefold():
            del ctx.facts[key]
            if (entity := ctx.entities.get(obj)) is not None and name_label(org) != "Location":
                entity.labels = ["Organization"]  # the home the misreading made it
        elif relation.endswith("_OF") and (obj in in_title or relation.split("_")[0] in _VERBS_AS_TITLES):
            del ctx.facts[key]


_VERBS_AS_TITLES = frozenset("APPOINTED NAMED ELECTED MADE CONFIRMED INSTALLED PROMOTED BECAME".split())
