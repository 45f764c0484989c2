"""More of the generic reading (generic.py): ties said with a copula or a role word rather than a verb.

- "Oficina Madeira Viva is now in Leça": an organisation the conversation knows, and where it is;
- "Karim and I are co-owners" after "X is officially open": the one organisation the message named;
- "she named it Nuage" in a message about a pet: whose pet it is;
- "my biggest client now is Hyundai Glovis": a client (or customer) of the speaker's;
- "I bought a memoQ licence": a tool the speaker pays for.

Each is refused, like the rest of the generic reading, by any word of plan, doubt, hearsay, negation or an end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .context import Context, Subject
from .names import Run
from .vocab import TECH, WORKPLACE_NOUNS

if TYPE_CHECKING:
    from .generic import GenericReader

__all__ = ["read_roles"]

_OWNERS = frozenset("co-owners co-owner owners owner co-founders co-founder cofounders cofounder founders".split())
_PETS = frozenset("cat dog kitten puppy pet rabbit parrot horse hamster tortoise budgie".split())
_CLIENTS = frozenset("client clients customer customers".split())
_PAID = frozenset("licence license subscription seat account plan".split())
_BOUGHT = frozenset("bought got buy purchased pay paid".split())
_IS = frozenset({"is", "'s"})
_SWITCHES = frozenset("moved switched migrated changed".split())


def read_roles(reader: GenericReader) -> int:
    """The facts the copula and role frames give for one sentence."""
    made = _placed(reader) + _co_owners(reader) + _named_pet(reader) + _client(reader) + _licence(reader)
    return made + _switched(reader)


def _switched(reader: GenericReader) -> int:
    """ "the clinic finally moved from VetPraxis to ezyVet": a tool the speaker was said to use, replaced; by the
    speaker or where they work ("the clinic", "our team"). Only from a tool known as the speaker's: a move between
    two other names is a move of house."""
    words, ctx, made = reader.words, reader.ctx, 0
    speaker = ctx.speaker or ""
    used = {f.object.casefold() for f in ctx.facts.values() if f.subject == speaker and f.relation == "USES"}
    if ctx.thread is not None:
        used |= {e.object.casefold() for e in ctx.thread.facts if e.subject == speaker and e.relation == "USES"}
    old: Run | None
    for k, word in enumerate(words[:-4]):
        if word in ("use", "uses", "using") and k > 0 and words[k - 1] in ("they", "we", "i") and (
            (new := reader.at.get(k + 1)) is not None and words[new.last + 1 : new.last + 3] == ["instead", "of"]
            and new.last + 3 < len(words)
        ):  # "they use Sentral instead of compass": the new place's tool, in place of the speaker's
            old = reader.at.get(new.last + 3) or Run(new.last + 3, new.last + 3, reader.tokens[new.last + 3].text)
            if old.name.casefold() in used:
                made += reader._add(Subject(speaker, 0.7), "USES", new, "Product", at=k)
                made += ctx.add_fact(Subject(speaker, 0.7), "NO_LONGER_USES", (_known(old.name, ctx), "Product"),
                                     (None, None), reader.text, cap=0.7)
            continue
        if word not in _SWITCHES or words[k + 1] != "from" or (old := reader.at.get(k + 2)) is None:
            continue
        if old.name.casefold() not in used or old.last + 2 >= len(words) or words[old.last + 1] != "to":
            continue
        new = reader.at.get(old.last + 2) or _brand(reader, old.last + 2)
        head = reader._head(k)
        j = head + (words[head] in ("the", "our", "my"))
        ours = j < k and all(w in WORKPLACE_NOUNS or w in ("whole", "entire", "finally", "just") for w in words[j:k])
        if new is None or not (ours and words[head] in ("the", "our", "my") or any(
            s.name == speaker for s in reader._subject(k)
        )):
            continue
        me = speaker.casefold()  # "i moved from Strava to Runna": no move of house
        ctx.facts.pop((me, "LIVES_IN", new.name.casefold()), None)
        ctx.facts.pop((me, "NO_LONGER_LIVES_IN", old.name.casefold()), None)
        made += reader._add(Subject(speaker, 0.7), "USES", new, "Product", at=k)
        made += ctx.add_fact(Subject(speaker, 0.7), "NO_LONGER_USES", (old.name, "Product"), (None, None), reader.text,
                             cap=0.7)
    return made


def _placed(reader: GenericReader) -> int:
    """ "Oficina Madeira Viva is now in Leça da Palmeira": an organisation known before, and where it is."""
    words, made = reader.words, 0
    for k, word in enumerate(words):
        if word not in _IS or (org := reader.runs_ending(k - 1)) is None or reader._head(k) != reader._start_of(org):
            continue
        j = k + 1 + (k + 1 < len(words) and words[k + 1] == "now")
        if j + 1 >= len(words) or words[j] != "in" or (place := reader.at.get(j + 1)) is None:
            continue
        if reader._label(org.name) != "Organization" or reader._label(place.name) not in (None, "Location"):
            continue
        if reader._closed(place):
            made += reader._add(Subject(org.name, 0.7), "LOCATED_IN", place, "Location", at=k)
    return made


def _co_owners(reader: GenericReader) -> int:
    """ "Karim and I are co-owners": of the one organisation the message named (not "co-owners of X": a table's)."""
    words, ctx, made = reader.words, reader.ctx, 0
    for k, word in enumerate(words):
        if word not in _OWNERS or k + 1 < len(words) and words[k + 1] == "of":
            continue
        if k < 2 or words[k - 1 - (words[k - 1] == "the")] not in ("are", "'re", "am", "'m"):
            continue
        orgs = [e.name for e in ctx.entities.values() if reader._label(e.name) == "Organization"] or [
            e.name for e in ctx.entities.values()  # "Cabinet Dentaire X is officially open": a name of its own
            if reader._label(e.name) is None and " " in e.name and e.name.casefold() != (ctx.speaker or "").casefold()
        ]
        if len(orgs) != 1:
            continue
        org = Run(-1, k, orgs[0])
        owners = list(reader._subject(k))
        head = reader._head(k - 1)
        partner = reader.runs_ending(head - 2) if head > 1 and words[head - 1] == "and" else None
        if partner is not None and words[head] == "i" and reader._person(partner.name):
            owners.append(Subject(partner.name, 0.7))  # "Karim and I are co-owners"
        for owner in owners:
            made += reader._add(owner, "OWNS", org, at=k, own=True)
    return made


def _named_pet(reader: GenericReader) -> int:
    """ "Lina got her cat! a grey kitten, she named it Nuage": the namer's pet."""
    words, made = reader.words, 0
    if _PETS.isdisjoint(w.strip("!.,").lower() for w in reader.ctx.message.split()):
        return 0
    for k, word in enumerate(words[:-2]):
        if word not in ("named", "called") or words[k + 1] not in ("it", "him", "her"):
            continue
        pet = reader.at.get(k + 2)
        if pet is None or not reader._closed(pet):
            continue
        for owner in reader._subject(k):
            made += reader._add(owner, "HAS_PET", pet, "Animal", at=k)
    return made


def _known(name: str, ctx: Context) -> str:
    """``name`` as the conversation wrote it before ("compass": Compass)."""
    known = [n for n in (ctx.thread.names if ctx.thread is not None else {}) if n.casefold() == name.casefold()]
    return known[0] if known else name


def _brand(reader: GenericReader, k: int) -> Run | None:
    """A word spelt as a brand ("ezyVet", "memoQ"), a name though it starts in lower case."""
    said = reader.tokens[k].text if k < len(reader.tokens) else ""
    return Run(k, k, said) if said.isalnum() and not said.islower() and not said[:1].isupper() else None


def _client(reader: GenericReader) -> int:
    """ "my biggest client now is Hyundai Glovis", "our main customer is X": the speaker's client."""
    words, made = reader.words, 0
    for k, word in enumerate(words):
        if word not in _CLIENTS or k + 1 >= len(words):
            continue
        owner = next((j for j in range(k - 1, max(-1, k - 4), -1) if words[j] in ("my", "our")), None)
        j = k + 1 + (words[k + 1] == "now")
        if owner is None or j + 1 >= len(words) or words[j] not in ("is", "are"):
            continue
        client = reader.at.get(j + 1 + (words[j + 1] == "now"))
        if client is not None and reader._closed(client) and reader._label(client.name) != "Location":
            made += reader._add(Subject(reader.ctx.speaker or "", 0.7), "HAS_CLIENT", client, at=k, own=True)
    return made


def _licence(reader: GenericReader) -> int:
    """ "I bought a memoQ licence", "got a Figma subscription": a tool the speaker uses."""
    words, made = reader.words, 0
    for k, word in enumerate(words):
        if word not in _PAID or k < 3 or words[k - 2] not in ("a", "an", "the") or words[k - 3] not in _BOUGHT:
            continue
        tool = reader.runs_ending(k - 1)
        said = reader.tokens[k - 1].text
        if tool is None and said.isalnum() and (not said.islower() or said.lower() in TECH):
            tool = _brand(reader, k - 1) or Run(k - 1, k - 1, said)  # "a memoQ licence": a brand's own spelling
        if tool is None or reader._label(tool.name) in ("Person", "Location"):
            continue
        if any(s.name == reader.ctx.speaker for s in reader._subject(k - 3)):
            made += reader._add(Subject(reader.ctx.speaker or "", 0.7), "USES", Run(tool.first, k, tool.name),
                                "Product", at=k - 3)
    return made
