"""Loading a benchmark script (bench/*.py, not a package) as a module, for tests of its logic."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["BENCH", "load_bench"]

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load_bench(script: str, name: str | None = None) -> ModuleType:
    """``bench/<script>.py`` as module ``name`` (default: the script's name), registered once."""
    name = name or script
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{script}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
