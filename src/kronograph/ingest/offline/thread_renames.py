"""A person's name put right in a later message: "my manager Kevin Otieno" then "sorry, his surname is Ochieng,
Kevin Ochieng"; "my boss Dr. Martin Gagnon" then "oops his name is Michel"; "me and my friend Rizky Prasetyo"
then "wait its Rizky Pratama lol".

Only with words that own up to a slip (sorry, oops, wait, I meant, his name is ...) and only for one person
said earlier whose name differs from the new one in one word (first name or surname): the thread then knows
the person by the new name (``thread.py``), and the earlier facts about them are moved to it
(``thread_corrections.py``). Nothing here imports the thread, so both may use it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["renamed"]

_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+)?"
_WORD = r"(?-i:[A-Z])[\w'’-]+"
_OWNED_UP = re.compile(
    r"\b(?:sorry|oops|whoops|wait|typo|my\s+bad|i\s+meant|i\s+mean|correction|misspelled|mis-?typed|"
    r"(?:his|her|their)\s+(?:real\s+|actual\s+|full\s+)?(?:sur|last\s+|first\s+|family\s+)?name\s+is|"
    r"(?:it's|its|it\s+is)\s+actually|actually\s+(?:it's|its|it\s+is))\b",
    re.IGNORECASE,
)
# "its Rizky Pratama", "I meant Kevin Ochieng", "his name is Michel, Dr. Michel Gagnon": a full name given
_FULL = re.compile(rf"\b{_TITLE}(?P<name>{_WORD}(?:\s+{_WORD}){{1,2}})")
# "his name is Michel", "her surname is Okafor": one word, which part it is
_PART = re.compile(
    rf"\b(?:his|her|their)\s+(?:real\s+|actual\s+)?(?P<part>sur|last\s+|first\s+|family\s+)?name\s+is\s+"
    rf"(?:actually\s+)?(?P<word>{_WORD})\b(?!\s+{_WORD})",
    re.IGNORECASE,
)
# what comes right before a name given as the right one: "its", "I meant", "his surname is Ochieng,"
_GIVEN = re.compile(
    r"\b(?:it's|its|it\s+is|meant|mean|name\s+is|spelt|spelled|should\s+be|actually)\s+(?:[\w'’-]+\s*,\s*)?"
    rf"{_TITLE}$",
    re.IGNORECASE,
)
_NOT_NAMES = frozenset("i i'm im it its it's the a my we he she they his her sorry oops wait lol haha ok okay".split())


def renamed(content: str, names: Mapping[str, str | None], recent: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """(old, new): the person said earlier (``names``: full names -> label) whose name this message puts
    right, else None. ``recent`` lists the people the latest messages named, newest first, for a name given
    in part ("his name is Michel")."""
    if _OWNED_UP.search(content) is None:
        return None
    people = [n for n, label in names.items() if label in ("Person", None) and len(n.split()) >= 2]
    known = {n.casefold() for n in names}
    for m in _FULL.finditer(content):
        new = m.group("name")
        if new.split()[0].casefold() in _NOT_NAMES or new.casefold() in known:
            continue
        old = [p for p in people if _one_word_apart(p, new)]
        if len(old) == 1 and not _still_said(old[0], content) and (
            _GIVEN.search(content[: m.start()]) or _part_put_right(old[0], new, content)
        ):
            return old[0], new
    part = _PART.search(content)
    if part is None:
        return None
    word = part.group("word")
    last = (part.group("part") or "").strip().casefold() in ("sur", "last", "family")
    for person in recent:
        parts = person.split()
        if len(parts) < 2 or person not in people:
            continue
        new = " ".join([*parts[:-1], word] if last else [word, *parts[1:]])
        return (person, new) if new.casefold() not in known and new != person else None
    return None


def _still_said(name: str, content: str) -> bool:
    """Whether the message names the old name too, other than as "not <name>": both people, no slip."""
    said = [m.start() for m in re.finditer(rf"\b{re.escape(name)}\b", content, re.IGNORECASE)]
    return any(not re.search(r"\bnot\s+$", content[:at], re.IGNORECASE) for at in said)


def _part_put_right(old: str, new: str, content: str) -> bool:
    """Whether the message says the word put right ("Otieno was my stats lecturer", "Martin is his brother")."""
    gone = [w for w in old.split() if w.casefold() not in new.casefold().split()]
    return any(re.search(rf"\b{re.escape(w)}\b", content, re.IGNORECASE) for w in gone)


def _one_word_apart(old: str, new: str) -> bool:
    """Same number of words, the same but for one (first name or surname) that is not just spelt in
    another case."""
    a, b = old.casefold().split(), new.casefold().split()
    if len(a) != len(b):
        return False
    differ = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    return len(differ) == 1 and differ[0] in (0, len(a) - 1)
