"""What the conversation said before this message, as the rules can use it.

A message is read alone unless it is given a :class:`Thread`: the names the
earlier messages of its thread (saga) said, in their longest form and with
their labels; the people each message named, for "he" and "she"; and the
assistant's yes/no question right before it. With it:

- a name said earlier in full is recognised when typed in lower case later
  ("tom's brother", "i left brightpath"), and a shortened mention is the
  full name ("kickapoo valley": Kickapoo Valley Creamery, "Kenji": Kenji
  Sato); two candidates give none;
- "he"/"she" with no one named before it in the message is the one person
  the latest message naming people named (or the one of the pronoun's
  gender), unless a person was since spoken of without a name ("how's
  your mum?");
- a short "yes" to the assistant's yes/no question is the user's statement
  (thread_answers.py);
- the user's earlier facts, with their starts, can be corrected or ended
  (thread_corrections.py, thread_life.py).

A thread is read once per prefix of messages (cached): the next message of a
conversation adds one message's reading to the thread before it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import NamedTuple

from ..schema import ExtractedEntity
from .context import Context, Subject
from .dates import find_times
from .kin import KIN, of_gender
from .lowercase import COMMON
from .names import Token, tokenize
from .thread_homes import MOVED, called_off, homes_planned, move_done
from .thread_life import applied_to
from .thread_renames import renamed
from .thread_switches import switches_planned

__all__ = [
    "Earlier", "Said", "Thread", "expand_names", "moved", "newborn", "read_thread", "recapitalise", "rename",
    "thread_person",
]

_WHENEVER = datetime(2000, 1, 1, tzinfo=UTC)  # names do not depend on the day
_RECENT = 4  # messages walked back for "he"/"she"
_PERSON_NOUNS = frozenset(w for w, (_, _, label) in KIN.items() if label == "Person") | frozenset(
    "guy girl boy man woman lady baby doctor vet teacher".split()
)
_THINGS_DETERMINERS = frozenset("the my our his her".split())
_KINDS = frozenset(
    """
    club school bank hospital university college street road park centre center house office group team society
    app music studio shop store cafe restaurant bar farm clinic church hall library museum academy institute
    company labs health energy capital systems solutions services foods works home city town village lake river
    """.split()
)
_DETERMINERS = frozenset("a an the this that these those my your our his her their some any no every".split())
_NEVER = COMMON | frozenset(
    """
    i me my we us our you your he him his she her they them their it its the a an and or but so to of in on at
    for with from by is am are was were be been has have had do does did will would can could may might must
    not no yes yeah yep nope ok okay oh well sure hi hello hey thanks lol this that what who when where why how
    all any some one just also still now then here there good great nice new old big little mark will grace
    """.split()
)


_EXPECTING = re.compile(
    r"(?:(?:'re|\s+are)\s+(?:having|expecting)\s+(?:a\s+)?(?:baby|twins|boy|girl|little\s+one)|"
    r"(?:we(?:'re|\s+are)|i(?:'m|\s+am)|she(?:'s|\s+is))\s+expecting|(?:'s|'m|\s+is|\s+am|\s+are)\s+pregnant)\b",
    re.IGNORECASE,
)
_NAME = r"[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?"
_CO_PARENT = re.compile(
    rf"(?P<a>{_NAME})\s+and\s+(?i:i|me)\b|\bme\s+and\s+(?P<b>{_NAME})|"
    rf"\b(?i:wife|husband|partner|girlfriend|boyfriend|gf|bf|fianc[eé]e?)\s+(?P<c>{_NAME})"
)
# "she's here!!! Naledi, 3.2kg", "baby's here! meet Leo", "he arrived last night!! Kofi"
_ARRIVED = re.compile(
    r"^\W*(?:(?:she|he)(?:'s|\s+is)\s+here|(?:the\s+|our\s+)?baby(?:'s|\s+is|\s+has)\s+(?:here|arrived)|"
    r"(?:she|he)\s+(?:has\s+)?arrived(?:\s+(?:last|this)\s+\w+|\s+yesterday|\s+today)?|it's\s+a\s+(?:boy|girl))"
    r"\s*[!.,]+\s*(?:meet\s+)?(?P<name>(?-i:[A-Z])[\w'’-]+)(?![\w'’-])",
    re.IGNORECASE,
)
# "Naledi was born last night", "Leo arrived on sunday": a sentence that starts with the new name
_BORN_NAMED = re.compile(r"(?:^|[.!?]\s+)(?P<name>[A-Z][\w'’-]+)\s+(?:was\s+born|arrived)\b")


# "moving out of Leith next month", "we're moving to Leeds in june": a move to come
_MOVE_PLAN = re.compile(
    rf"\bmoving\s+(?:out\s+of\s+(?P<out>{_NAME})|(?:to|into)\s+(?P<to>{_NAME}))(?:\s+(?:next|this|in|on|to|so|because|for)\b|\s*[,.!]|$)"
)
_LEAVING_HOME = re.compile(
    rf"\b(?:selling|leaving|giving\s+up|moving\s+out\s+of)\s+(?:the|our|my)\s+(?:house|flat|home|place|apartment|"
    rf"cottage|bungalow)\s+in\s+(?P<out>{_NAME})"
)
# "moved in!!", "we've moved!", "finally moved in", "all moved in": that move, done
_MOVED = re.compile(
    r"^\W*(?:(?:we|i)(?:'ve|\s+have)?\s+)?(?:finally\s+|just\s+|officially\s+|all\s+)*moved(?:\s+in)?\s*[!.]",
    re.IGNORECASE,
)


class Said(NamedTuple):
    """One earlier message: its role, its speaker, its text and its reference time (where an undated fact it
    stated starts)."""

    role: str | None
    speaker: str | None
    content: str
    at: datetime | None = None


class Earlier(NamedTuple):
    """A fact a user's earlier message stated, as the rules read it alone: what a later message may correct."""

    subject: str
    relation: str
    object: str
    valid_at: str | None  # ISO: the stated start, else the message's reference time (None if neither)
    said: int = 0  # which earlier message stated it (its place in the thread)


@dataclass(frozen=True, slots=True)
class Thread:
    """The conversation before a message, oldest first where order matters."""

    names: dict[str, str | None] = field(default_factory=dict)  # full names said earlier -> label
    people: tuple[tuple[str, ...], ...] = ()  # per earlier message: the people it named (full names)
    unnamed: tuple[bool, ...] = ()  # per earlier message: whether it spoke of a person without a name
    genders: dict[str, str] = field(default_factory=dict)  # name casefolded -> "he"/"she", from kin words
    speakers: frozenset[str] = frozenset()  # casefolded speakers' names and their first names
    question: str | None = None  # the assistant's question, when it is the message right before
    expecting: tuple[str, ...] | None = None  # a baby on the way: the other parents named (None: no baby said)
    moving: tuple[str | None, str | None] | None = None  # a move the user planned: from where, to where
    homes: tuple[tuple[str, bool], ...] = ()  # the new homes of a move the user planned (see thread_homes.py)
    facts: tuple[Earlier, ...] = ()  # the user's earlier facts, oldest first
    applied: str | None = None  # the organisation the user last said they applied to (see thread_life.py)
    first_said: dict[str, str] = field(default_factory=dict)  # name casefolded -> when a message first said it (ISO)
    switches: tuple[tuple[str, str], ...] = ()  # the user's switches planned or under way: (from, to)


def read_thread(previous: Iterable[Said]) -> Thread:
    """The thread of ``previous`` (oldest first): each message's names, with what came before it."""
    return _read(tuple(s for s in previous if s.content.strip()))


@lru_cache(maxsize=256)
def _read(previous: tuple[Said, ...]) -> Thread:
    """Cached by prefix: a conversation's next message reads the same earlier messages plus one (a thread given
    once must not be changed by its readers)."""
    if not previous:
        return Thread()
    return _step(_read(previous[:-1]), previous[-1])


def _step(thread: Thread, said: Said) -> Thread:
    """``thread`` with one more message."""
    speakers = {said.speaker} if said.speaker else set()
    content = recapitalise(said.content, thread, said.speaker)
    entities, stated = _read_alone(content, said.speaker, said.at)
    names = dict(thread.names)
    for name, label in entities:
        if name in speakers or name.casefold() in thread.speakers:
            continue
        full = _fold(name, label, names)
        names.setdefault(full, label)
        if label and not names.get(full):
            names[full] = label
    if len(names) > len(thread.names):  # a name said earlier in short ("Sorensen") is the full one said later
        names = {n: lab for n, lab in names.items() if _fold(n, lab, names) == n}
    recent = tuple(p for named in thread.people[::-1][:_RECENT] for p in named)
    put_right = renamed(content, thread.names, recent) if (said.role or "user").casefold() == "user" else None
    if put_right is not None:
        names.pop(put_right[0], None)  # known by the new name from here on
        names[put_right[1]] = "Person"
    people = tuple(  # the people it named, or may have: a name known as nothing else
        dict.fromkeys(
            full for name, _ in entities
            if names.get(full := _fold(name, "Person", names)) in ("Person", None) and name not in speakers
            and name.casefold() not in thread.speakers
        )
    )
    genders = dict(thread.genders)
    if gendered := _gendered(said.content):
        genders.update({n.casefold(): gendered[n.split()[0].casefold()] for n in names
                        if n.split()[0].casefold() in gendered})
    if put_right is not None and put_right[0].casefold() in genders:
        genders[put_right[1].casefold()] = genders[put_right[0].casefold()]
    tokens = _tokens(said.content)
    unnamed = any(
        t.lower in _PERSON_NOUNS and (i + 1 >= len(tokens) or not _named(tokens[i + 1]))
        for i, t in enumerate(tokens)
    )
    who = set(thread.speakers)
    if said.speaker:
        who |= {said.speaker.casefold(), said.speaker.split()[0].casefold()}
    asked = None
    if (said.role or "").casefold() == "assistant":
        asked = next((s for s in reversed(re.split(r"(?<=[.!?])\s+", said.content.strip())) if s.endswith("?")),
                     None)
    expecting = thread.expecting
    if (said.role or "user").casefold() == "user" and _EXPECTING.search(content):
        expecting = tuple(_fold(m.group(m.lastgroup or 0), "Person", names) for m in _CO_PARENT.finditer(content))
    moving = thread.moving
    if (said.role or "user").casefold() == "user" and called_off(content):
        moving = None  # "we might be moving to X", "the move fell through"
    elif (said.role or "user").casefold() == "user" and (plan := _MOVE_PLAN.search(content)) is not None:
        left = _LEAVING_HOME.search(content)  # "selling the house in Glenelg and moving to Victor Harbor"
        moving = (plan.group("out") or (left.group("out") if left else None), plan.group("to"))
    homes = homes_planned(content, thread.homes) if (said.role or "user").casefold() == "user" else thread.homes
    facts = thread.facts
    if (said.role or "user").casefold() == "user" and stated:
        facts = (*facts, *(Earlier(s, r, _fold(o, None, names), v, len(thread.people)) for s, r, o, v in stated))
    first_said = thread.first_said
    if said.at is not None and any(n.casefold() not in first_said for n, _ in entities):
        first_said = {**{n.casefold(): said.at.isoformat() for n, _ in entities}, **first_said}
    applied = thread.applied
    if (said.role or "user").casefold() == "user" and (org := applied_to(content)) is not None:
        applied = _fold(org, "Organization", names)
    switches = switches_planned(content, thread.switches) if (said.role or "user").casefold() == "user" else ()
    return Thread(
        names=names, people=(*thread.people, people), unnamed=(*thread.unnamed, unnamed), genders=genders,
        speakers=frozenset(who), question=asked, expecting=expecting, moving=moving, facts=facts, applied=applied,
        first_said=first_said, homes=homes, switches=switches or thread.switches,
    )


@lru_cache(maxsize=2048)
def _read_alone(
    content: str, speaker: str | None, at: datetime | None
) -> tuple[tuple[tuple[str, str | None], ...], tuple[tuple[str, str, str, str | None], ...]]:
    """The names one message says, with their labels, and the facts it states (a start only where it says
    one), as the rules read it alone (once per message, here)."""
    from .extractor import OfflineExtractor  # the extractor imports this module

    result = OfflineExtractor().extract(content, reference_time=at or _WHENEVER, speaker=speaker, role="user")
    names = tuple((e.name, e.labels[0] if e.labels else None) for e in result.entities)
    when = at.isoformat() if at is not None else None
    facts = tuple((f.subject, f.relation, f.object, f.valid_at or when) for f in result.facts)
    return names, facts


def _named(token: Token) -> bool:
    return token.text[:1].isupper()


def _fold(name: str, label: str | None, names: dict[str, str | None]) -> str:
    """The one longer name ``name`` shortens ("Sorensen": Pia Sorensen), else ``name``."""
    found = _longer(name, label, names)
    return found if found is not None else name


@lru_cache(maxsize=4096)
def _words(name: str) -> list[str]:
    return name.casefold().split()


@lru_cache(maxsize=2048)
def _gendered(content: str) -> dict[str, str]:
    """The first names a message calls by a gendered kin word ("my sister Lakshmi": she)."""
    words = [t.text for t in _tokens(content) if t.text[:1].isalpha()]
    return {n.casefold(): pronoun for pronoun in ("he", "she") for n in of_gender(pronoun, content, words)}


@lru_cache(maxsize=2048)
def _tokens(text: str) -> list[Token]:
    return tokenize(text)


def _longer(name: str, label: str | None, names: dict[str, str | None]) -> str | None:
    words = _words(name)
    if not words or all(w in _NEVER for w in words):
        return None
    found = []
    for full, known in names.items():
        parts = _words(full)
        if _tail_of(words, label, parts, known) or (
            len(words) == 1 and len(parts) == 2 and parts[1] == words[0] and known in (None, "Product")
            and label in (None, "Product") and _distinct(words[0])
        ):
            found.append(full)  # "vila musical": Escola Vila Musical
            continue
        inner = parts[1:-1] if len(parts) < 3 else parts[1:]  # "Clinivet" of Hospital Veterinário Clinivet too
        if len(words) == 1 and words[0] in inner and known not in ("Person", "Location") \
                and label not in ("Person", "Location") and _distinct(words[0]):
            found.append(full)  # "Trados": SDL Trados Studio, its one distinctive word
            continue
        if parts[0] != words[0] and parts[-1].rsplit("-", 1)[-1] != words[0]:
            continue
        if parts == words or (label and known and (label == "Person") != (known == "Person")):
            continue
        if parts[: len(words)] == words or (
            len(words) == 1 and (
                (known == "Person" and parts[-1] == words[0])
                or (len(parts) == 1 and "-" in parts[0] and parts[0].rsplit("-", 1)[1] == words[0])
            )
        ):
            found.append(full)
    return found[0] if len(found) == 1 else None


def _tail_of(words: list[str], label: str | None, parts: list[str], known: str | None) -> bool:
    """Whether a name of two words or more is the end of a longer organisation's name said earlier, with no
    label against it (a place "Vila Madalena" is not the school "Escola Vila Madalena")."""
    return (
        len(words) >= 2 and len(parts) > len(words) and parts[-len(words) :] == words
        and known not in ("Person", "Location") and label in (None, known)
    )


def expand_names(thread: Thread, names: Iterable[tuple[str, str | None]], speaker: str | None) -> dict[str, str]:
    """This message's names that shorten (or miscapitalise) one full name said earlier: name -> that name."""
    out: dict[str, str] = {}
    known = {n.casefold(): n for n in thread.names}
    for name, label in names:
        folded = name.casefold()
        if speaker and folded in (speaker.casefold(), speaker.split()[0].casefold()):
            continue
        if folded in thread.speakers:
            continue
        if folded in known:
            if known[folded] != name:
                out[name] = known[folded]
            continue
        longer = _longer(name, label, thread.names)
        if longer is not None:
            out[name] = longer
    return out


def recapitalise(text: str, thread: Thread, speaker: str | None) -> str:
    """``text`` with the lower-case words that can only be a name said earlier written as it was written
    ("tom's brother" after "my husband Tom"), the same length."""
    if not thread.names:
        return text
    mine = set(thread.speakers)
    if speaker:
        mine |= {speaker.casefold(), speaker.split()[0].casefold()}
    starts: dict[str, list[str]] = {}
    for full in thread.names:
        words = full.split()
        if len(words[0]) < 3 or words[0].casefold() in _NEVER or words[0].casefold() in mine:
            continue
        starts.setdefault(words[0].casefold(), []).append(full)
    tails: dict[str, list[list[str]]] = {}  # "vila musical" of Escola Vila Musical: the end of a longer name
    for full, label in thread.names.items():
        words = full.split()
        if len(words) >= 3 and label not in ("Person", "Location"):
            for k in range(1, len(words) - 1):
                if words[k].casefold() not in _NEVER:
                    tails.setdefault(words[k].casefold(), []).append(words[k:])
    lasts = {  # "panda" of Fiat Panda, said after "the"/"my": a thing or group named before by two words
        words[1].casefold(): [[words[1]]] for full, label in thread.names.items()
        if label in (None, "Product") and len(words := full.split()) == 2 and _distinct(words[1])
    }
    for full, label in thread.names.items():  # "left the symphony": the Iceland Symphony Orchestra
        if len(words := full.split()) >= 3 and label not in ("Person", "Location"):
            for word in words[1:-1]:
                if _distinct(word):
                    lasts.setdefault(word.casefold(), []).append([word])
    tokens = _tokens(text)
    out = list(text)
    done = -1
    for i, token in enumerate(tokens):
        if i <= done:
            continue
        tail = _tail_at(tokens, i, tails.get(token.text))
        if tail is None and i > 0 and tokens[i - 1].lower in _THINGS_DETERMINERS:
            tail = _tail_at(tokens, i, lasts.get(token.text))  # "sold the panda" after "my fiat panda"
        if tail is not None:
            for j, part in enumerate(tail):
                out[tokens[i + j].start : tokens[i + j].start + len(part)] = part
            done = i + len(tail) - 1
            continue
        base = re.split(r"['’]", token.text)[0]
        fulls = starts.get(base.lower())
        if fulls and len(set(fulls)) > 1:  # "cerro runners" after Cerro Runners and Cerro San Cristóbal: the one spelt
            fulls = [f for f in set(fulls) if " " in f and _spelt(tokens, i, f.split())]
        if not fulls or not token.text.islower() or base.lower() in _PERSON_NOUNS or len(set(fulls)) > 1:
            continue
        full = fulls[0]
        if thread.names.get(full) != "Person" and i > 0 and tokens[i - 1].lower in _DETERMINERS and " " not in full:
            continue  # "the logic of it": a word, not the tool said earlier
        edits: list[tuple[int, str]] = []
        for j, part in enumerate(full.split()):
            if i + j >= len(tokens):
                break
            said = re.split(r"['’]", tokens[i + j].text)[0] if j == 0 else tokens[i + j].text
            if said.lower() != part.lower() or len(said) != len(part) or not said.islower():
                break
            edits.append((tokens[i + j].start, part))
            if said != tokens[i + j].text:
                break  # "tom's": the name, then what follows it
        if len(edits) < len(full.split()) and thread.names.get(full) == "Location":
            continue  # "vila musical" after "Vila Madalena": a place is not called by its first word
        for start, part in edits:
            out[start : start + len(part)] = part
    return "".join(out)


def _spelt(tokens: list[Token], i: int, parts: list[str]) -> bool:
    """Whether the words from ``i`` spell out ``parts`` in full (in any case)."""
    return i + len(parts) <= len(tokens) and all(tokens[i + j].lower == p.lower() for j, p in enumerate(parts))


def _distinct(word: str) -> bool:
    """A word that can stand for the name it ends, not a kind of thing ("club", "school", "app")."""
    folded = word.casefold()
    return len(folded) >= 4 and word.isalpha() and folded not in _NEVER and folded not in _KINDS


def _tail_at(tokens: list[Token], i: int, tails: list[list[str]] | None) -> list[str] | None:
    """The one end of a longer name said earlier that the lower-case words from ``i`` spell out in full."""
    found = [
        tail for tail in tails or []
        if i + len(tail) <= len(tokens)
        and all(tokens[i + j].text == part.lower() for j, part in enumerate(tail))
    ]
    return found[0] if len({" ".join(t) for t in found}) == 1 else None


def thread_person(ctx: Context, pronoun: str, at: int) -> str | None:
    """Whom "he"/"she" at ``at`` in the message means when the message named no one before it: the one person
    (of that gender) the latest message naming people named, within the last few messages."""
    thread = ctx.thread
    if thread is None or pronoun not in ("he", "she"):
        return None
    for entity in ctx.entities.values():
        if entity.name != ctx.speaker and (not entity.labels or entity.labels[0] == "Person"):
            if 0 <= ctx.message.find(entity.name) < at:
                return None  # "we hired Luis. he ...": the message's own
    for people, unnamed in list(zip(thread.people, thread.unnamed, strict=True))[::-1][:_RECENT]:
        if unnamed and not people:
            return None  # "how's your mum?": someone without a name came since
        if not people:
            continue
        fits = [p for p in people if thread.genders.get(p.casefold(), pronoun) == pronoun]
        known = [p for p in fits if p.casefold() in thread.genders]
        if len(fits) == 1:
            return fits[0]
        return known[0] if len(known) == 1 else None
    return None


def rename(ctx: Context, names: dict[str, str]) -> None:
    """This message's entities and facts with the shortened names written in full."""
    if not names:
        return
    entities: dict[str, ExtractedEntity] = {}
    for entity in ctx.entities.values():
        name = names.get(entity.name, entity.name)
        known = entities.get(name.casefold())
        if known is None:
            entities[name.casefold()] = entity.model_copy(update={"name": name})
        else:
            known.labels.extend(label for label in entity.labels if label not in known.labels)
    new_keys = {key: names.get(e.name, e.name).casefold() for key, e in ctx.entities.items()}
    ctx.entities = entities
    ctx.order = list(dict.fromkeys(new_keys.get(k, k) for k in ctx.order if new_keys.get(k, k) in entities))
    facts = {}
    for fact in ctx.facts.values():
        subject, obj = names.get(fact.subject, fact.subject), names.get(fact.object, fact.object)
        if subject.casefold() == obj.casefold():
            continue
        text = fact.fact
        for old, new in ((fact.subject, subject), (fact.object, obj)):
            if old != new:
                text = re.sub(rf"\b{re.escape(old)}\b", new, text)
        facts[(subject.casefold(), fact.relation, obj.casefold())] = fact.model_copy(
            update={"subject": subject, "object": obj, "fact": text}
        )
    ctx.facts = facts


def newborn(ctx: Context, content: str) -> int:
    """ "she's here!!! Naledi, born last night" after "we're having a baby": the speaker's (and the other
    parent's) child, named. Only a name no earlier message said, and only when the thread expects a baby."""
    thread = ctx.thread
    if thread is None or thread.expecting is None or not ctx.speaker:
        return 0
    m = _ARRIVED.search(content) or _BORN_NAMED.search(content)
    if m is None:
        return 0
    name = m.group("name")
    if name.casefold() in {n.casefold() for n in thread.names} or name.casefold() in _NEVER | _PERSON_NOUNS:
        return 0
    if ctx.label(name) not in (None, "Person"):
        return 0
    born = [t for t in find_times(content[m.start() :], ctx.reference or _WHENEVER) if t.role in ("at", "since")]
    made = 0
    for parent in (ctx.speaker, *thread.expecting):
        made += ctx.add_fact(Subject(parent, 0.7), "PARENT_OF", (name, "Person"), (born[0] if born else None, None),
                             content, cap=0.7)
    return made


def moved(ctx: Context, content: str) -> int:
    """ "moved in!!" after "moving out of Leith next month": the planned move is done."""
    thread = ctx.thread
    if thread is None or not ctx.speaker:
        return 0
    done = move_done(ctx, content, thread)
    if thread.moving is None or (_MOVED.search(content) is None and MOVED.search(content) is None):
        return done
    out, to = thread.moving
    me = Subject(ctx.speaker, 0.7)
    made = 0
    if out is not None:
        made += ctx.add_fact(me, "NO_LONGER_LIVES_IN", (out, "Location"), (None, None), content, cap=0.7)
    if to is not None:
        made += ctx.add_fact(me, "LIVES_IN", (to, "Location"), (None, None), content, cap=0.7)
    return made + done


def forget_read_text() -> None:
    """Drop the memos of messages read (a forget must not leave their words in this process)."""
    for memo in (_read, _read_alone, _words, _gendered, _tokens):
        memo.cache_clear()
