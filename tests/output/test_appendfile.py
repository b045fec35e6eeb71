"""AppendFile and write_sliced: the bytes written in slices are the bytes given, in order."""

from __future__ import annotations

import numpy as np
import pytest

from navsense.output import appendfile
from navsense.output.appendfile import AppendFile, write_sliced


class _Calls:
    """A file that records each write's length and the bytes."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.data = bytearray()

    def write(self, b) -> int:
        self.sizes.append(len(b))
        self.data += bytes(b)
        return len(b)


def test_a_large_block_is_written_in_slices_of_the_same_bytes(monkeypatch):
    monkeypatch.setattr(appendfile, "WRITE_SLICE_BYTES", 1000)
    data = bytes(range(256)) * 10  # 2560 bytes
    f = _Calls()
    write_sliced(f, data)
    assert f.sizes == [1000, 1000, 560]
    assert bytes(f.data) == data


@pytest.mark.parametrize("shape", [(0, 40), (3, 40), (700, 40), (5000,)])
def test_an_arrays_bytes_are_written_as_tobytes_gives_them(shape, monkeypatch):
    monkeypatch.setattr(appendfile, "WRITE_SLICE_BYTES", 4096)
    a = np.arange(int(np.prod(shape)), dtype="<f8").reshape(shape) * 0.1
    f = _Calls()
    write_sliced(f, a)
    assert bytes(f.data) == a.tobytes()
    assert all(0 < n <= 4096 for n in f.sizes)


def test_append_file_holds_every_block_in_order(tmp_path):
    blocks = [b"a" * (3 << 20) + b"b", b"", b"cd" * 70_000]
    with AppendFile(tmp_path / "x.jsonl") as f:
        for b in blocks:
            f.append(b)
    assert (tmp_path / "x.jsonl").read_bytes() == b"".join(blocks)
