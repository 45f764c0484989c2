"""Ingesting many episodes: ``add_episodes`` batch by batch behind a progress bar."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.markup import escape

from ..errors import KronographError
from ..model import EpisodeResult
from ..sync import Memory
from .output import console, fail, progress_bar

__all__ = ["BATCH_SIZE", "ingest"]

BATCH_SIZE = 200  # episodes per add_episodes call: validated together, extracted concurrently


def ingest(
    memory: Memory, group: str, items: Sequence[dict[str, Any]], batch_size: int,
    add: Callable[[list[dict[str, Any]]], list[EpisodeResult]] | None = None,
) -> list[EpisodeResult]:
    """``add_episodes`` (or ``add``: ``add_messages``, say) batch by batch behind a progress bar (on stderr, so
    stdout stays the report)."""
    add = add or (lambda batch: memory.add_episodes(group, batch))
    results: list[EpisodeResult] = []
    refused: str | None = None
    with progress_bar(console(stderr=True)) as bar:
        task = bar.add_task(f"ingesting into {escape(group)}", total=len(items))
        for start in range(0, len(items), batch_size):
            batch = list(items[start : start + batch_size])
            try:
                results.extend(add(batch))
            except KronographError as exc:  # validated up front, so only the memory's contents can refuse a batch
                kept = f"episodes 1-{start} are ingested" if start else "nothing was ingested"
                refused = f"episodes {start + 1}-{start + len(batch)}: {exc} ({kept})"
                break
            bar.advance(task, len(batch))
    if refused is not None:
        fail(refused)
    return results
