"""Endings of a link the conversation already holds, said of the linked thing or by its holder.

- "Buildkite was switched off on Friday", "the ArchiCAD licences were not renewed", "Loyverse is cancelled",
  "our Figma subscription has been discontinued": every earlier standing link to that name (the speaker's
  tool, a person's employer or club) ends (NO_LONGER_LINKED_TO);
- "I cancelled the Talviuimarit membership", "we didn't renew our Slack licences", "I've ended my gym
  membership at PureGym": the speaker's own link to that name ends.

Only a name an earlier message linked counts (in full, or by its first or last word when that is unique:
"Talviuimarit" of Helsingin Talviuimarit); a thing (not a person or place) said before that no earlier fact
links is the speaker's. Nothing from a plan, a doubt, a question, hearsay or a negation:
"X will be switched off", "X is being shut down", "if they cancel X", "was X cancelled?", "Tom says X is
cancelled", "X was not cancelled" (but "not renewed" is itself the ending).
"""

from __future__ import annotations

from .context import Context, Subject
from .names import Run, Token
from .patterns import ENDINGS
from .thread_corrections import _ENDED

__all__ = ["ended_links"]

_LINKS = frozenset(ENDINGS["NO_LONGER_LINKED_TO"])
_AUX = frozenset("was were is are 's 're has have had been got get gets".split())
_PASSIVE = _AUX - {"has", "have", "had"}  # "X has been dropped", not "Acme has dropped the Pro plan"
# one word that ends it, said of the thing ("X was cancelled")
_ENDS = frozenset(
    "cancelled canceled discontinued decommissioned retired terminated scrapped axed dropped deleted".split()
)
# two words that end it ("switched off", "shut down", "not renewed")
_ENDS2 = frozenset(
    {
        ("switched", "off"),
        ("turned", "off"),
        ("shut", "down"),
        ("shutdown", ""),
        ("phased", "out"),
        ("not", "renewed"),
        ("n't", "renewed"),
        ("wound", "down"),
        ("closed", "down"),
    }
)
# said of the thing itself, no auxiliary: "Globex went bust", "the shop closed down", "our X plan expired"
_FOLDED = frozenset(
    {
        ("went", "bust"),
        ("went", "under"),
        ("went", "bankrupt"),
        ("closed", "down"),
        ("shut", "down"),
        ("ceased", "trading"),
        ("folded", "."),
        ("folded", ","),
        ("folded", ""),
    }
)
_INTRANSITIVE = frozenset(
    ", . ! ; and so because in on last this yesterday today recently finally earlier after".split() + [""]
)  # what may follow "X shut down" (not "shut down the Leeds office")
_LAPSED = frozenset("expired lapsed ended".split())  # only after a held thing: "my X membership lapsed"
# what the speaker does to end their own ("I cancelled the X membership")
_ACTS = frozenset("cancelled canceled ended terminated stopped dropped quit".split())
_HELD = frozenset(
    "licence licences license licenses subscription subscriptions membership memberships account accounts "
    "contract contracts plan plans service instance server servers system setup".split()
)
_SPAN_END = frozenset(", . ; ! and because though anyway now already last this yesterday today".split())
_DETERMINERS = frozenset("the our my their his her its".split())
_REFUSE = frozenset(
    """
    will 'll going gonna might may could would should must if whether maybe probably perhaps planning
    soon next being says said say told tells heard hear rumour rumor apparently supposedly reckon reckons think
    thinks want wants hope hopes never ? almost nearly
    """.split()
)


def ended_links(tokens: list[Token], runs: list[Run], ctx: Context, text: str) -> int:
    """The earlier links this sentence says were switched off, cancelled or not renewed; how many facts."""
    thread, words = ctx.thread, [t.lower for t in tokens]
    if (
        thread is None
        or not ctx.speaker
        or not _REFUSE.isdisjoint(t.text if t.text == "May" else t.lower for t in tokens)
    ):
        return 0
    made = 0
    for k, word in enumerate(words):
        after = words[k + 1] if k + 1 < len(words) else ""
        if (word in _ENDS or (word, after) in _ENDS2) and k >= 2 and words[k - 1] in _PASSIVE:
            if word == "not" or after == "renewed" and word == "n't":
                pass
            elif "not" in words[max(0, k - 3) : k] or "n't" in words[max(0, k - 3) : k]:
                continue  # "X was not cancelled"
            head = k - 1
            while head > 0 and words[head - 1] in _AUX | {"been", "not", "n't"}:
                head -= 1
            found = _named(tokens, runs, ctx, _phrase_start(words, head), head)
            if found is not None:
                made += _end(ctx, found, None, text)
        elif ((word, after) in _FOLDED and (words[k + 2] if k + 2 < len(words) else "") in _INTRANSITIVE) or (
            word in _LAPSED and k >= 1 and words[k - 1] in _HELD
        ):
            found = _named(tokens, runs, ctx, _phrase_start(words, k), k)  # "Globex went bust", "X membership lapsed"
            if found is not None:
                made += _end(ctx, found, None, text)
        elif word in _ACTS and k >= 1 and (
            words[k - 1] in ("i", "we", "have", "'ve", "had") or words[k - 2 : k] == ["had", "to"]
        ):
            if "not" in words[max(0, k - 3) : k] or "n't" in words[max(0, k - 3) : k]:
                continue
            end = k + 1
            while end < len(words) and end - k <= 5 and words[end] not in _SPAN_END:
                end += 1
            found = _named(tokens, runs, ctx, k + 1, end)
            if found is not None:
                made += _end(ctx, found, ctx.speaker, text)
        elif word in ("did", "do") and after == "n't" and words[k + 2 : k + 3] == ["renew"] and k >= 1:
            found = _named(tokens, runs, ctx, k + 3, min(len(words), k + 8))
            if found is not None and words[k - 1] in ("i", "we"):
                made += _end(ctx, found, ctx.speaker, text)
    return made


def _phrase_start(words: list[str], head: int) -> int:
    """Where the noun phrase ending before ``head`` starts: after the last clause break."""
    start = head
    while start > 0 and words[start - 1] not in (",", ".", ";", "!", ":", "and", "so", "but", "then", "that"):
        start -= 1
    return start


def _named(tokens: list[Token], runs: list[Run], ctx: Context, first: int, end: int) -> str | None:
    """The one earlier-linked name in tokens[first:end], when the other words there are a determiner or a held
    thing ("the ArchiCAD licences", "our Slack plan", "my gym membership at PureGym")."""
    if end <= first or end - first > 6:
        return None
    names = [r for r in runs if r.first >= first and r.last < end]
    plain = _DETERMINERS | _HELD | {"at", "with", "for", "of", "'s"}
    lower = [i for i in range(first, end) if tokens[i].lower not in plain and tokens[i].text.isalpha()]
    if not names and len(lower) == 1 and len(tokens[lower[0]].text) > 3:  # "quit the harriers": Kirkstall Harriers
        names = [Run(lower[0], lower[0], tokens[lower[0]].text)]
    rest = {tokens[i].lower for i in range(first, end) if not any(r.first <= i <= r.last for r in names)}
    if not rest <= _DETERMINERS | _HELD | {"at", "with", "for", "of", "'s"}:
        return None
    found = {_linked(ctx, r.name) for r in names} - {None}
    return found.pop() if len(found) == 1 else None


def _linked(ctx: Context, name: str) -> str | None:
    """The one object of an earlier standing link that ``name`` names, in full or by a first or last word."""
    thread = ctx.thread
    if thread is None:
        return None
    said = name.casefold()
    objects = {f.object for f in thread.facts if f.relation in _LINKS}
    if not objects & {o for o in thread.names if o.casefold() == said}:  # a tool a correction put in, say
        objects |= {o for o, label in thread.names.items() if label not in ("Person", "Location")}
    exact = [o for o in objects if o.casefold() == said]
    if exact:
        return exact[0]
    part = [o for o in objects if o.casefold().startswith(said + " ") or o.casefold().endswith(" " + said)]
    return part[0] if len(part) == 1 else None


def _end(ctx: Context, obj: str, only: str | None, text: str) -> int:
    """NO_LONGER_LINKED_TO for each earlier holder of a link to ``obj`` (only ``only``'s, when given)."""
    thread, made = ctx.thread, 0
    holders = {f.subject for f in thread.facts if f.object == obj and f.relation in _LINKS} if thread else set()
    ended = {f.subject for f in thread.facts if f.object == obj and f.relation.startswith(_ENDED)} if thread else set()
    if not holders and ctx.speaker:
        holders = {ctx.speaker}  # a name said before but linked by no rule: the speaker's, as "no more X" is
    for who in sorted(holders - ended):
        if only is not None and who.casefold() != only.casefold():
            continue
        made += ctx.add_fact(
            Subject(who, 0.8), "NO_LONGER_LINKED_TO", (obj, ctx.label(obj)), (None, None), text, cap=0.8
        )
    return made
