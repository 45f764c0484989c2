"""A deterministic team chat for ingestion tests: people join and leave
companies and move between cities, some messages arrive late (their
reference time is earlier than the one before), some restate."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

PEOPLE = ["Alice Moreno", "Bruno Okafor", "Chiara Lindqvist", "Dmitri Sokolov", "Elena Petrova", "Farid Haddad"]
COMPANIES = ["Fjord Biotech", "Granite Capital", "Borealis Analytics", "Juniper Health", "Lumen Energy"]
CITIES = ["Toronto", "Berlin", "Oslo", "Lisbon", "Madrid", "Seoul"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


def chat(n: int, seed: int = 7, late_every: int = 9) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    start = datetime(2023, 1, 2, 9, tzinfo=UTC)
    out = []
    when = start
    for i in range(n):
        when += timedelta(hours=rng.randint(5, 60))
        ref = when - timedelta(days=rng.randint(20, 40)) if i % late_every == late_every - 1 else when
        person = rng.choice(PEOPLE)
        choice = rng.random()
        day = ref - timedelta(days=rng.randint(0, 10))
        date = f"{MONTHS[day.month - 1]} {day.day}, {day.year}"
        if choice < 0.35:
            text = f"I joined {rng.choice(COMPANIES)} on {date}."
        elif choice < 0.6:
            text = f"I moved to {rng.choice(CITIES)} on {date}."
        elif choice < 0.75:
            text = f"I work at {rng.choice(COMPANIES)}."
        elif choice < 0.85:
            text = f"I live in {rng.choice(CITIES)}."
        else:
            text = "Thanks everyone, see you at the offsite!"
        out.append({"content": f"{person}: {text}", "reference_time": ref.isoformat(), "episode_id": f"m{i:04d}",
                    "name": f"msg-{i:04d}"})
    return out


def graph(memory: Any, group: str) -> set[tuple[Any, ...]]:
    """A group's graph by content: what two ingestions must agree on."""
    return {
        (f.subject, f.relation, f.object, f.valid_at, f.invalid_at, tuple(sorted(f.episodes)))
        for f in memory.facts(group, include_retired=True)
    }
