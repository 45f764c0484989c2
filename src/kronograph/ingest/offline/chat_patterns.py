"""The relation patterns of everyday chat: languages, allergies, degrees,
things owned, partners, and the tools a team runs on (see patterns.py for
how a pattern is read)."""

from __future__ import annotations

from .kin import KIN
from .patterns import Pattern, _p

__all__ = ["CHAT_PATTERNS", "LANGUAGES"]

LANGUAGES = frozenset(
    """
    english spanish portuguese french german italian dutch swedish norwegian danish finnish icelandic polish czech
    slovak hungarian romanian bulgarian greek turkish russian ukrainian serbian croatian arabic hebrew persian farsi
    urdu hindi bengali punjabi tamil telugu marathi gujarati japanese korean chinese mandarin cantonese vietnamese
    thai indonesian malay tagalog filipino swahili yoruba igbo hausa amharic zulu afrikaans catalan basque galician
    welsh irish latin esperanto estonian latvian lithuanian
    """.split()
)
_DEGREE = r"(?:degree|master'?s|masters|bachelor'?s|bachelors|phd|ph\.d\.?|doctorate|mba|diploma|bsc|msc|ba|ma|bs|ms)"
_HOME = r"(?:house|flat|apartment|condo|home|place|cottage)"
_NOT_OWNED = "|".join(sorted(KIN, key=len, reverse=True)) + "|" + _DEGREE[3:-1]
_TECH = r"(?:runs?|running|ran|built|runs\s+entirely|is\s+written|written|powered|hosted|deployed)"

# fmt: off
_P, _O, _L = "Person", "Organization", "Location"
CHAT_PATTERNS: tuple[Pattern, ...] = (
    _p("allergic", r"\ballergic\s+to\b", "ALLERGIC_TO", "state", _P, None, loose_object=True, closes=True,
       ended="NO_LONGER_ALLERGIC_TO"),
    _p("speak speaks speaking", r"\b(?:speaks?|speaking)\b(?!\s+(?:to|with|about|at|of|for|up|out)\b)", "SPEAKS",
       "state", _P, "Language", vocabulary=LANGUAGES, closes=True, ended="NO_LONGER_SPEAKS"),
    _p("fluent", r"\bfluent\s+in\b", "SPEAKS", "state", _P, "Language", vocabulary=LANGUAGES),
    _p("learning studying", r"\b(?:learning|studying)\b(?!\s+(?:to|at|how|about|for|from|with)\b)", "LEARNING",
       "state", _P, "Language", vocabulary=LANGUAGES, closes=True, ended="NO_LONGER_LEARNING"),
    _p("have has got earned did hold holds", r"\b(?:have|has|got|earned|did|hold|holds)\s+(?:a|an|my|his|her)\s+"
       rf"(?:[\w'-]+\s+){{0,2}}?{_DEGREE}(?:\s+in\s+[\w-]+(?:\s+[\w-]+){{0,2}}?)?\s+(?:from|at)\b", "STUDIED_AT",
       "state", _P, _O, lower=True),
    _p("bought own owns purchased", rf"\b(?:bought|own|owns|purchased)\s+(?:a|an|our|my)\s+(?:[\w-]+\s+)?{_HOME}"
       r"\s+in\b", "OWNS_PROPERTY_IN", "state", _P, _L, lower=True, closes=True, ended="NO_LONGER_OWNS"),
    _p("have has got", rf"\b(?:have|has|got)(?=\s+an?\s+(?!(?:{_NOT_OWNED})\b))", "OWNS", "state"),
    _p("sold", r"\bsold\b", "NO_LONGER_OWNS", "event"),
    _p("dating", r"\b(?:dating|going\s+out\s+with)\b", "DATING", "state", _P, _P, pair=True, lower=True),
    _p("broke split", r"\b(?:broke|split)\s+up(?:\s+with)?\b", "NO_LONGER_DATING", "event", _P, _P, pair=True),
    _p("divorced", r"\b(?:got\s+)?divorced(?:\s+from)?\b", "NO_LONGER_MARRIED_TO", "event", _P, _P, pair=True),
    # the speaker's stack
    _p("runs run running ran built written powered hosted deployed",
       rf"\b{_TECH}\s+(?:on|with|in|by|atop)\b", "USES", "state", None, "Product", tech_subject=True),
    _p("switched migrated", r"\b(?:switched|migrated)(?:\s+(?:over|everything|it|all))?"
       r"\s+from\s+(?P<from>[^,.;!?]+?)\s+(?:to|over\s+to)\b", "USES", "state", None, "Product",
       ended="NO_LONGER_USES", lower=True),
    _p("switched migrated", r"\b(?:switched|migrated)\s+(?:over\s+)?to\b", "USES", "state", None, "Product",
       lower=True),
    _p("ditched dropped abandoned", r"\b(?:ditched|dropped|abandoned|got\s+rid\s+of)\b", "NO_LONGER_USES", "event",
       None, "Product"),
    # "I'm not at Acme anymore", "she's no longer with Initech"
    _p("not n't longer", r"(?:\b(?:am|is|are)\s+not|\b(?:is|are)n't|'(?:m|s|re)\s+not|(?:\b(?:am|is|are)|'(?:m|s|re))"
       r"\s+no\s+longer)\s+(?:at|with)\b", "WORKS_AT", "state", _P, _O, closes=True, only_closing=True, lower=True),
)
# fmt: on
