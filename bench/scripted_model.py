"""An instant scripted model for the ingestion benchmarks.

It answers kronograph's prompts (extraction, entity deduplication, the
contradiction judge, and the on-demand entity and community summaries) the
way a plain language model would for a team chat, from the text of the
prompt alone, with rules instead of a network round trip. That
makes a benchmark measure the framework (its calls, prompt sizes and own time)
rather than a provider, and keeps results comparable with other systems run on
the same workloads (see ``shared/data/workloads/README.md``).

Nothing here knows the names in a workload: entities are runs of capitalised
words, relations come from the words in front of a mention, and the judge and
dedupe answers follow from names and relations, as a model's would.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from kronograph.errors import ModelError
from kronograph.llm.protocol import ModelReply

__all__ = ["ScriptedProvider", "extract", "judge", "dedupe", "same_entity"]

# Capitalised words that start sentences or name times, never entities. A plain
# model leaves these out; the list is common English, not a workload's names.
STOP_WORDS = frozenset(
    """
    A An And Also Anyone Anybody Apparently Are As At Big But By Can Coffee Could Congrats Did Do Does
    Everyone FYI Finally For From Good Great Had Happy Has Have He Hello Her Here Hey Hi His How I I'd I'll I'm
    I've If In Is It It's Its Just Lol Lunch Meanwhile Morning My News No Note Now OK Ok Okay On Our Please
    Quick Reminder Running She Since So Sorry Still Taking Thanks Thank That The Their Then There These They
    This Those Today Tomorrow Tonight Update We We're We've Welcome Well What When Where Which Who Why Will
    With Would Yes Yesterday You Your
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday
    January February March April May June July August September October November December
    """.split()
)
MONTHS = {
    m: i
    for i, m in enumerate(
        "january february march april may june july august september october november december".split(), 1
    )
}

_EPISODE = re.compile(
    r'<current_episode kind="([^"]*)" reference_time="([^"]*)"([^>]*)>\n(.*)\n</current_episode>', re.S
)
# A message's people, on its tag as JSON strings: speaker="Sam" role="user" addressee="Assistant" user="Sam"
_ATTRIBUTE = re.compile(r'\b(speaker|role|addressee|user)=("(?:[^"\\]|\\.)*")')
_YOU = re.compile(r"\b(?:[Yy]ou|[Yy]our)\b")
NOT_ASSERTING = frozenset({"assistant", "system", "tool"})  # what they say is no fact about the world
_SPEAKER = re.compile(r"^([A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,4}):\s+(.*)$", re.S)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_RUN = re.compile(r"[A-Z][\w'&-]*(?: [A-Z][\w'&-]*)*")
_PRONOUN = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|[Ww]e|[Ww]e're|[Ww]e've|[Mm]y|[Oo]ur|[Mm]e|[Uu]s)\b")
_MONTH_NAMES = "|".join(m.capitalize() for m in MONTHS)
_DATE = re.compile(
    r"\b(?:(?:[Oo]n|[Ss]ince|[Ff]rom|[Aa]s of|[Ss]tarting)\s+)?"
    rf"({_MONTH_NAMES})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b"
)
_ISO_DATE = re.compile(r"\b(?:(?:[Oo]n|[Ss]ince|[Ff]rom|[Aa]s of)\s+)?(\d{4})-(\d{2})-(\d{2})\b")
_RELATIVE = re.compile(r"\b(yesterday|today|last week|(\d+|two|three|four|five) (day|week)s? ago)\b", re.I)
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5}
_NEGATED = re.compile(r"\b(?:not|never|will|might|plans? to|planning|hopes? to|wants? to|would|could)\b|n't\b")

# (pattern on the lower-cased words before a mention, relation). The match
# nearest the mention wins, as the verb nearest an object governs it.
_RELATIONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p), r)
    for p, r in [
        (r"\bno longer (?:works?|working) (?:at|for)\b", "LEFT"),
        (r"\b(?:works?|working|worked) (?:at|for)\b", "WORKS_AT"),
        (r"\bjoined\b", "WORKS_AT"),
        (r"\bstarted (?:working |a (?:new )?job )?at\b", "WORKS_AT"),
        (r"\b(?:is|am|are) now at\b", "WORKS_AT"),
        (r"\b(?:hired|employed) (?:at|by)\b", "WORKS_AT"),
        (r"\b(?:lives?|living|lived) in\b", "LIVES_IN"),
        (r"\b(?:moved|relocated|moving|relocating) to\b", "LIVES_IN"),
        (r"\b(?:is|am|are) now (?:based |living )?in\b", "LIVES_IN"),
        (r"\bbased in\b", "LIVES_IN"),
        (r"\b(?:works?|working|worked) on\b", "WORKS_ON"),
        (r"\bswitched (?:over )?to\b", "WORKS_ON"),
        (r"\b(?:is|am|are) now on\b", "WORKS_ON"),
        (r"\b(?:leads?|leading|heads?)\b", "LEADS"),
        (r"\b(?:left|quit|resigned from)\b", "LEFT"),
        (r"\bhad (lunch|coffee|dinner|breakfast|drinks) with\b", "HAD_{}_WITH"),
        (r"\bmet(?: up)? with\b", "MET_WITH"),
        (r"\bopened (?:a |an )?(?:new )?office in\b", "HAS_OFFICE_IN"),
        (r"\bhas (?:a |an )?(?:new )?office in\b", "HAS_OFFICE_IN"),
        (r"\bhiring in\b", "IS_HIRING_IN"),
        (r"\bacquired\b", "ACQUIRED"),
        (r"\bwith\b", "WITH"),  # refined by the sentence: working with, or nothing
    ]
]
_WORK = re.compile(r"\bwork", re.I)

# relation -> (subject label, object label): the types a model guesses from context
_ROLES: dict[str, tuple[str, str]] = {
    "WORKS_AT": ("Person", "Organization"),
    "LEFT": ("Person", "Organization"),
    "LIVES_IN": ("Person", "Location"),
    "WORKS_ON": ("Person", "Project"),
    "LEADS": ("Person", "Project"),
    "MET_WITH": ("Person", "Person"),
    "WORKS_WITH": ("Person", "Person"),
    "HAS_OFFICE_IN": ("Organization", "Location"),
    "IS_HIRING_IN": ("Organization", "Location"),
    "ACQUIRED": ("Organization", "Organization"),
}
EXCLUSIVE = frozenset({"WORKS_AT", "LIVES_IN", "WORKS_ON"})


# --- names --------------------------------------------------------------------------------------------


def _words(name: str) -> list[str]:
    return re.sub(r"'s\b|[.,]", "", name).casefold().split()


def same_entity(a: str, b: str) -> bool:
    """Whether a model would take two names for one entity: equal, one's words
    contained in the other's (``Acme`` ~ ``Acme Robotics``), or an acronym
    (``NYC`` ~ ``New York City``)."""
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return False
    if wa == wb:
        return True
    short, long_ = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    if set(short) <= set(long_) and len(short) < len(long_):
        return True
    raw_short = a.strip() if len(wa) <= len(wb) else b.strip()
    return (
        len(short) == 1
        and len(long_) >= 2
        and raw_short.isupper()
        and short[0] == "".join(w[0] for w in long_)
    )


def _labels_agree(a: list[str], b: list[str]) -> bool:
    fa, fb = {x.casefold() for x in a}, {x.casefold() for x in b}
    return not fa or not fb or bool(fa & fb)


# --- extraction ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Mention:
    name: str
    start: int
    end: int


def _mentions(sentence: str) -> list[_Mention]:
    """Runs of capitalised words, with stop words trimmed from either end."""
    out: list[_Mention] = []
    for m in _RUN.finditer(sentence):
        words = m.group().split(" ")
        start, end = m.start(), m.end()
        while words and words[0] in STOP_WORDS:
            start += len(words.pop(0)) + 1
        while words and words[-1] in STOP_WORDS:
            end -= len(words.pop()) + 1
        if words:
            name = " ".join(words)
            if name.endswith("'s"):
                name = name[:-2]
            out.append(_Mention(name, start, end))
    return out


def _relation(segment: str, sentence: str) -> tuple[str, str] | None:
    """The relation the words before a mention choose, and those words."""
    text = segment.lower()
    best: tuple[int, int, str, str] | None = None
    for pattern, relation in _RELATIONS:
        for m in pattern.finditer(text):
            key = (m.end(), m.end() - m.start())
            if best is None or key > best[:2]:
                name = relation.format(m.group(1).upper()) if "{}" in relation else relation
                best = (*key, name, m.group())
    if best is None:
        return None
    relation, words = best[2], best[3]
    if _NEGATED.search(text[: best[0]]) and relation != "LEFT":
        return None
    if relation == "WITH":
        if not _WORK.search(sentence):
            return None
        relation = "WORKS_WITH"
    return relation, words


def _date(sentence: str, reference: datetime) -> tuple[str, str] | None:
    """An explicit (or plainly relative) date in the sentence: ISO text and the words."""
    m = _DATE.search(sentence)
    if m:
        month, day, year = MONTHS[m.group(1).lower()], int(m.group(2)), int(m.group(3))
        try:
            return datetime(year, month, day, tzinfo=UTC).isoformat(), m.group().strip()
        except ValueError:
            return None
    m = _ISO_DATE.search(sentence)
    if m:
        try:
            when = datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), tzinfo=UTC)
        except ValueError:
            return None
        return when.isoformat(), m.group().strip()
    m = _RELATIVE.search(sentence)
    if m:
        words = m.group().lower()
        day = reference.replace(hour=0, minute=0, second=0, microsecond=0)
        if words == "yesterday":
            day -= timedelta(days=1)
        elif words == "last week":
            day -= timedelta(weeks=1)
        elif words != "today":
            n = int(m.group(2)) if m.group(2).isdigit() else _NUMBERS[m.group(2).lower()]
            day -= timedelta(weeks=n) if m.group(3).lower() == "week" else timedelta(days=n)
        return day.isoformat(), m.group()
    return None


def _parse_episode(user: str) -> tuple[str, datetime, str, dict[str, str]]:
    m = _EPISODE.search(user)
    if m is None:
        raise ModelError("scripted model: no <current_episode> block in the extraction prompt")
    kind, ref, attributes, content = m.groups()
    reference = datetime.fromisoformat(ref.replace("Z", "+00:00"))
    if reference.tzinfo is None:
        reference = reference.replace(tzinfo=UTC)
    people = {name: json.loads(value) for name, value in _ATTRIBUTE.findall(attributes)}
    return kind, reference, content, people


def extract(user: str) -> dict[str, Any]:
    """The Extraction a plain model gives for the episode in an extraction prompt.
    A message's tag may name its speaker, role, addressee and the group's user:
    "I" is the speaker, "you" the addressee, and an assistant's (or system's,
    or tool's) words state no fact, as the prompt asks."""
    kind, reference, content, people = _parse_episode(user)
    speaker: str | None = people.get("speaker")
    addressee = people.get("addressee")
    text = content
    if kind == "message":
        m = _SPEAKER.match(content.strip())
        if m and (speaker is None or m.group(1).casefold() == speaker.casefold()):
            speaker, text = m.group(1), m.group(2)
    if people.get("role", "").casefold() in NOT_ASSERTING:
        names = [n for n in (speaker, addressee) if n]
        return {"reasoning": f"Said by the {people['role']}: suggestions and echoes, no new fact.",
                "entities": [{"name": n, "labels": ["Person"]} for n in names], "facts": []}
    labels: dict[str, list[str]] = {}
    order: list[str] = []

    def note(name: str, label: str | None) -> str:
        key = name.casefold()
        if key not in labels:
            labels[key] = []
            order.append(name)
        if label and label not in labels[key] and not labels[key]:
            labels[key].append(label)
        return name

    if speaker:
        note(speaker, "Person")
    facts: list[dict[str, Any]] = []
    for sentence in _SENTENCE.split(text.strip()):
        mentions = _mentions(sentence)
        for mention in mentions:
            note(mention.name, "Project" if mention.name.startswith("Project ") else None)
        if not mentions or sentence.rstrip().endswith("?"):
            continue
        pronoun = _PRONOUN.search(sentence)
        you = _YOU.search(sentence)
        if speaker and pronoun and pronoun.start() < mentions[0].start:
            subject, cursor, objects = speaker, pronoun.end(), mentions
        elif addressee and you and you.start() < mentions[0].start:
            subject, cursor, objects = addressee, you.end(), mentions
        else:
            subject, cursor, objects = mentions[0].name, mentions[0].end, mentions[1:]
        when = _date(sentence, reference)
        for obj in objects:
            segment, cursor = sentence[cursor : obj.start], obj.end
            if obj.name.casefold() == subject.casefold():
                continue
            found = _relation(segment, sentence)
            if found is None:
                if re.search(r"\bin\s*$", segment):
                    note(obj.name, "Location")
                continue
            relation, words = found
            if relation in ("WORKS_AT", "LIVES_IN") and obj.name.startswith("Project "):
                relation = "WORKS_ON"
            subject_label, object_label = _ROLES.get(relation, ("Person", "Person"))
            note(subject, subject_label)
            note(obj.name, object_label)
            facts.append(
                {
                    "subject": subject,
                    "relation": relation,
                    "object": obj.name,
                    "fact": f"{subject} {words} {obj.name}.",
                    "valid_at": when[0] if when else None,
                    "invalid_at": None,
                    "time_expression": when[1] if when else None,
                }
            )
    entities = [{"name": n, "labels": labels[n.casefold()]} for n in order]
    reasoning = (
        f"Speaker {speaker or 'none'}; mentions {', '.join(order) or 'none'}; "
        f"{len(facts)} fact(s) stated{' with explicit dates' if any(f['valid_at'] for f in facts) else ''}."
    )
    return {"reasoning": reasoning, "entities": entities, "facts": facts}


# --- judge and dedupe ---------------------------------------------------------------------------------


def _fold(relation: str) -> str:
    return re.sub(r"[^0-9a-z]", "", relation.casefold())


def _when(value: str | None) -> datetime | None:
    if not value:
        return None
    when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _overlap(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    a0, a1 = _when(a.get("valid_from")), _when(a.get("valid_to"))
    b0, b1 = _when(b.get("valid_from")), _when(b.get("valid_to"))
    if a0 is None or b0 is None:
        return True
    return (a1 is None or b0 < a1) and (b1 is None or a0 < b1)


def _verdict(new: Mapping[str, Any]) -> dict[str, Any]:
    contradicts: list[str] = []
    duplicate: str | None = None
    rel = _fold(new["relation"])
    for old in new.get("candidates", []):
        if _words(old["subject"]) != _words(new["subject"]):
            continue
        old_rel, same_object = _fold(old["relation"]), same_entity(new["object"], old["object"])
        if old_rel == rel and same_object:
            ended = _when(old.get("valid_to"))
            start = _when(new.get("valid_from"))
            if duplicate is None and not (ended and start and ended <= start):
                duplicate = old["id"]
        elif old_rel == rel and rel in {_fold(r) for r in EXCLUSIVE} and _overlap(new, old):
            contradicts.append(old["id"])
        elif rel == "left" and old_rel == "worksat" and same_object and _overlap(new, old):
            start, old_start = _when(new.get("valid_from")), _when(old.get("valid_from"))
            if start is None or old_start is None or old_start <= start:
                contradicts.append(old["id"])
    return {"new_fact": new["id"], "contradicts": contradicts, "duplicate_of": duplicate}


def judge(user: str) -> dict[str, Any]:
    """The JudgeAnswer a plain model gives: exclusive relations (works at, lives
    in, works on) with a different object contradict, ``LEFT X`` ends ``WORKS_AT X``,
    the same triple restates."""
    rows = json.loads(user)["new_facts"]
    verdicts = [_verdict(row) for row in rows]
    changed = sum(1 for v in verdicts if v["contradicts"])
    dup = sum(1 for v in verdicts if v["duplicate_of"])
    return {"reasoning": f"{changed} new fact(s) replace older ones; {dup} restate one.", "verdicts": verdicts}


def dedupe(user: str) -> dict[str, Any]:
    """The DedupeAnswer a plain model gives: the first candidate whose name or an
    alias is the same entity by name, with agreeing labels; else null."""
    matches: list[dict[str, Any]] = []
    for mention in json.loads(user)["mentions"]:
        chosen: str | None = None
        name, labels = mention["name"], mention.get("labels", [])
        cands = [c for c in mention.get("candidates", []) if _labels_agree(labels, c.get("labels", []))]
        for exact in (True, False):  # an equal name first, then a looser match
            for cand in cands:
                names = [cand["name"], *cand.get("aliases", [])]
                if any(_words(n) == _words(name) if exact else same_entity(n, name) for n in names):
                    chosen = cand["id"]
                    break
            if chosen:
                break
        matches.append({"mention": mention["id"], "entity": chosen})
    found = sum(1 for m in matches if m["entity"])
    return {"reasoning": f"{found} of {len(matches)} mention(s) name a known entity.", "matches": matches}


def _rows(user: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in user.splitlines() if line.startswith("{")]


def summarize(user: str) -> dict[str, Any]:
    """The SummaryAnswer a plain model gives: each entity's first two facts."""
    rows = _rows(user)
    out = [{"id": r["id"], "summary": " ".join(r["facts"][:2]) or r["name"]} for r in rows]
    return {"reasoning": f"{len(rows)} entities.", "summaries": out}


def summarize_communities(user: str) -> dict[str, Any]:
    """The CommunitySummaryAnswer a plain model gives: who, then two facts."""
    rows = _rows(user)
    out = [
        {"id": r["id"], "summary": f"{', '.join(r['members'][:3])}: " + " ".join(r["facts"][:2])} for r in rows
    ]
    return {"reasoning": f"{len(rows)} communities.", "summaries": out}


# --- the provider -------------------------------------------------------------------------------------

_ANSWER = {
    "Extraction": extract, "JudgeAnswer": judge, "DedupeAnswer": dedupe, "SummaryAnswer": summarize,
    "CommunitySummaryAnswer": summarize_communities,
}


class ScriptedProvider:
    """A :class:`~kronograph.llm.protocol.Provider` that answers at once, from rules.

    ``calls`` and ``prompt_chars`` count by ``schema_name``; ``seconds`` is the
    time spent inside :meth:`complete`, which a benchmark subtracts to get the
    framework's own time (``cpu_seconds``: the process CPU time spent there).
    Token counts are the usual chars/4 estimate.
    """

    name = "scripted"
    model = "scripted-workload"
    small_model: str | None = None
    native_schema = True

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.prompt_chars: Counter[str] = Counter()
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    async def complete(
        self,
        *,
        system: str,
        user: str,
        schema: Mapping[str, Any] | None,
        schema_name: str,
        small: bool = False,
    ) -> ModelReply:
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            answer = _ANSWER.get(schema_name)
            if answer is None:
                raise ModelError(f"scripted model: no script for schema {schema_name!r}")
            try:
                text = json.dumps(answer(user), ensure_ascii=False)
            except (KeyError, TypeError, ValueError) as exc:
                raise ModelError(f"scripted model: cannot read the {schema_name} prompt: {exc!r}") from exc
            chars = len(system) + len(user)
            self.calls[schema_name] += 1
            self.prompt_chars[schema_name] += chars
            return ModelReply(text=text, prompt_tokens=chars // 4, completion_tokens=len(text) // 4, model=self.model)
        finally:
            self.seconds += time.perf_counter() - t0
            self.cpu_seconds += time.process_time() - c0
