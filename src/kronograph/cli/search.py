"""The read commands over search: ``search`` (ranked facts, entities, episodes) and ``conflicts`` (a fact's slot)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..lookahead import LookaheadReport
from ..model import Fact
from ..search.recipes import RECIPES
from ..search.types import Hit, SearchFilters, SearchResults
from .facts import _qualifiers
from .options import DEFAULT_DB, Db, Group, option
from .output import console, fail, interval, plural, print_json, short, when
from .point_in_time import AT_HELP, lookahead_json, print_lookahead, refuse_with_at
from .session import open_memory

__all__ = ["conflicts", "search"]

SCOPES = ("facts", "entities", "episodes", "communities")
SNIPPET = 80  # characters of an episode's text in the table


def _score(score: float) -> str:
    return f"{score:.4g}"


def _methods(hit: Hit[Any]) -> str:
    return ", ".join(hit.methods)


def _table(title: str, columns: Sequence[str], wrapping: str, groups: bool) -> Table:
    """A scope's table; with several groups searched, a first column says which group each hit is from."""
    table = Table(title=title, title_justify="left", header_style="bold")
    for name in ("group", *columns) if groups else columns:
        table.add_column(
            name, no_wrap=name != wrapping, overflow="fold", style="dim" if name in ("uuid", "methods") else None,
            justify="right" if name == "score" else "left",
        )
    return table


def _group(hit: Hit[Any], groups: bool) -> tuple[str, ...]:
    return (escape(hit.item.group_id),) if groups else ()


def _facts_table(hits: Sequence[Hit[Any]], groups: bool) -> Table:
    columns = ("uuid", "subject", "relation", "object", "interval", "score", "methods")
    table = _table("facts", columns, "object", groups)
    for hit in hits:
        fact = hit.item
        table.add_row(
            *_group(hit, groups), short(fact.uuid), escape(fact.subject), escape(fact.relation),
            escape(fact.object), interval(fact), _score(hit.score), _methods(hit),
        )
    return table


def _entities_table(hits: Sequence[Hit[Any]], groups: bool) -> Table:
    table = _table("entities", ("name", "labels", "score", "methods"), "labels", groups)
    for hit in hits:
        entity = hit.item
        table.add_row(
            *_group(hit, groups), escape(entity.name), escape(", ".join(entity.labels)), _score(hit.score),
            _methods(hit),
        )
    return table


def _snippet(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= SNIPPET else line[: SNIPPET - 1] + "…"


def _episodes_table(hits: Sequence[Hit[Any]], groups: bool) -> Table:
    table = _table("episodes", ("id", "reference time", "snippet", "score", "methods"), "snippet", groups)
    for hit in hits:
        episode = hit.item
        table.add_row(
            *_group(hit, groups), escape(short(episode.uuid)), when(episode.reference_time),
            escape(_snippet(episode.content or episode.name)), _score(hit.score), _methods(hit),
        )
    return table


def _communities_table(hits: Sequence[Hit[Any]], groups: bool) -> Table:
    table = _table("communities", ("name", "size", "summary", "score", "methods"), "summary", groups)
    for hit in hits:
        community = hit.item
        table.add_row(
            *_group(hit, groups), escape(community.name), str(community.size),
            escape(_snippet(community.summary or "")), _score(hit.score), _methods(hit),
        )
    return table


_TABLES = {
    "facts": _facts_table, "entities": _entities_table, "episodes": _episodes_table,
    "communities": _communities_table,
}


def _as_json(results: SearchResults, scopes: Sequence[str], report: LookaheadReport | None = None) -> str:
    def hit(h: Hit[Any]) -> dict[str, Any]:
        # warnings=False: the store hands an episode's ``kind`` back as a plain string, which serialises the same
        return {"item": h.item.model_dump(mode="json", warnings=False), "score": h.score, "methods": list(h.methods)}

    out: dict[str, Any] = {scope: [hit(h) for h in getattr(results, scope)] for scope in scopes}
    out["left_out"] = results.left_out
    return json.dumps(out | lookahead_json(report), indent=2)


def search(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to search.", show_default=False)],
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to look for, in words.")],
    also: Annotated[
        list[str], option("GROUP", "Search this group too, ranked together with GROUP; repeatable.", "--also")
    ] = [],  # noqa: B006
    scope: Annotated[
        list[str], option("SCOPE", f"Only this scope: {', '.join(SCOPES)}; repeatable (default: all).")
    ] = [],  # noqa: B006
    recipe: Annotated[str, option("NAME", f"How to search: {', '.join(RECIPES)}.")] = "hybrid",
    limit: Annotated[int, option("N", "At most N hits per scope.", min=1)] = 10,
    as_of: Annotated[str | None, option("TIME", "Facts valid at TIME, episodes referenced by then.")] = None,
    known_at: Annotated[str | None, option("TIME", "As the memory believed at TIME.")] = None,
    at: Annotated[str | None, option("TIME", AT_HELP)] = None,
    include_retired: Annotated[
        bool, typer.Option("--include-retired", help="Closed intervals too; not with --as-of.")
    ] = False,
    include_events: Annotated[
        bool, typer.Option("--include-events", help="Events too (LEFT, MET...: moments, not standing facts).")
    ] = False,
    center: Annotated[
        list[str], option("NAME", "Centre entity for graph search and node distance; repeatable.")
    ] = [],  # noqa: B006
    relation: Annotated[list[str], option("RELATION", "Only facts of this relation; repeatable.")] = [],  # noqa: B006
    label: Annotated[
        list[str], option("LABEL", "Only entities (and facts touching one) with this label; repeatable.")
    ] = [],  # noqa: B006
    qualifier: Annotated[list[str], option(
        "KEY=VALUE", "Only facts with this qualifier (e.g. period=2024-Q2); repeatable: all must match.")
    ] = [],  # noqa: B006
    as_json: Annotated[bool, typer.Option("--json", help="Print the hits as a JSON object instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Search facts, entities, episodes and communities: current facts by default,
    or as of / as known at a time. No model."""
    for name in scope:
        if name not in SCOPES:
            fail(f"--scope: unknown scope {name!r}; the scopes are {', '.join(SCOPES)}")
    scopes = tuple(dict.fromkeys(scope)) or SCOPES
    if recipe not in RECIPES:
        fail(f"--recipe: no recipe named {recipe!r}; the recipes are {', '.join(RECIPES)}")
    if include_retired and as_of is not None:
        fail("--as-of cannot be combined with --include-retired (which returns every interval)")
    slot = _qualifiers("--qualifier", qualifier) or {}
    filters = SearchFilters(
        labels=tuple(label), relations=tuple(relation), qualifiers=slot,
    ) if label or relation or slot else None
    groups = list(dict.fromkeys([group, *also]))
    refuse_with_at(at, as_of=as_of, known_at=known_at, include_retired=include_retired)
    report = None
    with open_memory(db, group=groups) as memory:
        if at is not None:
            view = memory.at(at)
            results = view.search(groups, query, scopes=scopes, recipe=recipe, limit=limit,
                                  include_events=include_events, center_entity=center or None, filters=filters)
            report = view.lookahead(results)
        else:
            results = memory.search(
                groups, query, scopes=scopes, recipe=recipe, limit=limit, as_of=as_of, known_at=known_at,
                include_retired=include_retired, include_events=include_events, center_entity=center or None,
                filters=filters,
            )
    if as_json:
        typer.echo(_as_json(results, scopes, report))
        return
    out = console()
    for name in scopes:
        hits = getattr(results, name)
        out.print(_TABLES[name](hits, len(groups) > 1) if hits else f"[dim]no {name} match[/]")
    if results.left_out:
        out.print(
            f"[yellow]{plural(results.left_out, 'matching fact')} left out by the temporal mode[/] "
            "(use --include-retired for closed intervals, --include-events for events, or --as-of / --known-at"
            " for another time)"
        )
    print_lookahead(report)


def _status(fact: Fact) -> str:
    if fact.expired_at is not None:
        return "[red]expired[/]"
    status = "[green]current[/]" if fact.invalid_at is None else "[yellow]closed[/]"
    return status + (" [red]conflicting[/]" if fact.conflicting else "")  # held at the same time (same_time)


def conflicts(
    group: Group,
    fact_uuid: Annotated[str, typer.Argument(metavar="FACT_UUID", help="The fact's full uuid.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the facts as a JSON array instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Show a fact's slot: it and every fact competing with or held beside it, by valid time, with sources."""
    with open_memory(db, group=group) as memory:
        found = memory.conflicts(group, fact_uuid)
    if as_json:
        print_json(found)
        return
    table = Table(title=f"slot of fact {short(fact_uuid)}", title_justify="left", header_style="bold")
    for name in ("uuid", "fact", "interval", "status", "episodes"):
        table.add_column(name, no_wrap=name != "episodes", overflow="fold", style="dim" if name == "uuid" else None)
    for fact in found:
        uuid = f"[bold]{short(fact.uuid)}[/]" if fact.uuid == fact_uuid.strip() else short(fact.uuid)
        table.add_row(
            uuid, escape(fact.triple), interval(fact), _status(fact), escape(", ".join(map(short, fact.episodes)))
        )
    out = console()
    out.print(table)
    out.print(f"[dim]{plural(len(found), 'fact')} in the slot[/]")
