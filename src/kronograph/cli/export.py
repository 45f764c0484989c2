"""``kronograph export``: everything a group holds, as JSON Lines."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, TextIO

import typer

from .._files import write_private
from .options import DEFAULT_DB, Db, option
from .output import console, fail, plural
from .session import open_memory

__all__ = ["export"]


def _write(out: TextIO, lines: list[str]) -> None:
    for line in lines:
        out.write(line + "\n")


def export(
    group: Annotated[str, typer.Argument(metavar="GROUP", help="Group (tenant) to export.")],
    out: Annotated[Path | None, option(
        "FILE", "Write to FILE instead of standard output (readable by its owner only, replaced whole).",
        "--out", "-o",
    )] = None,
    db: Db = DEFAULT_DB,
) -> None:
    """Write every episode, entity, fact interval (expired records too), community,
    saga summary and audit event of a group as JSON Lines, one object a line with
    its "type". Reads only."""
    with open_memory(db, group=group) as memory:
        snapshot = memory.export(group)
    header = {"type": "export", "group_id": snapshot.group_id, "exported_at": snapshot.exported_at.isoformat()}
    lines = [json.dumps(header)]
    lines += [
        json.dumps({"type": kind, **item.model_dump(mode="json", warnings=False)}, ensure_ascii=False)
        for kind, item in snapshot.records()
    ]
    if out is None:
        _write(sys.stdout, lines)
        return
    try:
        write_private(out, "".join(line + "\n" for line in lines))
    except OSError as exc:
        fail(f"--out: cannot write {out}: {exc}")
    counts = ", ".join(
        plural(n, kind, kinds)
        for kind, kinds, n in (
            ("episode", None, len(snapshot.episodes)), ("entity", "entities", len(snapshot.entities)),
            ("fact", None, len(snapshot.facts)), ("community", "communities", len(snapshot.communities)),
            ("saga", None, len(snapshot.sagas)), ("audit event", None, len(snapshot.audit_events)),
        )
    )
    console(stderr=True).print(f"wrote {counts} of group {group} to {out}", soft_wrap=True)
