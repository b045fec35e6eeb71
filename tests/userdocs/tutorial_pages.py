"""Helpers of the tutorial tests: a page's fenced blocks, and its commands run as a user would.

A tutorial's ``bash`` blocks are the commands a user types, in order, from a checkout of navsense;
its ``sh`` blocks need what the tests cannot install (ROS 2, gpsd, a Dask cluster) and are shown,
not run; its ``text`` blocks quote what a command printed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
TUTORIALS = DOCS / "tutorials"


def page_text(name: str) -> str:
    return (TUTORIALS / name).read_text(encoding="utf-8")


def fenced(text: str, lang: str) -> list[str]:
    """The bodies of the page's fenced blocks of ``lang``, in order."""
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.M | re.S)


def user_env() -> dict[str, str]:
    """The environment of a user's shell: this Python's scripts first (navsense, python), this
    checkout's navsense imported."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("NAVSENSE_DEBUG", None)
    return env


def checkout_folder(tmp_path: Path) -> Path:
    """A fresh folder that looks like a checkout (docs/ and examples/ linked) to run a page in."""
    work = tmp_path / "work"
    work.mkdir()
    for name in ("docs", "examples"):
        (work / name).symlink_to(REPO / name)
    return work


def run_bash_blocks(name: str, tmp_path: Path, timeout_s: float = 900) -> tuple[Path, str]:
    """Runs every ``bash`` block of the tutorial ``name`` in order in one shell (set -euo
    pipefail) in a fresh folder; (the folder, what the commands printed, stdout and stderr)."""
    blocks = fenced(page_text(name), "bash")
    assert blocks, f"{name} has no bash block"
    work = checkout_folder(tmp_path)
    script = "set -euo pipefail\n" + "\n".join(blocks)
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=work,
        env=user_env(),
        capture_output=True,
        text=True,
        timeout=timeout_s,
        stdin=subprocess.DEVNULL,
    )
    printed = done.stdout + done.stderr
    assert done.returncode == 0, printed[-4000:]
    return work, printed
