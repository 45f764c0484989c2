"""The contradiction commands: ``contradictions`` (what stands contradicted,
scored), ``contradict`` (file a disagreement without touching either fact),
``dismiss`` (settle one, with a reason), ``tier`` (a fact's governance tier) and ``remove-fact`` (retract one fact;
another actor's standing rule or decision only with ``--reason``); and the
candidates a write raised, as ``add-fact`` and ``add`` print them."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..authority import TIERS
from ..errors import NotFoundError
from ..model import Contradiction, PossibleContradiction
from ..sync import Memory
from .options import DEFAULT_DB, Actor, Db, Group, option
from .output import console, fail, plural, short, timeline_table, when
from .session import open_memory

__all__ = ["contradict", "contradictions", "dismiss", "print_candidates", "remove_fact", "tier"]

EXCERPT = 200  # characters of a filing episode's text shown for it

Reason = Annotated[
    str | None,
    option("TEXT", "Why: required to retract, replace or re-tier another actor's standing rule or decision.",
           "--reason"),
]


def print_candidates(out: Console, found: Sequence[PossibleContradiction], texts: dict[str, str]) -> None:
    """A write's possible contradictions: candidates, not verdicts, highest tier first."""
    if not found:
        return
    out.print(f"  [yellow]![/] {plural(len(found), 'possible contradiction')} (candidates; score = authority x "
              "filer weight; a score above 0 is flagged in the audit trail):")
    for p in found:
        mine = texts.get(p.fact, f"episode {p.fact}")
        out.print(f"    {p.score:g} ({p.contradicts.tier or 'no tier'}, {p.reason}): {escape(mine)} vs "
                  f"[bold]{escape(p.contradicts.fact)}[/] [dim](fact {p.contradicts.uuid})[/]", soft_wrap=True)


def _filer_texts(memory: Memory, group: str, found: Sequence[Contradiction]) -> dict[str, str]:
    """The contradicting side's words: its fact's text, or the start of the filing episode's."""
    texts: dict[str, str] = {}
    for uuid in dict.fromkeys(c.fact for c in found):
        fact = memory.fact(group, uuid)
        if fact is not None:
            texts[uuid] = fact.fact
        elif any(c.episode_id == uuid for c in found):
            with contextlib.suppress(NotFoundError):
                content = memory.episode(group, uuid).content or ""
                texts[uuid] = content if len(content) <= EXCERPT else content[:EXCERPT] + " …"
    return texts


def contradictions(
    group: Group,
    fact: Annotated[str | None, option("UUID", "Only those naming this fact, on either side.", "--fact")] = None,
    every: Annotated[
        bool, typer.Option("--all", help="Settled ones too (dismissed, or a side no longer stands).")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print them as a JSON array instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """List the group's contradictions, highest score first: candidates flagged when something was filed
    and disagreements recorded with `contradict`. The score is the contradicted fact's tier weight times
    the filer's weight: governance risk, not severity."""
    with open_memory(db, group=group) as memory:
        found = memory.contradictions(group, fact_uuid=fact, open_only=not every)
        texts = _filer_texts(memory, group, found)
    if as_json:
        typer.echo(json.dumps([{**c.model_dump(mode="json"), "fact_text": texts.get(c.fact)} for c in found],
                              indent=2))
        return
    out = console()
    if not found:
        out.print(f"[dim]no {'' if every else 'open '}contradictions[/]")
        return
    out.print(_table(found, texts, f"{'contradictions' if every else 'open contradictions'} in {escape(group)}"))


def _table(found: Sequence[Contradiction], texts: dict[str, str], title: str) -> Table:
    table = Table(title=title, title_justify="left", header_style="bold")
    for name in ("score", "kind", "reason", "tier", "filed", "contradicts", "by", "when"):
        table.add_column(name, no_wrap=name not in ("filed", "contradicts"), overflow="fold")
    for c in found:
        kind = c.kind + (" [dim](dismissed)[/]" if c.dismissed_at else "")
        filed = f"{escape(texts.get(c.fact, ''))} [dim]({short(c.fact)})[/]".lstrip()
        filed += f"\n[dim]{escape(c.note)}[/]" if c.note else ""
        table.add_row(
            f"{c.score:g}", kind, c.reason, c.contradicts.tier or "", filed,
            f"{escape(c.contradicts.fact)} [dim]({short(c.contradicts.uuid)})[/]", escape(c.actor or ""),
            when(c.created_at),
        )
    return table


def contradict(
    group: Group,
    fact: Annotated[str, typer.Argument(metavar="FACT_UUID", help="The disagreeing fact's uuid (yours, usually).")],
    contradicted: Annotated[
        str, typer.Argument(metavar="CONTRADICTED_UUID", help="The uuid of the fact it disputes.")
    ],
    note: Annotated[str | None, option("TEXT", "Why, in words.")] = None,
    actor: Actor = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Record that FACT_UUID disagrees with CONTRADICTED_UUID, changing neither: scored, audited, listed by
    `contradictions` while both stand."""
    with open_memory(db, group=group) as memory:
        row = memory.contradict(group, fact, contradicted, note=note, actor=actor)
    out = console()
    out.print(f"[green]✓[/] recorded: fact {escape(row.fact)} contradicts [bold]{escape(row.contradicts.fact)}[/]"
              f" ({row.contradicts.tier or 'no tier'})", soft_wrap=True)
    out.print(f"  score {row.score:g} = authority {row.authority:g} x filer weight {row.actor_weight:g}")


def dismiss(
    group: Group,
    fact: Annotated[str, typer.Argument(metavar="FACT_UUID", help="The contradicting fact's uuid.")],
    contradicted: Annotated[
        str, typer.Argument(metavar="CONTRADICTED_UUID", help="The uuid of the fact it contradicted.")
    ],
    reason: Annotated[str, option("TEXT", "Why it is settled (required, recorded).", "--reason")],
    actor: Actor = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Settle the open contradictions of FACT_UUID against CONTRADICTED_UUID (a candidate that turned out
    to agree, say): they stop counting as open; the rows and their audit events stay."""
    with open_memory(db, group=group) as memory:
        count = memory.dismiss_contradiction(group, fact, contradicted, reason=reason, actor=actor)
    console().print(f"[green]✓[/] dismissed {plural(count, 'contradiction')}")


def tier(
    group: Group,
    fact: Annotated[str, typer.Argument(metavar="FACT_UUID", help="The fact's uuid.")],
    value: Annotated[str, typer.Argument(metavar="TIER", help=f"One of {', '.join(TIERS)}; or none.")],
    reason: Reason = None,
    actor: Actor = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Set a fact's governance tier (a new version of the fact; its history keeps the old one)."""
    if value != "none" and value not in TIERS:
        fail(f"TIER: must be one of {', '.join(TIERS)} or none, not {value!r}")
    with open_memory(db, group=group) as memory:
        updated = memory.set_tier(group, fact, None if value == "none" else value, actor=actor, reason=reason)
    console().print(f"[green]✓[/] fact {escape(updated.uuid)} is now of tier [bold]{updated.tier or 'none'}[/]: "
                    f"{escape(updated.fact)}", soft_wrap=True)


def remove_fact(
    group: Group,
    fact: Annotated[str, typer.Argument(metavar="FACT_UUID", help="The fact's uuid.")],
    reason: Reason = None,
    actor: Actor = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Retract one fact, whatever its sources: history keeps what was believed; facts only it had
    closed get their interval back."""
    with open_memory(db, group=group) as memory:
        result = memory.remove_fact(group, fact, actor=actor, reason=reason)
    out = console()
    out.print(f"[green]✓[/] removed fact [bold]{escape(fact)}[/]: {plural(len(result.deleted_facts), 'fact')} "
              f"deleted, {plural(len(result.deleted_entities), 'entity', 'entities')} deleted")
    if result.changed:
        out.print(timeline_table(result.changed, "interval changed"))
