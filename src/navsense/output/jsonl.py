"""JSON Lines writer: one row a line, appended in blocks already encoded.

The rows of a chunk are encoded by :func:`navsense.output.columns.jsonl_from_columns` (orjson,
the shortest text that reads back as the same float64, the specification's decimals); this file
appends those bytes. Reading a run's rows back: :mod:`navsense.runs.reader`.
"""

from __future__ import annotations

from pathlib import Path

from navsense.output.appendfile import AppendFile

__all__ = ["JsonlWriter"]


class JsonlWriter(AppendFile):
    """Append rows to ``path``; a context manager. The run directory makes the whole set atomic."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        self.rows_written = 0

    def write_bytes(self, data: bytes, rows: int) -> None:
        """Write ``rows`` rows already encoded as JSON Lines (one line each)."""
        self.append(data)
        self.rows_written += rows
