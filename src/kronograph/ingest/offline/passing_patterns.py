"""Work, health and homes said in passing (seventh chat round): the town a
self-introduced job is done in ("I'm Lan, pharmacist in Da Nang"), a company
one drives or delivers for ("I drive buses for Transdev"), a condition named
by its flare-ups or its kit ("had an asthma flare", "my eczema is acting up",
"my asthma inhaler"), a new home said with the move ("we moved house from
X to Y", "moved into a flat in Leith"), a sports side joined, one's own
venture founded or a business opened, a stake in a company, work done in a
known tool, a child's school by how they are doing there. See patterns.py for how a pattern is read."""

from __future__ import annotations

from .life_patterns import INTRO
from .patterns import Pattern, _p
from .vocab import CONDITIONS, JOBS, TECH

__all__ = ["PASSING_PATTERNS"]

_UP = "(?=(?-i:[A-ZÀ-ÖØ-Þ]))"  # the next word is capitalised: a name follows
_NOT_PLAN = r"(?<!to\s)(?<!might\s)(?<!could\s)(?<!would\s)(?<!never\s)(?<!'d\s)(?<!'ll\s)(?<!will\s)"
_HOME = r"(?:house|flat|apartment|condo|cottage|studio|bungalow|townhouse|place)"
# what a side one plays for is by its players or its game ("the veterans team", "the sunday football side")
_SIDE = (
    r"(?:veterans?|vets|masters|seniors?|juniors?|youth|under-?\d+s?|u\d+s?|women's|men's|ladies'?|mixed|reserves?|"
    r"amateur|sunday|saturday|weekend|[\w-]*ball|rugby|hockey|cricket|netball|futsal|rowing|curling|darts|pub\s+quiz|"
    r"quiz|chess|bowls|running|cycling|swimming|tennis|badminton|squash|padel|climbing)"
)
# what one may found of one's own, and the words that make the founding a wish
_VENTURE = (
    r"(?:company|practice|studio|firm|business|agency|startup|shop|store|caf[eé]|restaurant|bakery|clinic|label|"
    r"consultancy|brand|charity|school|gym|salon|bar|brewery|workshop)"
)
_NOT_START = _NOT_PLAN + r"(?<!of\s)(?<!about\s)(?<!considering\s)(?<!want\s)(?<!wants\s)"
_SCHOOL = r"(?-i:School|Primary|Academy|College|Kindergarten|Nursery|Montessori|Escuela|Colegio|École|Lycée|Gymnasium)"
_SHOP_NAME = (
    r"(?-i:Café|Cafe|Bakery|Restaurant|Bar|Salon|Studio|Shop|Store|Clinic|Gym|Brewery|Bistro|Kitchen|Deli|Pizzeria|"
    r"Taverna|Trattoria|Boutique|Patisserie|Pâtisserie|Barbershop|Bookshop|Books)"
)
_CONDITION = "(?:" + "|".join(sorted(CONDITIONS, key=len, reverse=True)) + ")"
# what only someone with the condition has: a flare-up, an attack, the medicine for it
_BOUT = r"(?:flare(?:-?ups?|s)?|attacks?|episodes?|inhalers?|meds|medication|medicine|pump|nurse|specialist)"

# fmt: off
_P, _O, _L = "Person", "Organization", "Location"
PASSING_PATTERNS: tuple[Pattern, ...] = (
    # "im Lan, pharmacist in Da Nang", "hannah here, a nurse in Leeds": the town the job is done in
    _p("here 'm am", INTRO + r"\s+in\s+" + _UP, "WORKS_IN", "state", _P, _L, speakers=True, title_words=JOBS),
    # "I drive buses in Gothenburg for Transdev", "she delivers for Deliveroo", "he drives a taxi for Uber"
    _p("drive drives driving deliver delivers delivering", _NOT_PLAN + r"\b(?:drive|drives|driving|deliver|delivers|"
       r"delivering)\s+(?:(?:a|an|the)\s+)?(?:(?:buses|bus|trucks?|lorries|lorry|taxis?|cabs?|vans?|trams?|trains?|"
       r"parcels|packages|food|groceries)\s+)?(?:(?:in|around)\s+(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*)?\s+)?"
       r"for\s+" + _UP, "WORKS_AT", "state", _P, _O),
    # "we moved house last weekend from Nasr City to New Cairo", "moved from Kalamaria to a flat in Ano Poli",
    # "she moved into a studio in Leith": the new home (past tense only: "moving to" may be a plan)
    _p("moved", _NOT_PLAN + r"\bmoved\s+(?:[\w-]+\s+){0,2}?"
       r"(?:from\s+(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*){0,3}\s+)?(?:to|into)\s+"
       r"(?:a|an|our|my|the|their|his|her)\s+(?:[\w-]+\s+)?" + _HOME + r"\s+in\s+", "LIVES_IN", "state",
       _P, _L),
    # "moved out of my kilimani flat, now in Westlands", "moved out of the dorm, and we're now living in Leith"
    _p("moved", _NOT_PLAN + r"\bmoved\s+(?:out\s+of|away\s+from)\s+(?:(?:my|our|the|a)\s+[^,.;!?]{2,30}?|(?P<from>"
       r"(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*)?)),\s+(?:and\s+|so\s+)?(?:(?:i'm|we're|i\s+am|we\s+are)\s+)?now\s+"
       r"(?:living\s+|based\s+)?in\s+" + _UP, "LIVES_IN", "state", _P, _L, ended="NO_LONGER_LIVES_IN"),
    # a move of house, not of tools ("moved from Logic Pro to Ableton Live")
    _p("moved", _NOT_PLAN + r"\bmoved\s+(?:house|home|flats?)\s+(?:[\w-]+\s+){0,2}?(?:from\s+(?-i:[A-Z])[\w-]*"
       r"(?:\s+(?-i:[A-Z])[\w-]*){0,3}\s+)?to\s+" + _UP, "LIVES_IN", "state", _P, _L),
    # "joined the veterans team at Mölndal IBK", "joined the under-12s squad at Kilmacud": a side one plays for,
    # not a job (as "joined the data team at Acme" is)
    _p("joined", _NOT_PLAN + r"\b(?:re)?joined\s+(?:the|a|an|their|our)\s+(?:[\w'-]+\s+)?" + _SIDE
       + r"\s+(?:team|squad|side|crew)\s+(?:at|of|with)\s+" + _UP, "MEMBER_OF", "state", _P, _O),
    # "we are founding our own practice, Farouk & Saleh Design", "I started my own studio, Mothlight", "she's
    # launched her own label called X" (not "want to open our own company, X", "dreams of opening her own café")
    _p("founding founded starting started launching launched opening opened setting set", _NOT_START
       + r"\b(?:founding|founded|starting|started|launching|launched|opening|opened|setting\s+up|set\s+up)\s+"
       r"(?:our|my|his|her|their)\s+own\s+(?:[\w-]+\s+)?" + _VENTURE + r"(?:\s*,\s+|\s+(?:called|named)\s+)"
       + _UP, "FOUNDED", "event", _P, _O),
    # "I invested 50k shillings in Akinyi's startup Soko Fresh", "we put money into Soko Fresh", "I'm an investor
    # in X" (not "thinking of investing in X", "should I invest in X?")
    _p("invested investor put", r"(?<!of\s)(?<!about\s)(?<!to\s)\b(?:invested|put\s+(?:some\s+)?money|"
       r"(?:an?\s+)?(?:early\s+|angel\s+)?investor)\s+(?:(?:[$€£]?[\d.,]+\s*(?:k|m|grand)?\s+)?(?:[a-z]+\s+)?)?(?:in|into)\s+"
       r"(?:(?-i:[A-Z])[\w-]*'s\s+(?:[\w-]+\s+)?)?" + _UP, "INVESTED_IN", "state", _P, _O),
    # "i do the modelling bits in Python", "I still do some of the site plans in AutoCAD", "write everything in
    # Scrivener", "we draft all our contracts in notion": a known tool one's own work is done in
    _p("do does write draft model draw design edit render build make plan sketch code script mix keep",
       r"(?:\b(?:i|we)\s+|(?<=\band\s))(?:(?:still|also|now|mostly|usually|just|only)\s+)?(?:do|write|draft|model|draw|design|edit|"
       r"render|build|make|plan|sketch|code|script|mix|keep)\s+(?:everything|it\s+all|all\s+(?:of\s+)?(?:my|our|the)\s+"
       r"[\w-]+|(?:some\s+of\s+|most\s+of\s+)?(?:the|my|our)\s+(?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:in|on|with)\b", "USES",
       "state", _P, "Product", vocabulary=TECH, strict=True, speakers=True),
    # "Youssef is very happy at Modern English School Cairo", "she's in year 3 at Riverside Primary School", "he's in
    # second grade at X Academy": a child's school (not "I'm happy at X": a teacher may say it too)
    _p("is 's are 're", r"(?:\bis|'s|\bare|'re)\s+(?:(?:very|so|really|still|now|much|quite)\s+){0,2}"
       r"(?:(?:happy|settled|thriving|doing\s+(?:well|great|fine))|in\s+(?:(?:year|grade|class|form|primary|p)\s*\d+|(?:first|second|third|"
       r"fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\d+(?:st|nd|rd|th))\s+(?:grade|year|class)|"
       r"reception|kindergarten|nursery))\s+(?:now\s+)?at\s+(?:the\s+)?(?=(?-i:[A-Z])[^,.;!?]*?\b" + _SCHOOL + r"\b)",
       "STUDIED_AT", "state", _P, _O),
    # "she left Café Bloom and opened Café Pissenlit", "we launched Brasa Kitchen in may": a business opened by a
    # name that says what it is (not "opened a new office in X", not "will open Café X")
    _p("opened launched", _NOT_START + r"\b(?:opened|launched)\s+(?:(?:her|his|my|our|their)\s+(?:own\s+)?)?"
       r"(?=(?-i:[A-Z])[^,.;!?]*?\b" + _SHOP_NAME + r"\b)", "OWNS", "state", _P, _O),
    # "had an asthma flare", "having a bad migraine attack", "my eczema meds": the speaker's condition
    _p("had having have has got get getting", _NOT_PLAN + r"\b(?:had|having|have|has|got|get|getting)\s+"
       r"(?:an?\s+|another\s+|my\s+|her\s+|his\s+)?(?:(?:bad|mild|nasty|major|small|big|minor)\s+)?"
       rf"(?={_CONDITION}\s+{_BOUT}\b)", "HAS_CONDITION", "state", _P, "Condition", vocabulary=CONDITIONS,
       strict=True),
    # "my asthma is acting up again", "my migraines are back", "my asthma inhaler"
    _p("my", r"\bmy\s+(?=" + _CONDITION + r"\s+(?:" + _BOUT[3:-1] + r"|(?:is|are|has\s+been|have\s+been)\s+"
       r"(?:acting\s+up|playing\s+up|flaring(?:\s+up)?|back|worse|getting\s+worse|bad)|flared(?:\s+up)?)\b)",
       "HAS_CONDITION", "state", _P, "Condition", vocabulary=CONDITIONS, strict=True, speakers=True),
)
# fmt: on
