"""Choosing what goes into a block: by value per token, within the budget.

Each candidate line (a *piece*) has a value (its relevance, weighted by
what kind of line it is: see :mod:`kronograph.context.value`) and a size in
tokens. Pieces go in greedily, the most value per token first, while the
running size (each line, plus a section's heading with its first line)
stays within the budget; then the laid-out text is counted whole, and while
it is over, the piece of least value per token comes out. Nothing is
trusted to add up: the final text's count is what must fit.

Redundant pieces never go in: a line whose text is already in; a fact
shown in another fact's line as what that one replaced; an episode excerpt
whose content words are all in the lines of the block's facts that cite
that episode (the facts already say what it said). Coverage is checked as
pieces go in and once more at the end, when a later fact may cover an
earlier excerpt; what that frees is filled again. Deterministic: ties go
by the pieces' order as given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .tokens import TokenCounter

__all__ = ["LINE_TOKENS", "Piece", "pack"]

LINE_TOKENS = 8


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

    @property
    def density(self) -> float:
        """Value per token, a line counted ``LINE_TOKENS`` more than its size:
        the attention any line takes, which keeps many tiny lines from
        crowding out a longer, more relevant one."""
        return self.value / (self.tokens + LINE_TOKENS)


def _redundant(piece: Piece, chosen: Sequence[Piece]) -> bool:
    if any(c.line == piece.line for c in chosen if c is not piece):
        return True
    if piece.section == "facts":
        return any(piece.uuid in c.covers for c in chosen if c is not piece)
    if piece.section == "episodes" and piece.terms:
        said: set[str] = set()
        for c in chosen:
            if c.section == "facts" and piece.episode in c.cites:
                said |= c.terms
        return piece.terms <= said
    return False


def _key(piece: Piece) -> tuple[float, int]:
    return (-piece.density, piece.order)


def pack(
    pieces: Sequence[Piece],
    *,
    layout: Callable[[list[Piece]], str],
    counter: TokenCounter,
    max_tokens: int,
    headings: dict[str, int],
) -> tuple[list[Piece], str, int]:
    """The pieces chosen, the text laid out from them and its size.
    ``headings``: each section's heading's tokens, paid with its first line."""
    empty = layout([])
    base = counter.count(empty)
    ranked = sorted((p for p in pieces if p.value > 0), key=_key)
    chosen: list[Piece] = []
    dropped: set[int] = set()
    for _ in range(3):
        total = base + sum(p.tokens for p in chosen) + sum(headings.get(s, 0) for s in {p.section for p in chosen})
        for piece in ranked:
            if id(piece) in dropped or any(piece is c for c in chosen) or _redundant(piece, chosen):
                continue
            opens = not any(c.section == piece.section for c in chosen)
            cost = piece.tokens + (headings.get(piece.section, 0) if opens else 0)
            if total + cost <= max_tokens:
                chosen.append(piece)
                total += cost
        stale = [p for p in chosen if _redundant(p, chosen)]
        if not stale:
            break
        for p in stale:  # one at a time: two excerpts of one text must not both go for each other
            if _redundant(p, chosen):
                chosen.remove(p)
                dropped.add(id(p))
    text = layout(chosen)
    size = counter.count(text)
    while size > max_tokens and chosen:
        worst = max(chosen, key=_key)
        chosen.remove(worst)
        text = layout(chosen)
        size = counter.count(text)
    if size > max_tokens:  # the layout alone does not fit
        return [], empty, base
    return chosen, text, size
