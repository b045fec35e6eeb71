"""JSON Lines writer: one row a line, appended in blocks already encoded.

The rows of a chunk are encoded by :func:`navsense.output.columns.jsonl_from_columns` (orjson,
the shortest text that reads back as the same float64, the specification's decimals; or
:func:`~navsense.output.columns.jsonl_buffer_from_columns`, the same bytes in an Arrow buffer);
this file appends those bytes. Reading a run's rows back: :mod:`navsense.runs.reader`.

Writing costs the kernel's page cache: an INS hour's 355 MB took 0.05-0.07 s of system CPU on
pages freed just before (2-core VM, ext4) and up to 0.5-0.7 s on memory the VM had not used
lately (a first touch of 355 MB of anonymous memory likewise 0.56 s, then 0.03 s); write calls
of 64 KiB or 1 MiB made no difference beyond that, so the write is left as it is.
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

    def write_bytes(self, data, rows: int) -> None:
        """Write ``rows`` rows already encoded as JSON Lines (one line each; bytes-like)."""
        self.append(data)
        self.rows_written += rows
