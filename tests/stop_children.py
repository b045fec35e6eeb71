"""Helpers of the stop tests: a Python child that loops under timer-driven stops."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")


def run_child(code: str) -> subprocess.CompletedProcess:
    """``python -c CODE`` with navsense from this tree (a child hangs at most 90 s)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        timeout=90,
    )


def stops_of_loops(code: str) -> int:
    """The stops counted by a child whose last line is ``ended N`` (nothing on stderr: no
    traceback, no 'Exception ignored'; a hang ends it by its faulthandler with the stacks)."""
    proc = run_child(code)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr[-3000:]
    ended, stops = proc.stdout.split()
    assert ended == "ended", proc.stdout
    return int(stops)
