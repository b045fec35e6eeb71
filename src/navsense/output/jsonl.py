"""JSON Lines writer: one row a line, written in blocks with orjson.

Row values are already rounded by the models to the specification's decimals; orjson prints the
shortest text that reads back as the same float64.
"""

from __future__ import annotations

from pathlib import Path

import orjson

__all__ = ["JsonlWriter", "read_jsonl"]


class JsonlWriter:
    """Append rows to ``path``; a context manager. The run directory makes the whole set atomic."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file = None
        self.rows_written = 0

    def __enter__(self) -> "JsonlWriter":
        self._file = open(self.path, "xb")
        return self

    def write_rows(self, rows: list[dict]) -> None:
        """Write a block of rows."""
        if not rows:
            return
        dumps = orjson.dumps
        self._file.write(b"\n".join(dumps(r) for r in rows) + b"\n")
        self.rows_written += len(rows)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __exit__(self, *exc) -> None:
        self.close()


def read_jsonl(path: str | Path) -> list[dict]:
    """All rows of a JSON Lines file."""
    with open(path, "rb") as f:
        return [orjson.loads(line) for line in f if line.strip()]
