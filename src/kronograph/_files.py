"""Files kronograph writes: private to their owner, replaced atomically.

A file is written through a fresh temporary file in the same directory
(``tempfile.mkstemp``: an unpredictable name, created exclusively with mode
0600, so a symlink planted at a guessable name is never followed), flushed
to disk, then renamed over the target: a reader sees the old file or the new
one, never half of one, and the new one is its owner's only. A rename
replaces a symlink at the target itself; it never writes through it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["PRIVATE", "create_private", "write_private"]

PRIVATE = 0o600  # owner read and write, nobody else


def write_private(path: str | Path, data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (text is UTF-8), atomically, mode 0600."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        _private(fd)  # mkstemp makes it 0600 already; said here, not assumed
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_directory(target.parent)


def create_private(path: str | Path) -> bool:
    """Create ``path`` empty with mode 0600 unless something is there already
    (an existing file keeps its mode); never through a symlink. Returns
    whether it was created. SQLite gives a database's ``-wal`` and ``-shm``
    files the database file's mode, so they are private too."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), PRIVATE)
    except FileExistsError:
        return False
    try:
        _private(fd)  # whatever the umask
    finally:
        os.close(fd)
    return True


def _private(fd: int) -> None:
    if hasattr(os, "fchmod"):  # POSIX
        os.fchmod(fd, PRIVATE)


def _sync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (where the platform allows)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
