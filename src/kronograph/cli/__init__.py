"""The ``kronograph`` command line: a thin shell over :class:`kronograph.Memory`.

Each command is one library call, printed as a rich table. typer and rich are
the optional extra ``kronograph[cli]``: without them :func:`main` says how to
install them instead of failing with a traceback, so this package imports them
guarded and only loads its commands and builds the app once they are known to
be there (``kronograph --version`` answers without them).

Modules: :mod:`.application` (the app, root options), :mod:`.facts`,
:mod:`.search`, :mod:`.episodes` and :mod:`.migrate` (the commands), :mod:`.demo` (the tour), :mod:`.output`
(tables, times, progress bar, errors), :mod:`.options` (shared parameters),
:mod:`.session` (opening the memory), :mod:`.results` (ingestion reports),
:mod:`.jsonl` (import files) and :mod:`.batches` (batched ingestion).
"""

from __future__ import annotations

import sys

try:
    import rich.markup  # noqa: F401
    import rich.progress  # noqa: F401
    import rich.table  # noqa: F401
    import typer
except ImportError as exc:  # the optional extra is missing: main() explains
    _MISSING: ImportError | None = exc
else:
    _MISSING = None

if _MISSING is None:
    from .application import COMMANDS
    from .application import build_app as _build_app
    from .output import fact_table, interval, progress_bar, short, timeline_table, when

__all__ = [
    "COMMANDS", "app", "build_app", "fact_table", "interval", "main", "progress_bar", "short", "timeline_table", "when",
]

INSTALL_HINT = (
    "The kronograph command line needs typer and rich, which are not installed.\n"
    "Install them with:  pip install 'kronograph[cli]'"
)


def build_app() -> typer.Typer:
    """The typer app; needs the ``cli`` extra."""
    if _MISSING is not None:
        raise _MISSING
    return _build_app()


app: typer.Typer | None = build_app() if _MISSING is None else None


def main() -> None:
    """The ``kronograph`` entry point. Without the ``cli`` extra, ``--version``
    still answers (a core-only install can say what it is); every other
    command says how to install the extra."""
    if app is None:
        if sys.argv[1:] == ["--version"]:
            from .. import __version__

            print(f"kronograph {__version__}")
            return
        print(INSTALL_HINT, file=sys.stderr)
        raise SystemExit(1)
    app()
