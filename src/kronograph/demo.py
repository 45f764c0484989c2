"""``kronograph demo``: a short narrated tour of what a temporal memory does.

It runs offline with no keys, through the public API only. First it reads a
bundled chat (:mod:`kronograph.demo_conversation`) with the offline extractor
(``model=None``) and shows the graph, a timeline and questions about the past.
Then a scripted judge stands in for the LLM that would decide contradictions,
deliberately wrong once, to show the guard. A scripted clock makes transaction
time, what the memory knew when, part of the story.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .cli.output import progress_bar, short, timeline_table, when
from .demo_conversation import CONVERSATION
from .model import EpisodeResult, Fact, Verdict
from .sync import Memory

__all__ = ["DemoClock", "ScriptedJudge", "run_demo"]

GROUP = "demo"
PERSON = "Priya"  # whose timeline the tour shows


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
        console.print(f"  kronograph timeline {GROUP} {PERSON} --db {escape(str(db_path))}")
        console.print(f"  kronograph episodes {GROUP} --db {escape(str(db_path))}")
        return
    with tempfile.TemporaryDirectory(prefix="kronograph-demo-") as tmp:
        _tour(console, Path(tmp) / "demo.db")
    console.print("\n[dim]The demo used a temporary file, now deleted; `kronograph demo --db demo.db` keeps it.[/]")


def _tour(console: Console, path: Path) -> None:
    clock, judge = DemoClock(), ScriptedJudge()
    console.rule("[bold]kronograph demo[/] · offline: rule-based extraction, a scripted clock and judge")
    with Memory(path, clock=clock, model=None) as memory:
        _read_conversation(console, memory, clock)
        _graph(console, memory)
        _timeline(console, memory)
        _known_at(console, memory)
    with Memory(path, clock=clock, judge=judge, model=None) as memory:
        _refused_retirement(console, memory, clock, judge)


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


def _refused_retirement(console: Console, memory: Memory, clock: DemoClock, judge: ScriptedJudge) -> None:
    _chapter(console, 5, "A wrong judge cannot retire an unrelated fact")
    clock.set("2025-10-02")
    postgres = memory.add_fact(GROUP, "Initech", "USES", "Postgres", valid_at="2022-04-01", episode_id="stack")
    memory.add_fact(GROUP, "Initech", "SPONSORS", "EuroPython", valid_at="2024-07-08", episode_id="news-2024")
    _say(console, "Facts added directly now, a scripted judge deciding contradictions: Initech has used Postgres "
                  "since 2022 and sponsored EuroPython in 2024.")
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




def _read_conversation(console: Console, memory: Memory, clock: DemoClock) -> None:
    _chapter(console, 1, "A conversation, read offline")
    _say(console, f"A team chat of {len(CONVERSATION)} messages, read as they arrive by the offline extractor.")
    results: list[EpisodeResult] = []
    with progress_bar(console) as bar:
        task = bar.add_task("reading the chat", total=len(CONVERSATION))
        for number, message in enumerate(CONVERSATION, 1):
            clock.set(message.arrival)  # transaction time: when the memory read it
            episode = _episode_id(number)
            results.append(memory.add_episode(GROUP, message.text, reference_time=message.sent, episode_id=episode))
            bar.advance(task)
    table = Table(box=None, header_style="bold", padding=(0, 2, 0, 0))
    for column in ("episode", "sent", "message"):
        table.add_column(column, no_wrap=column != "message", style="dim" if column == "episode" else None)
    for number, message in enumerate(CONVERSATION, 1):
        late = f"  [yellow](read late, on {message.arrival[:10]})[/]" if message.received else ""
        table.add_row(_episode_id(number), message.sent[:10], escape(message.text) + late)
    console.print(table)
    created, closed = sum(len(r.created) for r in results), sum(len(r.retired) for r in results)
    calls = sum(r.usage.calls for r in results)
    rule = "one job and one home at a time"
    _say(console, f"{created} facts learned, {closed} closed by rule ({rule}), {calls} model calls.")


def _episode_id(number: int) -> str:
    return f"msg-{number:02}"


def _graph(console: Console, memory: Memory) -> None:
    _chapter(console, 2, "The graph it built")
    by_label: dict[str, list[str]] = {}
    for entity in memory.entities(GROUP):
        by_label.setdefault(", ".join(entity.labels) or "unlabelled", []).append(entity.name)
    for label, names in sorted(by_label.items()):
        console.print(f"  [bold]{escape(label)}[/]: {escape(', '.join(sorted(names)))}")
    table = Table(title="current facts", title_justify="left", header_style="bold")
    for column in ("subject", "relation", "object", "since", "source"):
        table.add_column(column, no_wrap=True)
    for fact in sorted(memory.facts(GROUP), key=lambda f: (f.subject, f.valid_at)):
        table.add_row(
            escape(fact.subject), escape(fact.relation), escape(fact.object), when(fact.valid_at),
            escape(", ".join(fact.episodes)),
        )
    console.print(table)


def _timeline(console: Console, memory: Memory) -> None:
    _chapter(console, 3, f"{PERSON}'s timeline, and a message that came late")
    console.print(timeline_table(memory.timeline(GROUP, PERSON), f"timeline of {PERSON}"))
    late = next(m for m in CONVERSATION if m.received)
    _say(console, f"The Lyon message, sent {late.sent[:10]} but read last ({late.arrival[:10]}), is born closed "
                  "at the move to Paris; Paris stays current.")
    _answers(
        console,
        [
            (f"Where did {PERSON} live on 2023-06-01?", _at(memory, "LIVES_IN", "2023-06-01"), "object"),
            (f"Where did {PERSON} work on 2024-03-15?", _at(memory, "WORKS_AT", "2024-03-15"), "object"),
            (f"Where does {PERSON} work now?", _at(memory, "WORKS_AT", None), "object"),
        ],
    )


def _at(memory: Memory, relation: str, as_of: str | None, known_at: str | None = None) -> list[Fact]:
    return memory.facts(GROUP, subject=PERSON, relation=relation, as_of=as_of, known_at=known_at)


def _known_at(console: Console, memory: Memory) -> None:
    _chapter(console, 4, "What did we believe, and when?")
    _say(console, "Valid time says when a fact held; transaction time ('recorded') when the memory learned it.")
    _answers(
        console,
        [
            (f"Where did {PERSON} live on 2023-06-01, as we believed on 2024-10-31?",
             _at(memory, "LIVES_IN", "2023-06-01", "2024-10-31"), "object"),
            (f"Where did {PERSON} live on 2023-06-01, as we believe now?",
             _at(memory, "LIVES_IN", "2023-06-01"), "object"),
        ],
    )
    _say(console, "Lyon was only learned on 2024-11-04: known_at replays a past belief exactly, from fact history.")
