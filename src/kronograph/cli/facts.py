"""The fact commands: ``add-fact``, ``facts``, ``timeline``, ``history`` and ``remove-episode``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..errors import InvalidInputError
from ..model import Cardinality
from ..qualifiers import describe, parse_pairs
from .contradictions import print_candidates
from .options import DEFAULT_DB, Actor, AsJson, DataSubject, Db, Group, TierOption, option
from .output import console, fact_table, fail, interval, print_json, short, timeline_table, when
from .point_in_time import AT_HELP, print_lookahead, refuse_with_at
from .session import open_memory

__all__ = ["add_fact", "facts", "history", "remove_episode", "timeline"]


def _relation_types(specs: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``NAME=CARDINALITY`` specs, each optionally followed by ``:`` parts: the
    relation's qualifier keys (``DELIVERIES=many_to_one:period``, several
    comma-separated) and ``hold`` or ``correct`` (what two values at the same
    valid time do: kronograph.same_time), in either order."""
    kinds = ", ".join(c.value for c in Cardinality)
    out: dict[str, dict[str, Any]] = {}
    for spec in specs:
        name, sep, rest = spec.partition("=")
        cardinality, *parts = (p.strip() for p in rest.split(":"))
        policies = [p for p in parts if p in ("hold", "correct")]
        keys = [k.strip() for p in parts if p not in ("hold", "correct") for k in p.split(",")]
        if (not sep or not name.strip() or cardinality not in {c.value for c in Cardinality}
                or len(policies) > 1 or any(not k for k in keys)):
            fail(f"--relation-type: expected NAME=CARDINALITY[:KEY,...][:hold|:correct] with CARDINALITY one of"
                 f" {kinds}, got {spec!r}")
        if policies == ["hold"] and cardinality == Cardinality.MANY_TO_MANY:
            fail(f"--relation-type: {spec!r}: hold needs a cardinality other than many_to_many")
        declared: dict[str, Any] = {"cardinality": cardinality}
        if keys:
            declared["qualifiers"] = keys
        if policies:
            declared["same_time"] = policies[0]
        out[name.strip()] = declared
    return out


def _qualifiers(option_name: str, items: Sequence[str]) -> dict[str, str] | None:
    """``--qualifier KEY=VALUE`` options as a mapping (None for none), or a one-line failure."""
    if not items:
        return None
    try:
        return parse_pairs(option_name, items)
    except InvalidInputError as exc:
        fail(str(exc))


Qualifier = Annotated[list[str], option("KEY=VALUE", "A qualifier (which slot of the relation); repeatable.")]
RelationTypes = Annotated[list[str], option(
    "NAME=CARDINALITY[:KEY,...][:hold]",
    "Declare a relation's cardinality, its qualifier keys (DELIVERIES=many_to_one:period) and whether two values"
    " at the same valid time are held side by side, flagged (:hold), instead of the later correcting; repeatable.",
    "--relation-type",
)]


def add_fact(
    group: Group,
    subject: Annotated[str, typer.Argument(metavar="SUBJECT", help="Subject entity name.")],
    relation: Annotated[str, typer.Argument(metavar="RELATION", help="Relation, e.g. LIVES_IN.")],
    object: Annotated[str, typer.Argument(metavar="OBJECT", help="Object entity name.")],
    fact: Annotated[str | None, option("TEXT", "The fact in words (default: the triple).")] = None,
    valid_at: Annotated[str | None, option("TIME", "When it became true (default: now).")] = None,
    invalid_at: Annotated[str | None, option("TIME", "When it stopped being true.")] = None,
    episode: Annotated[str | None, option("ID", "Source episode id (default: a new one).")] = None,
    subject_label: Annotated[list[str], option("LABEL", "A type of the subject; repeatable.")] = [],  # noqa: B006
    object_label: Annotated[list[str], option("LABEL", "A type of the object; repeatable.")] = [],  # noqa: B006
    relation_type: RelationTypes = [],  # noqa: B006
    qualifier: Qualifier = [],  # noqa: B006
    actor: Actor = None,
    tier: TierOption = None,
    data_subject: DataSubject = None,
    replaces: Annotated[str | None, option("UUID", "A fact this one corrects: retired by it.")] = None,
    reason: Annotated[
        str | None, option("TEXT", "Why: required to replace another actor's standing rule or decision.")
    ] = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Add one fact; print it, the facts it retired or moved, and the standing facts it may contradict.
    A --qualifier key must be declared for the relation (--relation-type DELIVERIES=many_to_one:period)."""
    types = _relation_types(relation_type)
    slot = _qualifiers("--qualifier", qualifier)
    with open_memory(db, create=True, relation_types=types) as memory:
        result = memory.add_fact(
            group, subject, relation, object, fact=fact, valid_at=valid_at, invalid_at=invalid_at,
            episode_id=episode, subject_labels=subject_label, object_labels=object_label, actor=actor, tier=tier,
            replaces=replaces, reason=reason, qualifiers=slot, data_subject=data_subject,
        )
    out = console()
    verb = "merged into existing fact" if result.merged else "wrote fact"
    tiered = f"  [dim]({result.fact.tier})[/]" if result.fact.tier else ""
    slot = escape(describe(result.fact.qualifiers))
    out.print(f"[green]✓[/] {verb} [bold]{escape(result.fact.triple)}{slot}[/]  {interval(result.fact)}{tiered}")
    out.print(f"  [dim]fact {result.fact.uuid} · episode {escape(result.episode_id)}[/]", soft_wrap=True)
    if result.retired:
        out.print(timeline_table(result.retired, "retired (no longer current)"))
    if result.changed:
        out.print(timeline_table(result.changed, "interval changed"))
    for uuid in result.refused:
        out.print(f"[yellow]refused[/] retiring {uuid}: not eligible to be replaced by this fact")
    print_candidates(out, result.possible_contradictions, {result.fact.uuid: result.fact.fact})


def facts(
    group: Group,
    subject: Annotated[str | None, option("NAME", "Only facts with this subject.")] = None,
    relation: Annotated[str | None, option("RELATION", "Only this relation (LIVES_IN ≡ lives-in).")] = None,
    object: Annotated[str | None, option("NAME", "Only facts with this object.", "--object")] = None,
    entity: Annotated[str | None, option("NAME", "Only facts touching this entity, either end.")] = None,
    as_of: Annotated[str | None, option("TIME", "Facts valid at this time (default: now).")] = None,
    known_at: Annotated[str | None, option("TIME", "As the memory believed at this time.")] = None,
    at: Annotated[str | None, option("TIME", AT_HELP)] = None,
    include_retired: Annotated[bool, typer.Option("--include-retired", help="Closed intervals too.")] = False,
    include_expired: Annotated[
        bool, typer.Option("--include-expired", help="Records replaced by a correction too.")
    ] = False,
    include_events: Annotated[
        bool, typer.Option("--include-events", help="Events too (LEFT, MET...: moments, not standing facts).")
    ] = False,
    limit: Annotated[int | None, option("N", "At most N facts.", min=1)] = None,
    qualifier: Annotated[list[str], option(
        "KEY=VALUE", "Only facts with this qualifier (e.g. period=2024-Q2); repeatable: all must match.")
    ] = [],  # noqa: B006
    as_json: AsJson = False,
    db: Db = DEFAULT_DB,
) -> None:
    """List facts: current ones by default, or as of / as known at a time, or at a
    point in time (--at: both, nothing learned later)."""
    refuse_with_at(at, as_of=as_of, known_at=known_at, include_retired=include_retired,
                   include_expired=include_expired)
    slot = _qualifiers("--qualifier", qualifier)
    report = None
    with open_memory(db, group=group) as memory:
        if at is not None:
            view = memory.at(at)
            found = view.facts(group, subject=subject, relation=relation, object=object, entity=entity,
                               include_events=include_events, limit=limit, qualifiers=slot)
            report = view.lookahead(found)
        else:
            found = memory.facts(
                group, subject=subject, relation=relation, object=object, entity=entity, as_of=as_of,
                known_at=known_at, include_retired=include_retired, include_expired=include_expired,
                include_events=include_events, limit=limit, qualifiers=slot,
            )
    if as_json:
        print_json(found)
        return
    console().print(fact_table(found) if found else "[dim]no facts match[/]")
    print_lookahead(report)


def events(
    group: Group,
    subject: Annotated[str | None, option("NAME", "Only events with this subject.")] = None,
    relation: Annotated[str | None, option("RELATION", "Only this relation (LEFT ≡ left).")] = None,
    object: Annotated[str | None, option("NAME", "Only events with this object.", "--object")] = None,
    entity: Annotated[str | None, option("NAME", "Only events touching this entity, either end.")] = None,
    since: Annotated[str | None, option("TIME", "Only events at or after this time.")] = None,
    until: Annotated[str | None, option("TIME", "Only events before this time.")] = None,
    known_at: Annotated[str | None, option("TIME", "As the memory believed at this time.")] = None,
    limit: Annotated[int | None, option("N", "At most N events.", min=1)] = None,
    as_json: AsJson = False,
    db: Db = DEFAULT_DB,
) -> None:
    """List events (moments such as LEFT or MET, which `facts` leaves out), by when they happened."""
    with open_memory(db, group=group) as memory:
        found = memory.events(
            group, subject=subject, relation=relation, object=object, entity=entity, since=since, until=until,
            known_at=known_at, limit=limit,
        )
    if as_json:
        print_json(found)
        return
    console().print(timeline_table(found, f"events in {escape(group)}") if found else "[dim]no events match[/]")


def timeline(
    group: Group,
    entity: Annotated[str, typer.Argument(metavar="ENTITY", help="Entity name.")],
    relation: Annotated[str | None, option("RELATION", "Only this relation.")] = None,
    as_json: AsJson = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Show how an entity's facts evolved, ordered by valid time."""
    with open_memory(db, group=group) as memory:
        found = memory.timeline(group, entity, relation)
    if as_json:
        print_json(found)
        return
    title = f"timeline of {escape(entity)}"
    console().print(timeline_table(found, title) if found else f"[dim]no facts about {escape(entity)}[/]")


def history(
    group: Group,
    fact_uuid: Annotated[str, typer.Argument(metavar="FACT_UUID", help="The fact's full uuid.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the changes as a JSON array instead.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Show every recorded state of one fact, oldest first, and why it changed."""
    with open_memory(db, group=group) as memory:
        changes = memory.history(group, fact_uuid)
    if as_json:
        typer.echo(json.dumps([c.model_dump(mode="json") for c in changes], indent=2))
        return
    if not changes:
        fail(f"no fact {fact_uuid} in group {group!r}")
    table = Table(title=f"history of fact {short(fact_uuid)}", title_justify="left", header_style="bold")
    for name in ("recorded", "cause", "episode", "status", "valid"):
        table.add_column(name, no_wrap=True)
    for change in changes:
        valid = f"{when(change.valid_at)} → {when(change.invalid_at)}"
        table.add_row(when(change.recorded_at), change.cause, escape(change.episode_id or ""), change.status, valid)
    console().print(table)


def remove_episode(
    group: Group,
    episode_id: Annotated[str, typer.Argument(metavar="EPISODE_ID", help="The episode to retract.")],
    db: Db = DEFAULT_DB,
) -> None:
    """Retract an episode: facts it alone supports go, intervals it moved come back."""
    with open_memory(db, group=group) as memory:
        result = memory.remove_episode(group, episode_id)
    out = console()
    out.print(f"[green]✓[/] removed episode [bold]{escape(result.episode_id)}[/]")
    out.print(f"  deleted {len(result.deleted_facts)} fact(s), {len(result.deleted_entities)} entity(ies)")
    for uuid in result.deleted_facts:
        out.print(f"  [dim]deleted fact {uuid}[/]")
    if result.changed:
        out.print(timeline_table(result.changed, "interval changed"))
