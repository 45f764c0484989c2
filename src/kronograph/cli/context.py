"""``kronograph context``: the memory block an agent would put in its prompt for a question."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from .._context import CONTEXT_SCOPES
from .options import DEFAULT_DB, Db, Group, option
from .output import fail
from .point_in_time import AT_HELP, lookahead_json, refuse_with_at
from .session import open_memory

__all__ = ["context"]


def _hits(hits: list[Any]) -> list[dict[str, Any]]:
    return [
        {"item": h.item.model_dump(mode="json", warnings=False), "score": h.score, "methods": list(h.methods)}
        for h in hits
    ]


def context(
    group: Group,
    question: Annotated[
        str | None,
        typer.Argument(metavar="QUESTION", show_default=False,
                       help="What the block should be about; without it: the user and the latest."),
    ] = None,
    as_of: Annotated[str | None, option("TIME", "The block as the world was at TIME.")] = None,
    known_at: Annotated[str | None, option("TIME", "The block as the memory believed at TIME.")] = None,
    at: Annotated[str | None, option("TIME", AT_HELP)] = None,
    max_tokens: Annotated[int, option("N", "At most N tokens (50-100000).", min=50, max=100_000)] = 1000,
    scope: Annotated[
        list[str], option("SCOPE", f"Only this part: {', '.join(CONTEXT_SCOPES)}; repeatable (default: all).")
    ] = [],  # noqa: B006
    template: Annotated[
        str | None, option("FORMAT", "Lay the block out with this format string ({facts_text}, {user}...).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the block with what went into it as a JSON object instead.")
    ] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Print the memory block for QUESTION (Memory.context): the user, facts with
    their validity and what they replaced, entity summaries, dated episode
    excerpts, each citing its episodes. No model."""
    for name in scope:
        if name not in CONTEXT_SCOPES:
            fail(f"--scope: unknown scope {name!r}; the scopes are {', '.join(CONTEXT_SCOPES)}")
    refuse_with_at(at, as_of=as_of, known_at=known_at)
    report = None
    with open_memory(db, group=group) as memory:
        if at is not None:
            view = memory.at(at)
            block = view.context(group, question, max_tokens=max_tokens,
                                 scopes=tuple(dict.fromkeys(scope)) or CONTEXT_SCOPES, template=template)
            report = view.lookahead(block)
        else:
            block = memory.context(
                group, question, as_of=as_of, known_at=known_at, max_tokens=max_tokens,
                scopes=tuple(dict.fromkeys(scope)) or CONTEXT_SCOPES, template=template,
            )
    if as_json:
        typer.echo(json.dumps({
            "text": block.text, "tokens": block.tokens, "max_tokens": block.max_tokens, "counter": block.counter,
            "query": block.query, "as_of": block.as_of.isoformat() if block.as_of else None,
            "known_at": block.known_at.isoformat() if block.known_at else None,
            "user": block.user.model_dump(mode="json") if block.user else None,
            "facts": _hits(block.facts), "entities": _hits(block.entities), "episodes": _hits(block.episodes),
            "left_out": len(block.left_out), **lookahead_json(report),
        }, indent=2))
        return
    typer.echo(block.text)
