"""Corrections made in passing: "Karim lives in Leicester, sorry, Coventry", "in Turin, no wait, Genoa",
"we live in Alcalá. Actually, Alcobendas, not Alcalá".

A name right after a correcting word (sorry, I mean, actually, rather) takes
the place of the name right before it; "Y, not X" puts Y in X's place, in a
sentence that states nothing else or that also holds a correcting word. Only
a name that is the object of a fact already read in the same episode is
replaced, and only by a capitalised name: a correction of something said in
an earlier message is not seen here: ``take_back`` ends the speaker's link
to what "not X" names in a sentence that says it corrects ("sorry, wrong, the
flat is in Maia, not matosinhos"), when nothing read in this episode was X.
"""

from __future__ import annotations

from .context import Context, Subject
from .lowercase import institution
from .names import Run, Token

__all__ = ["correct", "take_back"]

_CUES = frozenset({"sorry", "actually", "rather", "correction", "oops", "wait", "apologies"})
_GLUE = frozenset({",", ":", "-", "—", "–", "i", "mean", "meant", "it", "'s", "is", "wait", "no", "to", "say"})
# not "actually": "It's actually Initech" after "I said Acme" is thread_corrections.py's
_OWNING_UP = frozenset({"sorry", "apologies", "wait", "oops", "mean", "meant"})
_OPENERS = _CUES | _GLUE | frozenset({"my", "oh", "sorry", "!"})


def correct(tokens: list[Token], runs: list[Run], ctx: Context, stated: bool) -> int:
    """Apply the corrections of one sentence to the episode's facts; how many facts changed. In a sentence that
    ``stated`` a fact of its own, "Y, not X" is part of it ("Ana works at Globex, not Acme"), no correction."""
    cued = any(t.lower in _CUES or t.lower in ("mean", "meant") for t in tokens)
    by_first = {r.first: r for r in runs}
    by_last = {r.last: r for r in runs}
    changed = 0
    old: Run | None
    for k, token in enumerate(tokens):
        word = token.lower
        if word == "not" and k + 1 in by_first and (cued or not stated):
            old, new = by_first[k + 1], _before(tokens, k, by_last)
        elif word in _CUES or (word in ("mean", "meant") and k > 0 and tokens[k - 1].lower == "i"):
            new, old = _after(tokens, k, by_first), _before(tokens, k - (word in ("mean", "meant")), by_last)
        else:
            continue
        if new is None and word in _CUES | {"mean", "meant"}:
            new = _lower_after(tokens, k)  # "wait no sorry, university of helsinki"
        if old is None and new is not None and not stated and word in _OWNING_UP and all(
            t.lower in _OPENERS for t in tokens[:k]
        ):
            old = _last_object(ctx)  # "... at Aalto! wait no sorry, X": the sentence before's
        if old is not None and new is not None and old.name.casefold() != new.name.casefold():
            changed += _replace(ctx, old.name, new.name)
    return changed


def _lower_after(tokens: list[Token], k: int) -> Run | None:
    """A lower-case institution right after a correcting word: "sorry, university of helsinki"."""
    j = k + 1
    while j < len(tokens) and j - k <= 4 and tokens[j].lower in _GLUE:
        j += 1
    found = institution(tokens, j, frozenset(), frozenset({".", "!", ",", ";"}))
    if found is None and j + 2 < len(tokens) and tokens[j + 1].lower == "of" and tokens[j].text.islower():
        found = institution(tokens[: j + 2] + [_lowered(tokens[j + 2])] + tokens[j + 3 :], j, frozenset(),
                            frozenset({".", "!", ",", ";"}))  # "university of Helsinki": its town said before
    if found is None or (found[1] + 1 < len(tokens) and tokens[found[1] + 1].lower not in (".", "!", ",", ";")):
        return None
    return Run(j, found[1], found[0])


def _lowered(token: Token) -> Token:
    return Token(token.text.lower(), token.start, token.end, token.lower)


def _last_object(ctx: Context) -> Run | None:
    """The object of the latest fact read in this episode that is no person: what a correction that opens a
    sentence puts right."""
    for fact in reversed(list(ctx.facts.values())):
        if ctx.label(fact.object) != "Person":
            return Run(-1, -1, fact.object)
    return None


def _before(tokens: list[Token], k: int, by_last: dict[int, Run]) -> Run | None:
    j = k - 1
    while j >= 0 and k - j <= 3 and tokens[j].lower in _GLUE:
        j -= 1
    return by_last.get(j)


def _after(tokens: list[Token], k: int, by_first: dict[int, Run]) -> Run | None:
    j = k + 1
    while j < len(tokens) and j - k <= 4 and tokens[j].lower in _GLUE:
        j += 1
    return by_first.get(j)


def _replace(ctx: Context, old: str, new: str) -> int:
    """Re-point the facts whose object is ``old`` at ``new``."""
    changed = 0
    for key, fact in list(ctx.facts.items()):
        if fact.object.casefold() != old.casefold():
            continue
        del ctx.facts[key]
        ctx.mention(new, ctx.label(old))
        ctx.facts[(key[0], key[1], new.casefold())] = fact.model_copy(
            update={"object": new, "fact": fact.fact[: len(fact.fact) - len(fact.object)] + new}
        )
        changed += 1
    return changed


_OWNED_UP = frozenset({"sorry", "wrong", "correction", "oops", "mistake", "typo"})
_NOT_NAMES = frozenset("a an the my our that this it sure really yet now there here even just only".split())


def take_back(tokens: list[Token], ctx: Context) -> int:
    """ "sorry, wrong, it's in Maia, not matosinhos": the speaker's standing link to the name after "not" ends."""
    words = [t.lower for t in tokens]
    if not ctx.speaker or _OWNED_UP.isdisjoint(words):
        return 0
    made = 0
    for k, word in enumerate(words[:-1]):
        if word != "not" or k == 0 or words[k - 1] != "," or words[k + 1] in _NOT_NAMES:
            continue
        first = k + 2 if words[k + 1] in ("in", "at", "from") else k + 1  # "not in Thirsk": Thirsk
        end = first
        while end < len(tokens) and end - first <= 2 and tokens[end].text[:1].isalpha():
            end += 1
        said = " ".join(t.text for t in tokens[first:end])
        if not said:
            continue
        if any(f.object.casefold() == said.casefold() for f in ctx.facts.values()):
            continue  # corrected within this episode already
        name = " ".join(w[:1].upper() + w[1:] for w in said.split())
        made += ctx.add_fact(Subject(ctx.speaker, 0.8), "NO_LONGER_LINKED_TO", (name, None), (None, None), "")
    return made
