"""Choosing what goes into a block: by value per token, within the budget.

Each candidate line (a *piece*) has a value (its relevance, weighted by
what kind of line it is: see :mod:`kronograph.context.value`) and a size in
tokens. Pieces go in greedily, the most value per token first, while the
running size (each line, plus its section's heading with the first line
under it)
stays within the budget; then the laid-out text is counted whole, and while
it is over, the pieces of least value per token come out; while there is
room, the next pieces are tried on the whole text. Nothing is trusted to
add up: the final text's count is what must fit. (A piece's size is the
counter's count of all the candidate lines together, shared out by each
line's estimate: one count, not one a line.)

Redundant pieces never go in: a line whose text is already in; a fact
shown in another fact's line as what that one replaced; an episode excerpt
whose content words are all in the lines of the block's facts that cite
that episode (the facts already say what it said); an entity whose summary's
content words are all in the block's facts. Coverage is checked as
pieces go in and once more at the end, when a later fact may cover an
earlier excerpt; what that frees is filled again. Deterministic: ties go
by the pieces' order as given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .tokens import TokenCounter

__all__ = ["FILL_TRIES", "LINE_TOKENS", "Piece", "pack"]

LINE_TOKENS = 30  # about a short chat turn: below it value per token favoured greetings over answers
FILL_TRIES = 4


@dataclass(slots=True, eq=False)
class Piece:
    """A candidate line of the block."""

    section: str  # "facts", "entities" or "episodes"
    line: str
    value: float
    item: Any  # the Hit it renders
    tokens: int = 0
    terms: frozenset[str] = frozenset()  # content words (episodes: of the excerpt; facts: of the line)
    cites: tuple[str, ...] = ()  # facts: their source episode ids
    episode: str | None = None  # episodes: its id
    covers: frozenset[str] = frozenset()  # facts: uuids of the facts its line shows as replaced
    uuid: str = ""
    order: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    headings: tuple[tuple[str, int], ...] = ()  # (heading, its tokens): paid by the first line under it

    @property
    def density(self) -> float:
        """Value per token, a line counted ``LINE_TOKENS`` more than its size:
        the attention any line takes, which keeps many tiny lines from
        crowding out a longer, more relevant one."""
        return self.value / (self.tokens + LINE_TOKENS)


def _redundant(piece: Piece, chosen: Sequence[Piece]) -> bool:
    if piece.section == "facts":
        return any(piece.uuid in c.covers for c in chosen if c is not piece)
    if piece.section == "episodes" and piece.terms:
        said: set[str] = set()
        for c in chosen:
            if c.section == "facts" and piece.episode in c.cites:
                said |= c.terms
        return piece.terms <= said
    if piece.section == "entities" and piece.terms:
        return piece.terms <= {t for c in chosen if c.section == "facts" for t in c.terms}
    return False


def _key(piece: Piece) -> tuple[float, int]:
    return (-piece.density, piece.order)


def pack(
    pieces: Sequence[Piece],
    *,
    layout: Callable[[list[Piece]], str],
    counter: TokenCounter,
    max_tokens: int,
) -> tuple[list[Piece], str, int]:
    """The pieces chosen, the text laid out from them and its size."""
    empty = layout([])
    base = counter.count(empty)
    ranked: list[Piece] = []
    lines: set[str] = set()
    for piece in sorted((p for p in pieces if p.value > 0), key=_key):
        if piece.line not in lines:  # a line already in is never in twice
            lines.add(piece.line)
            ranked.append(piece)
    chosen: list[Piece] = []
    dropped: set[int] = set()
    for _ in range(3):
        taken = {id(p) for p in chosen}
        opened = {h: t for p in chosen for h, t in p.headings}
        total = base + sum(p.tokens for p in chosen) + sum(opened.values())
        for piece in ranked:
            if id(piece) in dropped or id(piece) in taken or _redundant(piece, chosen):
                continue
            cost = piece.tokens + sum(t for h, t in piece.headings if h not in opened)
            if total + cost <= max_tokens:
                chosen.append(piece)
                taken.add(id(piece))
                total += cost
                opened.update(piece.headings)
        stale = [p for p in chosen if _redundant(p, chosen)]
        if not stale:
            break
        for p in stale:  # one at a time: two excerpts of one text must not both go for each other
            if _redundant(p, chosen):
                chosen.remove(p)
                dropped.add(id(p))
    text = layout(chosen)
    size = counter.count(text)
    while size > max_tokens and chosen:  # sizes were estimates: out go the least worth, about the excess at once
        excess = size - max_tokens
        for worst in sorted(chosen, key=_key, reverse=True):
            chosen.remove(worst)
            dropped.add(id(worst))
            excess -= worst.tokens
            if excess <= 0:
                break
        text = layout(chosen)
        size = counter.count(text)
    if size > max_tokens:  # the layout alone does not fit
        return [], empty, base
    return _fill(ranked, chosen, dropped, text, size, layout=layout, counter=counter, max_tokens=max_tokens)


def _fill(
    ranked: Sequence[Piece], chosen: list[Piece], dropped: set[int], text: str, size: int, *,
    layout: Callable[[list[Piece]], str], counter: TokenCounter, max_tokens: int,
) -> tuple[list[Piece], str, int]:
    """Room the estimates left: the next pieces that may fit, each tried on
    the whole text (at most ``FILL_TRIES`` counts)."""
    tries = 0
    taken = {id(p) for p in chosen}
    for piece in ranked:
        if tries >= FILL_TRIES or size >= max_tokens:
            break
        if id(piece) in taken or id(piece) in dropped or _redundant(piece, chosen):
            continue
        if size + piece.tokens > max_tokens:
            continue
        tries += 1
        trial = layout([*chosen, piece])
        n = counter.count(trial)
        if n <= max_tokens and not any(_redundant(p, [*chosen, piece]) for p in chosen):
            chosen.append(piece)
            taken.add(id(piece))
            text, size = trial, n
    return chosen, text, size
