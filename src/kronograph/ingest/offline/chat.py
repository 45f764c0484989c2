"""How people type to an assistant, made readable for the rules: a role
prefix dropped, typographic quotes made plain, apostrophes restored.

Only what cannot be misread is rewritten: "im" and "dont" have no other
meaning, while "ill", "id", "were" and "its" do, and are left alone.
"""

from __future__ import annotations

import re

__all__ = ["plain_line", "strip_prefix"]

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
_PREFIX = re.compile(r"^\s*([\w .'\-]{1,40}?)\s*:\s+(?=\S)")
_SELF = frozenset({"user", "me", "human"})


def _restore(m: re.Match[str]) -> str:
    word = m.group(0)
    fixed = _CONTRACTIONS[word.lower()]
    return fixed[0].upper() + fixed[1:] if word[0].isupper() else fixed


def plain_line(line: str) -> str:
    """Plain quotes and the apostrophes people leave out ("im", "dont")."""
    return _BARE.sub(_restore, line.translate(_QUOTES))


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
