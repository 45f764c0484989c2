"""How people type to an assistant, made readable for the rules: a role
prefix dropped, typographic quotes made plain, apostrophes restored.

Only what cannot be misread is rewritten: "im" and "dont" have no other
meaning, while "ill", "id", "were" and "its" do, and are left alone.
"""

from __future__ import annotations

import re

from .names import Run, Token

__all__ = ["plain_line", "self_named", "strip_prefix"]

_QUOTES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "“": '"', "”": '"'})
_CONTRACTIONS = {
    "im": "i'm",
    "ive": "i've",
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "cant": "can't",
    "wont": "won't",
    "isnt": "isn't",
    "arent": "aren't",
    "wasnt": "wasn't",
    "werent": "weren't",
    "havent": "haven't",
    "hasnt": "hasn't",
    "hadnt": "hadn't",
    "couldnt": "couldn't",
    "shouldnt": "shouldn't",
    "wouldnt": "wouldn't",
    "youre": "you're",
    "theyre": "they're",
    "thats": "that's",
    "shes": "she's",
    "weve": "we've",
    "theyve": "they've",
}
_BARE = re.compile(r"\b(" + "|".join(sorted(_CONTRACTIONS, key=len, reverse=True)) + r")\b", re.IGNORECASE)
_SPACED = str.maketrans({c: " " for c in ".,;:!?()[]\"'-/"})
_PREFIX = re.compile(r"^\s*([\w .'\-]{1,40}?)\s*:\s+(?=\S)")
_SELF = frozenset({"user", "me", "human"})


def _restore(m: re.Match[str]) -> str:
    word = m.group(0)
    fixed = _CONTRACTIONS[word.lower()]
    return fixed[0].upper() + fixed[1:] if word[0].isupper() else fixed


def plain_line(line: str) -> str:
    """Plain quotes and the apostrophes people leave out ("im", "dont")."""
    line = line.translate(_QUOTES)
    if set(line.lower().translate(_SPACED).split()).isdisjoint(_CONTRACTIONS):
        return line  # nearly always: a set lookup is cheaper than the regex
    return _BARE.sub(_restore, line)


def strip_prefix(line: str, speaker: str | None) -> str:
    """The line without a role prefix that names its own speaker: "user: ...", "me: ...", or the speaker's own
    name or first name in any case ("sam: ..."). Other prefixes are kept for the transcript reading."""
    m = _PREFIX.match(line)
    if m is None:
        return line
    who = " ".join(m.group(1).casefold().split())
    names = set(_SELF)
    if speaker:
        full = " ".join(speaker.casefold().split())
        names |= {full, full.split()[0]}
    return line[m.end() :] if who in names else line


_INTRO_BEFORE = (("i", "'m"), ("i", "am"), ("name", "is"), ("name", "'s"), ("this", "is"), ("it", "'s"))


def self_named(tokens: list[Token], runs: list[Run], speaker: str | None) -> list[Run]:
    """The runs with the speaker's own name where they introduce themselves ("hi, i'm sam", "hannah here",
    "I'm Elena, cofounder of ..."), given the speaker's full name: one person, not a second "Sam"."""
    if not speaker:
        return runs
    names = {" ".join(speaker.casefold().split()), speaker.casefold().split()[0]}
    by_first = {r.first: r for r in runs}
    found: dict[int, Run] = {}
    for k, token in enumerate(tokens):
        if token.lower not in names or token.text[0].isupper() and k not in by_first:
            continue
        before = tuple(t.lower for t in tokens[max(0, k - 2) : k])
        here = k + 1 < len(tokens) and tokens[k + 1].lower == "here" and (k == 0 or tokens[k - 1].lower == ",")
        if before in _INTRO_BEFORE or here:
            run = by_first.get(k)
            last = run.last if run is not None and run.name.casefold() in names else k
            found[k] = Run(k, last, speaker, lead=k)
    if not found:
        return runs
    covered = {i for r in found.values() for i in range(r.first, r.last + 1)}
    kept = [r for r in runs if r.first not in covered and r.last not in covered]
    return sorted(kept + list(found.values()), key=lambda r: r.first)
