"""Notes on what an episode said that the graph did not take in.

Questions, plans and hedges are not facts on purpose; a sentence the reader
could not follow is a gap. Both are said back, so nobody takes silence for
understanding. Bounded: a long episode of chatter gives a short list.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MAX_NOTES", "MAX_NOTE_CHARS", "episode_notes", "sentence_note", "stored_notes"]

MAX_NOTES = 10
MAX_NOTE_CHARS = 160
WHOLE_EPISODE = "nothing understood in the episode"


def sentence_note(sentence: str, why: str | None) -> str:
    """``why`` is the reason a sentence is not a fact by design (question,
    hedged); ``None`` when the reader could not follow it."""
    head = f"no fact in ({why})" if why else "nothing understood in"
    text = " ".join(sentence.split())
    room = MAX_NOTE_CHARS - len(head) - 2
    if len(text) > room:
        text = text[: room - 1].rstrip() + "…"
    return f"{head}: {text}"


def episode_notes(unread: Sequence[str], *, facts: int) -> list[str]:
    """The notes an episode carries: its unread sentences, bounded, or the
    whole-episode note when nothing was extracted and no sentence was named."""
    notes = list(unread[:MAX_NOTES])
    if len(unread) > MAX_NOTES:
        notes.append(f"and {len(unread) - MAX_NOTES} more sentences")
    if not notes and facts == 0:
        notes.append(WHOLE_EPISODE)
    return notes


def stored_notes(notes: Sequence[str], *, keep_text: bool) -> list[str]:
    """What is stored with the episode: without the quoted sentences when its
    raw content is not kept (the notes must not keep what the content drops)."""
    if keep_text:
        return list(notes)
    return [note.split(":", 1)[0] if ": " in note else note for note in notes]
