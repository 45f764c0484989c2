"""The offline extractor: English rules, no model, no network.

It is the default when no model is configured, so it must never invent: a
clause it cannot read in full yields nothing, and so do questions,
hypotheticals, hedges and negations. See docs/offline-extractor.md for what it
understands.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from ..notes import sentence_note
from ..schema import Extraction
from .chat import plain_line, self_named, strip_prefix
from .context import Context
from .corrections import correct, take_back
from .dates import find_times
from .generic import read_generic
from .kin import KIN, name_pending, read_kin
from .lowercase import titled
from .names import Token, find_runs, name_label, tokenize
from .org_places import read_org_places
from .reader import SentenceReader
from .roles import read_roles
from .stops import read_stops, spread_switch
from .thread import Thread, expand_names, moved, newborn, recapitalise, rename
from .thread_answers import answer
from .thread_corrections import correct_earlier, quoted_then_renamed, renamed_earlier, renamed_short
from .thread_life import hired, job_town_ended, moved_in_now, moving_now
from .thread_work import manager_at_work, manager_gone
from .values import read_values
from .ventures import read_ventures

__all__ = ["OfflineExtractor"]

_SPEAKER = re.compile(r"^\s*([A-Z][\w'’.\-]*(?:\s+[A-Za-z][\w'’.\-]*){0,3})\s*:\s+(.*)$")
_NOT_SPEAKERS = frozenset(
    "note update re fyi ps edit subject summary warning todo question answer status state stage phase budget".split()
)
_KIN_PEOPLE = frozenset(word for word, (_, _, label) in KIN.items() if label == "Person")
# an emoji ends a chat sentence too: "don't ask 😂 also i switched ..." is two
_SENTENCE_END = re.compile(
    r"[.!?]+[\"')\]]*(?:\s+|$)|\n+|[\U0001F000-\U0001FAFF\u2600-\u27BF][\uFE0F\u200D\U0001F000-\U0001FAFF\u2600-\u27BF]*(?:\s+|$)"
)
# the emoji that ended a sentence is no part of its last word: "I'm allergic to latex 🙃" is about latex
_TRAILING_EMOJI = re.compile(
    r"\s*[\U0001F000-\U0001FAFF\u2600-\u27BF][\uFE0F\u200D\U0001F000-\U0001FAFF\u2600-\u27BF]*$"
)
# "dinner ideas without shellfish?", "recipes with no tree nuts": what the next "i'm allergic" is to
_WITHOUT = re.compile(r"\b(?:without|with\s+no|free\s+of)\s+([a-z]+(?:\s+[a-z]+)?)\s*[?.!,]")
_ABBREVIATIONS = frozenset("dr mr mrs ms st prof mt jr sr vs etc".split())
_STRONG_HEDGES = frozenset(
    """
    maybe perhaps probably possibly if unless whether supposedly allegedly apparently rumor rumour rumors rumours
    rumored rumoured hopefully someday wonder wondering guess heard
    """.split()
)
_QUESTION_START = frozenset("do does did is are was were will would can could should shall has have".split())
_QUESTION_SUBJECTS = frozenset("i we you he she they it there".split())
# An assistant's suggestions, questions and echoes of what the user said are
# not new facts, nor is a system prompt's instruction or a tool's output (an agent files what it
# learns from a tool as an episode of its own).
_NOT_REPORTING = frozenset({"assistant", "system", "tool"})
_FIRST_PERSON = frozenset("i me we us".split())
_THIRD_PERSON = frozenset("he she they he's she's they're his her their him them".split())
_WEAK_HEDGE_PAIRS = frozenset({("not", "sure"), ("i", "think"), ("i", "believe"), ("no", "idea")})


class OfflineExtractor:
    """Rule-based English extraction: speaker, names, a fixed set of relation
    patterns, and dates resolved against the episode's reference time."""

    name = "offline"

    def __init__(self) -> None:
        self.notes: list[str] = []  # the last extraction's sentences that gave no fact

    def extract(
        self,
        content: str,
        *,
        reference_time: datetime,
        kind: str = "message",
        speaker: str | None = None,
        role: str | None = None,
        addressee: str | None = None,
        thread: Thread | None = None,
    ) -> Extraction:
        """``speaker`` is whom "I", "me" and "my" mean (else a "Name:" prefix
        names it); ``role`` the message's role ("user", "assistant", ...);
        ``addressee`` whom "you" means (the assistant, in a user's message);
        ``thread`` what the conversation said before it (see thread.py)."""
        if thread is not None:
            content = recapitalise(content, thread, speaker)
        ctx = Context(speaker=speaker, reference=_aware(reference_time), addressee=addressee, message=content)
        ctx.thread = thread
        if ctx.speaker:
            ctx.mention(ctx.speaker, "Person")
        reporting = role is None or role.casefold() not in _NOT_REPORTING
        if reporting and (statement := answer(thread, content)) is not None:
            self._answer(statement, reference_time, ctx)
        for raw in content.splitlines() or [content]:
            line = plain_line(raw)
            body = line = strip_prefix(line, speaker) if kind == "message" else line
            if kind == "message" and (m := _SPEAKER.match(line)) and _may_speak(m.group(1)):
                if speaker is None or m.group(1).casefold() == speaker.casefold():
                    ctx.speaker = m.group(1).strip()
                    ctx.mention(ctx.speaker, "Person")
                body = m.group(2)
            for sentence in [part for whole in _sentences(body) for part in _told_then_asked(whole)]:
                if reporting:
                    self._sentence(sentence, reference_time, ctx)
                else:
                    ctx.unread.append(sentence_note(sentence, f"said by the {role.casefold()}"))  # type: ignore[union-attr]
        if reporting:
            spread_switch(ctx)
            moving_now(ctx, content)
            moved_in_now(ctx, content)
            quoted_then_renamed(ctx, content)
        if thread is not None:
            if reporting:  # a baby or a move the thread announced, now here or done
                newborn(ctx, content)
                moved(ctx, content)
                hired(ctx, content)
            short = expand_names(thread, [(e.name, ctx.label(e.name)) for e in ctx.entities.values()], ctx.speaker)
            rename(ctx, renamed_short(ctx, content, short) if reporting else short)
            job_town_ended(ctx)
            if reporting:
                renamed_earlier(ctx, content)
        if reporting:
            manager_gone(ctx, content)
            manager_at_work(ctx)
        self.notes = ctx.unread
        return Extraction(
            reasoning=_reasoning(ctx), entities=list(ctx.entities.values()), facts=list(ctx.facts.values())
        )

    def _answer(self, statement: str, reference: datetime, ctx: Context) -> None:
        """The user's "yes" to the assistant's question, read as the user's statement: at lower confidence,
        and noted nowhere (the words are not the user's)."""
        unread, skipped, not_understood, had = len(ctx.unread), dict(ctx.skipped), ctx.not_understood, set(ctx.facts)
        self._sentence(statement, reference, ctx)
        del ctx.unread[unread:]
        ctx.skipped, ctx.not_understood = skipped, not_understood
        for key in set(ctx.facts) - had:
            ctx.facts[key].confidence = min(ctx.facts[key].confidence or 0.7, 0.7)

    def _sentence(self, text: str, reference: datetime, ctx: Context) -> None:
        tokens = tokenize(text)
        if not tokens:
            return
        found = find_runs(text, tokens)
        runs = self_named(tokens, sorted(found + titled(tokens, found), key=lambda r: r.first), ctx.speaker)
        for run in runs:
            label = name_label(run.name, run.title)
            if label == "Location" and run.first > 0 and tokens[run.first - 1].lower in _KIN_PEOPLE:
                ctx.people.add(run.name.casefold())  # "my boyfriend Santiago": a person for "he", though a city
            if label or not run.sentence_initial or run.last > run.first:
                ctx.mention(run.name, label)
            if ctx.speaker and run.name == ctx.speaker:
                said = " ".join(t.text for t in tokens[run.first : run.last + 1])
                if said.casefold() != ctx.speaker.casefold():  # "hi, i'm sam": the name they go by, kept as theirs
                    ctx.mention(" ".join(w[:1].upper() + w[1:] for w in said.split()), "Person")
        if (avoided := _WITHOUT.search(text)) is not None:
            ctx.avoided = avoided.group(1)
        if (why := _skip_reason(tokens)) is not None:
            ctx.skipped[why] = ctx.skipped.get(why, 0) + 1
            ctx.unread.append(sentence_note(text, why))
            read_kin(text, tokens, runs, [], ctx, told=False)  # "my friend Tom says ..., no idea if true"
            ctx.about_other = _about_other(tokens)
            return
        times = find_times(text, reference)
        before = set(ctx.facts)
        tied = name_pending(text, tokens, runs, ctx)
        lowered, kin_found = read_kin(text, tokens, runs, times, ctx)
        tied += kin_found
        runs_at = {r.lead: r for r in runs + lowered}
        runs_end = {r.last: r for r in runs + lowered}
        clauses = SentenceReader(text, tokens, runs_at, runs_end, times, ctx)
        made = clauses.read() + tied
        made += read_stops(text, ctx, None) + read_ventures(text, ctx) + read_org_places(tokens, runs, ctx, text)
        made += read_generic(text, tokens, runs + lowered, ctx)
        made += read_values(text, ctx) + read_roles(text, tokens, runs + lowered, ctx, before)
        made += correct(tokens, runs + lowered, ctx, made > 0)
        made += correct_earlier(tokens, runs + lowered, ctx) + take_back(tokens, ctx)
        ctx.about_other = _about_other(tokens)
        if made == 0:
            ctx.not_understood += 1 if clauses.candidates else 0
            ctx.unread.append(sentence_note(text, None))


def _may_speak(prefix: str) -> bool:
    """Whether "<prefix>: ..." names a speaker: not "Update:", "Project status:", "The budget:"."""
    words = prefix.lower().split()
    return prefix.lower() not in _NOT_SPEAKERS and words[-1] not in _NOT_SPEAKERS and words[0] not in _NOT_NAMES


_NOT_NAMES = frozenset("the our my your their his her its".split())


def _aware(when: datetime) -> datetime:
    """Naive is UTC; an aware time keeps its zone, whose calendar days
    relative dates count in."""
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when


def _about_other(tokens: list[Token]) -> bool:
    """A sentence about a third person ("he's in a student flat"), with no word of the speaker's own."""
    words = {t.lower for t in tokens}
    return _FIRST_PERSON.isdisjoint(words) and not _THIRD_PERSON.isdisjoint(words)


def _skip_reason(tokens: list[Token]) -> str | None:
    """Why a whole sentence states no fact: a question, a condition, hearsay or a hedge."""
    words = [t.lower for t in tokens]
    if words[-1] == "?" or (
        words[0] in _QUESTION_START
        and len(words) > 2
        and (words[0].startswith("d") or words[1] in _QUESTION_SUBJECTS or tokens[1].text[0].isupper())
    ):
        return "question"  # "Does Tom work at Acme", "Is she still in Rome": asked, not told
    if not _STRONG_HEDGES.isdisjoint(words) or not _WEAK_HEDGE_PAIRS.isdisjoint(zip(words, words[1:])):
        return "hedged"
    return None


_ASKING = re.compile(
    r",\s+(?:so\s+|but\s+|and\s+)?(?:what|how|why|where|when|which|who|any|anything|can|could|should|would|do|does|"
    r"is|are|got)\b[^,]*\?$",
    re.IGNORECASE,
)


def _told_then_asked(sentence: str) -> list[str]:
    """ "i'm allergic to penicillin, what do they give instead?": a statement, then a question."""
    m = _ASKING.search(sentence) if sentence.endswith("?") else None
    if m is None or len(sentence[: m.start()].split()) < 3:
        return [sentence]
    return [sentence[: m.start()].strip(), sentence[m.start() + 1 :].strip()]


def _sentences(text: str) -> list[str]:
    """Split at sentence ends, but not after "Dr." or "St."."""
    found, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        word = text[: m.start()].rsplit(None, 1)[-1].lower() if text[: m.start()].strip() else ""
        if m.group(0).startswith(".") and word.rstrip(".") in _ABBREVIATIONS and m.end() < len(text):
            continue
        found.append(_TRAILING_EMOJI.sub("", text[start : m.end()].strip()))
        start = m.end()
    if text[start:].strip():
        found.append(text[start:].strip())
    return [s for s in found if s]


def _reasoning(ctx: Context) -> str:
    parts = [f"rule-based: {len(ctx.facts)} fact{'s' if len(ctx.facts) != 1 else ''} from explicit patterns"]
    parts += [f"{n} sentence{'s' if n != 1 else ''} skipped ({why})" for why, n in sorted(ctx.skipped.items())]
    if ctx.not_understood:
        parts.append(f"{ctx.not_understood} sentence{'s' if ctx.not_understood != 1 else ''} not understood")
    return "; ".join(parts)
