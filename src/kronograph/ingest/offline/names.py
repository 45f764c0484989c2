"""Tokens and named-entity runs: capitalised words, with the cues that label them.

A name is a run of capitalised words, joined by single spaces and by the few
lower-case connectors names carry ("Bank of Ireland", "Pieter van Dijk",
"Tulip & Co"). Words that are capitalised for other reasons (the pronoun
"I", weekdays, months, greetings, sentence-initial function words) break a
run. Labels come only from cues in the name itself: a title (Person), a
company suffix (Organization), a short list of well-known places (Location).
Everything else stays unlabelled here; the relation patterns may label it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = ["PLACES", "Run", "Token", "name_label", "tokenize", "find_runs", "known_city"]

_TOKEN = re.compile(r"[^\W\d_][^\W_]*(?:['’\-][^\W\d_]+)*|\d[\w/\-:.]*|&|[^\w\s]")
_CONTRACTION = re.compile(r"(?i)^(.+?)(n't|'(?:m|s|re|ve|ll|d))$")

_STOP = frozenset(
    """
    i i'm i've i'll i'd me my mine we us our ours you your he him his she her they them their it its
    the a an this that these those there here what who whom whose which where when why how
    and or but so then also just yet if unless whether because since from in on at to for of by with
    after before during until till while as into onto upon about over under between
    is am are was were be been being has have had do does did will would shall should can could may might must
    not no yes yeah yep nope ok okay oh ah well sure hi hello hey dear thanks thank cheers bye goodbye welcome
    good great nice happy congrats congratulations sorry please quick update fyi btw lol wow
    yesterday today tomorrow tonight last next every each all both some any many most much
    maybe perhaps probably apparently hopefully actually really anyway anyways meanwhile still now
    mr mrs ms dr prof professor sir madam ceo cto cfo coo cio cmo cpo vp svp evp chief head director
    president founder co-founder manager mayor governor minister chairman chairwoman chair
    monday tuesday wednesday thursday friday saturday sunday
    january february march april june july august september october november december
    spring summer autumn fall winter christmas easter
    nobody everyone everybody someone somebody anyone anybody nothing everything something
    """.split()
)
# the words after a name's "'s" that make one name of both: "King's College", "Queen's University"
_PLACE_NOUNS = frozenset(
    "College University Hospital School Park Cross Road Street Wood Green Church Cathedral Academy Hall Lane "
    "Square Place Bay Island Head".split()
)
_CONNECTORS = frozenset("of de des da di del della der den van von la le du dos das do bin al y &".split())
_TITLES = frozenset("dr mr mrs ms mx prof professor sir dame lady lord".split())
_ABBREVIATIONS = frozenset("st mt dr mr mrs ms prof jr sr ft".split())

_ORG_SUFFIXES = frozenset(
    """
    inc ltd llc plc corp corporation co company gmbh ag sa bv labs lab bank capital health energy university
    college institute robotics analytics systems technologies technology software solutions group holdings
    partners ventures consulting media logistics security biotech pharma pharmaceuticals foods motors
    airlines insurance studios games networks hospital clinic school academy foundation agency engineering centre center
    industries mining steel textiles legal finance financial ai
    """.split()
)
# the words that open an organisation's name in many languages: "Clinique Vétérinaire des Cantons", "Grupo Modelo"
_ORG_HEADS = frozenset(
    """
    university universidad université universität universidade università hospital hôpital clinique clínica klinik
    escuela colegio école lycée instituto istituto banco grupo
    """.split()
)
PLACES = frozenset(
    """
    london paris berlin madrid rome lisbon amsterdam brussels vienna zurich geneva munich dublin oslo
    stockholm copenhagen helsinki warsaw prague budapest athens istanbul moscow cairo nairobi lagos
    accra dubai mumbai delhi bangalore singapore tokyo osaka seoul beijing shanghai sydney melbourne
    toronto montreal vancouver chicago boston seattle austin denver miami york francisco angeles
    mexico bogota lima santiago buenos aires sao paulo
    england france germany spain italy portugal ireland netherlands belgium austria switzerland norway
    sweden denmark finland poland greece turkey russia egypt kenya nigeria ghana india china japan korea
    australia canada brazil argentina chile colombia peru usa uk america europe africa asia
    """.split()
)


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    start: int
    end: int
    lower: str


@dataclass(slots=True)
class Run:
    """A name: token indices ``first..last`` (inclusive) and its text."""

    first: int
    last: int
    name: str
    lead: int = -1  # first token including a title ("Dr. Helen Park" starts at "Dr")
    title: bool = False  # preceded by Dr./Mr./Professor...: a person
    sentence_initial: bool = False
    labels: list[str] = field(default_factory=list)


def tokenize(text: str) -> list[Token]:
    """Words, numbers and punctuation; contractions split ("I'm" → "I", "'m")."""
    tokens: list[Token] = []
    for m in _TOKEN.finditer(text):
        word = m.group(0).replace("’", "'")
        split = _CONTRACTION.match(word) if "'" in word else None
        if split and split.group(1).lower() not in ("o", "d", "l"):  # O'Brien, d'Arc
            stem, tail = split.group(1), split.group(2)
            cut = m.start() + len(stem)
            tokens.append(Token(stem, m.start(), cut, stem.lower()))
            tokens.append(Token(tail, cut, m.end(), tail.lower()))
        else:
            tokens.append(Token(word, m.start(), m.end(), word.lower()))
    return tokens


def _capitalised(token: Token) -> bool:
    text = token.text
    if len(text) > 3 and text[0].islower() and text[1].isupper() and text[2:].isalpha() and text[2:].islower():
        return True  # "iManage", "eBay": a brand's own capitals
    return text[0].isupper() and token.lower not in _STOP


def _version(tokens: list[Token], j: int) -> bool:
    """Whether the token after ``j`` is the version of an acronym ending at ``j``, closing a list or clause."""
    n, word = len(tokens), tokens[j].text
    if j + 1 >= n or not (word.isupper() and len(word) >= 2 and word.isalpha()):
        return False
    nxt = tokens[j + 1]
    after = tokens[j + 2].lower if j + 2 < n else "."
    return nxt.text.isdigit() and len(nxt.text) <= 2 and nxt.start == tokens[j].end + 1 and after in _VERSION_END


_VERSION_END = frozenset({",", ".", "!", "?", ";", "and", "or", ")"})


def find_runs(text: str, tokens: list[Token]) -> list[Run]:
    """Every name in a sentence, left to right."""
    runs: list[Run] = []
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        title = token.lower in _TITLES and token.text[0].isupper()
        if not (_capitalised(token) or title):
            i += 1
            continue
        first, lead, j = i, i, i
        while j + 1 < n:
            nxt = tokens[j + 1]
            if nxt.start != tokens[j].end + 1:  # a name's words are one space apart...
                if nxt.text == "." and tokens[j].lower in _ABBREVIATIONS and j + 2 < n and _capitalised(tokens[j + 2]):
                    j += 2  # ...except after "St." or "Dr."
                    continue
                break
            if _capitalised(nxt):
                j += 1
            elif (
                nxt.lower in _CONNECTORS
                and j + 2 < n
                and _capitalised(tokens[j + 2])
                and (tokens[j + 2].start == nxt.end + 1)
            ):
                j += 2
            else:
                break
        if _version(tokens, j):
            j += 1  # "ROS 2", "PHP 8": an acronym and its version, one name
        if tokens[first].lower in _TITLES:
            first += 1
            while first <= j and not _capitalised(tokens[first]):
                first += 1
            if first > j:
                i = j + 1
                continue
        while j + 1 < n and tokens[j + 1].lower == "'s" and tokens[j + 1].start == tokens[j].end:
            if j + 2 >= n or not tokens[j + 2].text[0].isalpha():
                j += 1  # "a job at Queen's.": the name's own "'s", not a possessive
            elif tokens[j + 2].text in _PLACE_NOUNS:  # "King's College London", "St Thomas's Hospital": one name
                j += 2
                while j + 1 < n and _capitalised(tokens[j + 1]) and tokens[j + 1].start == tokens[j].end + 1:
                    j += 1
            elif tokens[first].lower in ("st", "saint"):
                j += 1  # "at St Mary's in Leeds": a saint's name is the place's own
            else:
                break
        name = text[tokens[first].start : tokens[j].end]
        runs.append(Run(first, j, name, lead=lead, title=title, sentence_initial=first == 0))
        i = j + 1
    return runs


@lru_cache(maxsize=8192)
def name_label(name: str, title: bool = False) -> str | None:
    """The label a name's own words imply, or None when they imply nothing."""
    if title:
        return "Person"
    words = name.lower().replace(".", "").split()
    if words[-1] in _ORG_SUFFIXES or "&" in words or (len(words) > 1 and words[0] in _ORG_HEADS):
        return "Organization"
    if words[0] == "project":
        return "Project"
    if all(w in PLACES for w in words):
        return "Location"
    return None


def known_city(tokens: list[Token], k: int) -> Run | None:
    """ "in nairobi": a lower-case word that is a known place, as a name."""
    if k >= len(tokens) or not tokens[k].text.islower() or tokens[k].lower not in PLACES:
        return None
    return Run(k, k, tokens[k].text[:1].upper() + tokens[k].text[1:])
