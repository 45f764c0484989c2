"""The relation patterns of everyday chat: languages, allergies, degrees,
things owned, partners, and the tools a team runs on (see patterns.py for
how a pattern is read)."""

from __future__ import annotations

from .kin import KIN
from .life_patterns import LIFE_PATTERNS
from .passing_patterns import PASSING_PATTERNS
from .patterns import COPULA, Pattern, _p
from .vocab import (
    BRANDS,
    CONDITIONS,
    FRAMEWORKS,
    INSTRUMENTS,
    JOBS,
    LANGUAGE_QUALIFIERS,
    LANGUAGES,
    MAKES,
    PROGRAMMING,
    TECH,
    VEHICLES,
)

__all__ = ["CHAT_PATTERNS"]

_DEGREE = (
    r"(?:degree|master'?s|masters|bachelor'?s|bachelors|phd|ph\.d\.?|doctorate|mba|diploma|bsc|msc|ba|ma|bs|ms|"
    r"specialization|specialisation|postgrad|postgraduate)"
)
_HOME = r"(?:house|flat|apartment|condo|home|place|cottage)"
_NOT_OWNED = "|".join(sorted(KIN, key=len, reverse=True)) + "|" + _DEGREE[3:-1]
_TECH = (
    r"(?:runs?|running|ran|built(?:\s+(?:our|my|the)\s+[\w-]+)?|runs\s+entirely|is\s+written|written|powered|host|"
    r"hosted|deploy|deployed)"
)

_COPULA_KEYS = "is am are was 's 'm 're"
# a verb that is the speaker's: after "i", "we", a comma or "and" ("ok we did it, ported everything to godot")
_OWN_CLAUSE = r"(?:(?<=\bi\s)|(?<=\bwe\s)|(?<=,\s)|(?<=\band\s)|^)"
_KINDS = "car|quad|van|bike|motorbike|truck|ute|suv|scooter|tractor|motorcycle|hatchback|estate"
_UP = "(?=(?-i:[A-ZÀ-ÖØ-Þ]))"  # the next word is capitalised
_AT_NAME = r"\s+(?:at|for|with)(?=\s+(?:the\s+)?(?-i:[A-ZÀ-ÖØ-Þ]))"  # "at X", "at the University of X"
# what a job is done on or in, between the title and the workplace: "first officer on the A320 at X", "a nurse in
# the ICU at X", "engineer on the payments team at X"
_ON_THE = (
    r"(?:\s+(?:on|in)\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?[\w-]+)?(?:\s+now)?"
)

_CLASS_KEYS = "doing taking started attending"
_CLASS_VERB = r"\b(?:doing|taking|started|attending)\s+(?:a\s+|an\s+|some\s+|evening\s+|night\s+)?"

# fmt: off
_P, _O, _L = "Person", "Organization", "Location"
CHAT_PATTERNS: tuple[Pattern, ...] = (
    _p("allergic", r"\ballergic\s+to\b", "ALLERGIC_TO", "state", _P, None, loose_object=True, closes=True,
       ended="NO_LONGER_ALLERGIC_TO"),
    _p("allergic", r"\ballergic\b(?!\s+to\b)", "ALLERGIC_TO", "state", _P, None),  # "... without nuts? i'm allergic"
    _p("speak speaks speaking", r"\b(?:speaks?|speaking)\b(?!\s+(?:to|with|about|at|of|for|up|out)\b)", "SPEAKS",
       "state", _P, "Language", vocabulary=LANGUAGES, strict=True, named=True, closes=True, ended="NO_LONGER_SPEAKS"),
    _p("fluent", r"\bfluent\s+in\b", "SPEAKS", "state", _P, "Language", vocabulary=LANGUAGES, strict=True, named=True),
    _p("native first mother", r"\b(?:my\s+)?(?:native|first|mother)\s+(?:language|tongue)\s+(?:is|'s)\b", "SPEAKS",
       "state", _P, "Language", vocabulary=LANGUAGES, strict=True, named=True, speakers=True),
    _p("native first mother", rf"\b(?P<obj>(?:(?:{'|'.join(sorted(LANGUAGE_QUALIFIERS))})\s+)?[\w-]+)(?:'s|\s+is)\s+"
       r"(?:my|our)\s+(?:native|first|mother)\s+(?:language|tongue)\b", "SPEAKS", "state", _P, "Language",
       vocabulary=LANGUAGES, strict=True, named=True, speakers=True),
    _p("learning studying", r"\b(?:learning|studying)\b(?!\s+(?:to|at|how|about|for|from|with)\b)", "LEARNING",
       "state", _P, "Language", vocabulary=LANGUAGES | PROGRAMMING, strict=True, named=True, closes=True,
       ended="NO_LONGER_LEARNING"),
    _p("write writes writing wrote code codes coding program programming",
       r"\b(?:write|writes|writing|code|codes|coding|program|programming)(?:\s+(?:mostly\s+|mainly\s+)?in|\s+(?:a\s+lot\s+"
       r"of|lots\s+of|mostly|mainly|some))?\b",
       "USES", "state", _P, "Product", vocabulary=PROGRAMMING | FRAMEWORKS, strict=True, closes=True,
       ended="NO_LONGER_USES"),
    _p("have has got earned did doing hold holds started finished completed",
       r"\b(?:have|has|got|earned|did|doing|hold|holds|started|finished|completed)\s+"
       r"(?:a|an|my|his|her)\s+"
       rf"(?:[\w'-]+\s+){{0,2}}?\(?{_DEGREE}\)?(?:\s+in\s+[\w-]+(?:\s+[\w-]+){{0,2}}?)?\s+(?:from|at)\b", "STUDIED_AT",
       "state", _P, _O, lower=True),
    _p("bought own owns purchased", rf"\b(?:bought|own|owns|purchased)\s+(?:a|an|our|my)\s+(?:[\w-]+\s+)?{_HOME}"
       r"\s+in\b", "OWNS_PROPERTY_IN", "state", _P, _L, lower=True, closes=True, ended="NO_LONGER_OWNS"),
    _p("have has got bought drive drives ride rides", rf"\b(?:have|has|got|bought|drive|drives|ride|rides)(?=\s+an?\s+"
       rf"(?!(?:{_NOT_OWNED})\b))", "OWNS", "state", vocabulary=BRANDS | VEHICLES | INSTRUMENTS),
    # "we bought a second car, a little suzuki swift", "got a new quad, a honda fourtrax"
    _p("have has got get bought", rf"\b(?:have|has|got|get|bought)\s+(?:a|an)\s+(?:[\w-]+\s+){{0,2}}?(?:{_KINDS})"
       r"(?:\s+(?:though|too|as\s+well))?\s*,\s+(?:a|an)\s+(?:(?:new|little|old|second-hand|used|shiny)\s+)?"
       rf"(?=(?:{'|'.join(sorted(MAKES))})\b)", "OWNS", "state", vocabulary=BRANDS, strict=True),
    # "learning the ukulele", "i play the cello"
    _p("learning learn play plays playing", r"\b(?:learning|learn|play|plays|playing)\s+(?:to\s+play\s+)?(?:the\s+)?"
       r"(?=(?:" + "|".join(sorted(INSTRUMENTS)) + r")\b)", "LEARNING", "state", _P, "Instrument",
       vocabulary=INSTRUMENTS, strict=True, closes=True, ended="NO_LONGER_LEARNING"),
    # "here in Glenelg", "back in waterloo for the term", "living in a sublet in Leith"
    _p("between", r"\blive\s+(?:in\s+)?between(?:\s+the\s+two)?\s*,?\s+in\b", "LIVES_IN", "state", _P, _L, lower=True),
    _p("here", r"\bhere\s+in\b", "LIVES_IN", "state", _P, _L, lower=True, speakers=True),
    _p("back", r"^(?:(?:so|and|but|now|anyway)\s+)?(?:(?:i'm|we're|i\s+am|we\s+are)\s+)?back\s+in\b", "LIVES_IN",
       "state", _P, _L, lower=True, speakers=True),
    _p("living live lives", r"\b(?:living|live|lives)\s+in\s+(?:a|an|our|my|the)\s+(?:[\w-]+\s+)?"
       rf"(?:sublet|{_HOME[3:-1]}|room|studio|dorm|flatshare|houseshare|caravan)\s+in\b", "LIVES_IN", "state", _P, _L,
       lower=True),
    # "I play bowls at the Holdfast Bowling Club", "now I bowl at the X Club", "she sings with the X Choir"
    _p("play plays playing bowl bowls bowling swim swims row rows train trains sing sings run runs golf member",
       r"\b(?:play(?:s|ing)?(?:\s+[\w-]+)?|bowl(?:s|ing)?|swim(?:s|ming)?|rows?|rowing|train(?:s|ing)?|sing(?:s|ing)?|"
       r"runs?|running|golf(?:s|ing)?|(?:a\s+)?member)\s+(?:at|with|of|for)\s+(?=(?:the\s+)?(?-i:[A-Z])[^,.;!?]*?\b"
       r"(?-i:Club|Society|Choir|League|Association|Orchestra|Band)\b)", "MEMBER_OF", "state", _P, _O),
    # "i drive down in my fiat panda"; not "sold my Tesla"
    _p("my", r"(?<!sold\s)(?<!sell\s)(?<!selling\s)(?<!crashed\s)(?<!totalled\s)\bmy(?:\s+(?:new|old|trusty|little))?"
       rf"(?=\s+(?:{'|'.join(sorted(MAKES))})\b)", "OWNS", "state", vocabulary=BRANDS, strict=True, speakers=True),
    # "me and Arjun celebrated six years of marriage", "we celebrated our tenth wedding anniversary"
    _p("celebrated celebrate", r"\bcelebrated\s+(?:our\s+)?(?:[\w-]+\s+years?\s+of\s+marriage|(?:[\w-]+\s+)?wedding\s+"
       r"anniversary)\b", "MARRIED_TO", "state", _P, _P, pair=True),
    _p("have has diagnosed", r"\b(?:have|has|diagnosed\s+with)\b", "HAS_CONDITION", "state", _P, "Condition",
       vocabulary=CONDITIONS, strict=True, closes=True, ended="NO_LONGER_HAS_CONDITION"),
    _p("support supports", r"\b(?:supports?|root\s+for|roots\s+for)\b", "LIKES", "state"),
    _p("teach teaches teaching intern interning",
       r"\b(?:teach(?:es|ing)?(?:\s+[\w-]+){0,4}?|intern(?:s|ing)?)\s+at\b", "WORKS_AT", "state", _P, _O,
       closes=True, lower=True),
    # "i'm a nurse at middlemore hospital": a job at a lower-case name
    _p(_COPULA_KEYS, COPULA + r"(?:now\s+)?(?:a|an)\s+(?P<title>[\w-]+(?:\s+[\w-]+){0,2}?)" + _ON_THE
       + r"\s+(?:at|for)\s+(?!(?-i:[A-ZÀ-ÖØ-Þ]))", "WORKS_AT", "state", _P, _O, lower=True, title_words=JOBS),
    # "i'm in the day surgery unit at X now", "she works nights at X", "she's doing an internship at X"
    _p(_COPULA_KEYS, COPULA + r"(?:now\s+)?in\s+the\s+(?:[\w-]+\s+){0,3}?(?:unit|ward|team|department|dept|group|"
       r"office)\s+(?:at|of)\b", "WORKS_AT", "state", _P, _O, lower=True),
    _p("work works working", r"\bwork(?:s|ing)?\s+(?:days|nights|weekends|shifts|evenings|mornings)\s+(?:at|for)\b",
       "WORKS_AT", "state", _P, _O, lower=True),
    _p("doing does", r"\b(?:doing|does)\s+(?:an?|her|his|my|their)\s+(?:summer\s+|paid\s+)?(?:internship|placement|"
       r"residency|co-?op|traineeship|apprenticeship)\s+(?:at|with)\b", "WORKS_AT", "state", _P, _O, lower=True),
    _p("help helps helping", r"\bhelp(?:s|ing)?\s+out\s+(?:at|with)\b", "VOLUNTEERS_AT", "state", _P, _O),
    # "proposed to Aoife on christmas eve and she said yes!!"
    _p("proposed", r"\bproposed\s+to\b(?=[^.!?]*\bsaid\s+yes\b)", "ENGAGED_TO", "state", _P, _P),
    _p("volunteer volunteers volunteering", r"\bvolunteer(?:s|ing)?\s+(?:at|for|with)\b", "VOLUNTEERS_AT", "state",
       _P, _O, closes=True, ended="NO_LONGER_VOLUNTEERS_AT"),
    _p("sold", r"\bsold\b", "NO_LONGER_OWNS", "event"),
    _p("run runs running opened started", r"\b(?:runs?|running|opened|started)(?=\s+(?:a|an|my|our)\s+"
       r"(?:[\w-]+\s+){0,2}?(?:called|named)\s)", "OWNS", "state", _P, _O),
    # "i run a cafe in Leeds called X": the business, and where it is
    _p("run runs running opened started", r"\b(?:runs?|running|opened|started)\s+(?:a|an|my|our)\s+(?:[\w-]+\s+){0,2}?"
       r"in\s+(?P<place>(?-i:[A-ZÀ-ÖØ-Þ])[\w-]+(?:\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w-]+)?)\s+(?:called|named)\b", "OWNS",
       "state", _P, _O),
    # "i'm sous-chef at X", "she's head nurse at X": a job title with no article
    _p(_COPULA_KEYS, COPULA + r"(?:now\s+)?(?P<title>[\w-]+(?:\s+[\w-]+)?)" + _ON_THE + _AT_NAME,
       "WORKS_AT",
       "state", _P, _O, title_words=JOBS),
    # "hi, sam here. civil engineer at X", "now sous-chef at X": a subjectless line, the speaker's own job
    _p("at for with", r"^(?:(?:and|now|currently)\s+)?(?P<title>[\w-]+(?:\s+[\w-]+){0,2}?)" + _ON_THE
       + _AT_NAME, "WORKS_AT", "state", _P, _O, speakers=True, title_words=JOBS),
    # "she's doing french classes at X", "i started a pastry course at X": where one studies
    _p(_CLASS_KEYS, _CLASS_VERB + r"(?:[\w-]+\s+){0,2}?(?:classes|lessons|courses?)\s+at\b", "STUDIED_AT", "state", _P,
       _O),
    # "I'm Ana, data engineer at Acme": a job in apposition to a name, with no article
    _p(",", r",\s+(?:an?\s+)?(?P<title>[\w-]+(?:\s+[\w-]+){0,2}?)" + _ON_THE + r"\s+(?:at|for|with)\s+(?:the\s+)?"
       + _UP,
       "WORKS_AT", "state", _P, _O, appositive=True, title_words=JOBS),
    # "we're a fintech in Pune", "we're a shipping saas out of Austin": where the speaker's employer is
    _p("'re are", r"(?:(?<=\bwe)'re|(?<=\bwe\s)are)\s+(?:now\s+)?(?:a|an)\s+(?:[\w-]+\s+){1,3}?(?:based\s+)?"
       r"(?:in|out\s+of)\s+" + _UP, "BASED_IN", "state", _O, _L, employer=True),
    _p("got accepted admitted", r"\b(?:got\s+into|got\s+(?:accepted|admitted)\s+(?:in)?to|(?:was|been)\s+"
       r"(?:accepted|admitted)\s+(?:in)?to)\b", "STUDIED_AT", "state", _P, _O),
    # "he has a girlfriend now, Chloe", "she's got a new boyfriend, Tariq"
    _p("has have got", r"\b(?:has|have|got)\s+a\s+(?:new\s+)?(?:girlfriend|boyfriend)(?:\s+now)?\s*,?\s+(?:called\s+|"
       r"named\s+)?(?=(?-i:[A-ZÀ-ÖØ-Þ]))", "DATING", "state", _P, _P),
    _p("dating", r"\b(?:dating|going\s+out\s+with)\b", "DATING", "state", _P, _P, pair=True, lower=True),
    # "I've been on a few dates with Marek", "we've been seeing each other", "been seeing Tom for a month"
    _p("dates seeing", r"\b(?:been\s+on\s+(?:a\s+few|a\s+couple\s+of|some|several|\w+)\s+dates\s+with|been\s+seeing)"
       r"\b(?!\s+(?:a|an|the|my|his|her|your|someone|somebody|things|double|each|dr|doctor|prof|professor)\b)",
       "DATING", "state", _P, _P),
    _p("together", r"\b(?:(?:are|have\s+been|'ve\s+been|been|'re)\s+(?:still\s+)?together|got\s+back\s+together)\b",
       "PARTNER_OF", "state", _P, _P, pair=True),
    _p("broke split", r"\b(?:broke|split)\s+up(?:\s+with)?\b", "NO_LONGER_DATING", "event", _P, _P, pair=True),
    _p("divorced", r"\b(?:got\s+)?divorced(?:\s+from)?\b", "NO_LONGER_MARRIED_TO", "event", _P, _P, pair=True),
    _p("rent rents rented renting", rf"\brent(?:s|ed|ing)?(?:\s+(?:a|an|our|my)\s+(?:[\w-]+\s+)?{_HOME})?\s+in\b",
       "LIVES_IN", "state", _P, _L, lower=True),
    # "we share a flat in Podgórze", "i share a house in Leith with two nurses"
    _p("share shares sharing", rf"\bshar(?:e|es|ing)\s+(?:a|an|our|my|the)\s+(?:[\w-]+\s+)?{_HOME}\s+in\b",
       "LIVES_IN", "state", _P, _L, lower=True),
    _p("moved move moving", rf"\bmov(?:ed|e)\s+into\s+(?:a|an|our|my|the)\s+(?:new\s+|bigger\s+|smaller\s+)?{_HOME}"
       r"\s+in\b", "LIVES_IN", "state", _P, _L, lower=True),
    # where people come from
    _p(_COPULA_KEYS, COPULA + r"(?:originally\s+)?from\b", "COMES_FROM", "state", _P, _L, lower=True),
    # "she's swedish, from Umeå": a nationality, then the place
    _p(_COPULA_KEYS, COPULA + rf"(?:{'|'.join(sorted(LANGUAGES))})\s*,\s+(?:originally\s+)?from\s+" + _UP,
       "COMES_FROM", "state", _P, _L),
    _p("grew raised", r"\b(?:grew\s+up|(?:born\s+and\s+)?raised)\s+in\b", "GREW_UP_IN", "state", _P, _L, lower=True),
    # births: "had a baby, a little boy named Leo", "had twins!! Zara and Yusuf"
    _p("had welcomed", r"\b(?:had|welcomed)\s+(?:a\s+|the\s+)?(?:baby(?:\s+(?:boy|girl))?|son|daughter|twins|triplets|"
       r"little\s+(?:boy|girl))(?:,?\s+(?:a\s+)?(?:little\s+|baby\s+|beautiful\s+|healthy\s+)?(?:boy|girl|son|daughter))?"
       r"(?:\s+(?:on|last|this)\s+[\w-]+)?(?:\s*,|\s+(?:named|called))?(?!\w)", "PARENT_OF", "state", _P, _P,
       pending=True),
    # "our son was born on friday!!! Adam, 3.4kg": the name may come in the next sentence
    _p("son daughter baby", r"\b(?:our|my)\s+(?:son|daughter|baby(?:\s+(?:boy|girl))?|twins|little\s+(?:boy|girl))\s+"
       r"(?:was|were)\s+born(?:\s+(?:on|last|this)\s+[\w-]+)?(?:\s*,|\s+(?:named|called))?(?!\w)", "PARENT_OF",
       "state", _P, _P, speakers=True, pending=True),
    # "Nikos gave me his old iphone": the speaker's now
    _p("gave", r"\bgave\s+me\s+(?:his|her|their|a|an)\s+(?:(?:old|new|spare|used)\s+)?", "OWNS", "state",
       vocabulary=BRANDS | VEHICLES | INSTRUMENTS, strict=True, speakers=True),
    # "i farm sheep near Tregaron", "we live just outside Ludlow"
    _p("live lives living farm farms farming", r"\b(?:live|lives|living|farm|farms|farming)\s+(?:[\w-]+\s+){0,3}?"
       r"(?:near|(?:just\s+)?outside(?:\s+of)?)\b", "LIVES_IN", "state", _P, _L, lower=True),
    # "Lina is a vet in Bristol", "it's a small startup in Toronto", "Colegio San Miguel is in Getafe"
    _p(_COPULA_KEYS, COPULA + r"(?:now\s+)?(?:a|an)\s+(?P<title>[\w-]+(?:\s+[\w-]+){0,3}?)\s+(?:based\s+)?in\s+"
       + _UP, "WORKS_IN", "state", _P, _L, org_relation="BASED_IN", title_words=JOBS),
    _p(_COPULA_KEYS, COPULA + r"(?:located\s+|based\s+)?in\b", "BASED_IN", "state", _O, _L, org_only=True),
    # a new job, said in passing: "first week at shopify done", "I'm at Helix Labs now"
    _p("first second third fourth 1st 2nd 3rd 4th in", r"\b(?:(?:my\s+)?(?:first|second|third|fourth|1st|2nd|3rd|4th)"
       r"\s+(?:full\s+)?(?:days?|weeks?|months?)(?:\s+(?:done|over|finished|complete|in))?|(?:two|three|four|five|six|a\s+few|a\s+couple\s+of|\d+)\s+(?:days|weeks|"
       r"months)\s+in)\s+(?:at|with)\b", "WORKS_AT", "state", _P, _O, speakers=True, lower=True),
    _p(_COPULA_KEYS, r"(?:\b(?:am|is|are)|'(?:m|s|re))\s+(?:(?:now|currently)\s+)?(?:(?:full|part)[\s-]time\s+)?at\s+"
       + _UP, "WORKS_AT", "state", _P, _O,
       needs_now=True),
    _p("left leaves", r"\b(?:left|leaves)\b", "LEFT", "event", lower=True),
    # the speaker's stack
    _p("runs run running ran built written powered host hosted deploy deployed",
       rf"\b{_TECH}(?:\s+(?:everything|it|all|things|stuff))?\s+(?:on|with|in|by|atop)\b", "USES", "state", None,
       "Product", tech_subject=True, vocabulary=TECH),
    _p("everything", r"\beverything(?:\s+(?:here|now))?(?:'s|\s+is|\s+runs)\s+(?:on|in)\b", "USES", "state", None,
       "Product", speakers=True, vocabulary=TECH),
    _p("everything", r"\beverything(?:\s+(?:here|now))?(?:'s|\s+is)\s+(?:(?:all|mostly|just)\s+)?(?!on\b|in\b)", "USES",
       "state", None, "Product", speakers=True, vocabulary=TECH, strict=True),
    # "i analyse everything in julia", "we do infra in Pulumi", "logs go to Loki", "deploy to ECS", "i'm on pyspark"
    _p("analyse analyze analyses analyzes", r"\banaly[sz]es?\s+(?:everything|my\s+data|the\s+data|data|it\s+all)\s+"
       r"(?:in|with)\b", "USES", "state", _P, "Product", vocabulary=PROGRAMMING, strict=True),
    _p("do does", r"\bdo(?:es)?\s+(?:all\s+)?(?:(?:of\s+)?(?:our|the|my)\s+)?(?:infra|infrastructure|iac|ci|cd|deploys|"
       r"deployments|monitoring|logging|orchestration|analytics|dashboards|builds|testing|tests|frontend|backend|auth|"
       r"billing|payments|docs|documents|design|research|synthesis|analysis|accounts|books|bookkeeping|invoicing|"
       r"invoices|taxes|payroll|scheduling|notes|planning)\s+(?:in|on|with|through|via)\b", "USES",
       "state", _P, "Product", vocabulary=TECH),
    _p("logs metrics traces alerts errors", r"\b(?:logs|metrics|traces|alerts|errors)\s+(?:all\s+)?(?:go|goes|"
       r"get\s+sent|are\s+sent|are\s+shipped|end\s+up)\s+(?:to|in|into)\b", "USES", "state", None, "Product",
       speakers=True, vocabulary=TECH),
    _p("deploy deploys deployed deploying", r"\bdeploy(?:s|ed|ing)?\s+(?:everything\s+|it\s+|all\s+)?(?:to|onto)\b",
       "USES", "state", None, "Product", tech_subject=True, vocabulary=TECH),
    _p(_COPULA_KEYS, r"(?:\b(?:am|are)|'(?:m|re))\s+(?:now\s+|all\s+)?on\s+", "USES", "state", _P, "Product",
       vocabulary=TECH, strict=True),
    _p("backend frontend stack infra infrastructure database db api ci cd hosting monitoring logging orchestration",
       r"\b(?:backend|frontend|stack|infra|infrastructure|database|db|api|ci|cd|hosting|monitoring|logging|"
       r"orchestration)(?:\s+(?:is|are)|'s)\s+(?:(?:all|mostly|entirely|just|still)\s+)?(?:in\s+|on\s+)?",
       "USES", "state", None, "Product", speakers=True, vocabulary=TECH, joiners=frozenset({"on", "with"})),
    _p("switched migrated", r"\b(?:switched|migrated)(?:\s+(?:over|everything|it|all))?"
       r"\s+from\s+(?P<from>[^,.;!?]+?)\s+(?:to|over\s+to)\b", "USES", "state", None, "Product",
       ended="NO_LONGER_USES", vocabulary=TECH, tech_subject=True),
    # "we ported everything to godot", "moved it all over to Figma"
    _p("ported migrated moved", _OWN_CLAUSE + r"(?:ported|migrated|moved)\s+(?:everything|it\s+all|all\s+of\s+it)\s+"
       r"(?:over\s+)?(?:to|onto)\b", "USES", "state", None, "Product", vocabulary=TECH, strict=True, speakers=True),
    # "we draw everything in ArchiCAD ... and render in Enscape", "i edit in Premiere" (the speaker's own clause)
    _p("draw render edit design animate sketch mix",
       _OWN_CLAUSE + r"(?:draw|render|edit|design|animate|sketch|mix)\s+(?:(?:everything|it\s+all|all|our\s+\w+|"
       r"my\s+\w+|the\s+\w+)\s+)?in\s+(?=(?-i:[A-Z]))", "USES", "state", _P, "Product", speakers=True),
    # "i do everything in neovim", "we do everything on notion"
    _p("do", _OWN_CLAUSE + r"do\s+everything\s+(?:in|on|with)\b", "USES", "state", _P, "Product", vocabulary=TECH,
       strict=True, speakers=True),
    _p("moved migrated switched ported", r"\b(?:moved|migrated|switched|ported)\s+(?:the|our|my|all|everything)\b"
       r"[^,.;!?]{0,30}?\s+from\s+(?P<from>[^,.;!?]+?)\s+(?:to|over\s+to)\b", "USES", "state", None, "Product",
       ended="NO_LONGER_USES", vocabulary=TECH),
    # "i moved from Airtable to Notion": tools, not homes (longer than the move's match, so tried first)
    _p("moved", r"\bmoved(?:\s+(?:over|everything|it|all))?\s+from\s+(?P<from>[^,.;!?]+?)\s+to\s+", "USES", "state",
       None, "Product", ended="NO_LONGER_USES", vocabulary=TECH, strict=True),
    # "we switched our ci to GitLab", "rhian moved the accounts over to Sage"; not "we moved the office to Leeds"
    _p("switched migrated moved", r"\b(?:(?:switched|migrated)\s+(?:our|the|my)\s+[\w-]+(?:\s+[\w-]+)?\s+"
       r"(?:over\s+)?to|moved\s+(?:our|the|my)\s+[\w-]+(?:\s+[\w-]+)?\s+over\s+to)\b(?=\s+(?-i:[A-Z])|\s+(?:"
       + "|".join(sorted(TECH)) + r")\b)",
       "USES", "state", None, "Product", vocabulary=TECH),
    # "i work in python mostly", "our pipelines are in Airflow", "our data lives in Snowflake"
    _p("work works working", r"\bwork(?:s|ing)?\s+(?:mostly\s+|mainly\s+|primarily\s+)?in\b", "USES", "state", _P,
       "Product", vocabulary=PROGRAMMING, strict=True),
    _p("mostly mainly primarily", r"\b(?:mostly|mainly|primarily)\s+in\b", "USES", "state", _P, "Product",
       vocabulary=TECH, strict=True, speakers=True),
    _p("pipelines services jobs apps models dashboards workloads builds tests backups", r"\b(?:pipelines|services|"
       r"jobs|apps|models|dashboards|workloads|builds|tests|backups)\s+(?:are|run)\s+"
       r"(?:(?:all|mostly|entirely|still)\s+)?(?:in|on)\b", "USES", "state",
       None, "Product", speakers=True, vocabulary=TECH),
    _p("lives live sits stored", r"\b(?:data|analytics|docs|documents|code|files)\s+(?:lives?|sits?|is\s+stored|"
       r"are\s+stored)\s+in\b", "USES", "state", None, "Product", speakers=True, vocabulary=TECH),
    # a workplace in passing: "at work (Paytrail) ...", "my team at Stripe", "i've been at Monzo for two years"
    _p("work", r"\bat\s+work\s*\(\s*" + _UP, "WORKS_AT", "state", _P, _O, speakers=True),
    _p("my", r"\bmy\s+(?:team|office|job|colleagues|coworkers)\s+at\b", "WORKS_AT", "state", _P, _O, speakers=True),
    _p("'ve have 's has", r"(?:'ve|\bhave|'s|\bhas)\s+been\s+(?:working\s+)?at\s+(?=(?-i:[A-Z])[^,.;!?]*?\s(?:for\s+"
       r"(?:[\w-]+\s+)?(?:years?|months?)|since)\b)", "WORKS_AT", "state", _P, _O),
    _p("switched migrated", r"\b(?:switched|migrated)\s+(?:over\s+)?to\b", "USES", "state", None, "Product",
       vocabulary=TECH),
    _p("moved migrated switched", r"\b(?:moved|migrated|switched)(?:\s+(?:everything|it|all))?\s+(?:off|away\s+from)\s+"
       r"(?P<from>[^,.;!?]+?)\s+(?:onto|to|over\s+to)\b", "USES", "state", None, "Product", ended="NO_LONGER_USES",
       vocabulary=TECH),
    _p("dropped ditched replaced swapped",
       r"\b(?:dropped|ditched|replaced|swapped)\s+(?P<from>[^,.;!?]+?)\s+(?:for|with)\b", "USES", "state", None,
       "Product", ended="NO_LONGER_USES", vocabulary=TECH),
    _p("more", r"\bno\s+more\b", "NO_LONGER_USES", "event", None, "Product", vocabulary=TECH, strict=True,
       speakers=True),  # "no more bigquery for me"
    _p("ditched dropped abandoned", r"\b(?:ditched|dropped|abandoned|got\s+rid\s+of)\b", "NO_LONGER_USES", "event",
       None, "Product"),
    # "I'm not at Acme anymore", "she's no longer with Initech"
    _p("not n't longer", r"(?:\b(?:am|is|are)\s+not|\b(?:is|are)n't|'(?:m|s|re)\s+not|(?:\b(?:am|is|are)|'(?:m|s|re))"
       r"\s+no\s+longer)\s+(?:at|with)\b", "WORKS_AT", "state", _P, _O, closes=True, only_closing=True, lower=True),
) + LIFE_PATTERNS + PASSING_PATTERNS
# fmt: on
