"""What every benchmark script reports alike: percentiles and the source revision."""

from __future__ import annotations

import math
import subprocess
from collections.abc import Sequence
from pathlib import Path

import kronograph

__all__ = ["percentile", "source_revision"]


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile (``share`` in 0..1) of ``values``; 0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def source_revision() -> str:
    """``git describe`` of the kronograph checkout (``-dirty`` when edited), or ``unknown``."""
    cmd, where = ["git", "describe", "--always", "--dirty"], Path(kronograph.__file__).parent
    try:
        out = subprocess.run(cmd, cwd=where, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"
