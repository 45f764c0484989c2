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

from ..model import Entity, normalise_name
from .entities import compatible, label_family

__all__ = [
    "NICKNAMES", "a_person", "anchor_for", "anchors_of", "distinct_people", "person_like", "same_person", "short_form",
]

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


# Roles whose speaker is no person a mention could be: an assistant named
# "Alex" is no anchor for a user's friend "Alex Kim" it mentions.
_NOT_PEOPLE = frozenset({"assistant", "system", "tool"})


def anchors_of(speaker: str | None, role: str | None, user_name: str | None) -> list[str]:
    """The distinct anchor names of an episode, in order: its speaker (unless
    an assistant, system or tool speaks) and the group's user."""
    names = (speaker if not role or role.casefold() not in _NOT_PEOPLE else None, user_name)
    seen: dict[str, str] = {}
    for name in names:
        if name and normalise_name(name) not in seen:
            seen[normalise_name(name)] = name
    return list(seen.values())


def short_form(name: str, anchor: str) -> bool:
    """``name`` is ``anchor`` said shorter (or as long): never a longer name
    folded into a shorter one, which could join "Sam Carter" and "Sam Lee"
    through a user called "Sam"."""
    return normalise_name(name) != normalise_name(anchor) and len(_words(name)) <= len(_words(anchor)) and (
        same_person(name, anchor)
    )


def anchor_for(name: str, labels: Sequence[str], anchors: Sequence[str]) -> str | None:
    """The one anchor a person-like mention is a short form of, or None
    (none, or more than one: "Sam" when both Sam Carter and Sam Lee speak)."""
    if not person_like(labels):
        return None
    found = [a for a in anchors if short_form(name, a)]
    return found[0] if len(found) == 1 else None


def a_person(labels: Iterable[str]) -> bool:
    """Labelled a person (not merely unlabelled)."""
    return any(label_family(label) == "person" for label in labels)


def distinct_people(name: str, labels: Sequence[str], entity: Entity, anchors: Sequence[str]) -> bool:
    """Whether a full name cannot be this person entity, however alike the
    names look: the entity is known by another full name ("Sam Lee" is not
    the "Sam" known as "Sam Carter"), or it is an anchor known only by a
    shorter name (the user "Sam" does not absorb every "Sam Lee")."""
    words = _words(name)
    if len(words) < 2 or not person_like(labels) or not a_person(entity.labels):
        return False
    known = (entity.name, *entity.aliases)
    if any(len(_words(other)) >= 2 and not same_person(name, other) for other in known):
        return True
    keys = {normalise_name(a) for a in anchors}
    return normalise_name(entity.name) in keys and len(_words(entity.name)) < len(words)
