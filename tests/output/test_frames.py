"""Tests of the INS frame writer and reader (40 little-endian float64 per epoch, EInsField order)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from navsense.errors import FormatError
from navsense.output.frames import (
    INS_FIELD_COUNT,
    INS_FIELD_INDEX,
    INS_FIELDS,
    INS_FRAME_BYTES,
    InsFrameWriter,
    pack_ins_frame,
    read_ins_frames,
    unpack_ins_frame,
)

# CoreSimIns.h, EInsField, in order (copied from the specification, not from the module)
EINS_FIELD = [
    "InsUtmE",
    "InsUtmN",
    "InsUtmH",
    "InsUtmQx",
    "InsUtmQy",
    "InsUtmQz",
    "InsUtmQw",
    "InsVelX",
    "InsVelY",
    "InsVelZ",
    "InsGyroX",
    "InsGyroY",
    "InsGyroZ",
    "InsAccelX",
    "InsAccelY",
    "InsAccelZ",
    "InsLat",
    "InsLon",
    "InsHeight",
    "InsCovE",
    "InsCovN",
    "InsCovU",
    "InsEnuQx",
    "InsEnuQy",
    "InsEnuQz",
    "InsEnuQw",
    "InsEnuX",
    "InsEnuY",
    "InsEnuZ",
    "InsFixStatus",
    "InsGridRotationDeg",
    "InsUtmZone",
    "InsTruthX",
    "InsTruthY",
    "InsTruthZ",
    "InsTruthQx",
    "InsTruthQy",
    "InsTruthQz",
    "InsTruthQw",
    "InsTruthSpeed",
]


def test_layout_is_einsfield():
    assert tuple(EINS_FIELD) == INS_FIELDS
    assert INS_FIELD_COUNT == 40 and INS_FRAME_BYTES == 320
    assert INS_FIELD_INDEX["InsFixStatus"] == 29 and INS_FIELD_INDEX["InsTruthSpeed"] == 39


def test_round_trip_little_endian(tmp_path):
    rng = np.random.default_rng(7)
    frames = rng.normal(size=(25, 40)) * 1e6
    frames[3, 5] = -0.0
    variances = [INS_FIELD_INDEX[name] for name in ("InsCovE", "InsCovN", "InsCovU")]
    frames[:, variances] = np.abs(frames[:, variances])  # the reader refuses a negative variance
    path = tmp_path / "ins.frames"
    with InsFrameWriter(path) as w:
        w.write(frames[:10])
        w.write(frames[10])  # a single frame (40,)
        w.write(frames[11:])
        w.write(np.zeros((0, 40)))
    assert w.frames_written == 25
    data = path.read_bytes()
    assert len(data) == 25 * 320
    # little-endian float64, independent of numpy
    assert struct.unpack_from("<40d", data, 320) == tuple(frames[1])
    back = read_ins_frames(path)
    assert back.dtype == np.float64 and back.shape == (25, 40)
    assert back.tobytes() == frames.tobytes()
    assert unpack_ins_frame(pack_ins_frame(frames[4])) == tuple(frames[4])


def test_failed_write_leaves_no_file(tmp_path):
    path = tmp_path / "ins.frames"
    with pytest.raises(RuntimeError):
        with InsFrameWriter(path) as w:
            w.write(np.ones((2, 40)))
            raise RuntimeError("crash")
    assert list(tmp_path.iterdir()) == []


def test_refuses_to_overwrite_and_bad_shapes(tmp_path):
    path = tmp_path / "ins.frames"
    path.write_bytes(b"")
    with pytest.raises(FormatError, match="exists"):
        with InsFrameWriter(path):
            pass
    with InsFrameWriter(path, overwrite=True) as w:
        with pytest.raises(FormatError, match=r"\(\.\.\., 40\)"):
            w.write(np.ones((2, 39)))
        w.write(np.ones(40))
    assert read_ins_frames(path).shape == (1, 40)


def test_truncated_file_is_a_format_error(tmp_path):
    path = tmp_path / "ins.frames"
    path.write_bytes(b"\0" * 321)
    with pytest.raises(FormatError, match="321 bytes"):
        read_ins_frames(path)
    with pytest.raises(FormatError):
        unpack_ins_frame(b"\0" * 8)
