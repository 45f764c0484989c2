"""Health read by the generic reading (generic.py): a diagnosis and the medicine taken for it.

- "I was diagnosed with type 2 diabetes", "Kotaro has been diagnosed with atopic dermatitis", "health: diagnosed
  w/ a herniated disc": whoever was diagnosed HAS_CONDITION the words after "with", up to the clause's end (four
  words at most), not from a doubt or a negation ("might have been diagnosed", "was not diagnosed with").
- "the doctor put me on amlodipine", "started me on metformin", "I'm on sertraline now", "on metformin 500",
  "the vet prescribed Apoquel" (after a diagnosis in the same message: that one's): TAKES; a medicine is a name
  the doctor prescribed, or a word with a drug's ending (-pril, -olol, -statin, -dipine, -formin ...).
- "took me off the lisinopril", "I stopped taking X", "came off X": NO_LONGER_TAKES.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .clauses import NEGATION
from .context import Subject

if TYPE_CHECKING:
    from .generic import GenericReader

__all__ = ["read_health"]

_DRUG_ENDINGS = (
    "pril", "olol", "statin", "dipine", "formin", "sartan", "prazole", "oxetine", "talopram", "azepam", "cillin",
    "mycin", "cycline", "tidine", "triptan", "lukast", "gliptin", "gliflozin", "xaban", "thyroxine", "nisolone",
    "nisone", "profen", "tamol", "triptyline", "pramine", "zodone", "tiapine", "peridone", "lamide", "thiazide",
    "traline",
)
_DRUGS = frozenset("insulin aspirin warfarin paracetamol acetaminophen ibuprofen methotrexate lithium".split())
_STOP = frozenset(", . ! ; : ? and but so because since in at on last this yesterday after when which ( -".split())
_DOUBT = NEGATION | frozenset("might may could maybe if whether suspect suspected possible possibly probably".split())
_PUT = frozenset({"put", "started", "switched", "moved"})


def _drug(word: str) -> bool:
    return word.isalpha() and (word in _DRUGS or len(word) > 6 and word.endswith(_DRUG_ENDINGS))


def read_health(reader: GenericReader) -> int:
    """The diagnoses and medicines of one sentence; how many facts."""
    words, made = reader.words, 0
    if not _DOUBT.isdisjoint(words) or "?" in words:
        return 0
    for k, word in enumerate(words):
        if word == "diagnosed" and k + 1 < len(words) and words[k + 1] in ("with", "w/"):
            made += _diagnosed(reader, k, k + 2)
        elif word == "diagnosed" and words[k + 1 : k + 3] == ["w", "/"]:  # "diagnosed w/ type 2 diabetes"
            made += _diagnosed(reader, k, k + 3)
        elif word in _PUT and words[k + 1 : k + 3] in (["me", "on"], ["him", "on"], ["her", "on"]):
            made += _takes(reader, k + 3, _whose(reader, words[k + 1], k))
        elif word == "on" and _drug(words[k + 1] if k + 1 < len(words) else "") and (
            k == 0 or words[k - 1] in ("'m", "am", "still", "now", ".", ":", ",")
        ):
            made += _takes(reader, k + 1, [Subject(reader.ctx.speaker or "", 0.7)])  # "I'm on sertraline"
        elif word == "prescribed" and k + 1 < len(words):
            made += _prescribed(reader, k)
        elif word == "off" and k >= 2 and words[k - 1] in ("me", "him", "her") and words[k - 2] in ("took", "taken"):
            made += _takes(reader, k + 1, _whose(reader, words[k - 1], k), "NO_LONGER_TAKES")
    return made


def _diagnosed(reader: GenericReader, k: int, at: int) -> int:
    words = reader.words
    end = at
    while end < len(words) and end - at < 5 and words[end] not in _STOP:
        end += 1
    first = at + (at < end and words[at] in ("a", "an", "mild", "early"))
    if end == first or end - first > 4 or not all(w.replace("'", "").isalnum() for w in words[first:end]):
        return 0
    condition = reader.text[reader.tokens[first].start : reader.tokens[end - 1].end]  # "Parkinson's", one word
    who = reader._subject(k)
    if not who and (k == 0 or words[k - 1] in (":", ".")):
        who = [Subject(reader.ctx.speaker or "", 0.7)]  # "health: diagnosed w/ type 2 diabetes"
    made = 0
    for one in who:
        made += reader.ctx.add_fact(one, "HAS_CONDITION", (condition, "Condition"), (None, None), reader.text, cap=0.7)
    return made


def _whose(reader: GenericReader, word: str, k: int) -> list[Subject]:
    if word == "me":
        return [Subject(reader.ctx.speaker or "", 0.7)]
    return reader._pronoun(word.replace("him", "he").replace("her", "she"), k)


def _takes(reader: GenericReader, at: int, who: list[Subject], relation: str = "TAKES") -> int:
    words = reader.words
    at += at < len(words) and words[at] in ("the", "my", "his", "her")
    if at >= len(words) or not _drug(words[at]):
        return 0
    drug = reader.tokens[at].text
    return sum(reader.ctx.add_fact(one, relation, (drug, "Medication"), (None, None), reader.text, cap=0.7)
               for one in who)


def _prescribed(reader: GenericReader, k: int) -> int:
    """ "the vet prescribed Apoquel", "prescribed me amlodipine": the one diagnosed in this message, or "me"."""
    words, tokens = reader.words, reader.tokens
    at = k + 1
    who: list[Subject] = []
    if words[at] == "me":
        who, at = [Subject(reader.ctx.speaker or "", 0.7)], at + 1
    else:
        diagnosed = {f.subject for f in reader.ctx.facts.values() if f.relation == "HAS_CONDITION"}
        if len(diagnosed) == 1:
            who = [Subject(diagnosed.pop(), 0.7)]
    if not who or at >= len(words):
        return 0
    run = reader.at.get(at)
    if run is not None and run.first == run.last and (run.last + 1 >= len(words) or words[run.last + 1] in _STOP):
        return sum(reader.ctx.add_fact(one, "TAKES", (run.name, "Medication"), (None, None), reader.text, cap=0.7)
                   for one in who)
    return _takes(reader, at, who) if tokens[at].text.islower() else 0
