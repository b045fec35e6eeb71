"""JSON Lines writer: one row a line, written in blocks with orjson.

Row values are already rounded by the models to the specification's decimals; orjson prints the
shortest text that reads back as the same float64.

A block of rows is serialised by one ``orjson.dumps`` of the whole list (several times faster than
one call per row) and cut into lines at the boundaries ``},{"<first key>"``: every row starts with
the same first key (``sample_time_s``), and no row holds a list of objects, so that sequence occurs
only between rows. The count of cuts is checked; a block that does not cut cleanly is written row
by row.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from navsense.output.appendfile import AppendFile

__all__ = ["JsonlWriter", "encode_rows", "read_jsonl"]


class JsonlWriter(AppendFile):
    """Append rows to ``path``; a context manager. The run directory makes the whole set atomic."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        self.rows_written = 0

    def write_rows(self, rows: list[dict], first_key: str = "sample_time_s") -> None:
        """Write a block of rows (each a dict whose first key is ``first_key``)."""
        if rows:
            self.write_bytes(encode_rows(rows, first_key), len(rows))

    def write_bytes(self, data: bytes, rows: int) -> None:
        """Write ``rows`` rows already encoded by :func:`encode_rows`."""
        self.append(data)
        self.rows_written += rows


def encode_rows(rows: list[dict], first_key: str = "sample_time_s") -> bytes:
    """The JSON Lines bytes of ``rows``, one line each, identical to one orjson.dumps per row."""
    boundary = b'},{"' + first_key.encode() + b'"'
    blob = orjson.dumps(rows)[1:-1]
    lines = blob.replace(boundary, b'}\n{"' + first_key.encode() + b'"')
    if len(lines) - len(blob) != len(rows) - 1:
        lines = b"\n".join(orjson.dumps(r) for r in rows)
    return lines + b"\n"


def read_jsonl(path: str | Path) -> list[dict]:
    """All rows of a JSON Lines file."""
    with open(path, "rb") as f:
        return [orjson.loads(line) for line in f if line.strip()]
