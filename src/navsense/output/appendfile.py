"""A file of a run directory that is created new and appended to in blocks.

The writers of line formats (JSON Lines, NMEA) share it: the file must not exist yet (a run never
overwrites), and it is a context manager. The run directory (``NAME.partial`` renamed at the end)
makes the set of files atomic.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from navsense.errors import NavsenseError

__all__ = ["AppendFile", "write_sliced", "WRITE_SLICE_BYTES"]

#: The largest single write(2) of a run's files. A chunk's rows (an INS hour in JSON Lines is
#: some 10 MB a chunk) written in one call cost the kernel up to eight times the CPU of the same
#: bytes in 1 MiB calls on ext4 (300 MB: 0.06 to 0.48 s against 0.05 to 0.055 s, measured
#: alternating, 2-core VM); the file's bytes are the same.
WRITE_SLICE_BYTES = 1 << 20


def write_sliced(file: BinaryIO, data) -> None:
    """Write the bytes-like ``data`` to ``file`` in calls of at most WRITE_SLICE_BYTES (no copy:
    slices of one memoryview)."""
    view = memoryview(data)
    if not view.nbytes:
        return
    if view.ndim != 1 or view.format != "B":
        view = view.cast("B")  # a C-contiguous array's bytes
    for start in range(0, len(view), WRITE_SLICE_BYTES):
        file.write(view[start : start + WRITE_SLICE_BYTES])


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
        write_sliced(self._file, data)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __exit__(self, *exc) -> None:
        self.close()
