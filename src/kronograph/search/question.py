"""What a query asks, read once before search: the words that may carry a
match, the phrases that may name an entity, and the kind of answer a
question wants.

A question's function words ("who", "is", "does", "the") occur in nearly
every message, so left in they find "Assistant: Go is a solid choice" for
"who is Maya". They are dropped from what full text (and a lexical
embedder) matches; the wh-word and the noun after "which"/"what" are kept
apart as the *answer kinds* the question wants, which rank facts by the
type of their answer end (a soft boost, see :mod:`.fit`). Pure Python, no
I/O: every backend receives the same analysis.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["FUNCTION_WORDS", "KINDS", "Question", "analyse", "stem"]

# English function words: pronouns, determiners, auxiliaries, prepositions,
# conjunctions, wh-words, the pieces \w+ leaves of contractions ("what's",
# "doesn't"), and the politeness of a request ("please tell me").
FUNCTION_WORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also am an and any are aren as at be because been before being below
    between both but by can cannot could couldn d did didn do does doesn doing don down during each either else
    ever every few for from further had hadn has hasn have haven having he her here hers herself him himself his
    how however i if in into is isn it its itself just ll m may me might mightn more most must mustn my myself neither
    no nor not now o of off on once only or other ought our ours ourselves out over own please re s same shall
    shan she should shouldn so some such t tell than that the their theirs them themselves then there these they
    this those through to too under until up upon us ve very was wasn we were weren what whatever when whenever
    where wherever whether which while who whoever whom whose why will with won would wouldn y yet you your yours
    yourself yourselves
    """.split()
)

# The answer kinds a question may want, and the nouns that ask for each
# after "which" / "what" ("which company", "what city", "what year").
KINDS = ("person", "place", "organization", "time")
_KIND_NOUNS: dict[str, str] = {
    **dict.fromkeys(
        "city cities town towns country countries place places state states area region neighbourhood neighborhood"
        " address location locations village island continent street".split(), "place"),
    **dict.fromkeys(
        "company companies firm firms employer employers organization organizations organisation organisations"
        " business businesses startup startups org team club school university college agency bank brand"
        " institution store shop restaurant".split(), "organization"),
    **dict.fromkeys("person people guy man woman friend friends one relative colleague".split(), "person"),
    **dict.fromkeys("year years date dates day days month months time week weeks season".split(), "time"),
}
_WH_KIND = {"where": "place", "who": "person", "whom": "person", "whose": "person", "when": "time"}
_TOKEN = re.compile(r"\w+", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!?;:]\s*$")
_MAX_NAME_WORDS = 4  # the longest phrase looked up as a name


@dataclass(frozen=True, slots=True)
class Question:
    """The analysis of one query.

    ``terms``: the text full text and a lexical embedder match, the content
    words in order; the query as asked when it has none (a query of
    function words only still searches its own words, and ``only_function_words``
    says so). ``words``: the content words, casefolded. ``phrases``: runs of
    up to four adjacent content words, longest first, each a possible name.
    ``capitalised``: the content words written with a capital, casefolded
    (the likeliest names). ``wants``: the answer kinds asked for
    (``"place"`` for "where", ...)."""

    text: str
    terms: str
    words: tuple[str, ...]
    phrases: tuple[str, ...]
    wants: frozenset[str]
    only_function_words: bool
    capitalised: frozenset[str] = frozenset()

    @property
    def stems(self) -> frozenset[str]:
        """The content words' stems (see :func:`stem`)."""
        return frozenset(stem(w) for w in self.words)


def stem(word: str) -> str:
    """A light stem, enough to meet a relation's words (``lives`` and
    ``LIVES_IN``, ``moved`` and ``MOVED_TO``, ``working`` and ``WORKS_AT``):
    casefolded, a plural or verb ending cut while three letters remain."""
    w = word.casefold()
    for end in ("ing", "ies", "ied", "es", "ed", "s", "e"):
        if w.endswith(end) and len(w) - len(end) >= 3:
            w = w[: -len(end)] + ("y" if end in ("ies", "ied") else "")
            break
    return w


def _is_function(word: str, first: bool) -> bool:
    """A function word, unless written as a name mid-sentence: "Will" and
    "May" in "when did May move" are people; at the start they are not."""
    if word.casefold() not in FUNCTION_WORDS:
        return False
    return first or not word[:1].isupper() or word in ("I", "A")


def analyse(query: str) -> Question:
    """The analysis of ``query`` (see :class:`Question`): O(its length)."""
    tokens: list[tuple[str, bool]] = []  # (word, content?) in order
    first = True
    at = 0
    for match in _TOKEN.finditer(query):
        if _SENTENCE_END.search(query[at : match.start()]):
            first = True
        word = match.group()
        tokens.append((word, not _is_function(word, first)))
        first, at = False, match.end()
    content = [w for w, ok in tokens if ok]
    runs: list[list[str]] = [[]]
    for word, ok in tokens:
        if ok:
            runs[-1].append(word)
        elif runs[-1]:
            runs.append([])
    phrases: dict[str, None] = {}
    for size in range(_MAX_NAME_WORDS, 0, -1):
        for run in runs:
            for i in range(len(run) - size + 1):
                phrases.setdefault(" ".join(run[i : i + size]), None)
    return Question(
        text=query,
        terms=" ".join(content) if content else query,
        words=tuple(dict.fromkeys(w.casefold() for w in content)),
        phrases=tuple(phrases),
        wants=_wants([w.casefold() for w, _ in tokens]),
        only_function_words=bool(tokens) and not content,
        capitalised=frozenset(w.casefold() for w in content if w[:1].isupper()),
    )


def _wants(words: list[str]) -> frozenset[str]:
    """The answer kinds of the wh-words and of "which/what (kind of) NOUN",
    "how long" and "since when"."""
    out: set[str] = set()
    for i, word in enumerate(words):
        if word in _WH_KIND:
            out.add(_WH_KIND[word])
        elif word in ("which", "what"):
            for noun in words[i + 1 : i + 4]:  # "which company", "what kind of city"
                if noun in _KIND_NOUNS:
                    out.add(_KIND_NOUNS[noun])
                    break
        elif word == "how" and i + 1 < len(words) and words[i + 1] in ("long", "old", "often"):
            out.add("time")
    return frozenset(out)
