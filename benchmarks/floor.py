"""What the benchmarks share: the bare-numpy floor (floor_numpy.py beside this file), timed as a
whole process, and the best-of-n timer."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FLOOR = Path(__file__).resolve().parent / "floor_numpy.py"


def floor_seconds(duration_s: float = 3600.0) -> float | None:
    """Wall time of ``floor_numpy.py DURATION OUT`` (None when the script is missing)."""
    if not FLOOR.is_file():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, str(FLOOR), str(duration_s), tmp], check=True, capture_output=True
        )
        return time.perf_counter() - t0


def best_of(fn, repeat: int):
    """(fastest wall time of ``repeat`` calls of ``fn``, the last call's result)."""
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out
