"""Names typed in lower case ("i work at google now", "my sister emma").

A lower-case word is taken as a name only where a specific cue calls for
one (after "works at", "lives in", "my sister" ...), and never when it is a
common word that fills such a slot as often as a name does: "i work at
home", "i live in hope", "at the moment". A word after an article is no
name ("i live in a flat"). The name is written capitalised ("Google").
"""

from __future__ import annotations

from .names import Run, Token

__all__ = ["COMMON", "institution", "lower_name", "titled"]

COMMON = frozenset(
    """
    home work works school night nights weekend weekends weekday weekdays moment present least first last office
    offices hospital church uni university college campus gym cafe coffee shop shops store stores restaurant bar
    pub library lab factory warehouse farm hotel bank company startup firm agency family parents dad mom mum
    place places house flat apartment city town village country countryside suburbs suburb area centre center
    downtown uptown north south east west northern southern eastern western abroad overseas there here fear hope
    peace denial sin debt poverty luxury style comfort harmony silence hell heaven paradise limbo squalor dread
    halls dorms dorm residence housing tech finance marketing sales retail healthcare government education science
    engineering design research consulting law medicine ops support product remote remotely local locally full
    part time hour hours minimum wage myself yourself himself herself ourselves themselves itself free shift shifts
    day days morning mornings evening evenings early late same different another other new old big small nice
    great good bad best better worse rural urban money fun food living months weeks years ages long sure real
    nothing cash tips peanuts charity love tears action bed management frontend backend scale pace speed desk
    reality fact theory principle practice person people someone somebody anyone everyone nobody friends friend
    colleagues clients customers users kids children students startups companies home-office hq headquarters
    freelance contract contractor agencies nonprofit non-profit charities public private corporate big-tech
    summer winter spring autumn fall january february march april may june july august september october november
    december monday tuesday wednesday thursday friday saturday sunday today tonight tomorrow yesterday
    lol haha ok okay yes yeah no nope thanks thank please btw tbh idk imo rn atm done finished general particular
    between
    case person anyway though oh ah um uh hmm hey hi hello omg ugh yay wow cool nice sure well so also
    """.split()
)
_MAX_WORDS = 3
_PLACE_HEADS = frozenset("new san santa los las st saint el la le hong buenos rio sao tel kuala abu".split())
# a past tense is no name ("my dog died", "my husband cooked"), though "Ahmed" and "Ted" are
_VERB_ED = tuple("ked ted ved led ped sed zed ied ned red ged ded hed wed yed ced".split())
_VERBS = frozenset(
    """
    died dies ate eats ran runs got gets went goes came comes did does made makes said says had has was is are
    were be can will would could should may might must loves hates likes wants needs knows thinks feels sleeps
    barks cries lost won saw sees took takes gave gives fell broke woke sent keeps kept left quit met told
    """.split()
)


def _wordlike(token: Token, stop: frozenset[str]) -> bool:
    word = token.lower
    return (
        token.text.isalpha()
        and token.text.islower()
        and len(word) > 1
        and word not in stop
        and word not in COMMON
        and not word.endswith(("ing", "ly"))
        and not (len(word) > 4 and word.endswith(_VERB_ED))
        and word not in _VERBS
    )


def lower_name(tokens: list[Token], i: int, stop: frozenset[str], follow: frozenset[str]) -> tuple[str, int] | None:
    """The lower-case name starting at token ``i`` and its last token, capitalised, when a name can be there: one
    to three uncommon words, one space apart, followed by the sentence's end, a word in ``follow`` or a common
    word."""
    n, j = len(tokens), i
    if i < n - 1 and tokens[i].lower in _PLACE_HEADS and _wordlike(tokens[i + 1], stop):
        j = i + 1  # "new york", "san jose": a common first word, only before another
    elif i >= n or not _wordlike(tokens[i], stop):
        return None
    while j + 1 < n and j + 1 - i < _MAX_WORDS and tokens[j + 1].start == tokens[j].end + 1:
        if not _wordlike(tokens[j + 1], stop):
            break
        j += 1
    after = tokens[j + 1].lower if j + 1 < n else "."
    if after not in follow and after not in COMMON and tokens[j + 1].text.isalpha():
        return None  # "i work at google full time" is Google; in "at google cloud platform team" no name is sure
    return " ".join(t.text.capitalize() for t in tokens[i : j + 1]), j


_INSTITUTIONS = frozenset({"university", "college", "school", "institute", "academy"})
# "middlemore hospital", "aberystwyth university": one or two lower-case words before the kind of place
_HEADS = _INSTITUTIONS | frozenset({"hospital", "clinic", "polytechnic", "infirmary"})


def _headed(tokens: list[Token], j: int, stop: frozenset[str]) -> tuple[str, int] | None:
    k = j
    while k < len(tokens) and k - j < 2 and _wordlike(tokens[k], stop) and tokens[k].lower not in _PLACE_HEADS:
        k += 1
    if k == j or k >= len(tokens) or tokens[k].lower not in _HEADS or not tokens[k].text.islower():
        return None
    return " ".join(t.text.capitalize() for t in tokens[j : k + 1]), k


def institution(tokens: list[Token], i: int, stop: frozenset[str], follow: frozenset[str]) -> tuple[str, int] | None:
    """ "the university of edinburgh": a lower-case institution named by its place, capitalised."""
    n = len(tokens)
    j = i + (i < n and tokens[i].lower == "the")
    if (headed := _headed(tokens, j, stop)) is not None:
        return headed
    if j + 2 >= n or tokens[j].lower not in _INSTITUTIONS or tokens[j + 1].lower != "of":
        return None
    found = lower_name(tokens, j + 2, stop, follow)
    if found is None or not all(t.text.islower() for t in tokens[j : j + 2]):
        return None
    return f"{tokens[j].text.capitalize()} of {found[0]}", found[1]


_LOWER_TITLES = frozenset({"dr", "prof"})
_AFTER_TITLED = frozenset({",", ".", "!", "?", ";", "and", "is", "was", "'s", "who", "says", "said", "from", "at"})


def titled(tokens: list[Token], runs: list[Run]) -> list[Run]:
    """ "my supervisor is dr sana malik": a first name and a surname typed in lower case after a title, a
    person (not "dr appointment": two name-like words, then the clause goes on or ends)."""
    taken = {k for r in runs for k in range(min(r.first, r.lead if r.lead >= 0 else r.first), r.last + 1)}
    found = []
    for i, token in enumerate(tokens):
        if token.text not in _LOWER_TITLES or i in taken:
            continue
        j = i + 1 + (i + 1 < len(tokens) and tokens[i + 1].text == ".")
        if (named := next((r for r in runs if r.first == j and r.lead in (-1, j)), None)) is not None:
            named.lead, named.title = i, True  # "my manager is dr Priya Shah": the title typed in lower case
            continue
        if j + 1 >= len(tokens) or not all(_wordlike(t, frozenset()) and len(t.text) > 2 for t in tokens[j : j + 2]):
            continue
        if j + 2 < len(tokens) and tokens[j + 2].lower not in _AFTER_TITLED:
            continue
        name = " ".join(t.text.capitalize() for t in tokens[j : j + 2])
        found.append(Run(j, j + 1, name, lead=i, title=True))
    return found
