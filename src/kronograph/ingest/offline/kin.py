"""People and things named through someone: "my girlfriend Maya", "Maya, my
girlfriend,", "Raj is Priya's husband", "Priya's husband Raj", "my dog Rex",
"Omar's company, Atlas Freight", "we adopted a cat named Miso".

A relation noun (sister, boss, dog, company ...) links its possessor ("my",
"our": the speaker; "Priya's": Priya) to the name set beside it. Nothing is
read without both: "my sister lives in Leeds" names no one. A former tie
("my ex", "my old boss", "my late husband") and a copula in the past ("Tom
was my boss") say nothing about now, and give nothing. A lower-case name
right after the noun ("my sister emma") is taken when it is no common word
and what follows it fits a name: it is then a name for the rest of the
sentence too ("my sister emma lives in leeds").
"""

from __future__ import annotations

import re

from .clauses import FILLER, HEDGE, NEGATION
from .context import Context, Subject
from .dates import TimeMention
from .lowercase import COMMON, lower_name
from .names import Run, Token

__all__ = ["of_gender", "KIN", "name_pending", "read_kin"]

_P, _O = "Person", "Organization"
# noun: (relation, whether the possessor is the subject, label of the name)
KIN: dict[str, tuple[str, bool, str | None]] = {
    **dict.fromkeys(("wife", "husband", "spouse", "hubby", "missus", "missis", "wifey"), ("MARRIED_TO", True, _P)),
    **dict.fromkeys(("fiance", "fiancee", "fiancé", "fiancée"), ("ENGAGED_TO", True, _P)),
    **dict.fromkeys(("girlfriend", "boyfriend", "gf", "bf"), ("DATING", True, _P)),
    "partner": ("PARTNER_OF", True, _P),
    **dict.fromkeys(("sister", "brother", "sibling", "sis", "bro"), ("SIBLING_OF", True, _P)),
    **dict.fromkeys(
        ("son", "daughter", "kid", "child", "baby", "stepson", "stepdaughter", "stepchild"), ("PARENT_OF", True, _P)
    ),
    **dict.fromkeys(
        (
            "mother",
            "mom",
            "mum",
            "father",
            "dad",
            "parent",
            "stepdad",
            "stepmom",
            "stepmum",
            "stepfather",
            "stepmother",
        ),
        ("PARENT_OF", False, _P),
    ),
    **dict.fromkeys(("stepbrother", "stepsister", "half-brother", "half-sister"), ("SIBLING_OF", True, _P)),
    **dict.fromkeys(
        ("brother-in-law", "sister-in-law", "mother-in-law", "father-in-law", "son-in-law", "daughter-in-law"),
        ("RELATIVE_OF", True, _P),
    ),
    **dict.fromkeys(
        ("cousin", "aunt", "uncle", "niece", "nephew", "grandma", "grandpa", "grandmother", "grandfather"),
        ("RELATIVE_OF", True, _P),
    ),
    **dict.fromkeys(("grandson", "granddaughter", "grandchild", "grandkid", "grandbaby"), ("GRANDPARENT_OF", True, _P)),
    **dict.fromkeys(("boss", "manager", "supervisor", "superior"), ("REPORTS_TO", True, _P)),
    **dict.fromkeys(
        ("colleague", "coworker", "co-worker", "teammate", "labmate", "employee", "chef", "deputy"),
        ("COLLEAGUE_OF", True, _P),
    ),
    **dict.fromkeys(("friend", "mate", "buddy", "pal", "bestie", "bff"), ("FRIENDS_WITH", True, _P)),
    **dict.fromkeys(("roommate", "flatmate", "housemate"), ("ROOMMATE_OF", True, _P)),
    **dict.fromkeys(("neighbor", "neighbour"), ("NEIGHBOR_OF", True, _P)),
    "mentor": ("MENTORED_BY", True, _P),
    **dict.fromkeys(("dog", "cat", "puppy", "kitten", "pet", "rabbit", "parrot", "horse"), ("HAS_PET", True, None)),
    **dict.fromkeys(
        ("company", "startup", "firm", "business", "school", "university", "college", "uni"),
        ("ASSOCIATED_WITH", True, _O),
    ),
    **dict.fromkeys(("cofounder", "co-founder"), ("COFOUNDER_WITH", True, _P)),
    "employer": ("WORKS_AT", True, _O),
    "tl": ("REPORTS_TO", True, _P),
    "lead": ("COLLEAGUE_OF", True, _P),
    # those one is a client of: "our vet Pia", "Dr Shah is my GP", "my accountant, Ruth Lee,"
    **dict.fromkeys(
        (
            "vet",
            "gp",
            "doctor",
            "dentist",
            "accountant",
            "lawyer",
            "solicitor",
            "therapist",
            "physio",
            "nanny",
            "tutor",
            "midwife",
            "childminder",
            "mechanic",
            "hairdresser",
            "barber",
            "optician",
            "paediatrician",
            "pediatrician",
            "counsellor",
            "counselor",
            "chiropractor",
            "dietitian",
        ),
        ("CLIENT_OF", True, _P),
    ),
}
_ADJECTIVES = frozenset(
    "best close good dear older younger little big baby twin new eldest oldest youngest lovely amazing "
    "step half long-time longtime college school uni university work childhood head sous direct team".split()
)
_FORMER = frozenset("ex former late old previous dead future would-be estranged then".split())
_MINE = frozenset({"my", "our"})
_GET = frozenset("have has 've got adopted rescued bought".split())
_BORN = frozenset({"born", "arrived"})
_CALLED = frozenset({"named", "called"})
_SHARED = frozenset({"HAS_PET", "PARENT_OF"})  # "Katla and I adopted a dog": hers too
_NEWBORN = frozenset("son daughter baby boy girl twins".split())
_HOW_MANY = frozenset("a an one two three four five".split())
_EQUALS = frozenset({"is", "'s", "=", ":"})  # "my wife is Emma", "wife = Meera", "husband: Emeka"
_SOFT = frozenset("just finally recently also both officially".split())
_FAMILY = frozenset(
    "MARRIED_TO ENGAGED_TO DATING PARTNER_OF SIBLING_OF PARENT_OF RELATIVE_OF GRANDPARENT_OF REPORTS_TO".split()
)
_CLAUSE_START = frozenset(", . ! : ; and but so also plus lol haha".split())
_AT_WORK = frozenset({"REPORTS_TO", "COLLEAGUE_OF", "COFOUNDER_WITH"})
_CLOSE = frozenset({",", ".", "!", ";", ")", "and"})
_NOT_NAMES = (
    FILLER
    | HEDGE
    | NEGATION
    | frozenset(
        "i me my we us our you your he him his she her they them their it its the a an this that and or but so to "
        "of in on at for with from by about as is am are was were be been has have had lives works moved lived "
        "worked got just says said thinks told tongue language".split()
    )
)
_AFTER_NAME = frozenset(". , ; ! ? ) and is was has had lives works moved just got also who and".split()) | frozenset(
    "started joined left quit married loves likes uses lived worked studied".split()
)


def read_kin(
    text: str, tokens: list[Token], runs: list[Run], times: list[TimeMention], ctx: Context, told: bool = True
) -> tuple[list[Run], int]:
    """The facts these phrases state, added to ``ctx``; and the lower-case names they introduce, as runs. A tie
    named in passing holds even in a sentence that asks or doubts something else ("my friend Tom says ..., no
    idea if true"); one told ("we adopted a dog named ...") only where the sentence is ``told``."""
    runs_at = {r.lead: r for r in runs}
    runs_end = {r.last: r for r in runs}
    added: list[Run] = _we_two(tokens, runs_at)
    runs_at.update({r.lead: r for r in added})
    runs_end.update({r.last: r for r in added})
    made = 0
    for k, token in enumerate(tokens):
        tie = _tie(token.lower)
        if tie is None:
            continue
        owner, start = _possessor(tokens, k, (runs_at, runs_end), ctx)
        place, k_end = _workplace(tokens, k, runs_at, tie[0])
        named = _named_after(tokens, k_end, runs_at) if owner is not None else None
        if named is None and owner is not None:
            named = _named_before(tokens, start, k_end, runs_end)
        elif named is not None and named.lead not in runs_at:
            added.append(named)  # "my sister emma"
        if owner is None and told:
            owner, named = _got_one(tokens, k, runs_at, ctx)
            if owner is not None and named is None:
                at = [t for t in times if t.role in ("at", "since")][:1]
                both = [owner] + (_with_me(tokens, k, runs_end, ctx) if tie[0] in _SHARED else [])
                ctx.pending = ([Subject(who, 0.8) for who in both], tie[0], {"at": at[0]} if at else {})
        if owner is None or named is None or (tie[0] != "FRIENDS_WITH" and _former(tokens, start, k)):
            continue
        relation, owner_first, label = tie
        owners = [owner] + _co_parent(tokens, start, k, runs_end, relation, ctx)
        for one in _and_more(tokens, named, runs_at):
            for who in owners:
                made += _state(ctx, text, tokens, times, (who, relation, one.name, owner_first, label), one.last)
            if place is not None:  # "Jonas, my cofounder at Quillstack": both work there
                for who in (owner, one.name):
                    org = (place.name, "Organization")
                    made += ctx.add_fact(Subject(who, 0.8), "WORKS_AT", org, (None, None), text)
    return added, made


def _we_two(tokens: list[Token], runs_at: dict[int, Run]) -> list[Run]:
    """ "rosa and i got married": a lower-case name joined to "i" at a clause's start."""
    found = []
    for k in range(len(tokens) - 2):
        if tokens[k + 1].lower != "and" or tokens[k + 2].lower != "i" or k in runs_at:
            continue
        if k > 0 and tokens[k - 1].lower not in (",", ":", ".", "!", "so", "and", "but", "then", "update"):
            continue
        named = lower_name(tokens, k, _NOT_NAMES, frozenset({"and"}))
        if named is not None and named[1] == k:
            found.append(Run(k, k, named[0], lead=k))
    return found


def _co_parent(
    tokens: list[Token], start: int, k: int, runs_end: dict[int, Run], relation: str, ctx: Context
) -> list[str]:
    """ "Efua and I have a son, Kofi", "Tom and I ... our daughter": the speaker's child is the other one's too."""
    if relation not in _SHARED or not ctx.speaker or tokens[start].lower == "my":
        return []
    return _with_me(tokens, k, runs_end, ctx)


def _with_me(tokens: list[Token], k: int, runs_end: dict[int, Run], ctx: Context) -> list[str]:
    """ "Katla and I adopted a dog": the one named with the speaker before ``k``."""
    for j in range(2, k):
        if tokens[j].lower == "i" and tokens[j - 1].lower == "and" and (run := runs_end.get(j - 2)) is not None:
            return [run.name] if run.name != ctx.speaker else []
    return []


def _tie(word: str) -> tuple[str, bool, str | None] | None:
    """The tie a noun names, plurals too ("cats", "kids", "children")."""
    if word in KIN:
        return KIN[word]
    if word in ("children", "grandchildren", "stepchildren"):
        return KIN.get(word[:-3])
    return KIN.get(word[:-1]) if word.endswith("s") and len(word) > 3 else None


def _workplace(tokens: list[Token], k: int, runs_at: dict[int, Run], relation: str) -> tuple[Run | None, int]:
    """ "my cofounder at Quillstack", "my boss at Acme": where a tie at work works, and the noun phrase's end."""
    if relation not in _AT_WORK or k + 2 >= len(tokens) or tokens[k + 1].lower != "at":
        return None, k
    run = runs_at.get(k + 2)
    return (run, run.last) if run is not None else (None, k)


def _and_more(tokens: list[Token], first: Run, runs_at: dict[int, Run]) -> list[Run]:
    """ "Mochi and Tofu": a name and those joined to it."""
    found = [first]
    while True:
        k = found[-1].last + 1
        if k < len(tokens) and tokens[k].lower == ",":
            k += 1
        if k < len(tokens) and tokens[k].lower == "and":
            k += 1
        run = runs_at.get(k) if k > found[-1].last + 1 else None
        if run is None:
            return found
        found.append(run)


def _not_a_name(run: Run) -> bool:
    """A capitalised word that starts a sentence and reads as a word, not a name ("Finally.", "Exhausted.")."""
    word = run.name.lower()
    return run.first == run.last and (word in COMMON or word.endswith(("ly", "ed", "ing")) or word in _NOT_NAMES)


def _state(
    ctx: Context,
    text: str,
    tokens: list[Token],
    times: list[TimeMention],
    tie: tuple[str, str, str, bool, str | None],
    name_last: int,
) -> int:
    owner, relation, name, owner_first, label = tie
    ctx.mention(owner, "Person" if relation != "ASSOCIATED_WITH" or owner == ctx.speaker else None)
    ctx.mention(name, label)
    valid = _start(tokens, times, relation, name_last)
    subject, obj = (owner, name) if owner_first else (name, owner)
    return ctx.add_fact(Subject(subject, 0.8), relation, (obj, ctx.label(obj)), (valid, None), text, cap=0.8)


def _start(tokens: list[Token], times: list[TimeMention], relation: str, name_last: int) -> TimeMention | None:
    """When the tie began, where the sentence says: "<child> was born in May", "adopted <pet> last week"."""
    words = [t.lower for t in tokens]
    born = relation == "PARENT_OF" and any(w in _BORN for w in words[name_last + 1 : name_last + 4])
    adopted = relation == "HAS_PET" and any(w in ("adopted", "rescued", "got") for w in words)
    if not (born or adopted):
        return None
    return next((t for t in times if t.role in ("at", "since")), None)


def _possessor(
    tokens: list[Token], k: int, runs: tuple[dict[int, Run], dict[int, Run]], ctx: Context
) -> tuple[str | None, int]:
    """Whose the noun at ``k`` is, and where the possessive starts: "my (older) sister", "Priya's husband"."""
    runs_at, runs_end = runs
    j = k - 1
    while j >= 0 and k - j <= 3 and (tokens[j].lower in _ADJECTIVES or tokens[j].lower in _FORMER):
        j -= 1
    if j == k - 1 and _bare(tokens, k, runs_at, ctx):
        return ctx.speaker, k
    if j < 0:
        return None, k
    if tokens[j].lower in _MINE:
        return ctx.speaker, j
    if tokens[j].lower in ("his", "her"):  # "Priya ... with her husband Raj": the one person named before
        people = [ctx.entities[key].name for key in ctx.order if ctx.label(ctx.entities[key].name) == "Person"]
        people = [p for p in people if p != ctx.speaker]
        return (people[0], j) if len(people) == 1 else (None, k)
    if tokens[j].lower == "'s" and (run := runs_end.get(j - 1)) is not None:
        return run.name, run.lead
    if tokens[j].lower == "'s" and j > 0 and (known := _known_person(tokens[j - 1], ctx)) is not None:
        return known, j - 1  # "tom's brother Gary": a person named before, typed in lower case
    return None, k


def _known_person(token: Token, ctx: Context) -> str | None:
    """The one person of the episode a lower-case word names by full or first name ("tom": Tom Baker)."""
    if not token.text.isalpha() or not token.text.islower() or token.lower in COMMON:
        return None
    found = {
        e.name
        for e in ctx.entities.values()
        if "Person" in e.labels and token.lower in (e.name.casefold(), e.name.split()[0].casefold())
    }
    return found.pop() if len(found) == 1 else None


def _bare(tokens: list[Token], k: int, runs_at: dict[int, Run], ctx: Context) -> bool:
    """ "wife Lerato thinks ...", "so hubby Tom says", "husband is Emeka", "wife = Meera": a tie with no
    possessive at a clause's start, and a capitalised name after it, is the speaker's."""
    tie = KIN.get(tokens[k].lower)  # one, not "kids Leo and Ana" (a list may be anyone's)
    if tie is None or tie[0] not in _FAMILY or not ctx.speaker:
        return False
    if k + 1 not in runs_at and not (k + 2 < len(tokens) and tokens[k + 1].lower in _EQUALS and k + 2 in runs_at):
        return False  # "wife Lerato", "husband is Emeka", "wife = Meera"
    return k == 0 or tokens[k - 1].lower in _CLAUSE_START


def _former(tokens: list[Token], start: int, k: int) -> bool:
    return any(t.lower in _FORMER for t in tokens[start:k])


def _named_after(tokens: list[Token], k: int, runs_at: dict[int, Run]) -> Run | None:
    """The name right after the noun ("my boss Tom"), or set off by commas ("my girlfriend, Maya,")."""
    n = len(tokens)
    at = k + 1
    comma = at < n and tokens[at].lower == ","
    at += comma
    if at + 2 < n and tokens[at].lower == "'s" and tokens[at + 1].lower == "name" and tokens[at + 2].lower == "is":
        at += 2  # "my husband's name is Raj"
    if not comma and at + 1 < n and tokens[at].lower in _EQUALS and (run := runs_at.get(at + 1)) is not None:
        after = tokens[run.last + 1].lower if run.last + 1 < n else "."
        return run if after in _CLOSE else None  # "my wife is Emma"
    run = runs_at.get(at)
    if run is None and not comma and at < n:
        found = lower_name(tokens, at, _NOT_NAMES, _AFTER_NAME)
        if found is not None and found[1] == at:
            run = Run(at, at, found[0], lead=at)
    if run is None:
        return None
    after = tokens[run.last + 1].lower if run.last + 1 < n else "."
    if comma and after not in _CLOSE:
        return None  # "my sister, Oslo was cold": no apposition
    return run


def _named_before(tokens: list[Token], start: int, k: int, runs_end: dict[int, Run]) -> Run | None:
    """ "Maya, my girlfriend," and "Tom is my best friend": the name before the possessive, when nothing follows
    the noun."""
    if k + 1 < len(tokens) and tokens[k + 1].lower not in _CLOSE | {"now"}:
        return None
    if start < 2 or tokens[start - 1].lower not in (",", "is", "'s", "("):
        return None
    if start >= 4 and tokens[start - 2].lower in ("she", "he") and tokens[start - 3].lower == ",":
        return runs_end.get(start - 4)  # "promoted Ama, she's my head chef now"
    return runs_end.get(start - 2)


def _got_one(tokens: list[Token], k: int, runs_at: dict[int, Run], ctx: Context) -> tuple[str | None, Run | None]:
    """ "I have a sister named Emma", "we adopted a cat called Miso": the speaker's, by name."""
    n = len(tokens)
    j = k - 1
    while j >= 0 and k - j <= 2 and (tokens[j].lower in _ADJECTIVES or _plain_word(tokens[j])):
        j -= 1  # "a rescue dog", "a little boy"
    if j < 2 or not (tokens[j].lower in _HOW_MANY or tokens[j].lower.isdigit()) or tokens[j - 1].lower not in _GET:
        return None, None
    s = j - 2
    while s > 0 and tokens[s].lower in _SOFT:
        s -= 1  # "Sophie and I just adopted"
    if tokens[s].lower not in ("i", "we", "'ve") or not ctx.speaker:
        return None, None
    if k + 2 < n and tokens[k + 1].lower in ("named", "called"):
        return ctx.speaker, runs_at.get(k + 2)
    for c in range(k + 1, n - 2):  # "got a puppy last month, his name is Otto"
        if tokens[c].lower == "name" and tokens[c + 1].lower in ("is", "'s") and (run := runs_at.get(c + 2)):
            return ctx.speaker, run
    if (run := runs_at.get(k + 1)) is not None and (run.last + 1 >= n or tokens[run.last + 1].lower in _CLOSE):
        return ctx.speaker, run  # "I have 2 cats Mochi and Tofu"
    for c in range(k + 1, n - 1):  # "adopted a dog in april, Pepper.", "got a puppy, a collie called Bran"
        if tokens[c].lower == "," and c + 4 < n and tokens[c + 1].lower in ("a", "an"):
            if tokens[c + 3].lower in ("named", "called") and (run := runs_at.get(c + 4)) is not None:
                return ctx.speaker, run
        if tokens[c].lower == "," and (run := runs_at.get(c + 1)) is not None:
            if run.last + 1 >= n or tokens[run.last + 1].lower in _CLOSE:
                return ctx.speaker, run
            break
    return ctx.speaker, None


def _plain_word(token: Token) -> bool:
    return token.text.isalpha() and token.text.islower() and token.lower not in _NOT_NAMES | _HOW_MANY


_NOT_NAMED = frozenset("a an the not still".split())


def name_pending(text: str, tokens: list[Token], runs: list[Run], ctx: Context) -> int:
    """The names a tie of the sentence before was waiting for: "her name's Biscuit", "Zara and Yusuf!"."""
    pending, ctx.pending = ctx.pending, None
    if pending is None or not tokens:
        return 0
    subjects, relation, dates = pending
    words = [t.lower for t in tokens]
    at = 0
    if len(words) > 3 and words[0] in ("her", "his", "its", "their") and words[1] in ("name", "names"):
        at = 3 if words[2] in ("'s", "is", "are") else 0
    elif len(words) > 2 and words[0] in _MINE | {"her", "his", "their"} and words[1] in _NEWBORN:
        at = 2  # "Efua had the baby!! our son Kofi, born sunday"
    elif words[0] == "to" and relation in ("ENGAGED_TO", "MARRIED_TO") and len(words) > 1:
        at = 1  # "i'm engaged!! to Ananya."
    elif words[0] in ("a", "an") and (called := [j for j in range(2, min(len(words), 6)) if words[j] in _CALLED]):
        at = called[0] + 1  # "we adopted a dog!! a border collie named Skuggi"
    elif (
        len(words) > 4
        and words[:2] in (["she", "'s"], ["he", "'s"], ["it", "'s"], ["she", "is"], ["he", "is"], ["it", "is"])
        and words[2] in ("a", "an")
        and (called := [j for j in range(4, min(len(words), 8)) if words[j] in _CALLED])
    ):
        at = called[0] + 1  # "we got a cat!! she's a tabby called Biscuit"
    by_first = {r.first: r for r in runs}
    if at == 3 and at not in by_first and len(tokens) > 3 and tokens[3].text.islower() and lower_name(
        tokens, 3, _NOT_NAMED, frozenset({",", ".", "!", "and"})
    ) is not None:  # "her name is mahnoor": a name, though typed in lower case
        by_first[3] = Run(3, 3, tokens[3].text.capitalize())
        ctx.mention(by_first[3].name, "Person" if relation != "HAS_PET" else None)
    names: list[Run] = []
    while (run := by_first.get(at)) is not None:
        names.append(run)
        at = run.last + 1
        if at < len(tokens) and tokens[at].lower in (",", "and", "&"):
            at += 1
    rest = tokens[at:]
    spoken_of = ("she", "he", "they", "we")
    if len(names) == 1 and len(rest) > 1 and tokens[at - 1].lower == "," and rest[0].lower in spoken_of:
        rest = []  # "i have a girlfriend now. Inês, she's a nurse at ...": named, then spoken of
    if words[1] in _NEWBORN and rest and rest[0].lower in _BORN and tokens[at - 1].lower == ",":
        rest = []  # "our son Kofi, born sunday morning": still about the birth
    if names and words[0] not in ("her", "his", "its", "their") and len(names) == 1 and _not_a_name(names[0]):
        return 0  # "We had a baby! Finally."
    if not names or (words[0] not in ("her", "his", "its", "their") and any(t.text.isalnum() for t in rest)):
        return 0  # "Zara and Yusuf!!" alone, or a name given as a name; not a sentence that goes on about them
    valid = dates.get("at") or dates.get("since")
    made = 0
    for subject in subjects:
        for run in names:
            ctx.mention(run.name, None if relation == "HAS_PET" else "Person")
            made += ctx.add_fact(subject, relation, (run.name, ctx.label(run.name)), (valid, None), text, cap=0.8)
    return made


_FEMALE = (
    "sister mum mom mother wife daughter girlfriend aunt niece grandma grandmother gran nan fiancee fiancée sis gf "
    "missus wifey"
)
_MALE = (
    "brother dad father husband son boyfriend uncle nephew grandpa grandfather grandad granddad fiance fiancé bro bf "
    "hubby"
)
_GENDERED = {
    "she": re.compile(rf"\b(?:{'|'.join(_FEMALE.split())}),?\s+(?P<name>[\w'’-]+)", re.IGNORECASE),
    "he": re.compile(rf"\b(?:{'|'.join(_MALE.split())}),?\s+(?P<name>[\w'’-]+)", re.IGNORECASE),
}


def of_gender(pronoun: str, message: str, names: list[str]) -> list[str]:
    """Of ``names``, those the message calls by a kin word of the pronoun's gender ("my sister Lakshmi": she)."""
    regex = _GENDERED.get(pronoun)
    if regex is None:
        return []
    said = {m.group("name").casefold() for m in regex.finditer(message)}
    return [n for n in names if n.split()[0].casefold() in said]
