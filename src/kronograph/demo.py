"""``kronograph demo``: a short narrated tour of what a temporal memory does.

It runs offline with no keys, through the public API only. A scripted judge
stands in for the LLM that would decide contradictions (and is deliberately
wrong once, to show the guard), and a scripted clock makes transaction time,
what the memory knew when, mean something.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .cli import short, timeline_table
from .memory import Memory
from .model import Cardinality, Fact, RelationType, Verdict

__all__ = ["DemoClock", "ScriptedJudge", "run_demo"]

GROUP = "demo"


class DemoClock:
    """A clock the tour moves by hand, so that "learned on" dates are part of the story."""

    def __init__(self) -> None:
        self.now = datetime(2024, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def set(self, moment: str) -> None:
        self.now = datetime.fromisoformat(moment).replace(tzinfo=UTC)


class ScriptedJudge:
    """Stands in for an LLM judge: answers what the tour scripted, right or wrong.

    It never calls the memory (it runs on a worker thread while the memory waits).
    """

    def __init__(self) -> None:
        self.calls = 0
        self.shown: list[Fact] = []
        self._next: list[str] = []

    def will_say(self, *contradicted: str) -> None:
        self._next = list(contradicted)

    def __call__(self, new_fact: Fact, candidates: Sequence[Fact]) -> Verdict:
        self.calls += 1
        self.shown = list(candidates)
        answer, self._next = self._next, []
        return Verdict(contradicts=answer)


def run_demo(console: Console, db_path: Path | None = None) -> None:
    """Run the tour on ``db_path``, or on a temporary file deleted afterwards."""
    if db_path is not None:
        _tour(console, db_path)
        console.print(f"\nThe demo's memory is kept in [bold]{escape(str(db_path))}[/]. Explore it:")
        console.print(f"  kronograph timeline Acme --db {escape(str(db_path))} -g {GROUP}")
        return
    with tempfile.TemporaryDirectory(prefix="kronograph-demo-") as tmp:
        _tour(console, Path(tmp) / "demo.db")
    console.print("\n[dim]The demo used a temporary file, now deleted; `kronograph demo --db demo.db` keeps it.[/]")


def _tour(console: Console, path: Path) -> None:
    clock, judge = DemoClock(), ScriptedJudge()
    types = {"LIVES_IN": RelationType(cardinality=Cardinality.MANY_TO_ONE)}
    console.rule("[bold]kronograph demo[/] · offline: a scripted judge and a scripted clock")
    with Memory(path, clock=clock, judge=judge, relation_types=types) as memory:
        _ceo_change(console, memory, clock, judge)
        _late_history(console, memory, clock, judge)
        _refused_retirement(console, memory, clock, judge)
        _known_at(console, memory)


def _count(items: Sequence[object], noun: str) -> str:
    return "nothing" if not items else f"{len(items)} {noun}{'s' if len(items) > 1 else ''}"


def _chapter(console: Console, number: int, title: str) -> None:
    console.print()
    console.rule(f"[bold cyan]{number}. {title}", align="left")


def _say(console: Console, text: str) -> None:
    console.print(f"[italic]{text}[/]")


def _answers(console: Console, rows: Sequence[tuple[str, Sequence[Fact], str]]) -> None:
    """Questions and the memory's answers: the ``role`` side of each matching fact."""
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 2, 0, 1))
    table.add_column("question")
    table.add_column("answer", style="bold green")
    for question, facts, role in rows:
        names = sorted({f.subject if role == "subject" else f.object for f in facts})
        table.add_row(question, escape(", ".join(names)) or "[dim]nobody[/]")
    console.print(table)


def _ceo_change(console: Console, memory: Memory, clock: DemoClock, judge: ScriptedJudge) -> None:
    _chapter(console, 1, "A change of CEO")
    clock.set("2024-01-16")
    sarah = memory.add_fact(GROUP, "Sarah", "CEO_OF", "Acme", valid_at="2024-01-15", episode_id="board-minutes")
    _say(console, "2024-01-16 · we learn that Sarah has been CEO of Acme since 2024-01-15.")
    clock.set("2024-05-01")
    judge.will_say(sarah.fact.uuid)
    mike = memory.add_fact(GROUP, "Mike", "CEO_OF", "Acme", valid_at="2024-03-03", episode_id="press-release")
    _say(console, "2024-05-01 · a press release: Mike has been CEO since 2024-03-03.")
    _say(
        console,
        f"The judge (an LLM in real life, scripted here) says it contradicts Sarah's fact, so Sarah's "
        f"interval is closed at Mike's start: {_count(mike.retired, 'fact')} retired, none deleted.",
    )
    console.print(timeline_table(memory.timeline(GROUP, "Acme", "CEO_OF"), "timeline of Acme (CEO_OF)"))
    _answers(
        console,
        [
            (f"Who was CEO of Acme on {day}?", memory.facts(GROUP, object="Acme", as_of=day), "subject")
            for day in ("2024-02-01", "2024-04-01")
        ],
    )
    _say(
        console,
        "No judge? Declare the relation instead (--relation-type CEO_OF=one_to_many: one CEO per "
        "company) and the same change is decided by rule. Part 2 does that for LIVES_IN.",
    )


def _late_history(console: Console, memory: Memory, clock: DemoClock, judge: ScriptedJudge) -> None:
    _chapter(console, 2, "Old history, learned late")
    clock.set("2025-09-12")
    memory.add_fact(GROUP, "Alice", "LIVES_IN", "Shanghai", valid_at="2025-09-10", episode_id="chat-sept")
    _say(console, "2025-09-12 · Alice mentions she moved to Shanghai on 2025-09-10.")
    calls = judge.calls
    clock.set("2025-10-01")
    beijing = memory.add_fact(GROUP, "Alice", "LIVES_IN", "Beijing", valid_at="2024-01-10", episode_id="old-cv")
    _say(console, "2025-10-01 · an old CV turns up: Alice has lived in Beijing since 2024-01-10.")
    asked = "no judge was asked" if judge.calls == calls else "the judge was asked"
    _say(
        console,
        f"LIVES_IN is declared many_to_one (one city at a time), so {asked}. The older fact is born "
        f"closed ({escape(beijing.fact.valid_at.date().isoformat())} → Shanghai's start) and the "
        f"present stays Shanghai: {_count(beijing.retired, 'fact')} retired.",
    )
    console.print(timeline_table(memory.timeline(GROUP, "Alice"), "timeline of Alice"))
    _answers(
        console,
        [
            ("Where does Alice live now?", memory.facts(GROUP, subject="Alice", relation="LIVES_IN"), "object"),
            (
                "Where did Alice live on 2025-01-01?",
                memory.facts(GROUP, subject="Alice", relation="LIVES_IN", as_of="2025-01-01"),
                "object",
            ),
        ],
    )


def _refused_retirement(console: Console, memory: Memory, clock: DemoClock, judge: ScriptedJudge) -> None:
    _chapter(console, 3, "A wrong judge cannot retire an unrelated fact")
    clock.set("2025-10-02")
    postgres = memory.add_fact(GROUP, "Initech", "USES", "Postgres", valid_at="2022-04-01", episode_id="stack")
    memory.add_fact(GROUP, "Initech", "SPONSORS", "EuroPython", valid_at="2024-07-08", episode_id="news-2024")
    _say(console, "Initech has used Postgres since 2022 and sponsored EuroPython in 2024.")
    clock.set("2025-10-03")
    judge.will_say(postgres.fact.uuid)
    pycon = memory.add_fact(GROUP, "Initech", "SPONSORS", "PyCon", valid_at="2025-05-20", episode_id="news-2025")
    shown = ", ".join(f.triple for f in judge.shown) or "nothing"
    _say(
        console,
        f"2025-10-03 · Initech now sponsors PyCon. The judge is shown [bold]{escape(shown)}[/] and, "
        f"wrongly, claims the new fact contradicts Initech USES Postgres.",
    )
    named = {postgres.fact.uuid: postgres.fact.triple}
    for uuid in pycon.refused:
        label = escape(named.get(uuid, "a fact the judge was not shown"))
        console.print(f"  [bold yellow]refused:[/] {label} ({short(uuid)}): not eligible, left alone")
    console.print(f"  retired: {_count(pycon.retired, 'fact')}")
    _say(
        console,
        "Only a fact of the same pair, or of the same relation on a shared entity, can be replaced: "
        "a sponsorship cannot replace a database. The refusal is logged "
        f"({sum(e.kind == 'verdict_refused' for e in memory.audit_events(GROUP))} verdict_refused audit event).",
    )
    console.print(timeline_table(memory.facts(GROUP, subject="Initech"), "Initech's facts, now"))


def _known_at(console: Console, memory: Memory) -> None:
    _chapter(console, 4, "What did we believe, and when?")
    _say(console, "Valid time says when a fact held; transaction time ('recorded') when the memory learned it.")
    def ceo(known_at: str | None) -> list[Fact]:
        return memory.facts(GROUP, relation="CEO_OF", object="Acme", as_of="2024-04-01", known_at=known_at)

    _answers(
        console,
        [
            ("Who was CEO on 2024-04-01, as we believed on 2024-04-15?", ceo("2024-04-15"), "subject"),
            ("Who was CEO on 2024-04-01, as we believe now?", ceo(None), "subject"),
        ],
    )
    _say(
        console,
        "Mike's appointment was only learned on 2024-05-01, so on 2024-04-15 the memory still said Sarah. "
        "known_at replays that belief exactly, from fact history: audits and debugging stay honest.",
    )
