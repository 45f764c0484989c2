"""Opening the memory a command works on, and its errors as one line that names the command's options."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError, KronographError
from ..sync import Memory
from .output import fail

__all__ = ["message", "open_memory"]

# Library field names, as the options that feed them are spelled on the command line.
_OPTION_NAMES = {
    "as_of": "--as-of", "known_at": "--known-at", "valid_at": "--valid-at", "invalid_at": "--invalid-at",
    "episode_id": "--episode", "group_id": "GROUP", "subject_labels": "--subject-label",
    "object_labels": "--object-label", "relation_types": "--relation-type", "reference_time": "--time",
    "source_description": "--source", "kind": "--kind", "name": "--name", "saga": "--saga", "content": "TEXT",
    "status": "--status", "limit": "--limit", "recipe": "--recipe", "scopes": "--scope", "group_ids": "GROUP",
    "center_entity": "--center", "query": "QUERY", "fact_uuid": "FACT_UUID", "max_calls": "--max-calls",
    "since": "--since", "until": "--until", "after": "--after",
    "user_name": "--user-name", "assistant_name": "--assistant-name", "speaker": "--speaker", "role": "--role",
    "actor": "--actor", "max_tokens": "--max-tokens", "template": "--template",
    "tier": "--tier", "replaces": "--replaces", "reason": "--reason", "note": "--note",
    "contradicted_uuid": "CONTRADICTED_UUID", "at": "--at", "moment": "--at",
}


def message(exc: KronographError) -> str:
    """The library's message, naming the option rather than the Python parameter."""
    if isinstance(exc, InvalidInputError) and exc.field in _OPTION_NAMES:
        return _OPTION_NAMES[exc.field] + str(exc)[len(exc.field) :]
    return str(exc)


@contextmanager
def open_memory(
    db: str,
    *,
    create: bool = False,
    model: str | None = None,
    group: str | Sequence[str] | None = None,
    **options: Any,
) -> Iterator[Memory]:
    """Open the memory at ``db`` (a path or a URL); every kronograph error becomes a one-line message.

    No model unless a command ingests, and no resuming on open: only ``kronograph
    resume`` finishes other episodes, so no command does unannounced work.
    ``group``: the group(s) a reading command names, which must exist (a typo
    would otherwise read an empty group and look like a memory with nothing in it).
    """
    if not create and "://" not in db and not Path(db).exists():
        fail(f"no database at {db} (add a fact or an episode first, or pass --db / set KRONOGRAPH_DB)")
    try:
        with Memory(db, model=model, resume=False, **options) as memory:
            if group is not None:
                _known(memory, [group] if isinstance(group, str) else list(group), db)
            yield memory
    except KronographError as exc:
        fail(message(exc))


def _known(memory: Memory, groups: list[str], db: str) -> None:
    known = memory.groups()
    for name in groups:
        if name not in known:
            hint = f"the groups are {', '.join(map(repr, known[:10]))}" + (", …" if len(known) > 10 else "")
            fail(f"unknown group {name!r} in {db} ({hint if known else 'it has no groups yet'}; "
                 "`kronograph groups` lists them)")
