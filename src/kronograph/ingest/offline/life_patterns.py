"""The patterns of a life said in one breath: the club, band or team one is
in ("i play in a trio called X", "joined a running club, the X"), where a
child studies ("started engineering at the University of X"), the home one
is in or moving out of, the tools a team keeps its work in ("we track
matters in Clio"), and work said in passing: the new employer right after
the old one left, a business run by its trade name, a customer dropped, the
place in a self-introduction ("lucas here, bassist from são paulo"). See
patterns.py for how a pattern is read."""

from __future__ import annotations

from .patterns import COPULA, Pattern, _p
from .vocab import JOBS

__all__ = ["INTRO", "LIFE_PATTERNS"]

_UP = "(?=(?-i:[A-ZÀ-ÖØ-Þ]))"  # the next word is capitalised: a name follows
# a group one belongs to, by its kind
_GROUP = (
    r"(?:club|team|choir|band|trio|quartet|quintet|duo|orchestra|ensemble|brigade|society|league|crew|squad|"
    r"troupe|chorus)"
)
_GROUP_KEYS = "club team choir band trio quartet quintet duo orchestra ensemble brigade society league crew squad"
_GROUP_NAME = r"(?-i:Club|Society|Choir|League|Association|Orchestra|Band|Harriers|Striders|Rovers|United|Chorus)"
_SPORT = (
    r"(?:futsal|football|soccer|rugby|hockey|netball|cricket|training|practice|rehearsal|rowing|climbing|running|"
    r"swimming|cycling|tennis|volleyball|basketball|hurling|baseball|softball|handball|badminton|frisbee)"
)
_HOME = r"(?:house|flat|apartment|condo|home|place|cottage|studio|bungalow|townhouse|dorm)"
_SCHOOL = r"(?-i:University|College|Polytechnic|Institute|Academy|School|Conservatoire|Conservatory)"
_NOT_PLAN = r"(?<!almost\s)(?<!nearly\s)(?<!to\s)(?<!might\s)(?<!could\s)(?<!would\s)(?<!never\s)"

# the verb that puts one in a group: "joined a ...", "i play in a ...", "she's in a ...", "a member of a ..."
_IN_GROUP = (
    r"\b(?:joined|(?:(?:play|sing|danc|drum|row|run|swim|perform|gigg)(?:s|es|ing)?|am|is|are|'m|'s|'re)\s+in|"
    r"(?:a\s+)?member\s+of)\s+(?:a|an)\s+(?:[\w-]+\s+){0,2}?" + _GROUP
)
# a title right after the speaker's "X here," or "I'm X,": "lucas here, jazz bassist ..." (not "Tom, a nurse ...")
INTRO = r"(?:\bhere\s*,|\b(?:i'm|i\s+am)\s+[\w-]+\s*,)\s+(?:an?\s+)?(?P<title>[\w-]+(?:\s+[\w-]+){0,2}?)"

# fmt: off
_P, _O, _L = "Person", "Organization", "Location"
LIFE_PATTERNS: tuple[Pattern, ...] = (
    # "i play in a trio called Trio Garoa", "joined a book club called X", "i'm in a choir called X"
    _p(_GROUP_KEYS, _NOT_PLAN + _IN_GROUP + r"\s+(?:called|named)\s+", "MEMBER_OF", "state", _P, _O),
    # "I joined a running club, the Kirkstall Harriers", "she's in a band now, The Lumens"
    _p(_GROUP_KEYS, _NOT_PLAN + _IN_GROUP + r"(?:\s+now)?\s*,\s+(?:the\s+)?" + _UP, "MEMBER_OF", "state", _P, _O),
    # "joined the Edinburgh University Mountaineering Club", "Declan and I joined Galway Bay Sailing Club": a
    # membership, not a job (which would end the job one has); longer than the job's "joined", so tried first
    _p("joined rejoined", r"\b(?:re)?joined\s+(?:the\s+)?(?=(?-i:[A-Z]))(?=[^,.;!?]*?\b" + _GROUP_NAME + r"\b)"
       r"(?![^.;!?]*\bas\s+(?:a|an|the|their|its|head|assistant)\b)", "MEMBER_OF", "state", _P, _O),
    # "I gave up the Galway Choral Society after ten years", "she left the Leeds Chess Club": a group left
    _p("quit left gave given dropped", r"(?<!to\s)(?<!will\s)(?<!might\s)\b(?:quit|left|gave\s+up|given\s+up|dropped\s+"
       r"out\s+of)\s+(?:the\s+)?(?=(?-i:[A-Z])[^,.;!?]*?\b" + _GROUP_NAME + r"\b)"
       r"(?![^,.;!?]*\b(?-i:Ltd|Inc|LLC|plc|GmbH|Corp)\b)", "NO_LONGER_MEMBER_OF", "event", _P, _O),
    # "i'm in the volunteer fire brigade OSP Choroszcz", "he's in the under-12s team Kilmacud Crokes"
    _p(_GROUP_KEYS, COPULA + r"(?:(?:also|still|now)\s+)?in\s+the\s+(?:[\w-]+\s+){0,3}?" + _GROUP + r"\s+" + _UP,
       "MEMBER_OF", "state", _P, _O),
    # "weekend futsal w/ Shimokita Futsal Club", "rowing with the Tyne Rowing Club this morning"
    _p(_SPORT[3:-1].replace("|", " "), r"^(?:[\w-]+\s+){0,2}?" + _SPORT + r"\s+(?:with|w/)\s+(?:the\s+)?"
       r"(?=(?-i:[A-Z]))(?=[^,.;!?]*?\b" + _GROUP_NAME + r"\b)", "MEMBER_OF", "state", _P, _O, speakers=True),
    # "our son just started engineering at the University of Galway", "she's doing law at Trinity College"
    _p("started doing reading", r"\b(?:started|doing|reading)\s+(?!(?:work|working|teaching|a|an|the|my|his|her|"
       r"their|our|at)\b)(?:[\w-]+\s+){1,2}?at(?=\s+(?:the\s+)?(?=(?-i:[A-Z]))[^,.;!?]*?\b" + _SCHOOL + r"\b)",
       "STUDIED_AT", "state", _P, _O),
    # "she's in Leeds for her PhD at X", "he's away for his master's at X"
    _p("for", COPULA + r"(?:(?:now|still)\s+)?(?:there|here|away|in\s+(?-i:[A-Z])[\w-]+)\s+for\s+"
       r"(?:his|her|my|their)\s+(?:[\w-]+\s+)?"
       r"(?:degree|master'?s|masters|bachelor'?s|phd|doctorate|mba|bsc|msc|undergrad|studies)\s+at\b",
       "STUDIED_AT", "state", _P, _O),
    # "we're in a tiny flat in Marchmont", "they're in a rented house in Leith"
    _p("'re are 'm am 's is", COPULA + r"(?:(?:now|still|currently)\s+)?in\s+(?:a|an|our|my|the|their|his|her)\s+"
       r"(?:[\w-]+\s+){0,2}?" + _HOME + r"\s+in\b(?![^,.;!?]*\bfor\s+now\b)", "LIVES_IN", "state", _P, _L,
       lower=True),  # "for now": a stopgap, soon left
    # "moving out of our apartment in Pinheiros this week", "we moved out of the flat in Leith"
    _p("out", r"(?<!will\s)(?<!'ll\s)(?<!to\s)(?<!of\s)(?<!about\s)(?<!might\s)(?<!not\s)(?<!be\s)"
       r"\bmov(?:ed|ing)\s+out\s+of\s+(?:our|my)\s+(?:[\w-]+\s+)?" + _HOME + r"\s+in\b",
       "NO_LONGER_LIVES_IN", "event", _P, _L, lower=True, speakers=True),
    # "he's still living at home with us in Salthill": the speaker's home
    _p("us me", r"\b(?:living|lives|live|staying|stays)\s+(?:at\s+home\s+)?with\s+(?:us|me)\s+in\b", "LIVES_IN",
       "state", _P, _L, lower=True, speakers=True),
    # "Omar left Skyscanner last week, he's at FanDuel now", "i left Acme in may; i'm with Initech now": the new
    # employer, said right after the old one was left
    _p("left", r"\bleft\s+(?P<from>(?-i:[A-Z])[\w&.'-]*(?:\s+(?:&\s+)?(?-i:[A-Z])[\w&.'-]*){0,3})(?:\s+[\w-]+){0,3}?"
       r"\s*[,;]\s+(?:and\s+|so\s+)?(?:(?:he|she|they)(?:'s|'re|\s+is|\s+are)|i'm|i\s+am|we're)\s+(?:now\s+)?"
       r"(?:at|with)\s+(?=(?-i:[A-Z])[^,.;!?]*\bnow\b)", "WORKS_AT", "state", _P, _O, ended="LEFT"),
    # "she lives in the dorm at Ursynów", "he's living in halls at Jesus College"
    _p("live lives living", r"\b(?:live|lives|living)\s+in\s+(?:the|a|her|his|my|our|their)\s+(?:student\s+)?"
       r"(?:dorms?|halls|residence|residences|hostel)\s+(?:at|in)\b", "LIVES_IN", "state", _P, _L),
    # "we've discussed relocating from Lekki", "i'm thinking of moving away from Leeds": where one lives now
    _p("relocating moving", r"\b(?:we|i)\b(?:(?!\b(?:help|helps|helped|helping|with)\b)[^,.;!?]){0,30}?"
       r"\b(?:relocating|moving)\s+(?:away\s+)?from\s+" + _UP, "LIVES_IN", "state", _P, _L, speakers=True),
    # "My husband Declan runs Corrib Plumbing & Heating", "she runs Kowalski Builders Ltd"
    _p("runs run", r"\bruns?\s+(?=(?-i:[A-Z])[^,.;!?]*?(?:\s&\s|\b(?-i:Ltd|Inc|LLC|Co|Company|Group|Services|Solutions|"
       r"Plumbing|Heating|Electrical|Builders|Construction|Consulting|Bakery|Cafe|Café|Restaurant|Salon|Garage|"
       r"Catering|Cleaning|Landscaping|Removals|Joinery|Roofing)\b))", "OWNS", "state", _P, _O),
    # "we stopped selling to X", "we've stopped supplying X": a customer no more ("we stop selling to X from
    # september" is a plan, its month read as the last one)
    _p("stopped", r"\bstopped\s+(?:selling|supplying|shipping|delivering)(?:\s+to)?\b",
       "NO_LONGER_SUPPLIES", "event", _P, _O, lower=True),
    # "lucas here, jazz bassist from são paulo", "I'm Tomasz, dairy farmer near Choroszcz": where the speaker is from
    _p("here 'm am", INTRO + r"\s+from\s+", "COMES_FROM", "state", _P, _L, speakers=True, lower=True,
       title_words=JOBS),
    _p("here 'm am", INTRO + r"\s+(?:near|outside|based\s+in|out\s+of)\s+", "LIVES_IN", "state", _P, _L,
       speakers=True, lower=True, title_words=JOBS),
    # "we track matters in Clio", "I log my runs on Strava", "we put everything on Google Classroom"
    _p("track tracks log logs manage manages record records put",
       r"\b(?:we|i)\s+(?:(?:still|now|mostly|also)\s+)?(?:(?:track|log|manage|record)\s+(?:everything|all\s+(?:our|my|"
       r"the)\s+[\w-]+|(?:our|my)\s+[\w-]+|matters|cases|clients|tasks|projects|hours|expenses|invoices|orders|"
       r"bookings|time)|put\s+everything)\s+(?:in|on|into|with)\s+" + _UP, "USES", "state", _P, "Product",
       speakers=True),
)
# fmt: on
