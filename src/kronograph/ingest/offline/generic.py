"""A last, generic reading of a sentence: its subject linked to a thing it names.

The relation tables read the phrasings they list; people say the same things in
many more ways ("i play for a weekend cricket team, X", "he has his own
workshop, X", "Lina is in CM2 at X", "patrol with X Surf Club"). This reader
needs no phrase: a clause whose subject is the speaker (I / we / no subject at
all), a person named in it, or "he"/"she" that one name answers, and a NAME it
sets off as such (a capitalised name after "a <kind> ," or "a <kind> called",
a name whose own words say it is a club or a school, a name after "works ...
at"), gives one fact, its relation named from the kind of thing and the verb or
preposition before it.

Precision comes first: the whole sentence is refused when any word of it says
it is negated, planned, wished, asked, heard from someone else, ended or past,
and a pair some other rule already linked is left alone.
"""

from __future__ import annotations

import re

from .clauses import HEDGE, NEGATION
from .context import Context, Subject
from .generic_endings import leaving, no_more
from .generic_roles import read_roles
from .kin import KIN, of_gender
from .lowercase import lower_name
from .medical import read_health
from .names import Run, Token, name_label
from .thread import expand_names, thread_person
from .thread_endings import ended_links
from .thread_staff import staff_workplace
from .thread_switches import changed_to, starts_later, switch_done
from .vocab import JOBS, TECH, WORKPLACE_NOUNS, is_job

__all__ = ["GenericReader", "read_generic"]

# any of these anywhere in the sentence: it is planned, wished, asked or someone else's word
_REFUSE = (HEDGE - {"about", "of"}) | frozenset(
    """
    will 'll wo gonna going wanna interview interviewing offer offered apply applying applied says said told tells
    reckons reckon heard hear apparently rumour rumor rumours rumors supposedly allegedly someday next soon looking
    idea ideas if nearly almost
    """.split()
)
# any of these in the clause: it is negated, ended or past
_ENDED = NEGATION | frozenset(
    """
    left leaving leave quit quitting former ex old used stopped stop stopping gave dropped ditched until anymore
    longer was were sold selling lost closed closing shut cancelled canceled ended ending without had
    """.split()
)
# "I should also mention that ...": a preface, not a hedge
_PREFACE = re.compile(r"\b(?:i|we)\s+should\s+(?:also\s+|just\s+)?(?:mention|note|add|say)\b", re.IGNORECASE)
_GROUP_KINDS = frozenset(
    "team club choir band crew squad league society group orchestra ensemble trio quartet brigade troupe "
    "collective chorus".split()
)
_BUSINESS_KINDS = frozenset(
    "workshop business company shop practice bakery pharmacy studio cafe café restaurant firm clinic salon store "
    "startup brand agency consultancy farm bar pub gym garage boutique bistro brewery winery vineyard guesthouse "
    "surgery label charity nonprofit hotel hospital".split()
)
_SCHOOL_KINDS = frozenset("school university college academy kindergarten nursery preschool".split())
# words a name of a group carries: "Merewether Surf Life Saving Club", "Club Équestre ..."
_GROUP_NAME_WORDS = frozenset(
    "club society choir league association orchestra band chorus guild ensemble runners rovers fc rfc".split()
)
_SCHOOL_NAME_WORDS = frozenset(
    "school primary lycée lycee college academy kindergarten gymnasium escola escuela colegio collège college "
    "university universidad université".split()
)
_ORG_WORDS = _SCHOOL_NAME_WORDS | _GROUP_NAME_WORDS | frozenset(
    "services solutions systems group labs ltd limited inc llc gmbh partners consulting studio studios hospital "
    "clinic bank digital logistics health media capital foods works agency".split()
)
_THINGS = _ORG_WORDS | _GROUP_KINDS | _BUSINESS_KINDS | _SCHOOL_KINDS
_DETS = frozenset("a an my our his her their the".split())
_OWNERS = frozenset("my our his her their".split())
_OWN_VERBS = frozenset("own owns run runs opened founded started set has have 've got built".split())
_GROUP_PREPS = frozenset("for in with on joined join into".split())
_WORK_VERBS = frozenset("work works working".split())
# a verb or noun of what one does at an organisation, and the tie it gives
_DOING = {
    **dict.fromkeys("work works working teach teaches teaching intern interns interning".split(), "WORKS_AT"),
    **dict.fromkeys("study studies studying student mba phd masters master's degree bachelor's".split(), "STUDIED_AT"),
    **dict.fromkeys("class classes course courses lessons".split(), "ATTENDS"),
}
_BREAKS = frozenset(
    {",", ";", "!", ".", ":", "but", "and", "so", "then", "—", "-", "(", ")", "that", "because", "since", "when",
     "while", "where", "who", "which", "as"}
)
_FILLERS = frozenset("also just finally now still currently btw oh well ok okay plus anyway mostly actually".split())
_KIN_ADJECTIVES = frozenset("best little big older younger elder baby twin oldest youngest".split())
# the verbs a chat sentence with no subject may start with: the speaker's ("play footy for X")
_HEADLESS = frozenset(
    "play plays join go goes run sing train patrol volunteer row swim coach teach ride got bought".split()
)
# a choice made: "we went with the Planmeca Emerald", "opted for X", "chose X", "settled on X"
_CHOSE = frozenset({"went", "opted", "chose", "settled", "picked"})
_CHOSEN_BY = {"went": "with", "opted": "for", "settled": "on"}
_FANDOM = frozenset("fan fans support supporter supporters watch watched watching cheer".split())
_CALLED = frozenset({"called", "named"})
_CLOSE = frozenset(
    {",", ".", "!", ";", "and", "in", "on", "at", "(", "—", "-", ")", "now", "for", "too", "since", "here", "so", "but",
     "because", "which", "where", "who"}
)
_PEOPLE = frozenset(w for w, (_, _, label) in KIN.items() if label == "Person")
_USING = frozenset({"using", "via"})
_PLAY = frozenset({"play", "plays", "playing"})
_INVEST = frozenset("investment investments invested invest stake shares money share savings".split())
_STUDY_VERBS = frozenset({"attends", "attend"})


def read_generic(text: str, tokens: list[Token], runs: list[Run], ctx: Context) -> int:
    """The facts the generic frames give for one sentence (none when any word refuses it)."""
    if not tokens or not ctx.speaker:
        return 0
    reader = GenericReader(text, tokens, runs, ctx)
    made = no_more(reader) + leaving(reader) + ended_links(tokens, runs, ctx, text) + switch_done(ctx, text)
    made += changed_to(ctx, text) + starts_later(ctx, text)
    made += read_health(reader) + staff_workplace(ctx, text)
    preface = _PREFACE.search(text)
    if not _REFUSE.isdisjoint(t.lower for t in tokens if preface is None or t.start >= preface.end()):
        return made
    made += reader.kinds() + reader.named() + reader.studies()
    return made + reader.works() + reader.using() + reader.founded() + read_roles(reader)


class GenericReader:
    def __init__(self, text: str, tokens: list[Token], runs: list[Run], ctx: Context) -> None:
        self.text, self.tokens, self.ctx = text, tokens, ctx
        self.runs = runs
        self.at = {(r.lead if r.lead >= 0 else r.first): r for r in runs} | {r.first: r for r in runs}
        self.words = [t.lower for t in tokens]

    # -- the frames ---------------------------------------------------------------------------------------------

    def kinds(self) -> int:
        """ "i play for a weekend cricket team, X", "he has his own workshop, X", "Rita's bakery, X"."""
        made, words = 0, self.words
        for k, word in enumerate(words):
            kind = _kind(word)
            if kind is None:
                continue
            det = self._determiner(k)
            if det is None:
                continue
            run = self._named_after(k)
            if run is None:
                if kind == "group" and all(w in ("!", ".") for w in words[k + 1 :]) and k + 1 < len(words) and det > 0:
                    if words[det - 1] in ("joined", "join") and (who := self._subject(det - 1)):
                        self.ctx.pending = (who, "MEMBER_OF", {})  # "joined a choir!! X, we sing ..."
                continue
            before = words[det - 1] if det > 0 else ""
            if k > det + 1 and words[k - 1] == "'s" and (owner := self.at.get(k - 2)) is not None:
                if kind == "business" and self._person(owner.name):  # "our friend Rita's bakery, X"
                    made += self._add(Subject(owner.name, 0.7), "OWNS", run, at=det)
                b = self._start_of(owner) - 1
                while b > 0 and (words[b] in _OWNERS or words[b] in _PEOPLE or words[b] in _KIN_ADJECTIVES):
                    b -= 1  # "put money into our friend Rita's bakery, X"
                before = words[b] if b >= 0 else ""
            relation = self._kind_relation(kind, det, k, before)
            if relation is None:
                continue
            for subject in self._subject(det - 1 if det > 0 else 0):
                made += self._add(subject, relation, run, at=max(det - 1, 0))
            made += self._located(run)
        return made

    def _located(self, run: Run) -> int:
        """ "her own pharmacy, X, in East Legon": where the organisation just named is."""
        words, j = self.words, run.last + 1
        j += j < len(words) and words[j] == ","
        if j + 1 >= len(words) or words[j] != "in" or (place := self.at.get(j + 1)) is None or not self._closed(place):
            return 0
        if self._label(place.name) not in (None, "Location"):
            return 0
        return self.ctx.add_fact(Subject(run.name, 0.7), "LOCATED_IN", (place.name, "Location"), (None, None),
                                 self.text, cap=0.7)

    def named(self) -> int:
        """ "i patrol with X Surf Life Saving Club", "riding on sundays at Club Y", "play footy for X", "joined the
        Club de curling X", "my football team X won ..."."""
        made, words = 0, self.words
        for k, word in enumerate(words):
            if word in ("my", "our") and k + 2 < len(words):  # "my football team Los Halcones won the final"
                kind = next((j for j in range(k + 1, min(len(words), k + 4)) if words[j] in _GROUP_KINDS), None)
                run = self.at.get(kind + 1) if kind is not None else None
                if run is not None and kind is not None and all(w.isalpha() for w in words[k + 1 : kind]):
                    mine = k == 0 or words[k - 1] not in ("'s", "his", "her", "their")
                    if words[kind] in ("team", "side") and (kind == k + 1 or not _FANDOM.isdisjoint(words)):
                        mine = False  # "my team Arsenal won": a supporter's, maybe; "my football team X": a player's
                    if mine and self._label(run.name) not in ("Person", "Location") and self.ctx.speaker:
                        made += self._add(Subject(self.ctx.speaker, 0.7), "MEMBER_OF", run, at=k)
                continue
            if word not in ("at", "with", "for", "in", "joined"):
                continue
            j = k + 1 + (k + 1 < len(words) and words[k + 1] == "the")
            run = self.at.get(j)
            if run is None or not self._closed(run):
                continue
            if word == "joined":
                word = "in"  # "joined the Club de curling Lennoxville": a group by its name only
            played = word == "for" and any(w in _PLAY for w in words[max(0, k - 2) : k])
            named = not _GROUP_NAME_WORDS.isdisjoint(w.lower() for w in run.name.split())
            if not (played or named) or self._label(run.name) in ("Person", "Location") or (word == "in" and not named):
                continue
            for subject in self._subject(k):
                made += self._add(subject, "MEMBER_OF", run, at=k)
        return made

    def studies(self) -> int:
        """ "Lina is in CM2 at X", "Kojo attends X", "she's in year 3 at X": a school by its own words."""
        made, words = 0, self.words
        for k, word in enumerate(words):
            run = None
            if word in _STUDY_VERBS:
                run = self.at.get(k + 1 + (k + 1 < len(words) and words[k + 1] == "the"))
            elif word == "in" and k > 0 and words[k - 1] in ("is", "'s", "are", "'m", "am"):
                for j in range(k + 2, min(len(words) - 1, k + 5)):
                    if words[j] == "at":
                        run = self.at.get(j + 1 + (words[j + 1] == "the"))
                        break
                    if words[j] in _BREAKS:
                        break
            if run is None or not self._closed(run) or _SCHOOL_NAME_WORDS.isdisjoint(run.name.lower().split()):
                continue
            for subject in self._subject(k - (word == "in")):
                made += self._add(subject, "STUDIED_AT", run, at=k)
        return made

    def works(self) -> int:
        """ "I currently work in-house at X", ", works for X" after "my mate Dan is a sparky", "she teaches arabic
        at X", "Khoa is studying in Melbourne at X", "doing french classes at X"."""
        made, words = 0, self.words
        for k, word in enumerate(words):
            relation = _DOING.get(word)
            if relation is None:
                continue
            for j in range(k + 1, min(len(words) - 1, k + 5)):
                if words[j] in ("at", "for") and (words[j] == "at" or relation == "WORKS_AT"):
                    run = self.at.get(j + 1 + (words[j + 1] == "the"))
                    if run is not None and self._closed(run) and (self._org(run) or self._worked_at(run, word)):
                        to = next((t for t in range(k - 1, self._head(k), -1) if words[t] == "to"), None)
                        purpose = to is not None and words[to - 1] not in _ENDED  # "left X to do her MBA at Y"
                        subjects = self._subject(k)
                        if not {"me", "us"}.isdisjoint(words[self._head(k) : k]):  # "Hildur got me a teaching gig"
                            subjects = [Subject(self.ctx.speaker or "", 0.7)]
                        for subject in subjects:  # "Marta left the hotel to work at X": X is her job now
                            made += self._add(subject, relation, run, at=to if purpose and to else k, own=purpose)
                    break
                if words[j] in _BREAKS:
                    break
        return made

    def using(self) -> int:
        """ "i train stuff on the cluster, using pytorch", "the whole unit uses X now": the speaker's tools."""
        made, words = 0, self.words
        for k, word in enumerate(words):
            if word == "live" and k > 1 and words[k - 1] in ("went", "gone", "is") and self.ctx.speaker:
                run = self.runs_ending(k - 2 - (words[k - 2] in ("has", "now")))  # "Mews went live last week"
                if run is not None and self._label(run.name) not in ("Person", "Location"):
                    made += self._add(Subject(self.ctx.speaker, 0.7), "USES", run, "Product", at=k)
                continue
            if word in _USING and k > 0 and words[k - 1] == ",":
                subjects = [s for s in self._subject(k - 1) if s.name == self.ctx.speaker]
            elif word in ("uses", "use") and self._workplace(k):
                subjects = [Subject(self.ctx.speaker or "", 0.7)]
            elif word == "use" and k > 0 and words[k - 1] in ("they", "we") and self._here(k):
                subjects = [Subject(self.ctx.speaker or "", 0.7)]  # "they use Tekla here", "we use X at work"
            elif word in _CHOSE and (k + 1 >= len(words) or words[k + 1] != "to"):
                subjects = [s for s in self._subject(k) if s.name == self.ctx.speaker]  # "we went with the X"
                k += word in ("went", "opted", "settled")
            elif word == "on" and k > 1 and words[k - 1] in ("'re", "'m", "are", "am", "still") and self._here(k - 1):
                subjects = [s for s in self._subject(k) if s.name == self.ctx.speaker]  # "we're still on X at work"
            else:
                continue
            if word in _CHOSEN_BY and (k >= len(words) or words[k] != _CHOSEN_BY[word]):
                continue
            j = k + 1 + (k + 1 < len(words) and words[k + 1] in ("the", "a", "an"))
            run = self.at.get(j)
            if run is None and j < len(words) and words[j] in TECH:
                run = Run(j, j, self.tokens[j].text)
            if run is None or not self._closed(run) or self._label(run.name) in ("Person", "Location"):
                continue
            for subject in subjects:
                made += self._add(subject, "USES", run, "Product", at=k)
        return made

    def founded(self) -> int:
        """ "KoboPay, a payments startup founded by my cousin Kofi Mensah": who founded it; "an investment in X"."""
        made, words = 0, self.words
        for k, word in enumerate(words):
            if word in ("founded", "started", "run", "owned") and k + 1 < len(words) and words[k + 1] == "by":
                det = next((j for j in range(k - 1, max(0, k - 6), -1) if words[j] in ("a", "an")), None)
                if det is None or det < 2 or words[det - 1] != "," or _kind(words[k - 1]) is None:
                    continue
                org, person = self.runs_ending(det - 2), self._person_after(k + 2)
                if org is not None and person is not None:
                    relation = "FOUNDED" if word in ("founded", "started") else "OWNS"
                    made += self._add(Subject(person.name, 0.7), relation, org, at=k)
            elif word in _INVEST:
                j = next((j for j in range(k + 1, min(len(words), k + 3)) if words[j] in ("in", "into")), None)
                run = self.at.get(j + 1) if j is not None else None
                if run is not None and self._closed(run) and self._label(run.name) not in ("Person", "Location"):
                    for subject in self._subject(k):
                        made += self._add(subject, "INVESTED_IN", run, at=k)
        return made

    # -- helpers --------------------------------------------------------------------------------------------------

    def runs_ending(self, k: int) -> Run | None:
        return next((r for r in self.runs if r.last == k), None)

    def _kind_relation(self, kind: str, det: int, k: int, before: str) -> str | None:
        words = self.words
        own = "own" in words[det:k]
        if kind == "group":
            return "MEMBER_OF" if before in _GROUP_PREPS else None
        if kind == "school":
            return "STUDIED_AT" if before in ("at", "attends", "to") and words[det] not in _OWNERS else None
        if own or (before in _OWN_VERBS and words[det] in ("a", "an")):
            return "OWNS"
        clause = words[max(0, det - 6) : det]
        if before in ("at", "for", "with") and (
            not _WORK_VERBS.isdisjoint(clause) or any(is_job(w, JOBS) for w in clause)
        ):
            return "WORKS_AT"  # "I work for a charity, X", "i'm a vet at a small clinic, X"
        if before in ("in", "into") and not _INVEST.isdisjoint(clause):
            return "INVESTED_IN"
        return None

    def _determiner(self, k: int) -> int | None:
        """Where the kind's noun phrase starts: "a weekend cricket team", "his own workshop", "Rita's bakery"."""
        words = self.words
        for j in range(k - 1, max(-1, k - 5), -1):
            if words[j] in _DETS:
                return j
            if words[j] == "'s" and j > 0 and (owner := self.runs_ending(j - 1)) is not None:
                return self._start_of(owner)
            if self.tokens[j].text[:1].isupper() or words[j] in _BREAKS or not self.tokens[j].text.isalpha():
                if words[j] != "'s":
                    return None
        return None

    def _named_after(self, k: int) -> Run | None:
        """The name set off after the kind: ", X" or "called X", closed by a comma or the sentence's end."""
        words = self.words
        j = k + 1
        if j < len(words) and words[j] in ("there", "here"):
            j += 1  # "opened a coffee shop there called X"
        elif j + 1 < len(words) and words[j] == "in" and self.tokens[j + 1].text.isalpha():
            end = next((e for e in range(j + 1, min(len(words), j + 6)) if words[e] in (",", "called", "named")), None)
            if end is not None and all(self.tokens[e].text.isalpha() for e in range(j + 1, end)):
                j = end  # "a vet at a small clinic in buenos aires, X", "a restaurant in the medina of Y, X"
        if j < len(words) and words[j] in (",", ":"):
            j += 1
        elif j < len(words) and words[j] in _CALLED:
            j += 1
        else:
            return None
        j += j < len(words) and words[j] == "the"
        run = self.at.get(j)
        if run is None and words[j - 1 - (words[j - 1] == "the")] in _CALLED:  # "a choir called kallion laulu"
            found = lower_name(self.tokens, j, _DETS, frozenset({",", ".", "!", "and", "in", "on", "at", "now"}))
            run = Run(j, found[1], found[0]) if found is not None else None
        if run is None or not self._closed(run) or self._label(run.name) == "Person":
            return None
        return run

    def _closed(self, run: Run) -> bool:
        after = run.last + 1
        return after >= len(self.tokens) or self.words[after] in _CLOSE

    def _start_of(self, run: Run) -> int:
        return run.lead if run.lead >= 0 else run.first

    def _subject(self, k: int) -> list[Subject]:
        """The subject of the clause holding token ``k``: the speaker, a person named at its head, "he"/"she" one
        name answers; the clause before's, for ", works for X"; the speaker's, for a sentence with none."""
        words, ctx = self.words, self.ctx
        c = k
        while c > 0 and words[c - 1] not in _BREAKS:
            c -= 1
        head = c
        while c < k and words[c] in _FILLERS:
            c += 1
        if c >= len(words):
            return []
        word = words[c]
        if head > 1 and words[head - 1] == "," and self._introduced(head - 2):
            return [Subject(ctx.speaker or "", 0.8)]  # "hamza here, 2nd yr phd student in CS at LUMS"
        if head > 0 and words[head - 1] == "who":  # "It is Kojo who attends X", "my friend Tom, who works at X"
            j = head - 2 - (head > 2 and words[head - 2] == ",")
            rel = self.runs_ending(j)
            return [Subject(rel.name, 0.7)] if rel is not None and self._person(rel.name) else []
        if word in ("i", "we") or (word == "me" and c + 1 < len(words) and words[c + 1] == "and"):
            return [Subject(ctx.speaker or "", 0.8)]
        if word in ("he", "she"):
            return self._pronoun(word, head)
        run = self.at.get(c)
        if run is None and words[c] in _OWNERS:  # "my bro Bilal works at ...", "my best mate Dan, ..."
            j = c + 1 + (c + 1 < k and words[c + 1] in _KIN_ADJECTIVES)
            run = self.at.get(j + 1) if j < k and words[j] in _PEOPLE else None
        if run is not None:
            after = words[run.last + 1 : run.last + 3]
            if after[:1] == ["'s"] and len(after) > 1 and (after[1] in KIN or _kind(after[1]) is not None):
                return []  # "Tom's wife works at Google": the wife, not Tom
            if run.last >= k or not self._person(run.name):
                return []
            return [Subject(run.name, 0.7)]
        if word in _DETS or word in ("it", "they", "you", "there", "this", "that"):
            return []
        verb = word in _HEADLESS or word in _DOING or word.endswith("ed")  # not "bia also teaches at X"
        if head == 0 and not ctx.about_other and self.tokens[c].text[:1].islower() and verb:
            return [Subject(ctx.speaker or "", 0.7)]  # "joined a trail running club", "play footy for X"
        if head > 0 and words[head - 1] in (",", "and") and self.tokens[c].text.islower() and (verb or word[-1] == "s"):
            return self._subject(head - 1)  # "my mate Dan is a sparky, works for X", "he lives in X and works for Y"
        return []

    def _introduced(self, k: int) -> bool:
        """Whether token ``k`` ends the speaker's self-introduction: "hamza here", "I'm Mei"."""
        words, speaker = self.words, (self.ctx.speaker or "").casefold()
        if words[k] == "here" and k > 0:
            k -= 1
        elif not (k > 1 and words[k - 1] in ("'m", "am") and words[k - 2] == "i"):
            return False
        run = self.runs_ending(k)
        name = run.name.casefold() if run is not None else words[k]
        return bool(speaker) and name in (speaker, speaker.split()[0])

    def _pronoun(self, word: str, head: int) -> list[Subject]:
        ctx = self.ctx
        if head > 1 and self.words[head - 1] == ",":  # "Tiago is a carpenter, he has ...": the clause before's
            before = self._subject(head - 1)
            if len(before) == 1 and before[0].name != ctx.speaker:
                return before
        later = {r.name.casefold() for r in self.runs if r.first > head}
        people = [
            ctx.entities[key].name
            for key in ctx.order
            if ctx.entities[key].name != ctx.speaker and key not in later
            and (self._label(ctx.entities[key].name) == "Person" or key in ctx.people)
        ]
        if not people and ctx.thread is not None:  # "Lina got her cat! ..., she named it X": Lina, known as a person
            said_before = ctx.message[: max(0, ctx.message.find(self.text))]
            people = [
                n for n, label in ctx.thread.names.items()
                if label == "Person" and n != ctx.speaker and ctx.thread.genders.get(n.casefold(), word) == word
                and re.search(rf"\b{re.escape(n)}\b", said_before)
            ]
        if len(people) > 1:
            people = of_gender(word, ctx.message, people)
        if len(people) == 1:
            return [Subject(people[0], 0.6)]
        earlier = thread_person(ctx, word, max(0, ctx.message.find(self.text))) if not people else None
        if earlier is not None and self._label(earlier) == "Person":
            return [Subject(earlier, 0.6)]
        return []

    def _person_after(self, k: int) -> Run | None:
        words = self.words
        j = k
        while j < len(words) and (words[j] in _OWNERS or words[j] in _PEOPLE) and j < k + 3:
            j += 1
        run = self.at.get(j)
        return run if run is not None and self._closed(run) and self._person(run.name) else None

    def _here(self, k: int) -> bool:
        """ "they use X here (as well)", "we use X at work": the speaker's workplace's tools."""
        words = self.words
        for j in range(k + 2, min(len(words), k + 7)):
            if words[j] == "here" or (words[j] == "at" and j + 1 < len(words) and words[j + 1] == "work"):
                return True
            if words[j] == "at" and j + 2 < len(words) and words[j + 1] == "the" and (
                words[j + 2] in WORKPLACE_NOUNS | _BUSINESS_KINDS or words[j + 2] in ("hotel", "office")
            ):
                return True  # "we're still on Opera PMS at the hotel"
            if words[j] in _BREAKS:
                return False
        return False

    def _workplace(self, k: int) -> bool:
        """ "the whole unit uses", "our team uses": where the speaker works."""
        words = self.words
        j = k - 1
        while j >= 0 and words[j] in WORKPLACE_NOUNS | {"whole", "entire"}:
            j -= 1
        if j >= 0 and words[j] == "new":
            j -= 1  # "the new ward uses X"
        whole = not {"whole", "entire"}.isdisjoint(words[j + 1 : k])  # "our team uses Jira" may be theirs alone
        return (whole or words[j] == "the") and j >= 0 and words[j] in ("our", "the", "my") and words[k - 1] in (
            WORKPLACE_NOUNS
        )

    def _label(self, name: str) -> str | None:
        """The name's label: by its own words, as read in this message, or as the conversation knew it."""
        thread = self.ctx.thread
        found = name_label(name) or self.ctx.label(name) or (thread.names.get(name) if thread is not None else None)
        if found is None and thread is not None:  # "Mothlight": Mothlight Games, an organisation said before
            longer = expand_names(thread, [(name, None)], self.ctx.speaker).get(name)
            found = thread.names.get(longer) if longer else None
        return found

    def _person(self, name: str) -> bool:
        label = self._label(name)
        return label == "Person" or (label is None and name.casefold() in self.ctx.people) or (
            label is None and _THINGS.isdisjoint(name.lower().split())
        )

    def _worked_at(self, run: Run, verb: str) -> bool:
        """ "my sister Priya works in marketing at Unilever": after a verb of working, one capitalised word is
        a workplace too (not after a noun such as "classes")."""
        return verb in _WORK_VERBS | {"teach", "teaches", "teaching"} and self._label(run.name) is None and (
            run.name[:1].isupper()
        )

    def _org(self, run: Run) -> bool:
        label = self._label(run.name)
        if label in ("Person", "Location"):
            return False
        return (
            label == "Organization"
            or len(run.name.split()) > 1
            or (run.name.isupper() and len(run.name) > 2)  # "a phd student at LUMS": an acronym
            or not _ORG_WORDS.isdisjoint(run.name.lower().split())
        )

    def _head(self, k: int) -> int:
        """Where the clause holding token ``k`` starts."""
        while k > 0 and self.words[k - 1] not in _BREAKS:
            k -= 1
        return k

    def _add(
        self, subject: Subject, relation: str, run: Run, label: str = "Organization", at: int = 0, own: bool = False
    ) -> int:
        """One fact, unless the clause from ``at`` (its own words only, with ``own``) to the name says it is
        negated, ended or past."""
        ctx = self.ctx
        if not subject.name or subject.name.casefold() == run.name.casefold():
            return 0
        if not _ENDED.isdisjoint(self.words[at if own else self._head(at) : run.last + 1]):
            return 0
        pair = {subject.name.casefold(), run.name.casefold()}
        if any({s, o} == pair for s, _, o in ctx.facts):
            return 0  # another rule read this pair already
        return ctx.add_fact(subject, relation, (run.name, self._label(run.name) or label), (None, None), self.text,
                            cap=0.7)


def _kind(word: str) -> str | None:
    if word in _GROUP_KINDS:
        return "group"
    if word in _BUSINESS_KINDS:
        return "business"
    if word in _SCHOOL_KINDS:
        return "school"
    return None
