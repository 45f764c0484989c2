"""The patterns of working life and health said in passing: what a farm or shop
sells and to whom, the equipment it runs, whom it hired, where someone's
workplace is ("Pia from the Menomonie clinic"), where a business is run, and
food intolerances (see patterns.py for how a pattern is read)."""

from __future__ import annotations

from .patterns import COPULA, Pattern, _p

__all__ = ["INTOLERANCES", "TRADE_PATTERNS"]

# what one is intolerant to: "i'm lactose intolerant", "gluten-intolerant"
INTOLERANCES = frozenset("lactose gluten fructose histamine wheat dairy caffeine alcohol soy egg".split())
_GOODS = (
    r"(?:milk|produce|grain|wheat|barley|wool|beef|lamb|lambs|pork|eggs|crops?|fruit|veg|vegetables|wine|grapes|honey|"
    r"cattle|calves|output|stock|goods|products?|beans|coffee|timber|fish|catch|cheese|beer|bread)"
)
# the equipment a business names by its maker: "we milk with a DeLaval robot"
_KIT = (
    r"(?:robots?|system|machines?|milkers?|tractors?|combines?|harvesters?|cameras?|drones?|printers?|scanners?|"
    r"laptops?|mowers?|ovens?|lathes?|kilns?|presses|press|parlou?r|rig|till|tills|pos)"
)
_MAKER = r"(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z0-9])[\w-]*)?"
# a business one runs, and whether its place is a home: "i run a dairy farm outside Eau Claire"
_FARM = r"(?-i:farm|ranch|vineyard|orchard|smallholding|croft|homestead|station)"
_SHOP = (  # in lower case: "owns the Polar Light Hotel in Tromsø" names the hotel
    r"(?-i:business|shop|store|cafe|café|bakery|restaurant|pub|bar|salon|garage|workshop|studio|practice|clinic|surgery|"
    r"hotel|b&b|guesthouse|campsite|nursery|brewery|gym|agency|firm)"
)
_WORKPLACE = r"(?:clinic|practice|surgery|office|branch|hospital|store|site|depot|plant|warehouse|campus)"

_COPULA_KEYS = "is am are was 's 'm 're"

# fmt: off
_P, _O, _L = "Person", "Organization", "Location"
TRADE_PATTERNS: tuple[Pattern, ...] = (
    # "our milk goes to X", "all our lambs are sold to X": the speaker's customer
    _p("goes go sold shipped ships", rf"\b(?:our|my)\s+{_GOODS}\s+(?:all\s+|mostly\s+)?"
       r"(?:goes|go|is\s+sold|are\s+sold|gets?\s+sold|is\s+shipped|are\s+shipped|ships)\s+to\b", "SUPPLIES", "state",
       _P, _O, speakers=True, lower=True),
    # "we supply X", "we sell to X", "we stopped shipping to X" (an ending)
    _p("supply supplies supplying sell sells selling ship ships shipping",
       r"\b(?:supply|supplies|supplying|(?:sell|sells|selling|ship|ships|shipping)(?:\s+(?:our|my|the|all\s+our)\s+"
       rf"{_GOODS})?\s+to)\b", "SUPPLIES", "state", _P, _O, lower=True, closes=True, ended="NO_LONGER_SUPPLIES"),
    # "we milk with a DeLaval robot", "i shoot with a Fuji camera"
    _p("with", rf"\b(?:i|we)\s+(?:[\w-]+\s+){{1,2}}?with\s+(?:a|an|our|my|the|two|three)\s+(?:new\s+|old\s+)?"
       rf"(?={_MAKER}\s+{_KIT}\b)", "USES", "state", _P, "Product", speakers=True,
       qualifier=True),
    # "we run a Lely system", "they use two Fendt tractors"
    _p("run runs use uses have has", r"\b(?:run|runs|use|uses|have|has)\s+(?:a|an|two|three|four)\s+"
       rf"(?:new\s+|second\s+)?(?={_MAKER}\s+{_KIT}\b)", "USES", "state", _P, "Product", closes=True,
       ended="NO_LONGER_USES", qualifier=True),
    # "i fly a Cessna 172", "she flies the A320"
    _p("fly flies flying", r"\b(?:fly|flies|flying)\s+(?:a|an|the)\s+(?=(?-i:[A-Z]))", "USES", "state", _P, "Product"),
    # "i'm lactose intolerant", "she's gluten-intolerant"
    _p(_COPULA_KEYS, COPULA + r"(?:(?:very|severely|mildly|slightly|quite)\s+)?"
       rf"(?=(?:{'|'.join(sorted(INTOLERANCES))})[\s-]+intolerant\b)", "INTOLERANT_TO", "state", _P, None,
       vocabulary=INTOLERANCES, strict=True),
    _p("intolerant", r"\bintolerant\s+(?:to|of)\b", "INTOLERANT_TO", "state", _P, None, loose_object=True),
    # "so we hired a guy, Luis Ortega", "we took on a new apprentice, Sam", "Acme hired Tom"
    _p("hired took", r"\b(?:hired|took\s+on)\s+(?:(?:a|an|another)\s+(?:new\s+)?(?:[\w-]+\s+)?[\w-]+\s*,\s+|"
       r"someone\s*,\s+)?(?=(?-i:[A-Z]))", "EMPLOYS", "state", None, _P),
    # "dr. Pia Sorensen from the Menomonie clinic", "Tom from the Leeds office": where someone works
    _p("from", rf"\bfrom\s+(?:the|our)\s+(?=(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*)?\s+{_WORKPLACE}\b)", "WORKS_IN",
       "state", _P, _L, qualifier=True),
    # "got a job at X", "she landed a teaching gig at X", "Vikram took an offer at Swiggy"; no internship: it ends
    # unnamed ("internship's over")
    _p("got landed took accepted", r"(?<!almost\s)(?<!nearly\s)\b(?:(?:got|landed|took|accepted)\s+(?:a|an|the)\s+"
       r"(?:new\s+)?(?:[\w-]+\s+)?"
       r"(?:job|gig|position|post|role|contract|apprenticeship|residency|traineeship)|(?:took|accepted)\s+(?:a|an|the|their)\s+(?:job\s+)?offer)\s+"
       r"(?:at|with|from)\b", "WORKS_AT", "state", _P, _O, lower=True),  # an offer only got is no job yet
    # "hildur got me a teaching gig at X": the speaker's job, found by someone else
    _p("got found", r"\b(?:got|found)\s+me\s+(?:a|an)\s+(?:new\s+)?(?:[\w-]+\s+)?(?:job|gig|position|post|role|"
       r"contract)\s+(?:at|with)\b", "WORKS_AT", "state", _P, _O, speakers=True),
    # "jomar got transferred to the Manila site", "she was posted to our Leeds office": where one works now
    _p("transferred posted seconded relocated moved", r"\b(?:transferred|posted|seconded|relocated|moved)\s+"
       rf"(?:over\s+)?to\s+(?:the|our|their)\s+(?=(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*)?\s+{_WORKPLACE}\b)",
       "WORKS_IN", "state", _P, _L, qualifier=True),
    # "we love our machiya in Nishijin", "our flat in Leith is tiny": the speaker's home
    _p("our my", r"(?<!sold\s)(?<!sell\s)(?<!selling\s)(?<!left\s)(?<!leaving\s)(?<!miss\s)(?<!missed\s)\b(?:our|my)\s+"
       r"(?:little\s+|new\s+|tiny\s+|lovely\s+)?(?:house|flat|apartment|condo|home|place|cottage|bungalow|townhouse|"
       r"machiya|farmhouse|cabin|terrace|semi)\s+in\b", "LIVES_IN", "state", _P, _L, speakers=True, lower=True),
    # "Naledi was born at Netcare Sunninghill", "born yesterday at St Mary's": where a baby was born
    _p("born", r"\bborn\s+(?:(?:last|this)\s+[\w-]+\s+|yesterday\s+|today\s+|on\s+[\w-]+\s+)?at\s+(?=(?-i:[A-Z]))",
       "BORN_AT", "event", _P, _O),
    # "cofounder of Tiffinly, we do office lunch subscriptions in bangalore": where the speaker's employer is
    _p("do make sell deliver offer provide build", r"(?<=\bwe\s)(?:do|make|sell|deliver|offer|provide|build)\s+"
       r"(?!(?:the|a|an|it|this|that|some|our|my)\b)(?:[\w-]+\s+){1,4}?(?:in|across|out\s+of)\s+", "BASED_IN",
       "state", _O, _L, employer=True, lower=True),
    # "i run a dairy farm outside Eau Claire": a farmer's home
    _p("run runs running own owns have has", r"\b(?:run|runs|running|own|owns|have|has)\s+(?:a|an|our|my|the)\s+"
       rf"(?:[\w-]+\s+){{0,2}}?{_FARM}\s+(?:near|in|(?:just\s+)?outside(?:\s+of)?)\b", "LIVES_IN", "state", _P, _L,
       lower=True),
    # "i run a bakery in Leeds", "she owns a salon just outside Cork": where one works
    _p("run runs running own owns", r"\b(?:run|runs|running|own|owns)\s+(?:a|an|our|my|the)\s+(?:[\w-]+\s+){0,2}?"
       rf"{_SHOP}\s+(?:near|in|(?:just\s+)?outside(?:\s+of)?)\s+(?!(?:[\w-]+\s+){{0,3}}?(?:called|named)\b)",
       "WORKS_IN", "state", _P, _L, lower=True),
)
# fmt: on
