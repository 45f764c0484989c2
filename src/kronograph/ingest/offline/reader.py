"""Reading one sentence: its pattern matches turned into facts.

Matches are tried left to right, longest first; a match whose subject or
object cannot be read is dropped and the next one tried. Dates are given to
clauses afterwards, once every clause's extent is known: a date belongs to
the clause it sits in, or, when the clause has none, to the words that head
the sentence ("Last March, I joined ..."). Plans are not facts: a clause
with will / going to, a present form of a start ("joins", "is moving to"),
or a start dated after the reference time with a verb not in the past tense
yields nothing. Nor does what follows someone else's "says" or "told":
hearsay. A clause that ends a standing state ("no longer", "not ...
anymore", "used to", "stopped") gives the pattern's ending relation.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .chat_patterns import CHAT_PATTERNS
from .clauses import CLAUSE_BREAK, PRONOUNS, Found, Obj, Want, read_gap, read_objects, stated
from .context import Context, Subject
from .dates import TimeMention, clause_dates
from .kin import KIN, of_gender
from .lowercase import lower_name
from .names import Run, Token, known_city, name_label
from .patterns import PATTERNS, PERSON_TITLES, Pattern, title_at_ok, title_relation
from .thread import thread_person
from .trade_patterns import TRADE_PATTERNS
from .vocab import TECH, TECH_NOUNS, WORKPLACE_NOUNS, is_job

_CAMEL = re.compile(r"(?!Mc|Mac)[A-Za-z]*[a-z][A-Z]")  # "AutoCAD", "ezyVet": a product's spelling
__all__ = ["SentenceReader"]

_ANYMORE = frozenset({"anymore", "nowadays"})
_NOW_WORDS = frozenset({"now", "currently", "rn", "atm"})  # "I'm at Helix Labs atm"
_STREETS = frozenset("street st road rd avenue lane square park hill close drive way place gardens terrace".split())
# the present forms of a start: "Tom joins Acme on Monday", "I'm moving to Rome" announce a plan
_SCHEDULED = frozenset(
    "start starts starting join joins joining rejoin rejoins rejoining move moves moving relocate relocates "
    "relocating".split()
)
_PAST = frozenset("left met had got bought was were became led quit".split())
_APPOSITIVE = frozenset("the a an our their its his her my".split())
_FRONTING = frozenset("after before in at on since during following when while like unlike as with".split())
_CLOSE = frozenset({",", ".", "!", ";"})
_ALL_PATTERNS = PATTERNS + CHAT_PATTERNS + TRADE_PATTERNS
_BY_KEY: dict[str, list[int]] = {}  # a word: the patterns a sentence holding it may match
for _n, _pattern in enumerate(_ALL_PATTERNS):
    for _key in _pattern.keys:
        _BY_KEY.setdefault(_key, []).append(_n)
_STARTED = frozenset("started start began begun joined".split())
_THEIRS = frozenset({"his", "her", "their", "my", "our"})
_SOMEONE_ELSES = frozenset({"'s", "his", "her", "their", "your", "its"})
_LOWER_SUBJECT_AFTER = frozenset({",", ":", "also", "and", "but", "so", "then", "!", "."})
_NOT_SUBJECTS = PRONOUNS | frozenset(
    """
    you me us them this that these those there here what who which everyone everybody someone somebody nobody
    anyone anybody everything something nothing anything all both each either neither one none it's
    """.split()
)
_NOT_HEADLESS = frozenset("the a an my our his her their your this that these those it there".split())
# what someone else says is hearsay: "my friend says Tom quit", "Ana told me she moved"
_REPORTING = frozenset("says said told tells claims claimed mentioned reckons thinks thought heard hears".split())
_FIRST_PERSON = frozenset({"i", "we"})
_ORG_KINDS = frozenset(
    "firm company startup agency business bank charity nonprofit school university college hospital clinic practice "
    "restaurant shop store brewery bakery cafe studio lab fintech saas consultancy".split()
)
# "our backend runs on X": the speaker's own system


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
        self.jobs: set[str] = set()  # the employers the speaker named earlier in this sentence
        self.candidates = 0
        self.head_from = 0  # where the dates that head the sentence may start: after any ", she ..." before it

    def read(self) -> int:
        words = {t.lower for t in self.tokens}
        matches: list[tuple[int, int, Pattern, re.Match[str]]] = []
        hearsay = self._hearsay()
        for n in sorted({n for word in words for n in _BY_KEY.get(word, ())}):  # in the table's order
            pattern = _ALL_PATTERNS[n]
            for m in pattern.regex.finditer(self.text):
                if m.start() in self.index and m.start() < hearsay:
                    matches.append((m.start(), -m.end(), pattern, m))
        matches.sort(key=lambda item: (item[0], item[1]))
        self.candidates = len(matches)
        pending: list[tuple[list[Subject], Pattern, re.Match[str], list[Found], int, int]] = []
        used_until = -1
        for start, _, pattern, m in matches:
            if start < used_until:
                continue
            pattern = _tool_move(pattern, m)
            built = self._clause(pattern, m)
            if built is not None:
                subjects, objects, clause_start, flags = built
                pending.append((subjects, pattern, m, objects, clause_start, flags))
                if pattern.relation in ("WORKS_AT", "") and [s.name for s in subjects] == [self.ctx.speaker]:
                    self.jobs |= {name for name, _, own in objects if not own}  # "", a title: "cofounder of X"
                used_until = m.end()
        made = 0
        breaks = self._new_clauses()
        verbs = [start for start, *_ in matches] + breaks
        for n, (subjects, pattern, m, objects, clause_start, flags) in enumerate(pending):
            clause_end = pending[n + 1][4] if n + 1 < len(pending) else len(self.text)
            clause_end = min([clause_end] + [v for v in verbs if v >= m.end()])  # a verb not understood ends it too
            head = pending[0][4]
            self.head_from = max([b for b in breaks if b < head], default=0)
            made += self._emit(subjects, pattern, m, objects, (clause_start, clause_end, head), flags)
        return made

    def _clause(self, pattern: Pattern, m: re.Match[str]) -> tuple[list[Subject], list[Found], int, int] | None:
        if "title" in m.re.groupindex:
            title = m.group("title")
            if not (title_relation(title) if not pattern.relation else title_at_ok(title)):
                return None  # "is proud of", "is a big fan of": no title
            if pattern.title_words and not is_job(title.split()[-1].lower().split("-")[-1], pattern.title_words):
                return None  # "a big believer in Agile": no job
        verb_at = self.index[m.start()]
        if pattern.appositive:
            last = m.group("title").split()[-1].lower()
            if not (pattern.title_words or m.group("det")) and last not in PERSON_TITLES:
                return None  # ", cofounder of X" needs no article; ", part of X" is no title
            return self._appositive(m, verb_at, bool(pattern.relation))
        if pattern.speakers:
            return self._speakers(pattern, m)
        gap = read_gap(self.tokens, verb_at)
        if gap is None or gap.negated and not _anymore(self.tokens, verb_at) or gap.hedged or gap.future:
            return None  # "will join", "is going to move": a plan, not a fact yet
        if m.group(0).split()[0].lower() in _SCHEDULED and "did" not in gap.words:
            return None
        closing = gap.closing or gap.negated or pattern.only_closing
        if pattern.only_closing and not _anymore(self.tokens, verb_at):
            return None  # "I'm not at Acme" alone: a denial, not an ending
        if pattern.needs_now and _NOW_WORDS.isdisjoint(t.lower for t in self.tokens[verb_at : verb_at + 8]):
            return None  # "I'm at Acme" may be a visit; "I'm at Acme now" is where one works
        if closing and not pattern.closes:
            return None
        behind = self._behind_appositive(gap.subject_at) if gap.has_comma and not gap.relative else None
        subjects, clause_start = behind or self._subjects(gap.subject_at, gap.has_comma and not gap.relative)
        if not subjects and pattern.tech_subject:
            subjects, clause_start = self._our_system(gap.subject_at)
        if not subjects and gap.words == [","] and self.previous:
            subjects, clause_start = list(self.previous), self.tokens[verb_at - 1].end  # "..., switched to X"
        if pattern.org_only and any(self.ctx.label(s.name) != "Organization" for s in subjects):
            return None  # "Tom is in Paris": a visit, maybe; "Acme is in Paris": where it is
        if pattern.employer:
            subjects = self._employer(subjects)
        if not subjects:
            return None
        if all(s.name == self.ctx.speaker for s in subjects):
            self.previous = subjects  # "i'm from the US but live in Berlin": the clause's subject, if not its object
        end_at = self.index.get(m.end() + 1, self.index.get(m.end()))
        want = _want(pattern)
        objects = read_objects(self.text, self.tokens, self.runs_at, end_at, want) if end_at else []
        objs = stated(objects, pattern.relation)
        employed = "time" in m.group(0).lower()  # "she's full time at Jollof House now": a job, whatever the name
        if (
            pattern.needs_now
            and not employed
            and any((name_label(o[0]) or self.ctx.label(o[0])) != "Organization" for o in objs)
        ):
            return None  # "I'm at Heathrow now": a place one is at; "I'm at Helix Labs now": an employer
        if not objs and not objects and pattern.relation == "ALLERGIC_TO" and self.ctx.avoided:
            after = self.index[m.start()] + 1
            if after >= len(self.tokens) or self.tokens[after].lower in _CLOSE | {"and"}:
                objs = [(self.ctx.avoided, None, "")]  # "... without shellfish? i'm allergic"
        if not objs and pattern.pending and not objects and not (pattern.pair and len(subjects) == 2):
            self.ctx.pending = (subjects, pattern.relation, clause_dates(self.times, (0, len(self.text), 0)))
            return None
        if not objs:
            if objects or not (pattern.pair and len(subjects) == 2):
                return None
            first, second = subjects if subjects[1].name != self.ctx.speaker else subjects[::-1]
            objs, subjects = [(second.name, "Person", "")], [first]  # "Maya and I got engaged": the speaker's
        elif objects:
            self.consumed = max(self.consumed, objects[-1].last)
        self.previous = subjects
        if pattern.relation:  # label now, so that a pronoun later in the sentence can find them
            self._label(subjects, objs, pattern)
        self._located(objects, subjects if pattern.relation == "WORKS_AT" else [])
        self._placed(m, objs)
        if pattern.relation == "WORKS_AT" and objects:
            self._remote(subjects, objects[-1].last)
        flags = (1 if closing else 0) | (4 if gap.perfect else 0)
        return subjects, objs, clause_start, flags

    def _speakers(self, pattern: Pattern, m: re.Match[str]) -> tuple[list[Subject], list[Found], int, int] | None:
        """A phrase that is the speaker's by its own words ("my first week at X", "everything's on AWS"); not
        someone else's ("Tom's first week at X")."""
        at = self.index[m.start()]
        if at > 0 and self.tokens[at - 1].lower in _SOMEONE_ELSES:
            return None
        end_at = self.index.get(m.end() + 1, self.index.get(m.end()))
        if "obj" in m.re.groupindex:  # "mandarin's my first language": the object leads
            end_at = self.index.get(m.start("obj"))
        want = _want(pattern)
        objects = read_objects(self.text, self.tokens, self.runs_at, end_at, want) if end_at is not None else []
        objs = stated(objects, pattern.relation)
        if not objs or not self.ctx.speaker:
            return None
        self.consumed = max(self.consumed, objects[-1].last)
        subjects = [Subject(self.ctx.speaker, 0.8)]
        self._label(subjects, objs, pattern)
        return subjects, objs, m.start(), 0

    def _label(self, subjects: list[Subject], objs: list[Found], pattern: Pattern) -> None:
        for subject in subjects:
            self.ctx.mention(
                subject.name, name_label(subject.name) or self.ctx.label(subject.name) or pattern.subject_label
            )
        for name, label, own in objs:
            default = pattern.object_label if not own else None
            self.ctx.mention(name, name_label(name) or label or self.ctx.label(name) or default)

    def _appositive(
        self, m: re.Match[str], comma_at: int, job: bool = False
    ) -> tuple[list[Subject], list[Found], int, int] | None:
        """ ", the CEO of Acme," after a name: a title of that name, closed by a comma or the sentence's end."""
        apposed = self._apposed(comma_at)
        end_at = self.index.get(m.end())
        objects = read_objects(self.text, self.tokens, self.runs_at, end_at, Want()) if end_at else []
        if apposed is None or not objects or objects[-1].unit:
            return None
        after = objects[-1].last + 1
        if (
            after < len(self.tokens)
            and self.tokens[after].lower not in _CLOSE
            and not (
                job and self.tokens[after].lower == "in"  # ", PhD student at ETH Zurich in biology"
            )
        ):
            return None
        if job:  # "I'm Elif, an architect at Kubbe Studio in Istanbul": where the studio is (not where she works:
            # that would outlive her leaving the studio)
            self._located([replace(o, label=o.label or "Organization") for o in objects], [])
        return apposed[0], [(o.name, o.label, "") for o in objects], apposed[1], 0

    def _apposed(self, comma_at: int) -> tuple[list[Subject], int] | None:
        """The name right before an appositive's comma; not the end of a fronted phrase ("In Madrid, the ...")."""
        run = self.runs_end.get(comma_at - 1)
        if run is None and comma_at > 1 and self.tokens[comma_at - 1].lower == "here":
            run = self.runs_end.get(comma_at - 2)  # "youssef here, sous chef at Table Noailles"
            run = run if run is not None and run.name == self.ctx.speaker else None
        if run is None or (run.first == run.last and run.sentence_initial and not self.ctx.label(run.name)):
            return None  # "However, the head of ..."
        tokens = self.tokens
        if tokens[0].lower in _FRONTING and all(t.lower != "," for t in tokens[: run.lead]):
            return None
        return [Subject(run.name, 0.9)], tokens[run.lead].start

    def _behind_appositive(self, at: int) -> tuple[list[Subject], int] | None:
        """ "Isabel Cruz, the CEO of Acme, lives in ...": the name before an appositive that ends at ``at``."""
        k = at
        while k > 0 and at - k < 10 and self.tokens[k].lower != ",":
            k -= 1
        if k <= 0 or self.tokens[k].lower != "," or self.tokens[k + 1].lower not in _APPOSITIVE:
            return None
        run = self.runs_end.get(k - 1)
        if run is None or (run.lead > 0 and self.tokens[run.lead - 1].lower not in CLAUSE_BREAK):
            return None  # "After dinner with Ana, the team moved ...": Ana is no subject
        return self._apposed(k)

    def _subjects(self, at: int, comma: bool) -> tuple[list[Subject], int]:
        """The subjects before a gap ending at token ``at``, and where the clause starts."""
        if at < 0 or self.tokens[at].lower in CLAUSE_BREAK:
            if at >= 0 and self.previous:
                return list(self.previous), self.tokens[at].end
            if self.ctx.speaker and (self._headless(at) if at >= 0 else not self.ctx.about_other):
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
            if comma and subject.name == self.ctx.speaker:
                return found, self.tokens[first].start  # "hi i'm sam, studying CS at ...": the speaker, introduced
            if comma and (k < 0 or self.tokens[k].lower != ","):
                return [], 0  # "Paris, like Berlin": a comma only around an appositive name
            comma = False
            if k >= 3 and self.tokens[k].lower in KIN and self.tokens[k - 1].lower in _THEIRS:
                if self.tokens[k - 2].lower == "and":
                    k -= 2  # "Karim and his wife Nadia": both
            joiner = self.tokens[k].lower if k >= 1 else ""
            if (joiner == "and" or (joiner == "," and len(found) > 1)) and k - 1 > self.consumed:
                k -= 1  # "Aylin and I", "Tom, Ana and I"; but not "In Madrid, Javier"
                continue
            return found, self.tokens[first].start

    def _joined(self, k: int) -> bool:
        """Whether the word at ``k`` is joined to another subject by "and"."""
        tokens = self.tokens
        return (k + 1 < len(tokens) and tokens[k + 1].lower == "and") or (k > 0 and tokens[k - 1].lower == "and")

    def _headless(self, at: int) -> bool:
        """ "Finally passed my test and bought a car": a chat sentence with no subject at all before ``at``."""
        before = self.tokens[:at]
        return (
            not self.ctx.about_other  # "kevin landed in aachen, he's in a flat. learning german like crazy": his
            and self.tokens[0].lower not in _NOT_HEADLESS
            and all(t.lower not in PRONOUNS and t.lower != "you" for t in before)
            and all(r.first >= at for r in self.runs_at.values())
        )

    def _located(self, objects: list[Obj], workers: list[Subject]) -> None:
        """ "a GP at Riverside Medical Centre in Manchester": where the organisation is, and where its ``workers``
        work; a well-known city may be typed in lower case ("a nurse at X in nairobi")."""
        for o in objects:
            org = o.org or o
            after = self._apposed_kind(org.last + 1)
            if org.unit or after + 1 >= len(self.tokens) or self.tokens[after].lower != "in":
                continue
            place = self.runs_at.get(after + 1) or known_city(self.tokens, after + 1)
            label = self.ctx.label(org.name) or org.label
            if place is None or label != "Organization" or name_label(place.name) == "Organization":
                continue
            if place.last + 1 < len(self.tokens) and self.tokens[place.last + 1].lower not in _CLOSE | {"and"}:
                continue
            self.ctx.mention(place.name, "Location")
            self.ctx.add_fact(Subject(org.name, 0.8), "LOCATED_IN", (place.name, "Location"), (None, None), self.text)
            for worker in workers:
                self.ctx.add_fact(worker, "WORKS_IN", (place.name, "Location"), (None, None), self.text)

    def _remote(self, subjects: list[Subject], last: int) -> None:
        """ "i work remotely for Acme from Osaka": where one lives, who works from there."""
        tokens = self.tokens
        if last + 2 >= len(tokens) or tokens[last + 1].lower != "from" or (place := self.runs_at.get(last + 2)) is None:
            return
        if not any(t.lower in ("remote", "remotely") for t in tokens) or name_label(place.name) == "Organization":
            return
        if place.last + 1 < len(tokens) and tokens[place.last + 1].lower not in _CLOSE | {"and", "now"}:
            return
        self.ctx.mention(place.name, "Location")
        for subject in subjects:
            self.ctx.add_fact(subject, "LIVES_IN", (place.name, "Location"), (None, None), self.text)

    def _employer(self, subjects: list[Subject]) -> list[Subject]:
        """ "I'm at Acme ... we're a fintech in Pune": the one employer the speaker named in this message."""
        speaker = self.ctx.speaker
        if not speaker or [s.name for s in subjects] != [speaker]:
            return []
        found = {
            f.object
            for f in self.ctx.facts.values()
            if f.subject == speaker
            and (f.relation == "WORKS_AT" or f.relation.endswith("_OF") and self.ctx.label(f.object) == "Organization")
        }  # "cofounder of Tiffinly, we do ... in bangalore": a title at an organisation too
        found |= {job for job in self.jobs if self.ctx.label(job) != "Person"}
        return [Subject(found.pop(), 0.8)] if len(found) == 1 else []

    def _placed(self, m: re.Match[str], objects: list[Found]) -> None:
        """ "a restaurant in Peckham called X": where X is."""
        if "place" not in m.re.groupindex or m.group("place") is None:
            return
        place = m.group("place")
        for name, _, _ in objects:
            self.ctx.mention(place, "Location")
            self.ctx.add_fact(Subject(name, 0.8), "BASED_IN", (place, "Location"), (None, None), self.text)

    def _apposed_kind(self, after: int) -> int:
        """ "Bellini & Ferri, a law firm in Milan": past the kind of organisation set after its name, to its "in"."""
        tokens = self.tokens
        if after + 2 >= len(tokens) or tokens[after].lower != "," or tokens[after + 1].lower not in ("a", "an"):
            return after
        for k in range(after + 2, min(len(tokens) - 1, after + 6)):
            if tokens[k].lower == "in" and tokens[k - 1].lower in _ORG_KINDS:
                return k
        return after

    def _one_subject(self, k: int) -> tuple[Subject | None, int]:
        token = self.tokens[k]
        if token.lower == "me" and self.ctx.speaker and self._joined(k):
            return Subject(self.ctx.speaker, 0.9), k  # "me and Kai broke up"
        if token.lower in PRONOUNS:
            return self._pronoun(token.lower, k), k
        run = self.runs_end.get(k)
        if run is None and k > self.consumed and (name := self._lower_subject(k)) is not None:
            return Subject(name, 0.7), k
        if run is None or k <= self.consumed:
            return None, k
        return Subject(run.name, 0.9), run.first

    def _lower_subject(self, k: int) -> str | None:
        """ "also piotr left PwC": a lower-case name heading its clause, when it can be no common word."""
        tokens = self.tokens
        if tokens[k].lower in KIN or (k > 0 and tokens[k - 1].lower not in _LOWER_SUBJECT_AFTER):
            return None
        verb = frozenset({tokens[k + 1].lower}) if k + 1 < len(tokens) else frozenset()
        found = lower_name(tokens, k, _NOT_SUBJECTS, verb)
        return found[0] if found is not None and found[1] == k else None

    def _pronoun(self, word: str, k: int) -> Subject | None:
        ctx = self.ctx
        if word in ("i", "we"):
            return Subject(ctx.speaker, 0.9) if ctx.speaker else None
        before = [key for key in ctx.order if ctx.entities[key].name != ctx.speaker]
        people = [key for key in before if ctx.label(ctx.entities[key].name) == "Person" or key in ctx.people]
        orgs = [key for key in before if ctx.label(ctx.entities[key].name) == "Organization"]
        if word in ("he", "she") or (word == "they" and people):
            chosen = people
        else:
            chosen = orgs
        at = max(0, ctx.message.find(self.text)) + self.tokens[k].start
        if not chosen and (earlier := thread_person(ctx, word, at)) is not None:
            return Subject(earlier, 0.6)  # "how's Lerato?" "she teaches at ...": named in the thread
        if len(chosen) > 1 and word in ("he", "she"):  # "my sister Lakshmi got engaged to Vikram. she ..."
            names = of_gender(word, ctx.message, [ctx.entities[key].name for key in chosen])
            return Subject(names[0], 0.7) if len(names) == 1 else None
        return Subject(ctx.entities[chosen[0]].name, 0.7) if len(chosen) == 1 else None

    def _emit(
        self,
        subjects: list[Subject],
        pattern: Pattern,
        m: re.Match[str],
        objects: list[Found],
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
        dates = clause_dates(self.times, span, self.head_from)
        kind = "state" if pattern.kind == "past" and flags & 4 else pattern.kind
        valid, invalid = dates.get("since") or dates.get("at"), dates.get("until")
        if valid is not None and self.ctx.reference is not None and valid.when > self.ctx.reference:
            if not _past(m.group(0).split()[0].lower()) or valid.role == "since":
                return 0  # "starts at Acme next month", "accepted a job at X, starting in April": a plan
        past = False
        if flags & 1:
            relation, invalid, kind = pattern.ended, None, "event"
        elif kind == "past":
            if invalid is None:
                return 0
            if valid is None and pattern.closes:
                relation, valid, invalid = pattern.ended, invalid, None
            past = invalid is not None
        elif kind == "event":
            invalid = None
        made = 0
        for subject in subjects:
            subject_label = name_label(subject.name) or self.ctx.label(subject.name) or s_label
            rel = pattern.org_relation if pattern.org_relation and subject_label == "Organization" else relation
            self.ctx.mention(subject.name, subject_label)
            for name, label, own in objects:
                if own:  # "leads the Payments team at Acme": works at Acme, since some time not given
                    obj = (name, name_label(name) or label)
                    made += self.ctx.add_fact(subject, own, obj, (None, None), self.text, cap=0.8)
                elif rel != "USES" or (name_label(name) or self.ctx.label(name)) != "Location":  # "I design in London"
                    label = label or (o_label if rel != pattern.ended else None)
                    made += self.ctx.add_fact(
                        subject, rel, (name, name_label(name) or label), (valid, invalid), self.text, past
                    )
            for name, label in self._left_behind(m, pattern) + self._instead(m, pattern):
                made += self.ctx.add_fact(subject, pattern.ended, (name, label), (valid, None), self.text)
        return made

    def _left_behind(self, m: re.Match[str], pattern: Pattern) -> list[tuple[str, str | None]]:
        """ "migrated from Elasticsearch to OpenSearch": what was used before, which the move ends."""
        if "from" not in m.re.groupindex or m.group("from") is None or pattern.ended == pattern.relation:
            return []
        at = self.index.get(m.start("from"))
        found = read_objects(self.text, self.tokens, self.runs_at, at, Want(lower=pattern.lower)) if at else []
        if not found or found[-1].last + 1 >= len(self.tokens) or found[-1].unit:
            return []
        if self.tokens[found[-1].last + 1].start - m.end("from") not in (0, 1):  # " to", or ", now in"
            return []  # "from X and some other words to Y": only a name between "from" and "to"
        return [(o.name, o.label or self.ctx.label(o.name) or pattern.object_label) for o in found]

    def _instead(self, m: re.Match[str], pattern: Pattern) -> list[tuple[str, str | None]]:
        """ "learning french now instead of german": what the new state replaces, which it ends."""
        if not pattern.closes or pattern.ended == pattern.relation or pattern.kind != "state":
            return []
        at = self.index.get(m.end() + 1, self.index.get(m.end()))
        tokens = self.tokens
        for k in range(at or len(tokens), min(len(tokens) - 2, (at or 0) + 8)):
            if tokens[k].lower == "instead" and tokens[k + 1].lower == "of":
                found = read_objects(self.text, tokens, self.runs_at, k + 2, _want(pattern))
                return [(o.name, o.label or self.ctx.label(o.name)) for o in found if not o.unit]
            if tokens[k].lower in (".", ";", "but"):
                break
        return []

    def _new_clauses(self) -> list[int]:
        """Where ", she's ..." or "; we ..." starts another clause: its dates are not the clause's before it; but
        "..., I started two weeks ago" dates the state before it."""
        tokens = self.tokens
        return [
            tokens[k].start
            for k in range(len(tokens) - 2)
            if tokens[k].lower in (",", ";", "-", "—")
            and tokens[k + 1].lower in PRONOUNS | {"you"}
            and tokens[k + 2].lower not in _STARTED
            or tokens[k].lower == "but"  # "we're renting in X but thinking of buying next year"
        ]

    def _hearsay(self) -> int:
        """Where what someone else said begins: nothing after it is the speaker's to tell."""
        tokens = self.tokens
        for k, token in enumerate(tokens):
            if token.lower in _REPORTING and k > 0 and tokens[k - 1].lower not in _FIRST_PERSON:
                if not (k > 1 and tokens[k - 1].lower in ("'ve", "have") and tokens[k - 2].lower in _FIRST_PERSON):
                    return token.end
        return len(self.text) + 1

    def _our_system(self, at: int) -> tuple[list[Subject], int]:
        """ "Our backend runs on X", "my app is built with Y", "the ward moved to X": the speaker's tools."""
        k = at
        while k >= 0 and at - k < 3 and self.tokens[k].lower in TECH_NOUNS | WORKPLACE_NOUNS | _WHOLE:
            k -= 1
        owner = self.tokens[k].lower if 0 <= k < at else ""  # "the school switched to Teams": where one works
        if owner not in ("our", "my") and not (owner == "the" and self.tokens[at].lower in WORKPLACE_NOUNS):
            return [], 0
        if not self.ctx.speaker:
            return [], 0
        return [Subject(self.ctx.speaker, 0.8)], self.tokens[k].start


_WHOLE = frozenset("whole entire".split())  # "our whole team switched ...": still where one works


def _want(pattern: Pattern) -> Want:
    return Want(
        pattern.loose_object,
        pattern.lower,
        pattern.vocabulary,
        pattern.strict,
        pattern.joiners,
        pattern.named,
        purposes=pattern.relation == "USES",
        qualifier=pattern.qualifier,
    )


def _tool_move(pattern: Pattern, m: re.Match[str]) -> Pattern:
    """ "we moved from AutoCAD to Revit", "moved from VetPraxis to ezyVet": a move from or to a camel-case name
    or a known tool's name is between tools, not homes (the tool patterns know only the tools in the vocabulary)."""
    if pattern.relation != "LIVES_IN" or "from" not in m.re.groupindex or m.group("from") is None:
        return pattern
    after = m.string[m.end() :].split()
    names = [m.group("from").strip(), after[0] if after else ""]
    known = any(n.split()[0].lower() in TECH for n in names if n) and not any(  # "from Logic Pro to Ableton Live"
        n.split()[-1].lower() in _STREETS for n in names if n
    )
    if not known and (len(names[0].split()) != 1 or not any(_CAMEL.match(n) for n in names)):
        return pattern
    return replace(
        pattern,
        relation="USES",
        subject_label=None,
        object_label="Product",
        org_relation=None,
        ended="NO_LONGER_USES",
        lower=False,
    )


def _anymore(tokens: list[Token], verb_at: int) -> bool:
    """ "doesn't work at Acme anymore": a negation that closes, not one that denies."""
    return any(t.lower in _ANYMORE or t.lower == "longer" for t in tokens[verb_at:])


def _past(verb: str) -> bool:
    return verb.endswith("ed") or verb in _PAST
