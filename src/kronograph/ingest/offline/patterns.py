"""The relation patterns: the verb phrases the offline extractor understands.

Each pattern matches only the verb phrase; the subject is found to its left
and the object to its right by the extractor, so one pattern serves "I work
at", "Tom is now working at" and "my sister Elena works at" alike.

``kind`` says how the phrase relates to time, which decides what a date next
to it means:

- ``state``: true from some time on ("works at", "lives in", "joined",
  "moved to"); a plain date or "since X" is its ``valid_at``, "until Y" its
  ``invalid_at``.
- ``event``: happened at a time ("left", "had lunch with", "met").
- ``past``: a past state ("worked at", "lived in", "was the CEO of"): kept
  only with an explicit end ("from X to Y", "until Y"), since on its own it
  does not say whether it still holds.

``closes`` marks the states that "no longer", "used to", "stopped" and
"not ... anymore" end; such a clause gives the pattern's ``ended`` relation
instead: ``LEFT`` for employment (so every way of saying that someone left
reads the same downstream), ``NO_LONGER_LIVES_IN`` for a home,
``NO_LONGER_USES`` for a tool, and so on. Each ending relation is declared to end its state
(``ENDINGS``, read into the pipeline's offline relation types).

``lower`` marks the patterns specific enough that a lower-case word after
them is a name ("i work at google"); see ``lowercase.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .vocab import TECH

__all__ = ["COPULA", "ENDINGS", "PATTERNS", "PERSON_TITLES", "Pattern", "phrase", "title_at_ok", "title_relation"]

Kind = Literal["state", "event", "past"]


@dataclass(frozen=True, slots=True)
class Pattern:
    regex: re.Pattern[str]
    relation: str  # "" for the title patterns: the relation comes from the words matched
    kind: Kind
    subject_label: str | None = None
    object_label: str | None = None
    closes: bool = False
    loose_object: bool = False  # a plain noun may be the object ("I love hiking")
    pair: bool = False  # "Camille and Antoine got married": two subjects, no object
    org_relation: str | None = None  # the relation when the subject is an organisation
    appositive: bool = False  # ", the CEO of X": the subject is the name right before the comma
    keys: frozenset[str] = frozenset()  # words one of which a sentence must hold for the regex to be tried
    ended: str = "LEFT"  # the relation a closing clause gives ("no longer uses X": NO_LONGER_USES)
    lower: bool = False  # a lower-case name may be the object ("i live in berlin")
    only_closing: bool = False  # "I'm not at Acme anymore": read only as an ending
    vocabulary: frozenset[str] = frozenset()  # lower-case words that are names here ("i speak spanish")
    tech_subject: bool = False  # "our backend runs on X": the speaker's
    strict: bool = False  # only words of ``vocabulary`` are objects ("I speak Spanish", not "I speak Tom")
    speakers: bool = False  # the phrase itself says whose it is ("my first week at X"): the speaker's
    joiners: frozenset[str] = frozenset()  # words besides "and" that join objects ("Django on Postgres")
    needs_now: bool = False  # "I'm at Helix Labs now": read only with a "now" in the clause, of an organisation
    org_only: bool = False  # "Colegio San Miguel is in Getafe": only an organisation's place
    pending: bool = False  # "we had twins!! Zara and Yusuf": the names may come in the next sentence
    title_words: frozenset[str] = frozenset()  # what a title must end with ("a vet in", not "a believer in")
    named: bool = False  # with ``strict``: one capitalised word is an object too ("I speak Twi")
    employer: bool = False  # "we're a fintech in Pune": said of the speaker's employer, named in the same message
    qualifier: bool = False  # the name is read before the noun it qualifies ("a DeLaval robot")


_COPULA_KEYS = "is am are was were been became becomes remains 's 'm 're"


# the relations a closing clause or an ending verb gives, and the states each ends between the same two; all
# start NO_LONGER_ (but LEFT, for jobs), so a reader sees at once that the link ended
ENDINGS: dict[str, tuple[str, ...]] = {
    "NO_LONGER_LIVES_IN": ("LIVES_IN", "BASED_IN", "HAS_HOME_IN"),
    "NO_LONGER_USES": ("USES",),
    "NO_LONGER_OWNS": ("OWNS", "OWNS_PROPERTY_IN"),
    "NO_LONGER_LIKES": ("LIKES",),
    "NO_LONGER_DISLIKES": ("DISLIKES",),
    "NO_LONGER_SPEAKS": ("SPEAKS",),
    "NO_LONGER_LEARNING": ("LEARNING",),
    "NO_LONGER_ALLERGIC_TO": ("ALLERGIC_TO",),
    "NO_LONGER_MARRIED_TO": ("MARRIED_TO",),
    "NO_LONGER_DATING": ("DATING", "PARTNER_OF", "ENGAGED_TO"),
    "NO_LONGER_REPORTS_TO": ("REPORTS_TO",),
    "NO_LONGER_FRIENDS_WITH": ("FRIENDS_WITH",),
    "NO_LONGER_MANAGES": ("MANAGES",),
    "NO_LONGER_LEADS": ("LEADS",),
    "NO_LONGER_HAS_CONDITION": ("HAS_CONDITION",),
    "NO_LONGER_TAKES": ("TAKES",),  # a medicine stopped (medical.py)
    "NO_LONGER_VOLUNTEERS_AT": ("VOLUNTEERS_AT",),
    "NO_LONGER_SUPPLIES": ("SUPPLIES",),
    "NO_LONGER_MEMBER_OF": ("MEMBER_OF",),
    "NO_LONGER_WORKS_IN": ("WORKS_IN",),  # a job left that took its town with it (thread_life.py)
    "NO_LONGER_HAS_ROLE": ("HAS_ROLE",),  # "stepped down as chair" (roles.py)
    # "sorry, wrong, the flat is in Maia, not Matosinhos": a place or organisation said before, taken back
    "NO_LONGER_LINKED_TO": (
        "LIVES_IN",
        "HAS_HOME_IN",
        "BASED_IN",
        "OWNS_PROPERTY_IN",
        "WORKS_AT",
        "WORKS_IN",
        "STUDIED_AT",
        "VOLUNTEERS_AT",
        "MEMBER_OF",
        "USES",
        "ASSOCIATED_WITH",
        "LOCATED_IN",
    ),
}


def _p(
    keys: str,
    regex: str,
    relation: str,
    kind: Kind,
    subject: str | None = None,
    obj: str | None = None,
    **flags: object,
) -> Pattern:
    """A pattern, tried only on sentences holding one of ``keys`` (a cheap filter: forty regexes per sentence
    would cost more than everything else together)."""
    return Pattern(
        re.compile(regex, re.IGNORECASE),
        relation,
        kind,
        subject,
        obj,
        keys=frozenset(keys.split()),
        **flags,  # type: ignore[arg-type]
    )


_UP = "(?=(?-i:[A-ZÀ-ÖØ-Þ]))"  # the next word is capitalised: a name follows
COPULA = r"(?:\b(?:is|am|are|was|were|been|became|becomes|remains)|'(?:s|m|re))\s+"

# fmt: off
_P, _O, _L = "Person", "Organization", "Location"
PATTERNS: tuple[Pattern, ...] = (
    # employment
    _p("work works working", r"\b(?:works?|working)\s+(?:(?:remotely|full-time|part-time|freelance)\s+|as\s+(?:a|an)\s+"
       r"[\w-]+(?:\s+[\w-]+)?\s+)?(?:at|for)\b", "WORKS_AT", "state", _P, _O, closes=True, lower=True),
    _p("employed", r"\bemployed\s+(?:at|by)\b", "WORKS_AT", "state", _P, _O, closes=True, lower=True),
    _p("start starts started starting",
       r"\b(?:start(?:s|ed|ing)?)\s+(?:working\s+|(?:a|my|his|her|their|our)\s+(?:new\s+|first\s+)?"
       r"(?:job|role|position|postdoc|phd|internship|residency|apprenticeship|fellowship|placement|traineeship)\s+)?"
       r"(?:at|for)\b", "WORKS_AT", "state", _P, _O, lower=True),
    _p("join joins joined joining rejoined rejoins", r"\b(?:re)?(?:joined|joins|joining|join)\b", "WORKS_AT", "state",
       None, _O),
    _p("got", r"\bgot\s+(?:a\s+|an\s+)?(?:new\s+)?(?:job|position|role|postdoc)\s+(?:at|with)\b", "WORKS_AT", "state",
       _P, _O, lower=True),
    _p("hired", r"\bhired\s+(?:by|at)\b", "WORKS_AT", "state", _P, _O),
    _p("worked", r"\bworked\s+(?:at|for)\b", "WORKS_AT", "past", _P, _O, closes=True),
    _p("left quit quits leaves", r"\b(?:left|quit|quits|leaves)\s+(?:my|his|her|their|our|the)\s+(?:[a-z-]+\s+){0,2}?"
       r"(?:job|role|position|post)\s+(?:at|with)\b", "LEFT", "event", _P, _O, lower=True),
    _p("quit quits", r"\b(?:quit|quits)\b", "LEFT", "event"),
    _p("resign resigned resigns retire retired retires stepped laid fired departed",
       r"\b(?:resign(?:ed|s)?|retire[ds]?|stepped\s+down|laid\s+off|fired|departed)\s+(?:from|by)\b", "LEFT", "event",
       _P, _O),
    _p("moved", r"\bmoved\s+(?:out\s+of|away\s+from)\b", "NO_LONGER_LIVES_IN", "event", None, _L),
    # residence
    _p("live lives living reside resides residing", r"\b(?:lives?|living|resides?|residing)\s+in\b", "LIVES_IN",
       "state", _P, _L, closes=True, lower=True, ended="NO_LONGER_LIVES_IN"),
    _p("based", r"\bbased\s+(?:in|out\s+of)\b", "LIVES_IN", "state", _P, _L, closes=True, org_relation="BASED_IN",
       lower=True, ended="NO_LONGER_LIVES_IN"),
    _p("headquartered", r"\bheadquartered\s+in\b", "BASED_IN", "state", _O, _L),
    _p("move moves moved moving relocate relocates relocated relocating",
       r"\b(?:mov(?:e|es|ed|ing)|relocat(?:e|es|ed|ing))(?:\s+(?:back|over|here|there|away))?"
       r"(?:\s+from\s+(?P<from>[^,.;!?]+?))?\s+to\b", "LIVES_IN", "state", _P, _L, org_relation="BASED_IN", lower=True,
       ended="NO_LONGER_LIVES_IN"),
    _p("settled", r"\bsettled\s+(?:down\s+)?in\b", "LIVES_IN", "state", _P, _L, lower=True),
    _p("lived", r"\blived\s+in\b", "LIVES_IN", "past", _P, _L, closes=True, ended="NO_LONGER_LIVES_IN"),
    _p("born", r"\bborn\s+in\b", "BORN_IN", "event", _P, _L, lower=True),
    _p("opened", r"\bopened\s+(?:a\s+|an\s+|its\s+|their\s+)?(?:new\s+|first\s+|second\s+|third\s+)?"
       r"(?:office|offices|branch|hub)\s+in\b", "HAS_OFFICE_IN", "event", _O, _L),
    _p("has have", r"\bha(?:s|ve)\s+(?:had\s+)?(?:an?\s+)?(?:office|offices)\s+in\b", "HAS_OFFICE_IN", "state", _O, _L),
    # tools, things, tastes
    _p("use uses using", r"\b(?:uses|use|using)\b", "USES", "state", None, "Product", loose_object=True,
       closes=True, ended="NO_LONGER_USES", vocabulary=TECH),
    _p("own owns bought purchased", r"\b(?:owns|own|bought|purchased)\b", "OWNS", "state", closes=True,
       ended="NO_LONGER_OWNS"),
    _p("like likes love loves enjoy enjoys adore adores",
       r"\b(?:likes|like|loves|love|enjoys|enjoy|adores|adore)\b", "LIKES", "state", loose_object=True,
       closes=True, ended="NO_LONGER_LIKES"),
    _p("fan fond", r"(?:\b(?:is|am|are)|'(?:s|m|re))\s+(?:a\s+)?(?:big\s+|huge\s+|great\s+)?(?:fan|fond)\s+of\b",
       "LIKES", "state", loose_object=True),
    _p("hate hates dislike dislikes detests", r"\b(?:hates|hate|dislikes|dislike|detests)\b", "DISLIKES", "state",
       loose_object=True),
    # people
    _p("married marries", r"\b(?:married|marries)(?:\s+to)?\b", "MARRIED_TO", "state", _P, _P, pair=True,
       lower=True, closes=True, ended="NO_LONGER_MARRIED_TO"),
    _p("engaged", r"\bengaged(?:\s+to)?\b", "ENGAGED_TO", "state", _P, _P, pair=True, lower=True, pending=True),
    _p("had grabbed having have",
       r"\b(?:had|grabbed|having|have)\s+(?:a\s+)?(?P<meal>lunch|dinner|breakfast|brunch|coffee|drinks|drink|tea)"
       r"\s+with\b", "HAD_{meal}_WITH", "event", _P, _P),
    _p("met", r"\bmet(?:\s+up)?(?:\s+with)?\b", "MET", "event", _P, _P),
    _p("report reports", r"\breports?\s+(?:directly\s+)?to\b", "REPORTS_TO", "state", _P, _P, closes=True,
       ended="NO_LONGER_REPORTS_TO"),
    _p("friends", r"\bfriends\s+with\b", "FRIENDS_WITH", "state", _P, _P),
    _p("visited", r"\bvisited\b", "VISITED", "event", None, _L),
    # projects and organisations
    _p("work works working", r"\b(?:works?|working)\s+on\b", "WORKS_ON", "state", _P, "Project"),
    _p("lead leads leading heads heading", r"\b(?:leads|lead|leading|heads|heading)\b", "LEADS", "state", _P,
       "Project"),
    _p("manage manages managing", r"\b(?:manages|manage|managing)\b", "MANAGES", "state", _P, "Project"),
    _p("founded co-founded cofounded", r"\b(?:co-?)?founded\b", "FOUNDED", "event", _P, _O),
    _p("acquired", r"\bacquired\b", "ACQUIRED", "event", _O, _O),
    _p("studied studies study studying graduated",
       r"\b(?:studied|studies|study|studying)\s+(?:[\w-]+\s+){0,3}?at\b|\bgraduated\s+from\b", "STUDIED_AT",
       "state", _P, _O, lower=True),
    # "is the CEO of X", "is a software engineer at X"
    _p(_COPULA_KEYS, COPULA + r"(?:(?:now|still|currently|also|officially)\s+)?"
       r"(?:the\s+|a\s+|an\s+|our\s+|their\s+|its\s+)?(?P<title>[\w-]+(?:\s+[\w-]+){0,2}?)\s+of\s+" + _UP, "", "state"),
    _p(_COPULA_KEYS, COPULA + r"(?:now\s+)?(?:the\s+|a\s+|an\s+|our\s+|their\s+)"
       r"(?P<title>[\w-]+(?:\s+[\w-]+){0,4}?)(?:\s+in\s+the\s+(?:[\w-]+\s+){0,3}?[\w-]+)?\s+(?:at|for|with)\s+" + _UP,
       "WORKS_AT", "state", _P, _O),
    # an appositive: "Isabel Cruz, the CEO of Acme, ..."
    _p("of", r",\s+(?:(?P<det>the|a|an|our|their|its|his|her)\s+)?(?P<title>[\w-]+(?:\s+[\w-]+){0,2}?)\s+of\s+"
       + _UP, "", "state", appositive=True),
)
# fmt: on

_NOT_TITLES = frozenset(
    """
    afraid aware proud fond fan tired sick full capable ahead out made part one some all most none each many
    both rest end kind sort lot lots couple few number outside inside front top bottom because instead
    married based working living using moving staying still now also just not never no longer been being
    """.split()
)
PERSON_TITLES = frozenset(
    "ceo cto cfo coo cio cmo cpo founder co-founder cofounder president director head manager chair chairman "
    "chairwoman owner partner scientist engineer officer editor principal dean lead vp".split()
)
_LINKS = frozenset("at for with in from on by".split())  # "a data engineer at Klarna in ...": no title
_PLACE_TITLES = frozenset("capital city".split())

# fmt: off
_PHRASES = {
    "WORKS_AT": ("works at", "worked at"), "LEFT": ("left", "left"), "LIVES_IN": ("lives in", "lived in"),
    "HAS_HOME_IN": ("has a home in", "had a home in"),
    "BASED_IN": ("is based in", "was based in"), "BORN_IN": ("was born in", "was born in"),
    "HAS_OFFICE_IN": ("has an office in", "had an office in"), "USES": ("uses", "used"), "OWNS": ("owns", "owned"),
    "LIKES": ("likes", "liked"), "DISLIKES": ("dislikes", "disliked"),
    "MARRIED_TO": ("is married to", "was married to"), "ENGAGED_TO": ("is engaged to", "was engaged to"),
    "MET": ("met", "met"), "REPORTS_TO": ("reports to", "reported to"),
    "FRIENDS_WITH": ("is friends with", "was friends with"), "VISITED": ("visited", "visited"),
    "WORKS_ON": ("works on", "worked on"), "LEADS": ("leads", "led"), "MANAGES": ("manages", "managed"),
    "FOUNDED": ("founded", "founded"), "CLIENT_OF": ("is a client of", "was a client of"),
    "SUPPLIES": ("supplies", "supplied"), "EMPLOYS": ("employs", "employed"),
    "INTOLERANT_TO": ("is intolerant to", "was intolerant to"), "ACQUIRED": ("acquired", "acquired"),
    "STUDIED_AT": ("studied at", "studied at"), "MEMBER_OF": ("is a member of", "was a member of"),
    "NO_LONGER_MEMBER_OF": ("is no longer a member of", "is no longer a member of"),
}
# fmt: on


def title_relation(title: str) -> tuple[str, str | None, str | None] | None:
    """``CEO_OF`` from "CEO", with the labels its two ends get; None when the
    words are no title ("is proud of", "is one of")."""
    words = title.lower().split()
    if not words or any(w in _NOT_TITLES for w in words) or words[-1].endswith(("ing", "ly")):
        return None
    relation = "_".join(re.sub(r"[^a-z0-9]+", "_", w).strip("_") for w in words) + "_OF"
    if words[-1] in _PLACE_TITLES:
        return relation.upper(), "Location", "Location"
    if words[-1] in PERSON_TITLES:
        return relation.upper(), "Person", "Organization"
    if words[-1] in ("mayor", "governor"):
        return relation.upper(), "Person", "Location"
    return relation.upper(), None, None


def title_at_ok(title: str) -> bool:
    """Whether "is a/the <title> at X" names a job ("a software engineer"), not a state."""
    words = title.lower().split()
    return (
        bool(words) and not any(w in _NOT_TITLES or w in _LINKS for w in words) and not words[0].endswith(("ing", "ed"))
    )


def phrase(relation: str, past: bool = False) -> str:
    """The verb phrase of a fact sentence: "works at", or "is the CEO of" for a title relation."""
    if relation in _PHRASES:
        return _PHRASES[relation][past]
    if relation.startswith("HAD_") and relation.endswith("_WITH"):
        return "had " + relation[4:-5].lower() + " with"
    if relation.endswith("_OF"):
        return ("was" if past else "is") + " the " + relation[:-3].lower().replace("_", " ") + " of"
    return relation.lower().replace("_", " ")
