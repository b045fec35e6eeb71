"""A file of a run directory that is created new and appended to in blocks.

The writers of line formats (JSON Lines, NMEA) share it: the file must not exist yet (a run never
overwrites), and it is a context manager. The run directory (``NAME.partial`` renamed at the end)
makes the set of files atomic.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from navsense.errors import NavsenseError

__all__ = ["AppendFile"]


class AppendFile:
    """``with AppendFile(path) as f: f.append(data)``; ``path`` must not exist yet."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file: BinaryIO | None = None

    def __enter__(self):
        self._file = open(self.path, "xb")
        return self

    def append(self, data: bytes) -> None:
        if self._file is None:
            raise NavsenseError(f"{self.path}: append() outside the with block")
        self._file.write(data)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __exit__(self, *exc) -> None:
        self.close()
