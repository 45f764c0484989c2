"""Reading one sentence: its pattern matches turned into facts.

Matches are tried left to right, longest first; a match whose subject or
object cannot be read is dropped and the next one tried. Dates are given to
clauses afterwards, once every clause's extent is known: a date belongs to
the clause it sits in, or, when the clause has none, to the words that head
the sentence ("Last March, I joined ...").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..schema import ExtractedEntity, ExtractedFact
from .clauses import CLAUSE_BREAK, PRONOUNS, read_gap, read_objects
from .dates import TimeMention
from .names import Run, Token, name_label
from .patterns import PATTERNS, Pattern, phrase, title_at_ok, title_relation

__all__ = ["Context", "SentenceReader", "Subject"]

_ANYMORE = frozenset({"anymore", "nowadays"})


@dataclass(slots=True)
class Context:
    """What one episode has said so far: its speaker, its entities, its facts."""

    speaker: str | None
    entities: dict[str, ExtractedEntity] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # keys in mention order, for pronouns
    facts: dict[tuple[str, str, str], ExtractedFact] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    not_understood: int = 0

    def mention(self, name: str, label: str | None) -> None:
        key = name.casefold()
        entity = self.entities.get(key)
        if entity is None:
            self.entities[key] = ExtractedEntity(name=name, labels=[label] if label else [])
        elif label and not entity.labels:
            entity.labels.append(label)
        if key in self.order:
            self.order.remove(key)
        self.order.append(key)

    def label(self, name: str) -> str | None:
        entity = self.entities.get(name.casefold())
        return entity.labels[0] if entity and entity.labels else None


@dataclass(slots=True)
class Subject:
    name: str
    confidence: float


class SentenceReader:
    """One sentence's pattern matches turned into facts."""

    def __init__(
        self,
        text: str,
        tokens: list[Token],
        runs_at: dict[int, Run],
        runs_end: dict[int, Run],
        times: list[TimeMention],
        ctx: Context,
    ) -> None:
        self.text, self.tokens, self.runs_at, self.runs_end = text, tokens, runs_at, runs_end
        self.times, self.ctx = times, ctx
        self.index = {t.start: i for i, t in enumerate(tokens)}
        self.consumed = -1  # tokens up to here belong to an earlier clause's object
        self.previous: list[Subject] = []
        self.candidates = 0

    def read(self) -> int:
        words = {t.lower for t in self.tokens}
        matches: list[tuple[int, int, Pattern, re.Match[str]]] = []
        for pattern in PATTERNS:
            if pattern.keys.isdisjoint(words):
                continue
            for m in pattern.regex.finditer(self.text):
                if m.start() in self.index:
                    matches.append((m.start(), -m.end(), pattern, m))
        matches.sort(key=lambda item: (item[0], item[1]))
        self.candidates = len(matches)
        pending: list[tuple[list[Subject], Pattern, re.Match[str], list[tuple[str, str | None]], int, int]] = []
        used_until = -1
        for start, _, pattern, m in matches:
            if start < used_until:
                continue
            built = self._clause(pattern, m)
            if built is not None:
                subjects, objects, clause_start, flags = built
                pending.append((subjects, pattern, m, objects, clause_start, flags))
                used_until = m.end()
        made = 0
        verbs = [start for start, *_ in matches]
        for n, (subjects, pattern, m, objects, clause_start, flags) in enumerate(pending):
            clause_end = pending[n + 1][4] if n + 1 < len(pending) else len(self.text)
            clause_end = min([clause_end] + [v for v in verbs if v >= m.end()])  # a verb not understood ends it too
            head = pending[0][4]
            made += self._emit(subjects, pattern, m, objects, (clause_start, clause_end, head), flags)
        return made

    def _clause(
        self, pattern: Pattern, m: re.Match[str]
    ) -> tuple[list[Subject], list[tuple[str, str | None]], int, int] | None:
        if "title" in m.re.groupindex:
            title = m.group("title")
            if not (title_relation(title) if not pattern.relation else title_at_ok(title)):
                return None  # "is proud of", "is a big fan of": no title
        verb_at = self.index[m.start()]
        gap = read_gap(self.tokens, verb_at)
        if gap is None or gap.negated and not _anymore(self.tokens, verb_at) or gap.hedged:
            return None
        closing = gap.closing or gap.negated
        if closing and not pattern.closes:
            return None
        subjects, clause_start = self._subjects(gap.subject_at, gap.has_comma and not gap.relative, m.start())
        if not subjects:
            return None
        end_at = self.index.get(m.end() + 1, self.index.get(m.end()))
        objects = read_objects(self.text, self.tokens, self.runs_at, end_at, pattern.loose_object) if end_at else []
        if not objects:
            if not (pattern.pair and len(subjects) == 2):
                return None
            pair = subjects[1]
            subjects = subjects[:1]
            objs: list[tuple[str, str | None]] = [(pair.name, "Person")]
        else:
            objs = [(o.name, o.label) for o in objects]
            self.consumed = max(self.consumed, objects[-1].last)
        self.previous = subjects
        if pattern.relation:  # label now, so that a pronoun later in the sentence can find them
            for subject in subjects:
                self.ctx.mention(
                    subject.name, name_label(subject.name) or self.ctx.label(subject.name) or pattern.subject_label
                )
            for name, label in objs:
                self.ctx.mention(name, name_label(name) or label or self.ctx.label(name) or pattern.object_label)
        flags = (1 if closing else 0) | (2 if gap.future else 0) | (4 if gap.perfect else 0)
        return subjects, objs, clause_start, flags

    def _subjects(self, at: int, comma: bool, verb_start: int) -> tuple[list[Subject], int]:
        """The subjects before a gap ending at token ``at``, and where the clause starts."""
        if at < 0 or self.tokens[at].lower in CLAUSE_BREAK:
            if at >= 0 and self.previous:
                return list(self.previous), self.tokens[at].end
            if at < 0 and self.ctx.speaker:
                return [Subject(self.ctx.speaker, 0.6)], 0  # "Had dinner with Marco": a chat message's speaker
            return [], 0
        found: list[Subject] = []
        k = at
        while True:
            subject, first = self._one_subject(k)
            if subject is None:
                return ([], 0) if not found else (found, self.tokens[k + 1].start)
            found.insert(0, subject)
            k = first - 1
            if comma and (k < 0 or self.tokens[k].lower != ","):
                return [], 0  # "Paris, like Berlin": a comma only around an appositive name
            comma = False
            joiner = self.tokens[k].lower if k >= 1 else ""
            if (joiner == "and" or (joiner == "," and len(found) > 1)) and k - 1 > self.consumed:
                k -= 1  # "Aylin and I", "Tom, Ana and I"; but not "In Madrid, Javier"
                continue
            return found, self.tokens[first].start

    def _one_subject(self, k: int) -> tuple[Subject | None, int]:
        token = self.tokens[k]
        if token.lower in PRONOUNS:
            return self._pronoun(token.lower, k), k
        run = self.runs_end.get(k)
        if run is None or k <= self.consumed:
            return None, k
        return Subject(run.name, 0.9), run.first

    def _pronoun(self, word: str, k: int) -> Subject | None:
        ctx = self.ctx
        if word in ("i", "we"):
            return Subject(ctx.speaker, 0.9) if ctx.speaker else None
        before = [key for key in ctx.order if ctx.entities[key].name != ctx.speaker]
        people = [key for key in before if ctx.label(ctx.entities[key].name) == "Person"]
        orgs = [key for key in before if ctx.label(ctx.entities[key].name) == "Organization"]
        if word in ("he", "she") or (word == "they" and people):
            chosen = people
        else:
            chosen = orgs
        return Subject(ctx.entities[chosen[0]].name, 0.7) if len(chosen) == 1 else None

    def _emit(
        self,
        subjects: list[Subject],
        pattern: Pattern,
        m: re.Match[str],
        objects: list[tuple[str, str | None]],
        span: tuple[int, int, int],
        flags: int,
    ) -> int:
        relation, s_label, o_label = pattern.relation, pattern.subject_label, pattern.object_label
        if not relation:
            titled = title_relation(m.group("title"))
            if titled is None:
                return 0
            relation, s_label, o_label = titled
        elif "title" in m.re.groupindex and not title_at_ok(m.group("title")):
            return 0
        if "{meal}" in relation:
            meal = m.group("meal").upper().replace("DRINK", "DRINKS").replace("DRINKSS", "DRINKS")
            relation = relation.format(meal=meal)
        dates = _pick_dates(self.times, span)
        kind = "state" if pattern.kind == "past" and flags & 4 else pattern.kind
        valid, invalid = dates.get("since") or dates.get("at"), dates.get("until")
        past = False
        if flags & 1:
            relation, invalid, kind = "LEFT", None, "event"
        elif kind == "past":
            if invalid is None:
                return 0
            if valid is None and pattern.closes:
                relation, valid, invalid = "LEFT", invalid, None
            past = invalid is not None
        elif kind == "event":
            invalid = None
        made = 0
        for subject in subjects:
            subject_label = name_label(subject.name) or self.ctx.label(subject.name) or s_label
            rel = pattern.org_relation if pattern.org_relation and subject_label == "Organization" else relation
            self.ctx.mention(subject.name, subject_label)
            for name, label in objects:
                if name.casefold() == subject.name.casefold():
                    continue
                object_label = name_label(name) or label or (o_label if rel != "LEFT" else None)
                self.ctx.mention(name, object_label)
                known = self.ctx.label(name) is not None
                confidence = min(subject.confidence, 0.75 if flags & 2 else 0.9, 0.9 if known else 0.8)
                key = (subject.name.casefold(), rel, name.casefold())
                if key in self.ctx.facts:
                    continue
                used = [t for t in (valid, invalid) if t is not None]
                self.ctx.facts[key] = ExtractedFact(
                    subject=subject.name,
                    relation=rel,
                    object=name,
                    fact=f"{subject.name} {phrase(rel, past)} {name}",
                    valid_at=valid.when.isoformat() if valid else None,
                    invalid_at=invalid.when.isoformat() if invalid else None,
                    time_expression=_expression(self.text, used),
                    confidence=round(confidence, 2),
                )
                made += 1
        return made


def _anymore(tokens: list[Token], verb_at: int) -> bool:
    """ "doesn't work at Acme anymore": a negation that closes, not one that denies."""
    return any(t.lower in _ANYMORE or t.lower == "longer" for t in tokens[verb_at:])


def _pick_dates(times: list[TimeMention], span: tuple[int, int, int]) -> dict[str, TimeMention]:
    """The dates of a clause: those inside it, else those heading the sentence."""
    start, end, head = span
    inside = [t for t in times if start <= t.start < end]
    chosen = inside or [t for t in times if t.start < head]
    picked: dict[str, TimeMention] = {}
    for t in chosen:
        if t.role != "other":
            picked.setdefault(t.role, t)
    return picked


def _expression(text: str, used: list[TimeMention]) -> str | None:
    if not used:
        return None
    if len(used) == 2 and used[1].start - used[0].end <= 2:
        return text[used[0].start : used[1].end]
    return " ... ".join(t.text for t in used)
