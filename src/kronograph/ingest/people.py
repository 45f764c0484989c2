"""People's names: when a short name is the same person as a full one.

A user who writes "Hi, I'm Sam" and is later "Sam Carter" is one person; so
is "S. Carter", and "Bob" for "Robert Smith". These rules only ever compare
a name with an *anchor* (the episode's speaker or the group's user), never
two arbitrary mentions, and never join two distinct full names: "Sam Carter"
and "Sam Lee" stay two people. See :func:`same_person`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..model import normalise_name
from .entities import compatible

__all__ = ["NICKNAMES", "anchor_for", "anchors_of", "person_like", "same_person"]

# Common English given names and their usual short forms (both directions).
NICKNAMES: dict[str, tuple[str, ...]] = {
    "samuel": ("sam", "sammy"), "samantha": ("sam", "sammy"), "robert": ("bob", "rob", "bobby", "robbie"),
    "elizabeth": ("liz", "beth", "lizzie", "eliza", "betty"), "michael": ("mike", "mikey", "mick"),
    "alexander": ("alex", "sasha", "xander"), "alexandra": ("alex", "sasha", "lexi"),
    "katherine": ("kate", "katie", "kathy", "kat"), "catherine": ("cate", "cathy", "kate", "katie"),
    "william": ("will", "bill", "billy", "liam"), "james": ("jim", "jimmy", "jamie"),
    "richard": ("rick", "dick", "rich", "ricky"), "thomas": ("tom", "tommy"), "joseph": ("joe", "joey"),
    "christopher": ("chris", "topher"), "christine": ("chris", "christy"), "daniel": ("dan", "danny"),
    "matthew": ("matt",), "anthony": ("tony",), "andrew": ("andy", "drew"), "joshua": ("josh",),
    "benjamin": ("ben", "benny"), "nicholas": ("nick", "nicky"), "jonathan": ("jon", "jonny"),
    "edward": ("ed", "eddie", "ted", "ned"), "charles": ("charlie", "chuck"), "david": ("dave", "davey"),
    "steven": ("steve",), "stephen": ("steve",), "timothy": ("tim", "timmy"), "gregory": ("greg",),
    "jennifer": ("jen", "jenny"), "jessica": ("jess", "jessie"), "margaret": ("maggie", "meg", "peggy"),
    "rebecca": ("becky", "becca"), "victoria": ("vicky", "tori"), "patricia": ("pat", "patty", "trish"),
    "patrick": ("pat", "paddy"), "susan": ("sue", "susie"), "deborah": ("deb", "debbie"),
    "abigail": ("abby",), "kimberly": ("kim",), "jacqueline": ("jackie",), "theodore": ("ted", "teddy", "theo"),
    "frederick": ("fred", "freddie"), "kenneth": ("ken", "kenny"), "ronald": ("ron", "ronnie"),
    "donald": ("don", "donnie"), "raymond": ("ray",), "lawrence": ("larry",), "gerald": ("gerry",),
    "jeffrey": ("jeff",), "zachary": ("zach", "zack"), "nathaniel": ("nate", "nat"), "nathan": ("nate",),
    "peter": ("pete",), "philip": ("phil",), "douglas": ("doug",), "leonard": ("leo", "len"),
    "vincent": ("vince", "vinny"), "jacob": ("jake",), "isabella": ("bella", "izzy"), "isabel": ("izzy",),
    "olivia": ("liv", "livvy"), "natalie": ("nat",), "natalia": ("nat",), "gabriel": ("gabe",),
    "gabriella": ("gabby",), "josephine": ("jo", "josie"), "johanna": ("jo",), "eleanor": ("ellie", "nora"),
    "madeline": ("maddie",), "priyanka": ("priya",), "francesca": ("fran", "frankie"),
    "francis": ("frank",), "franklin": ("frank",), "henry": ("hank", "harry"), "harold": ("harry", "hal"),
    "john": ("johnny", "jack"), "mary": ("molly", "mae"), "ann": ("annie",), "anne": ("annie",),
    "dorothy": ("dot", "dottie"), "emily": ("em", "emmy"), "emma": ("em",), "julia": ("jules",),
    "benedict": ("ben",), "maximilian": ("max",), "maxwell": ("max",), "oliver": ("ollie",),
}

_EQUIVALENT: dict[str, set[str]] = {}
for _formal, _shorts in NICKNAMES.items():
    _EQUIVALENT.setdefault(_formal, {_formal}).update(_shorts)
    for _short in _shorts:
        _EQUIVALENT.setdefault(_short, {_short}).add(_formal)
_WORD = re.compile(r"[^\W\d_][\w'’-]*\.?", re.UNICODE)


def _words(name: str) -> list[str]:
    return [w.rstrip(".").casefold() for w in _WORD.findall(name)]


def _given(a: str, b: str) -> bool:
    """Two given names of one person: equal, or one a usual short form of the other."""
    return a == b or b in _EQUIVALENT.get(a, ()) or a in _EQUIVALENT.get(b, ())


def _initial(a: str, b: str) -> bool:
    return (len(a) == 1 and b.startswith(a)) or (len(b) == 1 and a.startswith(b))


def same_person(name: str, anchor: str) -> bool:
    """Whether ``name`` can be the person ``anchor`` names: the same given
    name (or a nickname of it) alone ("Sam", "Bob" for "Robert Smith"), or
    the same surname with a matching given name or initial ("S. Carter",
    "Samuel Carter" for "Sam Carter"). Two full names with different
    surnames, or different given names, are never the same."""
    a, b = _words(name), _words(anchor)
    if not a or not b or a == b:
        return bool(a) and a == b
    if len(a) >= 2 and len(b) >= 2:
        return a[-1] == b[-1] and (_given(a[0], b[0]) or _initial(a[0], b[0]))
    single, other = (a[0], b) if len(a) == 1 else (b[0], a)
    if len(other) == 1:
        return _given(single, other[0])
    return len(single) > 1 and _given(single, other[0])


def person_like(labels: Iterable[str]) -> bool:
    """A mention that may be a person: labelled so, or not labelled at all."""
    return compatible(tuple(labels), ("Person",))


def anchors_of(*names: str | None) -> list[str]:
    """The distinct anchor names of an episode (speaker, user), in order."""
    seen: dict[str, str] = {}
    for name in names:
        if name and normalise_name(name) not in seen:
            seen[normalise_name(name)] = name
    return list(seen.values())


def anchor_for(name: str, labels: Sequence[str], anchors: Sequence[str]) -> str | None:
    """The one anchor a person-like mention is a short form of, or None
    (none, or more than one: "Sam" when both Sam Carter and Sam Lee speak)."""
    if not person_like(labels):
        return None
    key = normalise_name(name)
    found = [a for a in anchors if normalise_name(a) != key and same_person(name, a)]
    return found[0] if len(found) == 1 else None
