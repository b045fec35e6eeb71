"""The run directory: written under a temporary name and renamed when complete.

A run that fails leaves no directory that looks complete: its files live in ``NAME.partial`` until
the last one is closed, and a failed run removes that folder. An existing directory is never
overwritten.
"""

from __future__ import annotations

import datetime as _dt
import shutil
from pathlib import Path

import orjson

from navsense.errors import ConfigError

__all__ = ["RunDirectory", "default_run_dir"]


def default_run_dir(base: str | Path, label: str) -> Path:
    """``base/label-YYYYmmdd-HHMMSS`` (a suffix -2, -3 ... when taken)."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path(base)
    candidate = base / f"{label}-{stamp}"
    k = 2
    while candidate.exists() or candidate.with_name(candidate.name + ".partial").exists():
        candidate = base / f"{label}-{stamp}-{k}"
        k += 1
    return candidate


class RunDirectory:
    """Context manager: ``with RunDirectory(path) as run: run.path / "imu.jsonl" ...``."""

    def __init__(self, path: str | Path) -> None:
        self.final = Path(path)
        self.path = self.final.with_name(self.final.name + ".partial")

    def __enter__(self) -> RunDirectory:
        if self.final.exists():
            raise ConfigError(f"--out {self.final}: the directory exists already; choose another")
        if self.path.exists():
            shutil.rmtree(self.path)
        self.path.mkdir(parents=True)
        return self

    def write_json(self, name: str, data: dict) -> None:
        """Write one JSON file (indented, keys in insertion order)."""
        (self.path / name).write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.path.rename(self.final)
        else:
            shutil.rmtree(self.path, ignore_errors=True)
